// The page around the screens: the header (home link, connection status,
// language, settings), the settings panel, the reconnecting strip, toasts and
// banners; and which screen shows (home, lobby, or the room's game's own: its
// module's `screen` and `replayScreen`, games.js).

import { h } from '../dom.js';
import { t, text, LANGUAGES, language } from '../i18n.js';
import { Status } from '../protocol.js';
import { atTable } from '../state.js';
import { offlineStrip, noticeText, phoneOffline, gameMissing } from './parts.js';
import { currentNotice } from '../update.js';
import { gameId, gameOf } from '../games.js';
import { home } from './home.js';
import { lobby } from './lobby.js';
import { help } from './help.js';
import { moveButtons, moveDialog } from './move.js';

const SLOW_MS = 250; // R18.4: a measured delay above this shows in the connection status

/** The whole page, as h() trees for patch() (dom.js). */
export function page(ctx) {
  const { S } = ctx;
  const inTable = S.screen === 'room' && atTable(S.view);
  return [
    header(ctx),
    S.menuOpen ? settingsPanel(ctx) : null,
    S.confirmLeave && S.screen === 'room' && S.view ? leaveDialog(ctx) : null,
    S.move && S.screen === 'room' ? moveDialog(ctx) : null, // R18.5
    inTable ? null : offlineStrip(S), // the table has it in its sticky top
    h('main', { id: 'main', class: `screen screen-${S.help ? 'help' : screenName(S)}` }, S.help ? help(ctx) : screen(ctx),
      S.booting ? seatedShell() : null),
    overlays(ctx, inTable && !S.help),
  ];
}

/** In the first screen of a shared link (web/shell/make.mjs): what a seated
 * player sees before the client runs, instead of the join form. The service
 * worker marks such a page (`seated` on <html>, sw.js); the CSS shows this then. */
function seatedShell() {
  return h('p', { class: 'center-msg seated-only', role: 'status' }, t('conn.connecting'));
}

function screenName(S) {
  if (S.screen !== 'room') return S.screen;
  if (S.replay) return 'replay';
  return S.view ? S.view.status : 'connecting';
}

function screen(ctx) {
  const { S } = ctx;
  if (S.screen === 'loading') return h('p', { class: 'center-msg' }, t('app.loading'));
  if (S.screen === 'home') return home(ctx);
  const v = S.view;
  if (S.conn === 'replaced') return replaced(ctx);
  // a seated player's first screen (web/shell/make.mjs `seat`): no form, the seat loading
  if (!v) return h('p', { class: 'center-msg', role: S.booting ? 'status' : null }, t(S.booting ? 'seat.loading' : 'conn.connecting'));
  const game = gameOf(v);
  if (S.replay && game && game.replayScreen) return game.replayScreen(ctx); // R18.2: over the room, which goes on meanwhile
  if (v.status === Status.LOBBY) return lobby(ctx);
  // the game's table and results, once its module is here (routing.js loads it)
  return game ? game.screen(ctx) : gameMissing(gameId(v));
}


/** Another tab or device took this seat (close 4409): offer to take it back. */
function replaced(ctx) {
  return h('section', { class: 'panel center-msg' },
    h('p', null, t('conn.replacedLong')),
    h('button', { type: 'button', class: 'btn primary', 'data-testid': 'use-here', onclick: ctx.act.useHere }, t('conn.useHere')));
}

function header(ctx) {
  const { S, act } = ctx;
  const inRoom = S.screen === 'room';
  return h('header', { class: inRoom ? 'topbar in-room' : 'topbar' },
    h('a', { class: 'brand', href: '/', 'aria-label': t('app.home', { brand: 'Crisp' }) },
      h('span', { class: 'logo', 'aria-hidden': 'true' }, '◆'), h('span', { class: 'brand-text' }, 'Crisp')),
    inRoom ? connStatus(S) : loading(S),
    h('label', { class: 'lang' },
      h('span', { class: 'sr-only' }, t('settings.language')),
      h('select', {
        'data-testid': 'language', value: language(),
        onchange: (e) => act.setLanguage(e.target.value),
        title: t('settings.language'),
      }, LANGUAGES.map((l) => h('option', {
        key: l.code, value: l.code, lang: l.code, selected: l.code === language(), title: l.name, label: l.short,
      }, l.short)))),
    h('button', {
      class: 'icon-btn', type: 'button', 'aria-label': t('help.open'), 'data-testid': 'help-button',
      'aria-pressed': S.help ? 'true' : 'false', onclick: act.toggleHelp,
    }, h('span', { 'aria-hidden': 'true' }, '?')),
    h('button', {
      class: 'icon-btn', type: 'button', 'aria-label': t('settings.title'),
      'aria-expanded': S.menuOpen ? 'true' : 'false', 'aria-controls': 'settings',
      'data-testid': 'settings-button', onclick: act.toggleMenu,
    }, h('span', { 'aria-hidden': 'true' }, '⚙')),
  );
}

/** The page's first screen (web/shell/make.mjs) says it is loading, where the
 * connection status shows in a room; once the client runs, an empty spacer. */
function loading(S) {
  if (!S.booting) return h('span', { class: 'spacer' });
  return h('span', { class: 'conn conn-connecting', role: 'status' },
    h('span', { class: 'conn-icon', 'aria-hidden': 'true' }, '◌'), t('app.loading'));
}

function connStatus(S) {
  const state = S.conn;
  const icon = { open: '●', connecting: '◌', reconnecting: '↻', replaced: '⊘', idle: '◌' }[state] || '◌';
  // R18.4: a slow network says so, with its delay: a tap at the very end of a window may not count
  const lag = S.view && S.view.lag_ms;
  const slow = state === 'open' && typeof lag === 'number' && lag > SLOW_MS ? lag : null;
  return h('span', {
    class: `conn conn-${state}${slow ? ' conn-slow' : ''}`, 'data-testid': 'connection-status',
    'data-state': state, 'data-lag': slow, title: slow ? t('conn.slowLong', { n: slow }) : null,
    role: 'status', 'aria-live': 'polite',
  }, h('span', { class: 'conn-icon', 'aria-hidden': 'true' }, slow ? '◔' : icon),
  h('span', { class: 'conn-text' }, state !== 'open' && phoneOffline() ? t('conn.offline')
    : slow ? t('conn.slow', { n: slow }) : t(`conn.${state}`)));
}

function settingsPanel(ctx) {
  const { S, act } = ctx;
  return h('section', { id: 'settings', class: 'panel settings', 'aria-label': t('settings.title') },
    h('label', { class: 'check' },
      h('input', { type: 'checkbox', checked: S.settings.sound, 'data-testid': 'setting-sound',
        onchange: (e) => act.setSetting('sound', e.target.checked) }),
      t('settings.sound')),
    h('label', { class: 'check' },
      h('input', { type: 'checkbox', checked: S.settings.vibrate, 'data-testid': 'setting-vibrate',
        onchange: (e) => act.setSetting('vibrate', e.target.checked) }),
      t('settings.vibrate')),
    moveButtons(ctx), // R18.5
    S.screen === 'room' && S.view ? h('button', {
      type: 'button', class: 'btn leave', 'data-testid': 'menu-leave-room', onclick: act.askLeave,
    }, t('leave.button')) : null,
    h('button', { type: 'button', class: 'btn', onclick: act.toggleMenu }, t('settings.close')));
}

/** "Leave this room?" (R17.5): in the lobby the seat is freed; in a game the
 * computer plays it to the end and the seat cannot be taken back; a host's role
 * passes on (R17.4). */
function leaveDialog(ctx) {
  const { S, act } = ctx;
  const v = S.view;
  const humans = v.players.filter((p) => !p.is_bot && p.id !== v.you);
  return h('section', {
    class: 'panel confirm', role: 'alertdialog', 'aria-labelledby': 'leave-title', 'aria-describedby': 'leave-what',
    'data-testid': 'leave-dialog',
  },
  h('h2', { id: 'leave-title' }, t('leave.title')),
  h('p', { id: 'leave-what' }, t(v.status === Status.LOBBY ? 'leave.lobby' : 'leave.game'),
    v.host === v.you && humans.length ? ` ${t('leave.host')}` : ''),
  h('div', { class: 'row' },
    h('button', { type: 'button', class: 'btn', 'data-testid': 'leave-cancel', onclick: act.cancelLeave }, t('leave.cancel')),
    h('button', { type: 'button', class: 'btn danger', 'data-testid': 'leave-confirm', onclick: act.leave }, t('leave.confirm'))));
}

/** Toasts (errors and notes) and notices (update.js: the new host, the game's
 * own, ...), away from the table: at the table they are in its notice
 * line, which covers nothing (`atTable`). Here they show at the bottom of the
 * screen, where they cover no heading, code or QR code. */
function overlays(ctx, atTable) {
  const { S, local } = ctx;
  const toasts = atTable ? [] : S.toasts.filter((x) => x.until > local);
  const notice = atTable ? null : currentNotice(S, local);
  const said = notice ? noticeText(S, notice) : '';
  return h('div', { class: 'overlays' },
    notice
      ? h('div', {
        class: `banner ${said.length > 24 ? 'long' : ''}`, role: 'status', 'data-testid': 'banner',
        'data-notice': notice.id, 'data-kind': notice.ev.kind,
      }, said) : null,
    h('div', { class: 'toasts', role: 'alert', 'aria-live': 'assertive', 'data-testid': 'toasts' },
      toasts.map((x) => h('p', { key: x.id, class: 'toast', 'data-testid': 'toast' }, text(x.msg)))));
}
