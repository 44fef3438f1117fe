// Voice calls, as the apps announce them: the discarded card by its name (小五, 大五; in English
// "small five", "big five") and 吃, 碰, 偎, 胡, in the chosen language, with the browser's own
// speech synthesis (a Chinese voice for Chinese). Where the device has no voice for the
// language nothing is said and the sound effects alone tell the table (docs/web.md). A call
// names only a card its event shows: a face-down 偎 of another seat is said as 偎, no card.
import { BIG, SMALL } from "./cards.js";
import { currentLang, t } from "./i18n.js";
import { hadGesture } from "./sound.js";

const KEY = "wmq.voice";
const EN_NUMBERS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];

export const voiceOn = () => localStorage.getItem(KEY) !== "off";

export function setVoiceOn(on) {
  localStorage.setItem(KEY, on ? "on" : "off");
  if (!on) window.speechSynthesis?.cancel();
}

/** A card's spoken name: 小一..小十 and 大一..大十 (大壹 is said 大一), or in English. */
export function cardName(face, lang = currentLang()) {
  const small = SMALL.indexOf(face);
  const n = small >= 0 ? small : BIG.indexOf(face);
  if (n < 0) return null;
  if (lang === "en") return `${small >= 0 ? "small" : "big"} ${EN_NUMBERS[n]}`;
  return `${small >= 0 ? "小" : "大"}${SMALL[n]}`;
}

/** What an event view is called aloud, or null: only faces the event itself carries. */
export function callOf(event, lang = currentLang()) {
  switch (event.type) {
    case "discard":
      return event.card ? cardName(event.card, lang) : null;
    case "chi":
    case "peng":
    case "wei":
    case "hu":
      return t(`voice_${event.type}`);
    default:
      return null;
  }
}

/** The device's voice for the language (a Chinese one for zh), or null. */
function voiceFor(lang) {
  const voices = window.speechSynthesis?.getVoices?.() || [];
  const want = lang === "en" ? "en" : "zh";
  const fits = voices.filter((v) => String(v.lang || "").toLowerCase().replace("_", "-").startsWith(want));
  return fits.find((v) => /^zh-cn|^en-us/i.test(v.lang)) || fits[0] || null;
}

/** Say `text` now (a newer call cuts an older one); whether it was spoken. */
export function say(text) {
  const synth = window.speechSynthesis;
  if (!text || !synth || !voiceOn() || !hadGesture() || !window.SpeechSynthesisUtterance) return false;
  const lang = currentLang();
  const voice = voiceFor(lang);
  if (!voice) return false;
  const u = new SpeechSynthesisUtterance(text);
  u.voice = voice;
  u.lang = voice.lang;
  u.rate = 1.1;
  synth.cancel();
  synth.speak(u);
  return true;
}
