// Screens as h() trees, built from the client state on every change and on a
// short tick (timers), then patched into the page (dom.js keeps the nodes).

import { h } from './dom.js';
import { t, LANGUAGES, language } from './i18n.js';
import { SLOTS, short, cardName, isRed, rank, suitGlyph } from './cards.js';
import { canDraw, canDrawDiscard, canCrisp, playerById } from './state.js';
import { qrSvg } from './qr.js';
import { slotKey } from './events.js';

/**
 * The whole page. `ctx` is everything a screen needs:
 * {S: the state, now: server clock (ms), local: Date.now(), act: the tap handlers}.
 */
export function app(ctx) {
  const { S } = ctx;
  return [
    header(ctx),
    S.menuOpen ? settingsPanel(ctx) : null,
    inTable(S) ? null : offlineStrip(S),
    h('main', { id: 'main', class: `screen screen-${screenName(S)}` }, screen(ctx)),
    overlays(ctx),
  ];
}

function inTable(S) {
  return S.screen === 'room' && !!S.view && (S.view.status === 'peek' || S.view.status === 'playing');
}

/** Shown while a room's connection is being re-established (the seat is kept). */
function offlineStrip(S) {
  if (S.screen !== 'room' || !S.view || (S.conn !== 'reconnecting' && S.conn !== 'connecting')) return null;
  return h('p', { class: 'offline-strip', role: 'status', 'data-testid': 'reconnecting' }, t('conn.reconnectingLong'));
}

function screenName(S) {
  if (S.screen !== 'room') return S.screen;
  return S.view ? S.view.status : 'connecting';
}

// ---------------------------------------------------------------- header

function header(ctx) {
  const { S, act } = ctx;
  const inRoom = S.screen === 'room';
  return h('header', { class: 'topbar' },
    h('a', { class: 'brand', href: '/', 'aria-label': t('app.home') }, h('span', { class: 'logo', 'aria-hidden': 'true' }, '◆'), 'Crisp'),
    inRoom ? connStatus(S) : h('span', { class: 'spacer' }),
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
      class: 'icon-btn', type: 'button', 'aria-label': t('settings.title'),
      'aria-expanded': S.menuOpen ? 'true' : 'false', 'aria-controls': 'settings',
      'data-testid': 'settings-button', onclick: act.toggleMenu,
    }, h('span', { 'aria-hidden': 'true' }, '⚙')),
  );
}

function connStatus(S) {
  const state = S.conn;
  const icon = { open: '●', connecting: '◌', reconnecting: '↻', replaced: '⊘', idle: '◌' }[state] || '◌';
  return h('span', {
    class: `conn conn-${state}`, 'data-testid': 'connection-status', 'data-state': state,
    role: 'status', 'aria-live': 'polite',
  }, h('span', { class: 'conn-icon', 'aria-hidden': 'true' }, icon), t(`conn.${state}`));
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
    h('button', { type: 'button', class: 'btn', onclick: act.toggleMenu }, t('settings.close')));
}

// ---------------------------------------------------------------- screens

function screen(ctx) {
  const { S } = ctx;
  if (S.screen === 'loading') return h('p', { class: 'center-msg' }, t('app.loading'));
  if (S.screen === 'home') return home(ctx);
  const v = S.view;
  if (S.conn === 'replaced') return replaced(ctx);
  if (!v) return h('p', { class: 'center-msg' }, t('conn.connecting'));
  switch (v.status) {
    case 'lobby': return lobby(ctx);
    case 'peek':
    case 'playing': return table(ctx);
    default: return results(ctx);
  }
}

function replaced(ctx) {
  return h('section', { class: 'panel center-msg' },
    h('p', null, t('conn.replacedLong')),
    h('button', { type: 'button', class: 'btn primary', 'data-testid': 'use-here', onclick: ctx.act.useHere }, t('conn.useHere')));
}

function home(ctx) {
  const { S, act } = ctx;
  const info = S.homeInfo;
  let infoLine = null;
  if (S.homeError) infoLine = h('p', { class: 'note warn', role: 'alert' }, S.homeError);
  else if (info) {
    infoLine = h('p', { class: 'note' }, info.status === 'lobby'
      ? t('home.roomInfo', { code: info.code, count: info.players.length, names: info.players.map((p) => p.name).join(', ') })
      : t('home.started', { code: info.code }));
  }
  return h('div', { class: 'home' },
    h('section', { class: 'hero' },
      h('h1', null, 'Crisp'),
      h('p', { class: 'tagline' }, t('app.tagline'))),
    S.lastRoom && S.lastRoom !== S.homeCode
      ? h('button', { type: 'button', class: 'btn wide', onclick: () => act.rejoin(S.lastRoom) }, t('home.back', { code: S.lastRoom }))
      : null,
    homeForm(ctx, infoLine));
}

function homeForm(ctx, infoLine) {
  const { S, act } = ctx;
  const invited = !!S.homeCode; // arrived by a shared link: joining comes first
  const create = h('button', {
    type: 'button', class: `btn wide ${invited ? '' : 'primary'}`, 'data-testid': 'create-room',
    disabled: S.busy, onclick: act.create,
  }, t('home.create'));
  const join = [
    h('label', { for: 'code' }, t('home.code')),
    h('div', { class: 'row' },
      h('input', {
        id: 'code', 'data-testid': 'room-code-input', type: 'text', maxlength: 8, class: 'code-input',
        autocapitalize: 'characters', autocomplete: 'off', spellcheck: 'false', initValue: S.homeCode,
        placeholder: 'K7QX', dir: 'ltr', enterkeyhint: 'go', oninput: act.codeTyped,
      }),
      h('button', { type: 'submit', class: 'btn primary', 'data-testid': 'join-room', disabled: S.busy }, t('home.join'))),
    infoLine,
  ];
  return h('form', { class: 'panel form', onsubmit: (e) => { e.preventDefault(); act.submitHome(); }, novalidate: true },
    h('label', { for: 'name' }, t('home.name')),
    h('input', {
      id: 'name', 'data-testid': 'name-input', type: 'text', maxlength: 20, autocomplete: 'nickname',
      required: true, initValue: S.homeName, placeholder: t('home.namePlaceholder'), enterkeyhint: 'go',
    }),
    invited ? join : create,
    h('p', { class: 'or' }, h('span', null, invited ? t('home.orCreate') : t('home.or'))),
    invited ? create : join);
}

// ---------------------------------------------------------------- lobby

function lobby(ctx) {
  const { S, act } = ctx;
  const v = S.view;
  const isHost = v.host === v.you;
  const link = `${location.origin}/r/${v.code}`;
  const canShare = typeof navigator.share === 'function';
  const hostName = (playerById(v, v.host) || {}).name || '';
  return h('div', { class: 'lobby' },
    h('section', { class: 'panel room' },
      h('div', { class: 'room-info' },
        h('p', { class: 'label' }, t('lobby.code')),
        h('p', { class: 'code', 'data-testid': 'room-code', dir: 'ltr' }, v.code),
        h('p', { class: 'link', dir: 'ltr' }, link.replace(/^https?:\/\//, '')),
        h('button', {
          type: 'button', class: 'btn wide', 'data-testid': 'share-link', onclick: () => act.share(link),
        }, canShare ? t('lobby.share') : t('lobby.copy'))),
      h('div', { class: 'qr', 'data-testid': 'qr' }, qrSvg(link, t('lobby.qr', { code: v.code })))),
    h('section', { class: 'panel' },
      h('h2', null, t('lobby.players', { count: v.players.length })),
      h('ul', { class: 'players', 'data-testid': 'player-list' },
        v.players.map((p) => h('li', {
          key: p.id, class: `player ${p.connected ? 'on' : 'off'} ${flash(ctx, `seat:${p.id}`)}`,
          'data-testid': `player-${p.id}`, 'data-connected': p.connected ? 'true' : 'false',
        },
        h('span', { class: 'dot', 'aria-hidden': 'true' }, p.connected ? '●' : '○'),
        h('span', { class: 'pname' }, p.name),
        p.id === v.host ? h('span', { class: 'tag' }, t('lobby.host')) : null,
        p.id === v.you ? h('span', { class: 'tag' }, t('lobby.you')) : null,
        h('span', { class: 'presence' }, p.connected ? t('lobby.online') : t('lobby.offline')),
        isHost && p.id !== v.you ? h('button', {
          type: 'button', class: 'btn small', 'data-testid': `kick-${p.id}`,
          'aria-label': t('lobby.kickLabel', { name: p.name }), onclick: () => act.kick(p.id),
        }, t('lobby.kick')) : null)))),
    optionsPanel(ctx, isHost),
    isHost
      ? h('button', {
        type: 'button', class: 'btn primary wide big', 'data-testid': 'start-game',
        disabled: v.players.length < 2 || pending(ctx), onclick: act.start,
      }, v.players.length < 2 ? t('lobby.needTwo') : t('lobby.start'))
      : h('p', { class: 'note center' }, t('lobby.waitHost', { name: hostName })));
}

function optionsPanel(ctx, isHost) {
  const { S, act } = ctx;
  const o = { ...S.view.options, ...(S.optionsDraft || {}) };
  const dis = !isHost || S.conn !== 'open';
  const ds = o.draw_seconds == null ? 'none' : String(o.draw_seconds);
  return h('section', { class: `panel options ${flash(ctx, 'options')}`, 'aria-label': t('lobby.options') },
    h('h2', null, t('lobby.options')),
    h('label', { class: 'field' },
      h('span', null, t('opt.limit')),
      h('select', {
        'data-testid': 'option-limit', disabled: dis, value: String(o.limit),
        onchange: (e) => act.setOption({ limit: Number(e.target.value) }),
      }, [50, 100, 150].map((n) => h('option', { key: n, value: String(n), selected: o.limit === n }, t('opt.limitValue', { n }))))),
    h('label', { class: 'field' },
      h('span', null, t('opt.drawSeconds')),
      h('select', {
        'data-testid': 'option-draw-seconds', disabled: dis, value: ds,
        onchange: (e) => act.setOption({ draw_seconds: e.target.value === 'none' ? null : Number(e.target.value) }),
      }, ['30', '45', '60', 'none'].map((s) => h('option', { key: s, value: s, selected: s === ds },
        s === 'none' ? t('opt.noLimit') : t('opt.secondsValue', { n: s }))))),
    h('label', { class: 'check' },
      h('input', {
        type: 'checkbox', 'data-testid': 'option-discard-draw', disabled: dis, checked: !!o.discard_draw,
        onchange: (e) => act.setOption({ discard_draw: e.target.checked }),
      }),
      t('opt.discardDraw')),
    isHost ? null : h('p', { class: 'note' }, t('lobby.hostSets')));
}

// ---------------------------------------------------------------- the table

/** Taps wait: for the answer to the last action, or for the connection to come back. */
function pending(ctx) {
  return ctx.local < ctx.S.pending || ctx.S.conn !== 'open';
}

function flash(ctx, key) {
  const until = ctx.S.flashes[key];
  return until && until > ctx.local ? 'flash' : '';
}

function nameOf(v, id) {
  const p = playerById(v, id);
  return p ? p.name : '?';
}

/** Opponents in clockwise order, starting after this player (R3.1). */
function opponents(v) {
  const seated = [...v.players].sort((a, b) => a.seat - b.seat);
  const i = seated.findIndex((p) => p.id === v.you);
  return [...seated.slice(i + 1), ...seated.slice(0, Math.max(i, 0))];
}

function cardContent(card) {
  if (!card) return [h('span', { class: 'back', 'aria-hidden': 'true' })];
  return [
    h('span', { class: 'rank', 'aria-hidden': 'true' }, rank(card)),
    h('span', { class: 'suit', 'aria-hidden': 'true' }, suitGlyph(card)),
  ];
}

function cardClass(card, extra = '') {
  return `card ${card ? `up ${isRed(card) ? 'red' : 'black'}` : 'down'} ${extra}`;
}

function table(ctx) {
  const { S } = ctx;
  const v = S.view;
  const peekPhase = v.status === 'peek';
  return h('div', { class: 'table' },
    h('div', { class: 'sticky-top' }, offlineStrip(S), statusBar(ctx), crispInfo(ctx)),
    h('section', { class: 'opponents', 'aria-label': t('table.opponents') }, opponents(v).map((p) => seat(ctx, p))),
    center(ctx),
    hintLine(ctx),
    mine(ctx),
    h('div', { class: 'dock' },
      peekPhase ? readyBar(ctx) : actionBar(ctx),
      peekPhase ? null : crispButton(ctx)),
    scoreStrip(ctx),
    logPanel(ctx));
}

function statusBar(ctx) {
  const { S, now } = ctx;
  const v = S.view;
  const turn = v.turn;
  let text;
  let mine = false;
  if (v.status === 'peek') text = t('turn.peek');
  else if (turn) {
    mine = turn.player === v.you;
    text = mine ? t('turn.you') : t('turn.someone', { name: nameOf(v, turn.player) });
    if (turn.final) text += ` · ${t('turn.final')}`;
    if (turn.extra_draws > 0) text += ` · ${t('turn.extra', { count: turn.extra_draws })}`;
  } else text = '';
  return h('section', { class: 'statusbar' },
    h('p', { class: `turn ${mine ? 'turn-mine' : ''}`, 'data-testid': 'turn-indicator', 'aria-live': 'polite',
      'data-player': turn ? turn.player : '' },
    h('span', { class: 'turn-icon', 'aria-hidden': 'true' }, mine ? '★' : '▶'), text),
    drawTimer(v, now));
}

function clockText(ms) {
  const secs = Math.ceil(Math.max(0, ms) / 1000);
  return { secs, text: `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, '0')}` };
}

function drawTimer(v, now) {
  const turn = v.turn;
  let text = '–';
  let label = t('timer.label');
  let low = false;
  if (turn && turn.draw_deadline) {
    const c = clockText(turn.draw_deadline - now);
    text = c.text;
    label = t('timer.left', { count: c.secs });
    low = c.secs <= 10;
  } else if (turn) {
    text = '∞';
    label = t('timer.none');
  } else if (v.status === 'peek' && v.peek_ends_at) {
    // protocol addition: when the peek phase ends (R16.2)
    const c = clockText(v.peek_ends_at - now);
    text = c.text;
    label = t('timer.peek', { count: c.secs });
  }
  return h('div', { class: `timer ${low ? 'low' : ''}`, 'data-testid': 'draw-timer', role: 'timer', 'aria-label': label, title: label },
    h('span', { class: 'timer-text' }, text));
}

function crispInfo(ctx) {
  const v = ctx.S.view;
  const c = v.crisp;
  if (!c || !c.caller) return null;
  const left = (c.final_turns_left || []).length;
  return h('p', { class: `crispinfo ${flash(ctx, 'crisp')}`, 'data-testid': 'crisp-info', role: 'status' },
    h('strong', null, c.caller === v.you ? t('crisp.calledYou') : t('crisp.called', { name: nameOf(v, c.caller) })),
    ' · ',
    t('crisp.finals', { count: left }));
}

function seat(ctx, p) {
  const { S, act } = ctx;
  const v = S.view;
  const turn = v.turn && v.turn.player === p.id;
  const dealer = v.dealer === p.id;
  const caller = v.crisp && v.crisp.caller === p.id;
  const choosing = !!S.queen && !pending(ctx);
  const tags = [];
  // The dealer matters for who starts: shown while the cards are dealt and looked at.
  if (dealer && v.status === 'peek') tags.push(h('span', { class: 'tag', title: t('seat.dealer') }, t('seat.dealerShort')));
  if (caller) tags.push(h('span', { class: 'tag tag-crisp' }, t('seat.crisp')));
  if (!p.connected) tags.push(h('span', { class: 'tag tag-off' }, `⚠ ${t('lobby.offline')}`));
  if (v.status === 'peek' && p.ready) tags.push(h('span', { class: 'tag tag-ready' }, `✓ ${t('seat.ready')}`));
  return h('div', {
    key: p.id, class: `seat ${turn ? 'seat-turn' : ''} ${p.connected ? '' : 'seat-off'} ${flash(ctx, `seat:${p.id}`)}`,
    'data-testid': `seat-${p.id}`, 'data-connected': p.connected ? 'true' : 'false',
  },
  h('div', { class: 'seat-head' },
    h('div', { class: 'seat-line' },
      turn ? h('span', { class: 'turn-mark', title: t('seat.turn'), 'aria-label': t('seat.turn') }, '▶') : null,
      h('span', { class: 'seat-name' }, p.name),
      h('span', { class: 'seat-total', 'aria-label': t('seat.totalLabel', { count: p.total }) }, String(p.total))),
    tags.length ? h('div', { class: 'tags' }, tags) : null),
  h('div', { class: 'cards small', dir: 'ltr' }, SLOTS.map((slot) => {
    const picked = S.queen && S.queen.target && S.queen.target.player === p.id && S.queen.target.slot === slot;
    return h('button', {
      key: slot, type: 'button',
      class: cardClass(null, `${picked ? 'picked' : ''} ${choosing ? 'choosable' : ''} ${flash(ctx, slotKey(p.id, slot))}`),
      'data-testid': `seat-${p.id}-slot-${slot}`,
      'aria-label': t('seat.cardLabel', { name: p.name, slot: t(`slot.${slot}`) }),
      'aria-pressed': S.queen ? (picked ? 'true' : 'false') : null,
      disabled: !choosing,
      onclick: () => act.tapSeatSlot(p.id, slot),
    }, cardContent(null));
  })));
}

function center(ctx) {
  const { S, now, act } = ctx;
  const v = S.view;
  const busy = pending(ctx) || !!S.queen;
  const drawOk = !busy && canDraw(v, now);
  const discardOk = !busy && canDrawDiscard(v, now);
  const turn = v.turn;
  let holding;
  if (v.holding) {
    holding = h('div', {
      class: cardClass(v.holding, `big holding ${flash(ctx, 'holding')}`), 'data-testid': 'holding',
      'data-card': v.holding, role: 'img',
      'aria-label': t('holding.yours', { card: cardName(v.holding) }),
    }, cardContent(v.holding));
  } else if (turn && turn.drawn_from && turn.player !== v.you) {
    // A card taken from the discard pile is public (R16.4); one from the stock is not.
    const seen = turn.drawn_from === 'discard' && S.publicHolding && S.publicHolding.player === turn.player
      ? S.publicHolding.card : null;
    holding = h('div', {
      class: cardClass(seen, `big holding ${flash(ctx, 'holding')}`), 'data-testid': 'holding', role: 'img',
      'data-card': seen || '',
      'aria-label': t('holding.someone', { name: nameOf(v, turn.player) }) + (seen ? `: ${cardName(seen)}` : ''),
    }, cardContent(seen));
  } else {
    holding = h('div', { class: 'card big empty holding', 'data-testid': 'holding', role: 'img', 'aria-label': t('holding.none') });
  }
  let holdCaption = t('holding.title');
  if (v.holding) holdCaption = t('holding.yourCaption');
  else if (turn && turn.drawn_from && turn.player !== v.you) holdCaption = t('holding.otherCaption', { name: nameOf(v, turn.player) });
  return h('section', { class: 'piles', 'aria-label': t('table.center') },
    h('div', { class: 'pile' },
      h('button', {
        type: 'button', class: cardClass(null, `big stock ${drawOk ? 'can' : ''} ${flash(ctx, 'stock')}`),
        'data-testid': 'stock', 'data-count': v.stock_count, disabled: !drawOk, onclick: act.drawStock,
        'aria-label': t('stock.label', { count: v.stock_count }) + (drawOk ? ` — ${t('stock.tap')}` : ''),
      }, cardContent(null), h('span', { class: 'count', 'aria-hidden': 'true' }, String(v.stock_count))),
      h('span', { class: 'caption' }, t('stock.title'))),
    h('div', { class: 'pile' },
      h('button', {
        type: 'button',
        class: v.discard_top ? cardClass(v.discard_top, `big discard ${discardOk ? 'can' : ''} ${flash(ctx, 'discard')}`)
          : `card big empty discard ${flash(ctx, 'discard')}`,
        'data-testid': 'discard-pile', 'data-card': v.discard_top || '', 'data-count': v.discard_count,
        disabled: !discardOk, onclick: act.drawDiscard,
        'aria-label': (v.discard_top ? t('discard.label', { card: cardName(v.discard_top), count: v.discard_count })
          : t('discard.empty')) + (discardOk ? ` — ${t('discard.tap')}` : ''),
      }, v.discard_top ? cardContent(v.discard_top) : null,
      v.discard_count ? h('span', { class: 'count', 'aria-hidden': 'true' }, String(v.discard_count)) : null),
      h('span', { class: 'caption' }, t('discard.title'))),
    h('div', { class: 'pile' }, holding, h('span', { class: 'caption' }, holdCaption)));
}

function hintText(ctx) {
  const { S, now } = ctx;
  const v = S.view;
  const turn = v.turn;
  const legal = v.legal;
  if (v.status === 'peek') return isReady(S, v) ? t('hint.waitReady') : t('hint.peek');
  if (S.queen) return S.queen.mine ? t('hint.queenTarget') : t('hint.queenMine');
  if (canCrisp(v, now)) return t('hint.crisp');
  if (v.holding) {
    if (legal.includes('king')) return t('hint.king');
    if (legal.includes('jack') || legal.includes('queen')) return t('hint.special');
    if (legal.includes('discard')) return t('hint.swapOrDiscard');
    if (legal.includes('swap')) return t('hint.swapOnly');
  }
  if (turn && turn.player === v.you) {
    if (canDraw(v, now)) return canDrawDiscard(v, now) ? t('hint.drawEither') : t('hint.draw');
    return t('hint.getReady');
  }
  return null;
}

function hintLine(ctx) {
  const { S, act, local } = ctx;
  const peeks = SLOTS.filter((s) => S.peeks[s] && S.peeks[s].until > local);
  if (peeks.length) {
    // What a peek showed, in words too (the card faces show it on the slots).
    return h('div', { class: 'hintline peekline', role: 'status', 'aria-live': 'assertive', 'data-testid': 'peek' },
      h('p', { class: 'hint hint-peek' }, peeks.map((slot, i) => [
        i ? ' · ' : '',
        t('peek.line', { slot: t(`slot.${slot}`) }), ' ',
        h('strong', { class: isRed(S.peeks[slot].card) ? 'red' : '', dir: 'ltr', title: cardName(S.peeks[slot].card) },
          short(S.peeks[slot].card)),
      ])),
      h('button', { type: 'button', class: 'btn small', 'data-testid': 'peek-hide', onclick: act.hidePeeks }, t('peek.hide')));
  }
  const hint = hintText(ctx);
  const last = S.log.length ? S.log[S.log.length - 1].text : '';
  return h('div', { class: 'hintline' },
    h('p', { class: `hint ${hint ? 'hint-action' : ''}`, 'data-testid': 'hint', 'aria-live': 'polite' }, hint || last || ' '),
    S.queen ? h('button', { type: 'button', class: 'btn small', 'data-testid': 'action-cancel', onclick: act.cancelQueen }, t('action.cancel')) : null);
}

function mine(ctx) {
  const { S, act, local } = ctx;
  const v = S.view;
  const me = playerById(v, v.you) || { name: '', total: 0 };
  const busy = pending(ctx);
  const swapOk = !busy && !S.queen && v.legal.includes('swap');
  const choosing = !busy && !!S.queen;
  const myTurn = v.turn && v.turn.player === v.you;
  return h('section', { class: `me ${myTurn ? 'seat-turn' : ''}`, 'aria-label': t('table.yourCards') },
    h('div', { class: 'me-head' },
      h('span', { class: 'seat-name' }, `${me.name} (${t('lobby.you')})`),
      v.dealer === v.you && v.status === 'peek' ? h('span', { class: 'tag', title: t('seat.dealer') }, t('seat.dealerShort')) : null,
      v.crisp && v.crisp.caller === v.you ? h('span', { class: 'tag tag-crisp' }, t('seat.crisp')) : null,
      h('span', { class: 'seat-total', 'aria-label': t('seat.totalLabel', { count: me.total }) }, String(me.total))),
    h('div', { class: 'cards mine', dir: 'ltr' }, SLOTS.map((slot) => {
      const peek = S.peeks[slot] && S.peeks[slot].until > local ? S.peeks[slot] : null;
      const picked = S.queen && S.queen.mine === slot;
      let label = t('my.cardLabel', { slot: t(`slot.${slot}`) });
      if (peek) label += ` — ${cardName(peek.card)}`;
      if (swapOk) label += ` — ${t('my.tapSwap')}`;
      else if (choosing) label += ` — ${t('my.tapQueen')}`;
      return h('div', { key: slot, class: 'slotwrap' },
        h('button', {
          type: 'button',
          class: cardClass(peek ? peek.card : null,
            `big ${peek ? 'peeking' : ''} ${swapOk || choosing ? 'can' : ''} ${picked ? 'picked' : ''} ${flash(ctx, slotKey(v.you, slot))}`),
          'data-testid': `my-slot-${slot}`, 'data-card': peek ? peek.card : '',
          'aria-label': label, 'aria-pressed': S.queen ? (picked ? 'true' : 'false') : null,
          disabled: !(swapOk || choosing), onclick: () => act.tapMySlot(slot),
        }, cardContent(peek ? peek.card : null),
        peek ? h('span', { class: 'peekbar', style: `animation-duration:${Math.max(0, peek.until - peek.from)}ms` }) : null),
        h('span', { class: 'caption' }, t(`slot.${slot}Cap`)));
    })));
}

/** This player has confirmed (players[].ready is a protocol addition; the local flag covers the wait for the answer). */
function isReady(S, v) {
  const me = playerById(v, v.you);
  return S.readyRound === v.round || !!(me && me.ready);
}

function readyBar(ctx) {
  const { S, act } = ctx;
  const v = S.view;
  const done = isReady(S, v);
  return h('section', { class: 'actions ready' },
    h('button', {
      type: 'button', class: 'btn primary wide big', 'data-testid': 'ready-button',
      disabled: done || pending(ctx), onclick: act.ready,
    }, done ? t('peek.waiting') : t('peek.ready')));
}

function actionBar(ctx) {
  const { S, act } = ctx;
  const v = S.view;
  const busy = pending(ctx) || !!S.queen;
  const ok = (type) => !busy && v.legal.includes(type);
  const btn = (type, icon, onclick) => h('button', {
    type: 'button', class: `btn action ${ok(type) ? 'can' : ''} ${S.queen && type === 'queen' ? 'picked' : ''}`,
    'data-testid': `action-${type}`, disabled: !ok(type), onclick,
    'aria-label': t(`action.${type}Label`),
  }, h('span', { class: 'action-icon', 'aria-hidden': 'true' }, icon), h('span', { class: 'action-text' }, t(`action.${type}`)));
  return h('section', { class: 'actions', 'aria-label': t('table.actions') },
    btn('discard', '⤓', act.discard),
    btn('jack', 'J', act.jack),
    btn('queen', 'Q', act.queen),
    btn('king', 'K', act.king));
}

function crispButton(ctx) {
  const { S, now, act } = ctx;
  const v = S.view;
  const ok = canCrisp(v, now) && !pending(ctx);
  const w = v.crisp && v.crisp.window;
  let bar = null;
  let secs = '';
  if (ok && w && w.player === v.you) {
    const total = S.crispWindow && S.crispWindow.closes_at === w.closes_at ? S.crispWindow.total : 3000;
    const left = Math.max(0, w.closes_at - now);
    bar = h('span', { class: 'crispbar', 'aria-hidden': 'true', style: `transform:scaleX(${total ? Math.min(1, left / total) : 0})` });
    secs = (left / 1000).toFixed(1);
  }
  return h('button', {
    type: 'button', class: `btn crisp ${ok ? 'can' : ''}`, 'data-testid': 'crisp-button',
    disabled: !ok, onclick: act.crisp,
    'aria-label': ok ? t('crisp.labelOpen', { secs }) : t('crisp.label'),
  }, bar, h('span', { class: 'crisp-text' }, t('crisp.button')), secs ? h('span', { class: 'crisp-secs' }, `${secs}s`) : null);
}

function scoreStrip(ctx) {
  const v = ctx.S.view;
  const seated = [...v.players].sort((a, b) => a.seat - b.seat);
  return h('section', { class: 'scorestrip', 'data-testid': 'scoreboard', 'aria-label': t('score.title') },
    h('span', { class: 'limit' }, t('score.limit', { n: v.options.limit })),
    seated.map((p) => h('span', { key: p.id, class: `score ${p.id === v.you ? 'you' : ''}`, 'data-player': p.id },
      h('span', { class: 'sname' }, p.name), ' ', h('b', null, String(p.total)))));
}

function logPanel(ctx) {
  const { S } = ctx;
  return h('details', { class: 'log' },
    h('summary', null, t('log.title')),
    h('ol', { 'data-testid': 'log' }, S.log.slice(-30).reverse().map((l) => h('li', { key: l.id }, l.text))));
}

// ---------------------------------------------------------------- round and game end

function results(ctx) {
  const { S, act } = ctx;
  const v = S.view;
  const lr = v.last_round || {};
  const isHost = v.host === v.you;
  const over = v.status === 'game_over';
  const seated = [...v.players].sort((a, b) => a.seat - b.seat);
  const winners = v.winners || [];
  let title = t('round.over', { round: lr.round ?? v.round });
  let winLine = null;
  if (over) {
    title = t('game.over');
    const names = winners.map((id) => nameOf(v, id));
    winLine = h('p', { class: 'winners', 'data-testid': 'winners', role: 'status' },
      h('span', { 'aria-hidden': 'true' }, '★ '),
      names.length > 1 ? t('game.shared', { names: names.join(' & ') })
        : winners[0] === v.you ? t('game.youWin') : t('game.winner', { name: names[0] || '?' }));
  }
  return h('div', { class: 'results' },
    h('h2', null, title),
    winLine,
    lr.caller ? h('p', { class: 'note' }, t('round.caller', { name: nameOf(v, lr.caller) })) : null,
    h('div', { class: 'tablewrap' },
      h('table', { class: 'scores', 'data-testid': 'scoreboard' },
        h('thead', null, h('tr', null,
          h('th', { scope: 'col' }, t('score.player')),
          h('th', { scope: 'col' }, t('score.cards')),
          h('th', { scope: 'col' }, t('score.sum')),
          h('th', { scope: 'col' }, t('score.bonus')),
          h('th', { scope: 'col' }, t('score.total')))),
        h('tbody', null, seated.map((p) => {
          const hand = (lr.hands && lr.hands[p.id]) || p.cards || [];
          const sum = lr.sums ? lr.sums[p.id] : null;
          const score = lr.scores ? lr.scores[p.id] : null;
          const bonus = sum != null && score != null ? score - sum : 0;
          const win = winners.includes(p.id);
          return h('tr', { key: p.id, class: `${p.id === v.you ? 'you' : ''} ${win ? 'win' : ''}`, 'data-player': p.id },
            h('th', { scope: 'row' }, win ? '★ ' : '', p.name,
              lr.caller === p.id ? h('span', { class: 'tag tag-crisp' }, t('seat.crisp')) : null,
              !over && p.ready ? h('span', { class: 'tag tag-ready', title: t('seat.ready') }, '✓') : null),
            h('td', null, h('span', { class: 'minicards', dir: 'ltr' }, hand.map((c, i) => c
              ? h('span', { key: i, class: `mini ${isRed(c) ? 'red' : ''}`, title: cardName(c), 'data-card': c }, short(c))
              : h('span', { key: i, class: 'mini' }, '?')))),
            h('td', { class: 'num', 'data-testid': `sum-${p.id}` }, sum ?? ''),
            h('td', { class: 'num', 'data-testid': `bonus-${p.id}` }, bonus ? (bonus > 0 ? `+${bonus}` : `−${-bonus}`) : ''),
            h('td', { class: 'num total', 'data-testid': `total-${p.id}` }, String(p.total)));
        })))),
    h('p', { class: 'note' }, t('score.limit', { n: v.options.limit })),
    isHost && over
      ? h('button', { type: 'button', class: 'btn primary wide big', 'data-testid': 'rematch', disabled: pending(ctx), onclick: act.rematch }, t('game.rematch'))
      : null,
    isHost && !over
      ? h('button', { type: 'button', class: 'btn primary wide big', 'data-testid': 'next-round', disabled: pending(ctx), onclick: act.nextRound }, t('round.next'))
      : null,
    // R16.5: the next round also starts when every player is ready
    !isHost && !over
      ? h('button', {
        type: 'button', class: 'btn primary wide big', 'data-testid': 'ready-button',
        disabled: isReady(S, v) || pending(ctx), onclick: act.ready,
      }, isReady(S, v) ? t('round.readyDone') : t('round.ready'))
      : null,
    !isHost ? h('p', { class: 'note center' }, over ? t('game.waitHost', { name: nameOf(v, v.host) }) : t('round.waitHost', { name: nameOf(v, v.host) })) : null,
    logPanel(ctx));
}

// ---------------------------------------------------------------- toasts and banners

function overlays(ctx) {
  const { S, local } = ctx;
  const toasts = S.toasts.filter((x) => x.until > local);
  return h('div', { class: 'overlays' },
    S.banner && S.banner.until > local
      ? h('div', { class: `banner ${S.banner.text.length > 24 ? 'long' : ''}`, role: 'status', 'data-testid': 'banner' }, S.banner.text) : null,
    h('div', { class: 'toasts', role: 'alert', 'aria-live': 'assertive', 'data-testid': 'toasts' },
      toasts.map((x) => h('p', { key: x.id, class: 'toast', 'data-testid': 'toast' }, x.text))));
}
