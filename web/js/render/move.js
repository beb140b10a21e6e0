// "Move to another phone" (R18.5): the buttons of the room's menu (your own seat;
// the host also has one per away seat, R17.2) and the dialog that shows the move
// code as a QR code and a link, with the time left. The taps are moving.js's.

import { h } from '../dom.js';
import { t } from '../i18n.js';
import { qrModule } from '../lazy.js';
import { publicBase } from './lobby.js';
import { nameOf, playerName } from './parts.js';

/** The link another phone opens to take the seat: the code in the fragment, which
 * browsers never send to a server. */
export const moveLink = (base, code, moveCode) => `${base}/r/${code}#move=${moveCode}`;

/** The menu's buttons: move this seat; for the host, move each away seat. */
export function moveButtons(ctx) {
  const { S, act } = ctx;
  const v = S.view;
  if (S.screen !== 'room' || !v) return [];
  const away = v.host === v.you ? v.players.filter((p) => p.away && !p.is_bot && p.id !== v.you) : [];
  return [
    h('button', {
      key: 'move-own', type: 'button', class: 'btn', 'data-testid': 'menu-move-seat',
      onclick: () => act.askMove(null),
    }, t('moveSeat.button')),
    ...away.map((p) => h('button', {
      key: `move-${p.id}`, type: 'button', class: 'btn', 'data-testid': `menu-move-seat-${p.id}`,
      onclick: () => act.askMove(p.id),
    }, t('moveSeat.seatButton', { name: playerName(p) }))),
  ];
}

/** The dialog with the code, while `S.move` is open for this room. */
export function moveDialog(ctx) {
  const { S, act, now } = ctx;
  const m = S.move;
  const v = S.view;
  if (!m || !v || m.code !== S.code) return null;
  const whose = m.player ? nameOf(v, m.player) : null;
  const parts = [
    h('h2', { id: 'move-title' }, whose ? t('moveSeat.seatTitle', { name: whose }) : t('moveSeat.title')),
    h('p', { id: 'move-how' }, whose ? t('moveSeat.hostHow', { name: whose }) : t('moveSeat.how')),
  ];
  if (m.loading) {
    parts.push(h('p', { class: 'center-msg', role: 'status' }, t('app.loading')));
  } else {
    const link = moveLink(publicBase(), m.code, m.moveCode);
    const left = Math.max(0, Math.ceil((m.expiresAt - now) / 1000));
    if (left > 0) {
      const qr = qrModule();
      parts.push(
        h('div', { class: 'qr move-qr', 'data-testid': 'move-qr' },
          qr ? qr.qrSvg(link, t('moveSeat.qr')) : null),
        h('p', { class: 'link move-link', dir: 'ltr', 'data-testid': 'move-link' }, link),
        h('p', { class: 'move-left', role: 'timer', 'data-testid': 'move-left', 'data-left': left },
          t('moveSeat.left', { count: left })),
        h('button', { type: 'button', class: 'btn wide', 'data-testid': 'move-copy',
          onclick: () => act.copyMoveLink(link) }, t('moveSeat.copy')));
    } else {
      parts.push(
        h('p', { role: 'status', 'data-testid': 'move-expired' }, t('moveSeat.expired')),
        h('button', { type: 'button', class: 'btn wide', 'data-testid': 'move-again',
          onclick: () => act.askMove(m.player) }, t('moveSeat.again')));
    }
  }
  return h('section', {
    class: 'panel confirm move-dialog', role: 'dialog', 'aria-labelledby': 'move-title',
    'aria-describedby': 'move-how', 'data-testid': 'move-dialog',
  }, ...parts,
  h('div', { class: 'row' },
    h('button', { type: 'button', class: 'btn', 'data-testid': 'move-close', onclick: act.closeMove },
      t('settings.close'))));
}
