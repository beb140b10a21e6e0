// Translations: web/i18n/{lang}.json, flat keys, "{name}" placeholders.
// The conventions every string follows are in docs/web-client.md ("Languages"):
// - Counted strings: "key.<category>" for every category Intl.PluralRules has in
//   that language (en: one, other; ar: zero, one, two, few, many, other;
//   id: other; pl: one, few, many, other), chosen from the numeric `count` param.
// - Fallback: the page's language first (the plural form, then its `.other`,
//   then the bare key), English only for a key the language lacks entirely.
// - Numbers given as params are formatted for the page's language
//   (Intl.NumberFormat, Latin digits as in the rule sheets, a real minus sign).
// - Every param is bidi-isolated (FSI ... PDI) on a right-to-left page, and on
//   any page when it holds right-to-left letters, so names, card names and
//   signed numbers keep their own order inside the sentence.

import { loadLanguage, saveLanguage } from './storage.js';

export const LANGUAGES = [
  { code: 'en', name: 'English', short: 'EN', dir: 'ltr' },
  { code: 'ar', name: 'العربية', short: 'عربي', dir: 'rtl' },
  { code: 'id', name: 'Bahasa Indonesia', short: 'ID', dir: 'ltr' },
  { code: 'pl', name: 'Polski', short: 'PL', dir: 'ltr' },
];

const FSI = '\u2068'; // FIRST STRONG ISOLATE
const PDI = '\u2069'; // POP DIRECTIONAL ISOLATE
const MINUS = '\u2212';
const RTL_LETTER = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFC]/;

let current = 'en';
let rtl = false;
let strings = {};
let fallback = {};

// The Intl objects of a language, made when first used: the first one costs tens
// of milliseconds on a slow phone (its locale data), and the home screen needs none.
const MAKE = {
  plural: (code) => new Intl.PluralRules(code),
  number: (code) => new Intl.NumberFormat(code, { numberingSystem: 'latn' }),
  seconds: (code) => new Intl.NumberFormat(code, {
    numberingSystem: 'latn', style: 'unit', unit: 'second', unitDisplay: 'narrow',
    minimumFractionDigits: 1, maximumFractionDigits: 1,
  }),
  list: (code) => new Intl.ListFormat(code, { type: 'conjunction' }),
};
const made = new Map();

/** The `kind` Intl object (MAKE) of language `code`, default the page's. */
function intl(kind, code = current) {
  const key = `${kind}:${code}`;
  if (!made.has(key)) made.set(key, MAKE[kind](code));
  return made.get(key);
}

/** The language to start with: the remembered choice, else the browser's. */
export function preferredLanguage() {
  const saved = loadLanguage();
  if (saved && LANGUAGES.some((l) => l.code === saved)) return saved;
  const wanted = navigator.languages && navigator.languages.length
    ? navigator.languages : [navigator.language || 'en'];
  for (const tag of wanted) {
    let base = String(tag).toLowerCase().split('-')[0];
    if (base === 'in') base = 'id'; // old code for Indonesian
    if (LANGUAGES.some((l) => l.code === base)) return base;
  }
  return 'en';
}

// Next to this module: /v/<version>/i18n/ when the page came from the server
// (immutable, and preloaded by the page for its language), /i18n/ otherwise.
const I18N_DIR = new URL('../i18n/', import.meta.url);

async function fetchStrings(code) {
  const res = await fetch(new URL(`${code}.json`, I18N_DIR).href);
  if (!res.ok) throw new Error(`i18n ${code}: ${res.status}`);
  return res.json();
}

/** Load a language, set <html lang dir>, and remember it if `remember`.
 * The language's own file is asked for first, English (the fallback) beside it. */
export async function setLanguage(code, remember = false) {
  const lang = LANGUAGES.find((l) => l.code === code) || LANGUAGES[0];
  const own = lang.code === 'en' ? null : fetchStrings(lang.code).catch(() => ({}));
  if (!Object.keys(fallback).length) fallback = await fetchStrings('en');
  strings = own ? await own : fallback;
  current = lang.code;
  rtl = lang.dir === 'rtl';
  document.documentElement.lang = lang.code;
  document.documentElement.dir = lang.dir;
  if (remember) saveLanguage(lang.code);
}

export function language() {
  return current;
}

/** `text` as a bidi isolate: its direction comes from its own first strong letter. */
export function isolate(text) {
  return `${FSI}${text}${PDI}`;
}

/** A number in the page's language: "12", "−5" (a real minus sign); with
 * `signed`, positive numbers get a "+". Not isolated: a param of t() is, and
 * an element showing a number alone says dir="ltr" (render/parts.js `num`). */
export function formatNumber(n, { signed = false } = {}) {
  const sign = n < 0 ? MINUS : signed && n > 0 ? '+' : '';
  return sign + intl('number').format(Math.abs(n));
}

/** Seconds with one decimal and the language's unit: "2.5s", "2.5 ث", "2,5 dtk". */
export function formatSeconds(s) {
  return intl('seconds').format(s);
}

/** A param as it goes into a sentence: numbers formatted, isolated where its
 * direction could differ from the sentence's. */
function fill(value) {
  const text = typeof value === 'number' ? formatNumber(value) : String(value);
  return text && (rtl || RTL_LETTER.test(text)) ? isolate(text) : text;
}

/** Names as one list in the page's language ("Ana, Ben and Cy",
 * "Ana, Ben, dan Cy", "Ana وBen وCy"), each name isolated where needed. */
export function listOf(names) {
  return intl('list').format(names.map(fill));
}

function lookUp(dict, code, key, count) {
  if (count !== undefined) {
    const text = dict[`${key}.${intl('plural', code).select(count)}`] ?? dict[`${key}.other`];
    if (text !== undefined) return text;
  }
  return dict[key];
}

/** Translate `key`, filling {placeholders} from `params`. With a numeric
 * `params.count`, picks the plural form. The page's language is searched
 * whole before English. */
export function t(key, params = {}) {
  const count = typeof params.count === 'number' ? params.count : undefined;
  const text = lookUp(strings, current, key, count) ?? lookUp(fallback, 'en', key, count) ?? key;
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? fill(params[name]) : m));
}

/** True if the key exists in the current language or in English. */
export function has(key) {
  return key in strings || key in fallback;
}

/** A message to translate when it is shown, not when it is made (a toast, an
 * error line): the text follows a change of language. */
export function msg(key, params = {}) {
  return { key, params };
}

/** The text of a message from msg(); a plain string (a link) is shown as it is. */
export function text(message) {
  return typeof message === 'string' ? message : t(message.key, message.params);
}
