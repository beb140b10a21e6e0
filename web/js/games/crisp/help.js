// Crisp's "How to play": the rules in short, in the page's language, our own
// words for crisp-rules.md (R1-R17), and what the screen's marks mean. The frame
// around it (title, Back) is the shell's (../../render/help.js).

import { h } from '../../dom.js';
import { t } from '../../i18n.js';

/** The sections, each a heading and its paragraphs (i18n keys `help.<id>.title`, `help.<id>.<n>`). */
const SECTIONS = [
  ['goal', 2], // R1, R12.5, R12.6
  ['deal', 3], // R2 (R2.1 the dealer moves on, R2.6), R16.2 (10 s to look)
  ['turn', 3], // R3-R5, R4.2 (the stock runs out)
  ['specials', 4], // R6-R9 (R6.2 unused, R8.5 the caller as a target, R9.2 King chains)
  ['crisp', 3], // R10, R11
  ['score', 2], // R12 (R12.3 a tie)
  ['options', 2], // R13, R14 (R14.2a before drawing, R14.2c King draws), R16
  ['computer', 4], // R17: computer players, away, leaving, the host role
  ['screen', 3], // the Queen's steps, the marks, the line under a name, the log, the timer, CRISP
];

/** The rules' sections, for the frame of How to play. */
export function help() {
  return SECTIONS.map(([id, n]) => h('section', { key: id, class: 'help-part' },
    h('h2', null, t(`help.${id}.title`)),
    Array.from({ length: n }, (_, i) => h('p', { key: i }, t(`help.${id}.${i + 1}`)))));
}
