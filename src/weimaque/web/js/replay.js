// Hand history and the replay viewer: step through a finished hand, one action at a time, or
// let it play at a chosen speed; from above (every hand face up) or from any seat. Each step
// shows the scores as they stood then (GET /api/rooms/{id}/hands/{n}/replay).
import { button, h, mount } from "./dom.js";
import { api } from "./net.js";
import { t } from "./i18n.js";
import { renderBoard, signed } from "./table.js";
import { breakdownView, eventText } from "./result.js";
import { loadReview, reviewLabel, reviewLoading, reviewNote, reviewTimeline } from "./review.js";
import { checkDeal } from "./fairness.js";

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

const SPEEDS = [
  ["2000", "0.5×"],
  ["1000", "1×"],
  ["500", "2×"],
  ["200", "5×"],
];

/** Scores of each seat at this step: before the hand, and what it paid at the last step. */
function scoreStrip(step, last, label) {
  const obs = step.observation;
  const paid = last ? step.settlement?.seats : null;
  return h(
    "div",
    { class: "replay-scores", "data-testid": "replay-scores" },
    h("span", { class: "label" }, t("scores_at")),
    [0, 1, 2].map((s) =>
      h(
        "span",
        { class: "replay-score", "data-testid": `replay-score-${s}`, "data-score": obs.scores[s], "data-xi": step.numbers?.melds[s] ?? "" },
        `${label(s)} ${signed(obs.scores[s]) || 0}`,
        paid ? ` → ${signed(obs.scores[s] + paid[s]) || 0}` : "",
        step.numbers ? ` · ${t("ming_xi", { n: step.numbers.melds[s] })}` : "",
      ),
    ),
  );
}

/** Open the replay viewer for hand `number` in `root`; onClose() closes it. */
export async function openReplay(root, roomId, number, { label, bottom, onClose }) {
  const data = await api(`/api/rooms/${encodeURIComponent(roomId)}/hands/${number}/replay`);
  const steps = data.steps;
  let i = 0;
  // The deal's commitment against its reveal (docs/fairness.md), checked here in the browser.
  let dealCheck = null;
  api(`/api/rooms/${encodeURIComponent(roomId)}/hands/${number}`)
    .then((res) => checkDeal(roomId, number, res.record))
    .then((result) => {
      dealCheck = result;
      if (root.isConnected) draw();
    })
    .catch(() => {});
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
  let view = "all"; // "all" (from above) or a seat number
  let speed = "1000";
  let timer = null;

  const stop = () => {
    if (timer) clearInterval(timer);
    timer = null;
  };
  const play = () => {
    stop();
    timer = setInterval(() => {
      if (!root.isConnected || i >= steps.length - 1) {
        stop();
        if (root.isConnected) draw();
        return;
      }
      i += 1;
      draw();
    }, Number(speed));
  };

  const draw = () => {
    const step = steps[i];
    const obs = step.observation;
    const seat = view === "all" ? bottom : view;
    // From a seat: only that seat's hand shows; from above: all three.
    const hands = view === "all" ? obs.hands : obs.hands.map((hand, s) => (s === view ? hand : undefined));
    const scoreAt = (s) => obs.scores[s];
    const ctx = { bottom: seat, label, score: scoreAt, hands, numbers: step.numbers, mySeat: null, legal: [] };
    const atStart = i === 0;
    const atEnd = i === steps.length - 1;
    const go = (k) => () => {
      stop();
      i = Math.max(0, Math.min(steps.length - 1, k));
      draw();
    };
    const viewSelect = h(
      "select",
      {
        "data-testid": "replay-view",
        onchange: (e) => {
          view = e.target.value === "all" ? "all" : Number(e.target.value);
          draw();
        },
      },
      h("option", { value: "all", selected: view === "all" }, t("view_all")),
      [0, 1, 2].map((s) => h("option", { value: String(s), selected: view === s }, t("view_seat", { who: label(s) }))),
    );
    const speedSelect = h(
      "select",
      {
        "data-testid": "replay-speed",
        onchange: (e) => {
          speed = e.target.value;
          if (timer) play();
        },
      },
      SPEEDS.map(([ms, text]) => h("option", { value: ms, selected: ms === speed }, text)),
    );
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
          dealCheck === "verified" || dealCheck === "failed"
            ? h(
                "span",
                { class: `deal-check ${dealCheck}`, "data-testid": "deal-check", "data-result": dealCheck },
                dealCheck === "verified" ? "✓ 发牌已验证 · deal verified" : "✗ 发牌验证失败 · deal NOT verified",
              )
            : null,
          review || reviewing ? null : button("review-button", startReview, reviewLabel()),
          button("replay-close", () => {
            stop();
            onClose();
          }, t("close")),
        ),
        review ? reviewTimeline(review, i, (k) => go(k)()) : reviewing ? reviewLoading() : null,
        review ? reviewNote(review, i) : null,
        h(
          "div",
          { class: "replay-nav" },
          nav("replay-first", go(0), atStart, `|◀ ${t("first")}`),
          nav("replay-prev", go(i - 1), atStart, `◀ ${t("prev")}`),
          timer
            ? nav("replay-pause", () => { stop(); draw(); }, false, `❚❚ ${t("pause")}`)
            : nav("replay-play", () => { play(); draw(); }, atEnd, `▶ ${t("autoplay_replay")}`),
          nav("replay-next", go(i + 1), atEnd, `${t("next")} ▶`),
          nav("replay-last", go(steps.length - 1), atEnd, `${t("last")} ▶|`),
          h("label", {}, t("speed"), " ", speedSelect),
          h("label", {}, t("view_from"), " ", viewSelect),
        ),
        scoreStrip(step, atEnd, label),
        h(
          "ul",
          { class: "replay-events", "data-testid": "replay-events" },
          step.action ? h("li", { class: "actor" }, `${label(step.seat)}: ${step.action}`) : null,
          step.events.filter((e) => e.type !== "dealt").map((e) => h("li", {}, eventText(e, label))),
        ),
        renderBoard(obs, ctx),
        step.breakdown ? breakdownView(step.breakdown) : obs.result?.breakdown ? breakdownView(obs.result.breakdown) : null,
      ),
    );
  };
  draw();
}
