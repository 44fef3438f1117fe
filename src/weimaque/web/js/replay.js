// Hand history and the replay viewer: step through a finished hand, one action at a time,
// from GET /api/rooms/{id}/hands/{n}/replay (each step holds the full "all" view).
import { button, h, mount } from "./dom.js";
import { api } from "./net.js";
import { t } from "./i18n.js";
import { renderBoard, signed } from "./table.js";
import { breakdownView, eventText } from "./result.js";
import { loadReview, reviewLabel, reviewLoading, reviewNote, reviewTimeline } from "./review.js";

/** The list of finished hands, each with a replay button. */
export async function historyView(roomId, { label, onReplay }) {
  const data = await api(`/api/rooms/${encodeURIComponent(roomId)}/hands`);
  return h(
    "section",
    { class: "panel history", "data-testid": "history" },
    h("h2", {}, t("history")),
    data.hands.length === 0 ? h("p", {}, "—") : null,
    h(
      "ol",
      {},
      data.hands.map((hand) =>
        h(
          "li",
          { "data-testid": "history-hand" },
          h("span", {}, t("hand_n", { n: hand.number }), " · "),
          h("span", {}, hand.chou ? t("chou") : `${t("winner", { who: label(hand.winner) })}`),
          hand.chou ? null : h("span", {}, ` ${hand.total}`),
          h("span", { class: "moves" }, " (", hand.settlement.seats.map(signed).join(" / "), ")"),
          button("replay-button", () => onReplay(hand.number), t("replay")),
        ),
      ),
    ),
  );
}

function nav(testid, onclick, disabled, label) {
  return h("button", { "data-testid": testid, onclick, disabled }, label);
}

/** Open the replay viewer for hand `number` in `root`; onClose() closes it. */
export async function openReplay(root, roomId, number, { label, bottom, score, onClose }) {
  const data = await api(`/api/rooms/${encodeURIComponent(roomId)}/hands/${number}/replay`);
  const steps = data.steps;
  let i = 0;
  let review = null; // 复盘 of our seat, loaded on demand (review.js)
  let reviewing = false;
  const startReview = () => {
    reviewing = true;
    draw();
    loadReview(roomId, number, bottom)
      .then((r) => {
        review = r;
      })
      .catch(() => {
        reviewing = false;
      })
      .then(draw);
  };

  const draw = () => {
    const step = steps[i];
    const obs = step.observation;
    // Read-only: no seat of ours, so no legal actions and no clickable cards.
    const ctx = { bottom, label, score, hands: obs.hands, mySeat: null, legal: [] };
    const atStart = i === 0;
    const atEnd = i === steps.length - 1;
    const go = (k) => () => {
      i = Math.max(0, Math.min(steps.length - 1, k));
      draw();
    };
    mount(
      root,
      h(
        "div",
        { class: "replay", "data-testid": "replay" },
        h(
          "div",
          { class: "replay-bar" },
          h("strong", {}, t("replay"), " · ", t("hand_n", { n: number })),
          h("span", { "data-testid": "replay-step" }, t("step", { i, n: steps.length - 1 })),
          review || reviewing ? null : button("review-button", startReview, reviewLabel()),
          button("replay-close", onClose, t("close")),
        ),
        review ? reviewTimeline(review, i, (k) => go(k)()) : reviewing ? reviewLoading() : null,
        review ? reviewNote(review, i) : null,
        h(
          "div",
          { class: "replay-nav" },
          nav("replay-first", go(0), atStart, `|◀ ${t("first")}`),
          nav("replay-prev", go(i - 1), atStart, `◀ ${t("prev")}`),
          nav("replay-next", go(i + 1), atEnd, `${t("next")} ▶`),
          nav("replay-last", go(steps.length - 1), atEnd, `${t("last")} ▶|`),
        ),
        h(
          "ul",
          { class: "replay-events", "data-testid": "replay-events" },
          step.action ? h("li", { class: "actor" }, `${label(step.seat)}: ${step.action}`) : null,
          step.events
            .filter((e) => e.type !== "dealt")
            .map((e) => h("li", {}, eventText(e, label))),
        ),
        renderBoard(obs, ctx),
        obs.result?.breakdown ? breakdownView(obs.result.breakdown) : null,
      ),
    );
  };
  draw();
}
