// The translations as a reader sees them (web/js/i18n.js with web/i18n/*.json),
// run by Node's test runner (tests/web/test_web_units.py runs this file):
// every counted string for the counts 0-12 (and a few larger ones) in every
// language, with every plural category Intl.PluralRules has; no Latin word in
// Arabic; no masculine form tied to a player; the fallback order; bidi
// isolation of params; numbers, seconds and name lists in the page's language;
// log lines in the language of the moment they are shown.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';

import {
  setLanguage, t, listOf, formatNumber, formatSeconds, isolate,
} from '../../../web/js/i18n.js';
import { eventText } from '../../../web/js/render/parts.js';
import { loadGame } from '../../../web/js/games.js';

await loadGame('crisp'); // the rooms of these tests are Crisp's (web/js/games/crisp/)

const LANGS = ['en', 'ar', 'id', 'pl'];
const PLURAL = /\.(zero|one|two|few|many|other)$/;
const FILES = Object.fromEntries(LANGS.map((code) => [code,
  JSON.parse(readFileSync(new URL(`../../../web/i18n/${code}.json`, import.meta.url), 'utf-8'))]));

// i18n.js fetches i18n/<lang>.json next to itself and sets <html lang dir>: give it both.
// `served[code]` replaces a file for one test.
const served = {};
globalThis.document = { documentElement: {} };
globalThis.fetch = async (path) => {
  const code = path.match(/\/i18n\/(\w+)\.json$/)[1];
  return { ok: true, status: 200, json: async () => structuredClone(served[code] || FILES[code]) };
};

const FSI = '\u2068';
const PDI = '\u2069';
const plain = (s) => s.replace(/[\u2066-\u2069]/g, '');
const COUNTS = [...Array(13).keys(), 20, 50, 100, 101, 102, 111];
/** Counted strings: the base keys that have plural forms in English. */
const COUNTED = [...new Set(Object.keys(FILES.en).filter((k) => PLURAL.test(k)).map((k) => k.replace(PLURAL, '')))];

/** Values for every placeholder that bring no Latin letter of their own. */
function sampleParams(code) {
  const ar = code === 'ar';
  return {
    brand: ar ? 'كريسب' : 'Crisp', name: ar ? 'سارة' : 'Sari', target: ar ? 'ليلى' : 'Budi', dealer: ar ? 'ليلى' : 'Budi',
    names: listOf(ar ? ['سارة', 'ليلى'] : ['Sari', 'Budi']),
    code: '#', card: '10♦', slot: t('slot.left'), target_slot: t('slot.right'),
    round: 3, n: 100, total: -2, options: t('opt.noLimit'), rank: t('rank.Q'), suit: t('suit.S'),
    minus: formatNumber(-5), plus: formatNumber(5, { signed: true }), message: '',
    level: t('level.normal'),
    sum: 4, bonus: formatNumber(-5, { signed: true }), host: '127.0.0.1', setting: '#',
    from: -3, to: 12,
    // R18.2, R18.3: a replay's moves and the memory review
    seen: '10♦', actual: '9♠', old: '3♣', target_card: '7♥', turn: 9, step: 3, steps: 12,
  };
}

/** What a counted key says for `count`, and the plural category it used. */
function render(code, key, count) {
  const category = new Intl.PluralRules(code).select(count);
  return { category, text: t(key, { ...sampleParams(code), count }) };
}

test('every counted string has exactly the plural categories its language has', () => {
  assert.ok(COUNTED.length >= 10, COUNTED.join());
  for (const code of LANGS) {
    const categories = new Intl.PluralRules(code).resolvedOptions().pluralCategories;
    const file = FILES[code];
    for (const key of COUNTED) {
      const missing = categories.filter((c) => !(`${key}.${c}` in file));
      assert.deepEqual(missing, [], `${code} ${key}: missing plural categories`);
      const extra = Object.keys(file).filter((k) => k.replace(PLURAL, '') === key && PLURAL.test(k)
        && !categories.includes(k.match(PLURAL)[1]));
      assert.deepEqual(extra, [], `${code} ${key}: forms the language never uses`);
      assert.ok(!(key in file), `${code} ${key}: a counted key has no bare form`);
    }
  }
  assert.deepEqual(new Intl.PluralRules('ar').resolvedOptions().pluralCategories.sort(),
    ['few', 'many', 'one', 'other', 'two', 'zero']);
});

for (const code of ['ar', 'id', 'en', 'pl']) {
  test(`${code}: every counted string reads right for the counts 0 to 12 and beyond`, async () => {
    await setLanguage(code);
    for (const key of COUNTED) {
      for (const count of COUNTS) {
        const { category, text } = render(code, key, count);
        const where = `${code} ${key} ${count} (${category}): ${text}`;
        assert.ok(!/\{\w+\}/.test(text), `placeholder left: ${where}`);
        assert.equal(text, t(`${key}.${category}`, { ...sampleParams(code), count }), `not its own form: ${where}`);
        // The number is written out unless the words say it (Arabic "one", "two", "none").
        const written = plain(text).includes(formatNumber(count));
        assert.ok(written || ['zero', 'one', 'two'].includes(category), `the count is not shown: ${where}`);
        if (written && code === 'ar') assert.ok(text.includes(`${FSI}${count}${PDI}`), `count not isolated: ${where}`);
        if (code === 'ar') {
          assert.ok(!/\p{Script=Latin}/u.test(text), `Latin letters in Arabic: ${where}`);
          assert.ok(/\p{Script=Arabic}/u.test(text), `no Arabic: ${where}`);
        }
        if (code === 'id') {
          await setLanguage('en');
          const english = t(key, { ...sampleParams('id'), count });
          await setLanguage('id');
          assert.notEqual(text, english, `English in Indonesian: ${where}`);
        }
      }
    }
  });
}

test('ar: no string holds a Latin word (a QR code keeps its name)', async () => {
  await setLanguage('ar');
  for (const key of Object.keys(FILES.ar)) {
    const text = plain(t(key.replace(PLURAL, ''), { ...sampleParams('ar'), count: 3 }));
    const latin = (text.replace(/\bQR\b/g, '').match(/\p{Script=Latin}+/gu) || []);
    assert.deepEqual(latin, [], `${key}: ${text}`);
  }
});

test('ar: no sentence gives a player a gender', () => {
  const texts = Object.entries(FILES.ar);
  // "You" in the past tense is written without the vowel that makes it masculine (فعلتَ).
  assert.deepEqual(texts.filter(([, v]) => /تَ(?![\u0621-\u064A])/u.test(v)).map(([k]) => k), []);
  const player = /\{(name|target|dealer)\}/;
  const withPlayer = texts.filter(([, v]) => player.test(v));
  assert.ok(withPlayer.length > 25);
  // No verb of the old sentences with a player as its subject ("{name} أعلن", "فاز {name}").
  const verb = '(?:أعلن|فاز|سحب|أخذ|بدّل|رمى|استخدم|لعب|انضم|غادر|عاد|يوزّع|ليوزّع|يبدأ|ليبدأ|يحمل|يلعب|نظر)';
  const subject = new RegExp(`\\{(name|target|dealer)\\} ${verb}(?![\\u0621-\\u064A])|(?<![\\u0621-\\u064A])${verb} \\{(name|target|dealer)\\}`, 'u');
  assert.deepEqual(withPlayer.filter(([, v]) => subject.test(v)).map(([k, v]) => `${k}: ${v}`), []);
  // Nor a "his" on a player's things (بطاقته, مجموعه, وقته...).
  const his = /(?:بطاقته|بطاقتيه|مجموعه|دوره|وقته|أعطاك)/u;
  assert.deepEqual(withPlayer.filter(([, v]) => his.test(v)).map(([k, v]) => `${k}: ${v}`), []);
});

test('the page\'s language is searched whole before English: its .other, then its bare key', async () => {
  const ar = { ...FILES.ar };
  delete ar['stock.label.one'];
  delete ar['turn.extra.two'];
  delete ar['timer.none']; // a key the language lacks entirely
  served.ar = ar;
  try {
    await setLanguage('ar');
    assert.equal(t('stock.label', { count: 1 }), `كومة السحب، ${FSI}1${PDI} بطاقة`);
    assert.equal(t('turn.extra', { count: 2 }), `${FSI}2${PDI} سحبة إضافية`);
    assert.equal(t('lobby.players', { count: 1 }), `اللاعبون (${FSI}1${PDI} من 8)`);
    assert.equal(t('timer.none'), FILES.en['timer.none']); // only then English
    assert.equal(t('no.such.key'), 'no.such.key');
  } finally {
    delete served.ar;
  }
});

test('params are isolated on a right-to-left page, and on any page when they hold right-to-left letters', async () => {
  await setLanguage('ar');
  assert.equal(t('ev.discarded', { name: 'Ben', card: 'Q♠' }), `${isolate('Ben')}: رمي ${isolate('Q♠')}`);
  assert.equal(t('round.caller', sampleParams('ar')).includes(`${FSI}−5${PDI}`), true);
  await setLanguage('en');
  assert.equal(t('ev.discarded', { name: 'Ben', card: 'Q♠' }), 'Ben discarded Q♠');
  assert.equal(t('ev.discarded', { name: 'سارة 2', card: 'Q♠' }), `${isolate('سارة 2')} discarded Q♠`);
});

test('numbers, seconds and name lists follow the page\'s language', async () => {
  await setLanguage('en');
  assert.equal(formatNumber(-5), '−5');
  assert.equal(formatNumber(5, { signed: true }), '+5');
  assert.equal(formatNumber(0, { signed: true }), '0');
  assert.equal(formatSeconds(2.46), '2.5s');
  assert.equal(listOf(['Ana', 'Ben', 'Cy']), 'Ana, Ben, and Cy');
  assert.equal(t('opt.secondsValue', { count: 30 }), '30 seconds');
  await setLanguage('id');
  assert.equal(formatSeconds(2.5).replace(/\s/g, ' '), '2,5 dtk');
  assert.equal(listOf(['Ana', 'Ben', 'Cy']), 'Ana, Ben, dan Cy');
  assert.equal(listOf(['Ana', 'Ben']), 'Ana dan Ben');
  await setLanguage('ar');
  assert.equal(formatNumber(-12), '−12'); // Latin digits, as in the rule sheet
  const secs = formatSeconds(2.5);
  assert.ok(secs.includes('2.5') && !/\p{Script=Latin}/u.test(secs), secs);
  assert.equal(plain(listOf(['سارة', 'Budi'])), 'سارة وBudi');
  assert.equal(t('opt.limitValue', { count: 100 }), `${FSI}100${PDI} نقطة`);
  assert.equal(t('opt.secondsValue', { count: 2 }), 'ثانيتان');
});

test('a log line is described when it is shown: a change of language changes it', async () => {
  const S = { view: { you: 'p1', players: [{ id: 'p2', name: 'Ben' }] }, names: { p2: 'Ben' } };
  await setLanguage('en');
  assert.equal(eventText(S, { kind: 'discarded', player: 'p2', card: 'QS' }), 'Ben discarded Q♠');
  const line = { kind: 'king', player: 'p2', extra_draws: 2 };
  assert.equal(eventText(S, line), 'Ben played a King: 2 extra draws');
  await setLanguage('id');
  assert.equal(eventText(S, line), 'Ben memainkan King: 2 ambilan tambahan');
  await setLanguage('ar');
  assert.equal(eventText(S, line), `${isolate('Ben')}: الملك، سحبتان إضافيتان`);
  assert.equal(eventText(S, { kind: 'king', player: 'p1', extra_draws: 2 }), 'لعبت الملك: سحبتان إضافيتان');
});
