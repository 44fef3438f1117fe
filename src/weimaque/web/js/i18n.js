// All interface text, in one dictionary. Chinese by default; English by the toggle.
// Game words (胡 碰 吃 偎 息 名堂) stay Chinese in both languages, as players say them.

import { STRINGS } from "./strings.js";

const KEY = "wmq.lang";
let lang = localStorage.getItem(KEY) === "en" ? "en" : "zh";
const listeners = [];

/** The text for a key in the current language, with {name} placeholders filled. */
export function t(key, params = {}) {
  const text = STRINGS[lang][key] ?? STRINGS.zh[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (_, name) => String(params[name] ?? ""));
}

export const currentLang = () => lang;

/** Switch language, remember it, and let the app re-render. */
export function toggleLang() {
  lang = lang === "zh" ? "en" : "zh";
  localStorage.setItem(KEY, lang);
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  for (const fn of listeners) fn(lang);
}

export function onLangChange(fn) {
  listeners.push(fn);
}

document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";

/** A preset's name in the current language. */
export const presetName = (p) => (lang === "en" ? p.name_en || p.name : p.name);

/**
 * A preset's description in the current language: the server gives each preset both,
 * `description` in English and `description_zh` in Chinese (docs/protocol.md §1).
 */
export const presetDesc = (p) => (lang === "en" ? p.description || p.description_zh : p.description_zh || p.description) || "";

/**
 * A server refusal in the current language: the code's own sentence; in English the server's
 * detail follows (it is written in English), in Chinese only the sentence.
 */
export function refusal(err) {
  const key = `code_${err.code}`;
  let head = STRINGS[lang][key] ?? STRINGS[lang].code_other;
  // A rate limit says how long to wait (docs/protocol.md §2.2 `error`).
  if (err.retry_after) head += STRINGS[lang].retry_in.replace("{s}", String(err.retry_after));
  return lang === "en" && err.message ? `${head}: ${err.message}` : head;
}
