// 复盘 on the replay timeline: one seat's decisions graded by the search bot
// (GET /api/rooms/{id}/hands/{n}/review?seat=N, the same content as `wmq review --json`).
// Replay step i shows the state after action i-1, so a decision at action `step` is step + 1.
import { h } from "./dom.js";
import { api } from "./net.js";
import { t } from "./i18n.js";

const fixed = (x) => (typeof x === "number" ? x.toFixed(1) : String(x));
const plus = (x) => (x > 0 ? `+${fixed(x)}` : fixed(x));
// Signed as `wmq review` writes them (Python's "+.1f" and "+d").
const signed1 = (x) => (x < 0 ? x.toFixed(1) : `+${x.toFixed(1)}`);
const signedInt = (x) => (x < 0 ? String(x) : `+${x}`);

/** A graded decision's reason in the current language, from its data (`why`). */
export function reasonText(d) {
  const w = d.why;
  if (!w) return d.reason; // a review from before reasons were data: its English sentence
  const params = { ...w, cost: fixed(w.cost ?? 0), se: fixed(w.se ?? 0), signed: plus(w.cost ?? 0), score: plus(w.score ?? 0) };
  return t(`why_${w.kind}`, params);
}

/**
 * The review's closing sentence in the current language. Its steps are the timeline's: a
 * decision at action `step` is replay step `step + 1`. A hand's points lost are bounded by what
 * it could cost (docs/bots.md); when the mistakes' costs add past it, the sentence says why.
 */
export function summaryText(sum) {
  if (!sum.decisions) return t("review_none");
  const head = t("review_head", { n: sum.decisions, agree: sum.agree ?? 0 });
  if (!sum.mistakes) return `${head} ${t("review_clean")}`;
  const w = sum.worst_decision;
  const worst = w ? t("review_worst", { hand: w.hand, step: w.step + 1, taken: w.taken, best: w.best }) : "";
  const capped = (sum.hand_losses || []).find((x) => x.capped);
  const why = capped
    ? t("review_capped", {
        added: fixed(capped.added),
        lost: fixed(capped.lost),
        expected: signed1(capped.expected),
        result: signedInt(capped.result),
      })
    : "";
  return `${head} ${t("review_mistakes", { n: sum.mistakes, lost: fixed(sum.points_lost) })}${worst}${why}`;
}

const say = (key) => t(`review_${key}`);

export const reviewLabel = () => say("label");
export const reviewLoading = () => h("p", { "data-testid": "review-loading" }, say("loading"));

/** Fetch the review of `seat` for finished hand `number`. */
export function loadReview(roomId, number, seat, path) {
  const base = path || `/api/rooms/${encodeURIComponent(roomId)}/hands/${number}/review`;
  return api(`${base}?seat=${seat}`);
}

/** The decision graded at replay step `i` (the action that led to it), or undefined. */
export const decisionAt = (review, i) => review.decisions.find((d) => d.step + 1 === i);

/** The timeline: one mark per graded decision, red for a mistake; click to jump there. */
export function reviewTimeline(review, current, go) {
  return h(
    "div",
    { class: "review-timeline", "data-testid": "review-timeline" },
    h("strong", {}, say("label"), " "),
    h(
      "span",
      { class: "review-marks" },
      review.decisions.map((d) =>
      h(
        "button",
        {
          key: `${d.hand}:${d.step}`,
          class: `small review-mark${d.mistake ? " mistake" : ""}${d.step + 1 === current ? " here" : ""}`,
          "data-testid": d.mistake ? "review-mistake" : "review-mark",
          "data-step": d.step + 1,
          title: `${t("step_short", { i: d.step + 1 })}: ${d.taken} → ${d.best}`,
          onclick: () => go(d.step + 1),
        },
        d.mistake ? "✗" : "·",
      ),
      ),
    ),
    h("p", { class: "review-summary", "data-testid": "review-summary" }, summaryText(review.summary)),
  );
}

/** The note for replay step `i`: the action taken, the bot's choice, the cost and why. */
export function reviewNote(review, i) {
  const d = decisionAt(review, i);
  if (!d) return null;
  return h(
    "div",
    { class: `review-note${d.mistake ? " mistake" : ""}`, "data-testid": "review-note" },
    h("span", { "data-testid": "review-step", "data-step": d.step + 1 }, `${t("step_short", { i: d.step + 1 })} · `),
    h("span", {}, `${d.taken} · ${say("best")} ${d.best} · ${t("review_cost", { cost: d.cost.toFixed(1), se: d.se.toFixed(1) })}`),
    d.mistake ? h("strong", {}, ` · ${say("mistake")}`) : null,
    h("div", { class: "review-reason", "data-testid": "review-reason" }, reasonText(d)),
  );
}
