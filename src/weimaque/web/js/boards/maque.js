// 偎麻雀's board (docs/web.md "Boards"): the table of table.js with the hand the player arranges
// (arrange.js), two-tap discards, the 听 hints (hints.js), cards that move (motion.js), the
// legend of the melds' colours, the result sheet's breakdown (result.js) and the log's words.
// The room shell (room.js) calls it through the board interface of boards/index.js.
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { actionBar, renderBoard } from "../table.js";
import { card } from "../cards.js";
import { eventText, handEndView } from "../result.js";
import { hintFaces, hintsView, hintsWanted, setHintsWanted } from "../hints.js";
import { autoTidyWanted, HandLayout, installHandDrag, setAutoTidy } from "../arrange.js";
import { Motion } from "../motion.js";
import { callOf } from "../voice.js";
import { discardConfirmWanted } from "./common.js";

// Each event kind's sound (the others are silent: a 过 or a declined 胡 is nobody's news).
const SOUND = { discard: "discard", drew: "draw", chi: "chi", peng: "peng", wei: "wei", hu: "hu" };

/** What 偎麻雀's events sound like and are called (cues.js): also the cues of a page that
 * names no board. */
export const maqueCues = {
  cue(event) {
    if (!SOUND[event.type]) return null;
    return { sound: SOUND[event.type], text: callOf(event), discard: event.type === "discard" ? event.card : undefined };
  },
  /** Our own 出, heard at its ack: {key: the card, text: its call}, or null for another action. */
  ownDiscard(action) {
    if (!action.startsWith("出")) return null;
    const card = action.slice(1);
    return { key: card, text: callOf({ type: "discard", card }) };
  },
};

export const maque = {
  id: "maque",
  hints: true,
  create(shell) {
    return new MaqueBoard(shell);
  },
};

class MaqueBoard {
  constructor(shell) {
    this.shell = shell;
    this.raised = null; // the card a first tap raised (two-tap discards): {face, key}
    this.layout = new HandLayout(shell.roomId, () => shell.draw());
    installHandDrag(shell.app, this.layout);
    this.motion = new Motion();
  }

  /** Before the store takes `msg`: what must be read from the page as it stands (flights). */
  before(msg, s) {
    return this.motion.before(msg, s);
  }

  /** After the page shows `msg`. */
  after(msg, s, early) {
    if (!s.toAct) this.raised = null; // a raised card waits for our 出 only while we may play
    this.motion.after(msg, s, early);
  }

  /** The sound and the words of an event view (cues.js), or null. */
  cue(event) {
    return maqueCues.cue(event);
  }

  ownDiscard(action) {
    return maqueCues.ownDiscard(action);
  }

  /** A tap on a card we may 出: plays it, or with two-tap discards raises it first. */
  discardTap(face, key) {
    if (!discardConfirmWanted() || (this.raised && this.raised.key === key)) {
      this.raised = null;
      this.shell.act(`出${face}`);
      return;
    }
    this.raised = { face, key };
    this.shell.draw();
  }

  /** The switch of the two-tap discards was turned. */
  resetRaised() {
    this.raised = null;
  }

  /** The tool row's buttons of this game, after the shell's 托管: hints, 理牌, 自动理牌. */
  tools(s, env, autoplayOn) {
    const on = hintsWanted();
    const draw = this.shell.draw;
    return h(
      "div",
      { class: "tools", "data-testid": "tools" },
      h(
        "button",
        {
          class: "small",
          "data-testid": "hints-toggle",
          "aria-pressed": on ? "true" : "false",
          onclick: () => {
            setHintsWanted(!on);
            this.shell.socket.hints(!on);
            draw();
          },
        },
        on ? t("hints_on") : t("hints_off"),
      ),
      autoplayOn,
      // 理牌 puts the hand back in order; 自动理牌 (kept per device) groups each new hand.
      typeof s.obs?.hand === "string"
        ? h("button", { class: "small", "data-testid": "tidy", title: t("tidy_help"), onclick: () => this.layout.reset() }, t("tidy"))
        : null,
      h(
        "button",
        {
          class: "small",
          "data-testid": "auto-tidy",
          "aria-pressed": autoTidyWanted() ? "true" : "false",
          title: t("auto_tidy_help"),
          onclick: () => {
            setAutoTidy(!autoTidyWanted());
            if (autoTidyWanted()) this.layout.reset();
            draw();
          },
        },
        autoTidyWanted() ? t("auto_tidy_on") : t("auto_tidy_off"),
      ),
    );
  }

  /**
   * The table. `s`: the room state (store.js); `env`: what the shell draws around it (see
   * boards/index.js).
   */
  render(s, env) {
    const me = env.mySeat;
    const legal = s.legal.map((a) => a.text);
    const showHints = me !== null && hintsWanted() ? s.hints : null;
    const raised = env.canAct ? this.raised : null;
    const ctx = {
      bottom: env.bottom,
      mySeat: me,
      label: env.label,
      badges: env.badges,
      score: env.score,
      hands: s.obs.hands,
      // Our own hand in the order we gave it (arrange.js); another seat's we watch stays sorted.
      handColumns: me !== null && typeof s.obs.hand === "string" ? this.layout.columns(s.handNumber, s.obs.hand) : null,
      arrangeable: me !== null && typeof s.obs.hand === "string",
      numbers: s.numbers,
      won: s.obs.phase === "over",
      hintFaces: showHints ? hintFaces(showHints) : null,
      legal: env.canAct ? legal : [],
      toAct: s.toAct,
      onDiscard: env.canAct ? (face, key) => this.discardTap(face, key) : null,
      raised,
      timer: env.timer,
      clock: env.clock,
      notice: env.notice,
      bubble: env.bubble,
      banner: env.banner,
      side: me === null ? null : this.tools(s, env, env.autoplayOn),
      below: showHints ? hintsView(showHints) : null,
      controls: env.mayAct
        ? actionBar(legal, {
            act: env.act,
            offline: !env.online,
            twoTaps: discardConfirmWanted(),
            chiOpen: s.chiOpen,
            toggleChi: () => {
              s.chiOpen = !s.chiOpen;
              this.shell.draw();
            },
          })
        : null,
    };
    return renderBoard(s.obs, ctx);
  }

  /** What the colours of the melds mean (the room's drawer). */
  legend() {
    const sample = (opts, cls = "") => h("span", { class: `legend-card ${cls}` }, card("七", { size: "xs", ...opts }));
    return h(
      "div",
      { class: "legend", "data-testid": "meld-legend" },
      h("span", { class: "label" }, t("legend")),
      h("span", { class: "legend-item" }, sample({ mark: "claimed" }), t("legend_claimed")),
      h("span", { class: "legend-item" }, sample({}, "meld face-down"), t("legend_own_wei")),
      h("span", { class: "legend-item" }, sample({ down: true }), t("legend_hidden_wei")),
    );
  }

  /** The result of a hand (`hand_end`), over the table between hands. */
  handEnd(end, opts) {
    return handEndView(end, opts);
  }

  /** One line of the log. */
  eventText(event, label) {
    return eventText(event, label);
  }
}
