// Hand history and the replay viewer: step through a finished hand, one action at a time, or
// let it play at a chosen speed; from above (every hand face up) or from any seat. Each step
// shows the scores as they stood then (GET /api/rooms/{id}/hands/{n}/replay). 偎麻雀's steps
// are drawn by table.js; another game's by its own board (boards/index.js), from the step's
// all-seeing view, its hand's end (the board's result) at the last step.
import { button, h } from "./dom.js";
import { api } from "./net.js";
import { refusal, t } from "./i18n.js";
import { renderBoard, signed } from "./table.js";
import { breakdownView, eventText } from "./result.js";
import { loadReview, reviewLabel, reviewLoading, reviewNote, reviewTimeline } from "./review.js";
import { checkDeal } from "./fairness.js";
import { boardFor } from "./boards/index.js";

/** A hand's title: a string, or a function that says it in the language shown now. */
const titleOf = (title) => (typeof title === "function" ? title() : title);

/** Fetch the list of finished hands (GET /api/rooms/{id}/hands). */
export async function loadHistory(roomId) {
  const data = await api(`/api/rooms/${encodeURIComponent(roomId)}/hands`);
  return data.hands;
}

/** The list of finished hands, each with a replay button; `drawn`: what the game calls a hand
 * nobody won (the board's `drawnText`, else 偎麻雀's 臭). */
export function historyView(hands, { label, onReplay, drawn = null }) {
  return h(
    "section",
    { class: "panel history", "data-testid": "history" },
    h("h2", {}, t("history")),
    hands.length === 0 ? h("p", {}, "—") : null,
    h(
      "ol",
      {},
      hands.map((hand) =>
        h(
          "li",
          { key: hand.number, "data-testid": "history-hand" },
          h("span", {}, titleOf(hand.title) ?? t("hand_n", { n: hand.number }), " · "),
          h("span", {}, hand.chou ? drawn ?? t("chou") : `${t("winner", { who: label(hand.winner) })}`),
          hand.chou || !hand.total ? null : h("span", {}, ` ${hand.total}`),
          h("span", { class: "moves" }, " (", (hand.settlement?.seats || []).map(signed).join(" / "), ")"),
          // A game whose board has no replay viewer lists its hands without one.
          onReplay ? button("replay-button", () => onReplay(hand), t("replay")) : null,
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

/** Scores of a game drawn by its own board: 0 until the last step, then what the hand paid. */
function netStrip(n, paid, label) {
  return h(
    "div",
    { class: "replay-scores", "data-testid": "replay-scores" },
    h("span", { class: "label" }, t("scores_at")),
    Array.from({ length: n }, (_, s) =>
      h(
        "span",
        { key: s, class: "replay-score", "data-testid": `replay-score-${s}`, "data-score": paid ? paid[s] : 0 },
        `${label(s)} ${paid ? signed(paid[s]) || 0 : 0}`,
      ),
    ),
  );
}

/** A game's all-seeing view as one seat saw it: the other hands hidden (their tile counts
 * stay), their 暗杠 face down, the drawn tile only when it is the seat's; the hand's end, when
 * every hand is turned up, as it is. */
function seatView(obs, seat) {
  if (obs.end || !Array.isArray(obs.hands)) return obs;
  return {
    ...obs,
    hands: obs.hands.map((hand, s) => (s === seat ? hand : null)),
    drawn: obs.turn === seat ? obs.drawn : null,
    seats: obs.seats.map((x) =>
      x.seat === seat ? x : { ...x, melds: x.melds.map((m) => (m.kind === "angang" ? { ...m, tile: null } : m)) },
    ),
  };
}

/**
 * The replay viewer of hand `number`: its steps, where it stands and how it is shown. It owns no
 * DOM: `view()` describes it and `changed()` (the page's redraw) runs whenever it moves.
 * opts: {label(seat), game (the game's id; none: 偎麻雀), title (a string, or a function of the language shown), bottom (the seat to show at the bottom), onClose(), changed(),
 *        loaded: {steps, record} already fetched (a 回放码's GET /api/replays/{code}), or absent,
 *        reviewPath: where its 复盘 is asked for, when not the room's (a 回放码's own)}
 */
export class Replay {
  constructor(roomId, number, opts) {
    this.roomId = roomId;
    this.number = number;
    this.opts = opts;
    this.steps = null;
    this.error = null;
    this.i = 0;
    this.view = "all"; // "all" (from above) or a seat number
    this.speed = "1000";
    this.timer = null;
    this.dealCheck = null; // the deal's commitment against its reveal (docs/fairness.md)
    this.review = null; // 复盘 of the bottom seat, loaded on demand (review.js)
    this.reviewing = false;
    this.closed = false;
    // A game other than 偎麻雀 is drawn by its own board, made once (boards/index.js).
    const kind = boardFor(opts.game);
    this.board = kind.id === "maque" ? null : kind.create({ roomId, app: null, draw: () => this.changed(), act: () => {}, label: opts.label });
    this.showEnd = true; // at the last step of such a game: its result, else the table as it ended
    const base = `/api/rooms/${encodeURIComponent(roomId)}/hands/${number}`;
    const loaded = opts.loaded;
    (loaded ? Promise.resolve(loaded) : api(`${base}/replay`))
      .then((data) => {
        this.steps = data.steps;
      })
      .catch((err) => {
        this.error = err.message;
      })
      .then(() => this.changed());
    (loaded ? Promise.resolve(loaded) : api(base))
      .then((res) => checkDeal(roomId, number, res.record))
      .then((result) => {
        this.dealCheck = result;
        this.changed();
      })
      .catch(() => {});
  }

  changed() {
    if (!this.closed) this.opts.changed();
  }

  close() {
    this.stop();
    this.closed = true;
    this.opts.onClose();
  }

  stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  play() {
    this.stop();
    this.timer = setInterval(() => {
      if (this.closed || this.i >= this.steps.length - 1) {
        this.stop();
      } else {
        this.i += 1;
      }
      this.changed();
    }, Number(this.speed));
  }

  go(k) {
    this.stop();
    this.i = Math.max(0, Math.min(this.steps.length - 1, k));
    this.changed();
  }

  startReview() {
    this.reviewing = true;
    this.reviewError = null;
    this.changed();
    loadReview(this.roomId, this.number, this.opts.bottom, this.opts.reviewPath)
      .then((r) => {
        this.review = r;
      })
      .catch((err) => {
        // Refused (the server's 复盘 budget, docs/protocol.md) or failed: say so, allow a retry.
        this.reviewing = false;
        this.reviewError = refusal({ code: err.code, message: err.message });
      })
      .then(() => this.changed());
  }

  render() {
    const { label } = this.opts;
    const close = button("replay-close", () => this.close(), t("close"));
    if (this.error) {
      return h("div", { class: "replay", "data-testid": "replay" }, h("p", { class: "error" }, this.error), close);
    }
    if (!this.steps) {
      return h("div", { class: "replay", "data-testid": "replay-loading" }, h("p", { class: "loading" }, "…"), close);
    }
    const { steps, i, view } = this;
    const step = steps[i];
    // A game without the "replay" capability has steps of actions alone (docs/new-game.md).
    const obs = step.observation || { seats: [] };
    const seat = view === "all" ? this.opts.bottom : view;
    const seats = obs.seats?.length || obs.hands?.length || 3;
    // From a seat: only that seat's hand shows; from above: all three.
    const hands = view === "all" ? obs.hands : obs.hands.map((hand, s) => (s === view ? hand : undefined));
    const scoreAt = (s) => obs.scores[s];
    const ctx = { bottom: seat, label, score: scoreAt, hands, numbers: step.numbers, mySeat: null, legal: [] };
    const atStart = i === 0;
    const atEnd = i === steps.length - 1;
    const go = (k) => () => this.go(k);
    const viewSelect = h(
      "select",
      {
        "data-testid": "replay-view",
        value: String(view),
        onchange: (e) => {
          this.view = e.target.value === "all" ? "all" : Number(e.target.value);
          this.changed();
        },
      },
      h("option", { value: "all" }, t("view_all")),
      Array.from({ length: seats }, (_, s) => h("option", { value: String(s) }, t("view_seat", { who: label(s) }))),
    );
    const speedSelect = h(
      "select",
      {
        "data-testid": "replay-speed",
        value: this.speed,
        onchange: (e) => {
          this.speed = e.target.value;
          if (this.timer) this.play();
          this.changed();
        },
      },
      SPEEDS.map(([ms, text]) => h("option", { value: ms }, text)),
    );
    const check = this.dealCheck;
    const drawn = this.board ? this.boardParts(step, i, seat, atEnd) : null;
    return h(
      "div",
      { class: "replay", "data-testid": "replay" },
      h(
        "div",
        { class: "replay-bar" },
        h("strong", { "data-testid": "replay-title" }, t("replay"), " · ", titleOf(this.opts.title) ?? t("hand_n", { n: this.number })),
        h("span", { "data-testid": "replay-step" }, t("step", { i, n: steps.length - 1 })),
        check === "verified" || check === "failed"
          ? h(
              "span",
              { class: `deal-check ${check}`, "data-testid": "deal-check", "data-result": check },
              check === "verified" ? `✓ ${t("deal_verified")}` : `✗ ${t("deal_failed")}`,
            )
          : null,
        this.review || this.reviewing ? null : button("review-button", () => this.startReview(), reviewLabel()),
        drawn?.toggle ?? null,
        close,
      ),
      this.review ? reviewTimeline(this.review, i, (k) => this.go(k), label) : this.reviewing ? reviewLoading() : null,
      this.review ? reviewNote(this.review, i) : null,
      this.reviewError ? h("p", { class: "error", "data-testid": "review-error" }, this.reviewError) : null,
      h(
        "div",
        { class: "replay-nav" },
        nav("replay-first", go(0), atStart, `|◀ ${t("first")}`),
        nav("replay-prev", go(i - 1), atStart, `◀ ${t("prev")}`),
        this.timer
          ? nav("replay-pause", () => { this.stop(); this.changed(); }, false, `❚❚ ${t("pause")}`)
          : nav("replay-play", () => { this.play(); this.changed(); }, atEnd, `▶ ${t("autoplay_replay")}`),
        nav("replay-next", go(i + 1), atEnd, `${t("next")} ▶`),
        nav("replay-last", go(steps.length - 1), atEnd, `${t("last")} ▶|`),
        h("label", {}, t("speed"), " ", speedSelect),
        h("label", {}, t("view_from"), " ", viewSelect),
      ),
      drawn ? netStrip(seats, atEnd ? step.settlement?.seats : null, label) : scoreStrip(step, atEnd, label),
      h(
        "ul",
        { class: "replay-events", "data-testid": "replay-events" },
        step.action ? h("li", { class: "actor" }, `${label(step.seat)}: ${step.action}`) : null,
        (step.events || [])
          .filter((e) => e.type !== "dealt")
          .map((e) => h("li", {}, this.board ? this.board.eventText(e, label) : eventText(e, label))),
      ),
      drawn ? drawn.body : renderBoard(obs, ctx),
      drawn ? null : step.breakdown ? breakdownView(step.breakdown) : obs.result?.breakdown ? breakdownView(obs.result.breakdown) : null,
    );
  }

  /** A game drawn by its own board: the table of step `i` from `seat` (its all-seeing view, or
   * as that seat saw it), and at the last step the board's result of the hand (the 翻牌, the
   * chickens, every payment), with a button to look at the table as it ended instead. */
  boardParts(step, i, seat, atEnd) {
    const { label } = this.opts;
    if (!step.observation) return { body: h("p", { class: "replay-plain", "data-testid": "replay-plain" }, step.action ?? "—"), toggle: null };
    const obs = this.view === "all" ? step.observation : seatView(step.observation, seat);
    const history = this.steps.slice(0, i + 1).flatMap((x) => x.events || []);
    const paid = atEnd ? step.settlement?.seats : null;
    const s = { obs, legal: [], toAct: false, history, room: { game: this.opts.game } };
    const env = {
      mySeat: null,
      bottom: seat,
      seats: obs.seats?.length ?? 3,
      mayAct: false,
      canAct: false,
      online: true,
      act: () => {},
      label,
      score: (x) => (paid ? paid[x] : 0),
    };
    const ending = atEnd && obs.end && this.board.handEnd;
    const title = titleOf(this.opts.title) ?? t("hand_n", { n: this.number });
    const toggle = ending
      ? button(this.showEnd ? "replay-see-table" : "replay-see-result", () => { this.showEnd = !this.showEnd; this.changed(); }, this.showEnd ? t("see_table") : t("see_result"))
      : null;
    const body = ending && this.showEnd
      ? h("div", { class: "replay-end", "data-testid": "replay-end" }, this.board.handEnd({ view: obs }, { label, title, s }))
      : this.board.render(s, env);
    return { body, toggle };
  }
}
