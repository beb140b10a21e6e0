// Translations: web/i18n/{lang}.json, flat keys, "{name}" placeholders, plural
// forms as "key.one" / "key.other" (and "key.zero", "key.two", "key.few",
// "key.many" where the language has them, chosen with Intl.PluralRules).
// English is always loaded too and fills any key a translation lacks.

import { loadLanguage, saveLanguage } from './storage.js';

export const LANGUAGES = [
  { code: 'en', name: 'English', short: 'EN', dir: 'ltr' },
  { code: 'ar', name: 'العربية', short: 'عربي', dir: 'rtl' },
  { code: 'id', name: 'Bahasa Indonesia', short: 'ID', dir: 'ltr' },
];

let current = 'en';
let strings = {};
let fallback = {};
let plural = new Intl.PluralRules('en');

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

async function fetchStrings(code) {
  const res = await fetch(`/i18n/${code}.json`, { cache: 'no-cache' });
  if (!res.ok) throw new Error(`i18n ${code}: ${res.status}`);
  return res.json();
}

/** Load a language, set <html lang dir>, and remember it if `remember`. */
export async function setLanguage(code, remember = false) {
  const lang = LANGUAGES.find((l) => l.code === code) || LANGUAGES[0];
  if (!Object.keys(fallback).length) fallback = await fetchStrings('en');
  strings = lang.code === 'en' ? fallback : await fetchStrings(lang.code).catch(() => ({}));
  current = lang.code;
  plural = new Intl.PluralRules(lang.code);
  document.documentElement.lang = lang.code;
  document.documentElement.dir = lang.dir;
  if (remember) saveLanguage(lang.code);
}

export function language() {
  return current;
}

/** Translate `key`, filling {placeholders} from `params`. With a numeric
 * `params.count`, picks the plural form first. */
export function t(key, params = {}) {
  let text;
  if (typeof params.count === 'number') {
    const form = `${key}.${plural.select(params.count)}`;
    text = strings[form] ?? fallback[form] ?? strings[`${key}.other`] ?? fallback[`${key}.other`];
  }
  text = text ?? strings[key] ?? fallback[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m));
}

/** True if the key exists in the current language or in English. */
export function has(key) {
  return key in strings || key in fallback;
}
