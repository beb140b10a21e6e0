// The board drawn (an SVG, always left to right like the wooden one): for each
// street of 30 or 40 holes, one lane per side; each side's two pegs, the back
// one at `peg_from`, the front one at `score`; when a side scores, the back peg
// jumps over the front one to the new score (a CSS transition on its
// transform; none under prefers-reduced-motion). The score of each side is
// written beside its colour, and the skunk lines cross the lanes.

import { h } from '../../dom.js';
import { t } from '../../i18n.js';
import { nameEl, num, playerName } from '../../render/parts.js';
import { streets, holeOf, colX, skunkLines, leapfrog } from './board.js';

const W = 340; // the drawing's width (it scales to the screen)
const LANE = 12; // a lane's height
const GAP = 8; // between streets

/** The pegs as last drawn, by side, so that the one that moves is the back one. */
const pegMemo = new Map();

/** The sides of the board: 2 with 2 or 4 players (partners share one), 3 with 3. */
export function sides(v) {
  const out = [];
  for (const p of [...v.players].sort((a, b) => a.seat - b.seat)) {
    const side = p.team != null ? p.team : p.seat;
    let s = out.find((x) => x.side === side);
    if (!s) {
      s = { side, score: p.score || 0, from: p.peg_from || 0, players: [] };
      out.push(s);
    }
    s.players.push(p);
  }
  return out;
}

function xy(n, target, laneIndex, laneCount) {
  const { row, col } = holeOf(n, target);
  const x = colX(col, target, W);
  const y = row * (laneCount * LANE + GAP) + laneIndex * LANE + LANE / 2;
  return [x, y];
}

export function board(ctx) {
  const v = ctx.S.view;
  const target = (v.options && v.options.target) || 121;
  const { rows, per } = streets(target);
  const list = sides(v);
  const lanes = list.length;
  const height = rows * (lanes * LANE + GAP) - GAP;
  const holes = [];
  for (let r = 0; r < rows; r++) {
    for (let li = 0; li < lanes; li++) {
      const y = r * (lanes * LANE + GAP) + li * LANE + LANE / 2;
      holes.push(h('rect', { key: `l${r}-${li}`, class: `lane side-${list[li].side}`, x: 0, y: y - LANE / 2 + 0.5, width: W, height: LANE - 1, rx: 2 }));
      for (let c = 0; c < per; c++) holes.push(h('circle', { key: `h${r}-${li}-${c}`, class: 'hole', cx: colX(c, target, W).toFixed(1), cy: y, r: 1.6 }));
    }
  }
  const lines = skunkLines(target, v.options && v.options.skunk).map((line) => {
    const { row, col } = holeOf(line.at, target);
    const x = (colX(col, target, W) + colX(col - 1, target, W)) / 2;
    const y0 = row * (lanes * LANE + GAP);
    return h('g', { key: `sk${line.at}`, class: `skunk ${line.kind}` },
      h('line', { x1: x.toFixed(1), x2: x.toFixed(1), y1: y0 - 2, y2: y0 + lanes * LANE + 2 }),
      h('text', { x: x.toFixed(1), y: y0 - 2.5 }, line.kind === 'double' ? 'SS' : (line.kind === 'lurch' ? 'L' : 'S')));
  });
  const finish = xy(target, target, 0, lanes);
  const pegs = list.flatMap((s, li) => {
    const key = `${v.you || ''}:${target}:${lanes}:${s.side}`;
    const was = pegMemo.get(key);
    const pos = leapfrog(was && s.score >= Math.max(was.a, was.b) ? was : null, s.score, s.from);
    pegMemo.set(key, { a: pos.a, b: pos.b });
    return ['a', 'b'].map((id) => {
      const [x, y] = xy(pos[id], target, li, lanes);
      const front = pos[id] === s.score && (pos.a !== pos.b || id === 'b');
      return h('circle', {
        key: `peg-${s.side}-${id}`,
        class: `peg side-${s.side} ${front ? 'front' : 'rear'} ${pos.moved === id ? 'moved' : ''}`,
        'data-testid': `peg-${s.side}-${front ? 'front' : 'rear'}`,
        'data-hole': pos[id],
        cx: 0, cy: 0, r: 4.4,
        style: `transform: translate(${x.toFixed(1)}px, ${y.toFixed(1)}px)`,
      });
    });
  });
  return h('section', { class: 'cb-board', 'data-testid': 'cb-board', 'aria-label': t('game.cribbage.board', { target }) },
    h('svg', { viewBox: `-2 -8 ${W + 4} ${height + 10}`, class: 'cb-board-svg', role: 'img', 'aria-label': t('game.cribbage.boardAlt', { target }), dir: 'ltr' },
      holes,
      h('circle', { class: 'hole game', cx: finish[0].toFixed(1), cy: (height / 2).toFixed(1), r: 3.4 }),
      lines, pegs),
    h('ul', { class: 'cb-scores', 'data-testid': 'scoreboard' }, list.map((s) => h('li', {
      key: s.side, class: `side-${s.side} ${s.players.some((p) => p.id === v.you) ? 'you' : ''}`, 'data-side': s.side,
    },
    h('span', { class: 'dot', 'aria-hidden': 'true' }),
    h('span', { class: 'cb-side-names' }, s.players.map((p, i) => [i ? ' & ' : null, nameEl(playerName(p))])),
    h('b', { class: 'cb-score', 'data-testid': `score-${s.side}` }, num(s.score)),
    s.score > s.from ? h('span', { class: 'cb-gain' }, num(s.score - s.from, { signed: true })) : null))));
}
