// Writes web/shell/shells.json: the page's first screen in every language, the
// header and the home form (`home`), the join form of a shared link (`join`,
// the code left as {{code}}), with the buttons disabled and "Loading…" where the
// connection status goes, and a seated player's room (`seat`: "Loading your
// seat…", no form at all; the server sends it when the cookie `crisp_seats`
// names the room, so a reload never shows a stranger's join form first). The server puts it inside <div id="app">
// (crisp/server/shell.py), so a phone shows something real at the first round
// trip; the client's first render takes those nodes over (dom.js).
//
// The HTML is the client's own renderer's (render/chrome.js, written out by
// dom.js toHTML), so it cannot drift from what the client draws. After a change
// to the header, the home screen or their strings, run:
//
//     node web/shell/make.mjs
//
// (tests/web/js/shell.test.mjs fails while shells.json is stale.)

import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

// What i18n.js needs outside a browser: <html> to set lang/dir on, and fetch()
// of its own files (file: URLs here).
globalThis.document = { documentElement: {} };
globalThis.fetch = async (url) => {
  const text = readFileSync(new URL(url), 'utf-8');
  return { ok: true, status: 200, json: async () => JSON.parse(text) };
};

const { LANGUAGES, setLanguage } = await import('../js/i18n.js');
const { initialState } = await import('../js/state.js');
const { page } = await import('../js/render/chrome.js');
const { toHTML } = await import('../js/dom.js');

export const OUTPUT = new URL('./shells.json', import.meta.url);
export const CODE_SLOT = '{{code}}';

function firstScreen(homeCode) {
  const S = { ...initialState(), screen: 'home', busy: true, booting: true, homeCode };
  return toHTML(page({ S, now: 0, local: 0, act: {} }));
}

function seatScreen(code) {
  const S = { ...initialState(), screen: 'room', code, conn: 'connecting', booting: true };
  return toHTML(page({ S, now: 0, local: 0, act: {} }));
}

/** The first screens of every language, as shells.json holds them (its text). */
export async function shells() {
  const out = {};
  for (const lang of LANGUAGES) {
    await setLanguage(lang.code);
    out[lang.code] = { dir: lang.dir, home: firstScreen(''), join: firstScreen(CODE_SLOT), seat: seatScreen(CODE_SLOT) };
  }
  return `${JSON.stringify(out, null, 2)}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(OUTPUT, await shells());
  console.log(`wrote ${OUTPUT.pathname}`);
}
