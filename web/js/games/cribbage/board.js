// The board (pure, tested in tests/web/js/cribbage.test.mjs): a track of
// `target` holes per side laid out in streets of 30 (61) or 40 (121) holes,
// two pegs per side that leapfrog (the back peg is `peg_from`), and the skunk
// lines of C8.2 (3/4 and 1/2 of the target: 91 and 61 of 121, 46 and 31 of 61).

/** The streets of a board: how many rows and holes per row (the last hole, the
 * target, is the game hole at the end). */
export function streets(target) {
  return target === 61 ? { rows: 2, per: 30 } : { rows: 3, per: 40 };
}

/** Where score `n` (0: the start, before the track; target: the game hole) sits:
 * {row, col} with col 0..per-1 inside a street, in groups of five; the start is
 * {row: 0, col: -1}, the game hole {row: rows - 1, col: per}. */
export function holeOf(n, target) {
  const { rows, per } = streets(target);
  const s = Math.max(0, Math.min(target, n));
  if (s === 0) return { row: 0, col: -1 };
  if (s >= target) return { row: rows - 1, col: per };
  return { row: Math.floor((s - 1) / per), col: (s - 1) % per };
}

/** The x of a column in a board `width` wide (a gap between groups of five). */
export function colX(col, target, width) {
  const { per } = streets(target);
  const groups = per / 5;
  const pitch = width / (per + groups + 2); // per holes, a gap after each group, the start and the end
  const c = Math.max(-1, col);
  return pitch * (c + 1.5 + Math.floor(Math.max(0, c) / 5));
}

/** The skunk lines (C8.2): the scores below which a loser is skunked (2) and
 * double skunked or lurched. The option `off` draws none; `lurch` only the half. */
export function skunkLines(target, skunk) {
  if (skunk === 'off') return [];
  const half = target === 61 ? 31 : 61;
  const threeq = target === 61 ? 46 : 91;
  return skunk === 'lurch' ? [{ at: half, kind: 'lurch' }] : [{ at: threeq, kind: 'skunk' }, { at: half, kind: 'double' }];
}

/** The two pegs of a side after a score: `prev` {a, b} (the pegs' holes as last
 * drawn, or null), the new front `score` and back `from`. The peg that stands at
 * `from` stays; the other jumps to `score` (leapfrog). Returns {a, b, moved:
 * 'a' | 'b' | null}. */
export function leapfrog(prev, score, from) {
  if (!prev) return { a: from, b: score, moved: null };
  if (prev.a === from && prev.b === score) return { ...prev, moved: null };
  if (prev.b === from && prev.a === score) return { ...prev, moved: null };
  if (prev.a === from) return { a: from, b: score, moved: 'b' };
  if (prev.b === from) return { a: score, b: from, moved: 'a' };
  return { a: from, b: score, moved: null };
}
