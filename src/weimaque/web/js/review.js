// 复盘 on the replay timeline: one seat's decisions graded by the search bot
// (GET /api/rooms/{id}/hands/{n}/review?seat=N, the same content as `wmq review --json`).
// Replay step i shows the state after action i-1, so a decision at action `step` is step + 1.
import { h } from "./dom.js";
import { api } from "./net.js";
import { currentLang } from "./i18n.js";

const TEXT = {
  zh: {
    review: "复盘",
    loading: "复盘计算中…",
    best: "机器人选",
    cost: "估计损失",
    mistake: "失误",
    ok: "无明显失误",
  },
  en: {
    review: "复盘 review",
    loading: "Reviewing…",
    best: "bot plays",
    cost: "estimated cost",
    mistake: "mistake",
    ok: "no clear mistake",
  },
};
const say = (key) => (TEXT[currentLang()] || TEXT.zh)[key];

export const reviewLabel = () => say("review");
export const reviewLoading = () => h("p", { "data-testid": "review-loading" }, say("loading"));

/** Fetch the review of `seat` for finished hand `number`. */
export function loadReview(roomId, number, seat) {
  return api(`/api/rooms/${encodeURIComponent(roomId)}/hands/${number}/review?seat=${seat}`);
}

/** The decision graded at replay step `i` (the action that led to it), or undefined. */
export const decisionAt = (review, i) => review.decisions.find((d) => d.step + 1 === i);

/** The timeline: one mark per graded decision, red for a mistake; click to jump there. */
export function reviewTimeline(review, current, go) {
  return h(
    "div",
    { class: "review-timeline", "data-testid": "review-timeline" },
    h("strong", {}, say("review"), " "),
    review.decisions.map((d) =>
      h(
        "button",
        {
          class: `small review-mark${d.mistake ? " mistake" : ""}${d.step + 1 === current ? " here" : ""}`,
          "data-testid": d.mistake ? "review-mistake" : "review-mark",
          title: `${d.taken} → ${d.best}`,
          onclick: () => go(d.step + 1),
        },
        d.mistake ? "✗" : "·",
      ),
    ),
    h("p", { class: "review-summary", "data-testid": "review-summary" }, review.summary.text),
  );
}

/** The note for replay step `i`: the action taken, the bot's choice, the cost and why. */
export function reviewNote(review, i) {
  const d = decisionAt(review, i);
  if (!d) return null;
  return h(
    "div",
    { class: `review-note${d.mistake ? " mistake" : ""}`, "data-testid": "review-note" },
    h("span", {}, `${d.taken} · ${say("best")} ${d.best} · ${say("cost")} ${d.cost.toFixed(1)} ± ${d.se.toFixed(1)}`),
    d.mistake ? h("strong", {}, ` · ${say("mistake")}`) : null,
    h("div", { class: "review-reason" }, d.reason),
  );
}
