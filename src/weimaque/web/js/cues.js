// What the table sounds and says for the messages the room page receives (docs/protocol.md
// §2.2): only live `events` and a new hand dealt while the page is there (the first snapshot of
// a connection, after a load or a reconnect, is history, and is silent), one cue
// for a burst (its weightiest event, the latest of equals), never for a hidden tab. Our own 出
// sounds when the server takes it (`ack`), not when its claim window closes. Which event sounds
// and what it is called is the board's (boards/index.js `cue`, `ownDiscard`).
import { playSound } from "./sound.js";
import { say } from "./voice.js";
import { secondsLeft } from "./store.js";
import { maqueCues } from "./boards/maque.js";

// Which of a burst's cues is heard: a 胡 over a claim, a claim over a 出 (or a chat line), a 出
// over a draw.
const WEIGHT = { deal: 1, draw: 1, discard: 2, chat: 2, chi: 3, peng: 3, wei: 3, gang: 3, hu: 4 };
const weight = (cue) => (cue && cue.sound ? WEIGHT[cue.sound] || 0 : 0);
// A burst of messages within this many ms plays only its last cue.
const GATHER_MS = 80;
// The clock ticks aloud from this many seconds left.
const HURRY_S = 5;

export class TableCues {
  /** `board()`: the board of the room's game, asked at each message (偎麻雀's by default). */
  constructor(board = () => maqueCues) {
    this.board = board;
    this.pending = null;
    this.timer = null;
    this.ownDiscard = null; // our 出 already sounded at its ack: {seat, card}
    this.ticked = null;
    this.shownHand = null; // the hand the last snapshot of this connection showed; null: none yet
  }

  /** Fold one message in: `s` is the room state after it, `wasToAct` before it. */
  message(msg, s, wasToAct) {
    if (msg.type === "snapshot") {
      // A hand dealt while the page is there (a 快速开始's first, each next hand) is news: the
      // shuffle, and the bell when we deal and must 出 at once.
      const dealt = this.shownHand !== null && msg.hand_number !== this.shownHand && s.obs && s.obs.phase !== "over";
      this.shownHand = msg.hand_number;
      if (dealt) this.queue({ sound: "deal", turn: s.toAct });
      return;
    }
    if (msg.type === "ack") {
      const action = String(msg.actor?.action || "");
      const own = msg.actor?.seat === s.you.seat ? this.board().ownDiscard(action) : null;
      if (own) {
        this.ownDiscard = { seat: msg.actor.seat, card: own.key };
        this.queue({ sound: "discard", text: own.text });
      }
      return;
    }
    if (msg.type === "hand_end") {
      // After the 胡 it follows: both are heard, the end last.
      this.queue({ end: true });
      return;
    }
    if (msg.type !== "events") return;
    const board = this.board();
    let event = null;
    let found = null;
    for (const e of msg.events || []) {
      const c = board.cue(e);
      if (c && (!found || weight(c) >= weight(found))) [event, found] = [e, c];
    }
    let cue = null;
    if (found) {
      const own = this.ownDiscard;
      const sounded = found.discard !== undefined && own && own.seat === event.seat && own.card === found.discard;
      if (!sounded) cue = { sound: found.sound, text: found.text };
    }
    if (found?.discard !== undefined) this.ownDiscard = null;
    if (s.toAct && !wasToAct) cue = { ...(cue || {}), turn: true };
    if (cue) this.queue(cue);
  }

  /** The connection dropped (or is not up yet): its next first snapshot is silent. */
  disconnected() {
    this.shownHand = null;
  }

  /** A chat line heard: its pop and, for a phrase, its words. */
  chat(text) {
    this.queue({ sound: "chat", text });
  }

  /** Every half second: the clock of our decision ticks in its last seconds. */
  tick(s) {
    const left = s.toAct && s.deadline ? secondsLeft(s.deadline) : 0;
    if (left > 0 && left <= HURRY_S && left !== this.ticked && !document.hidden) playSound("hurry");
    this.ticked = left;
  }

  queue(cue) {
    if (document.hidden) return;
    const had = this.pending;
    if (had) {
      // One cue for the burst: the weightier sound and its words; our turn and the end kept.
      const main = weight(cue) >= weight(had) ? cue : had;
      cue = { sound: main.sound, text: main.text, turn: had.turn || cue.turn, end: had.end || cue.end };
    }
    this.pending = cue;
    document.body.dataset.cuePending = "true"; // for tests: a cue is about to sound
    if (this.timer === null) this.timer = setTimeout(() => this.flush(), GATHER_MS);
  }

  /** Sound (and say) the cue gathered, now. */
  flush() {
    const cue = this.pending;
    clearTimeout(this.timer);
    this.pending = null;
    this.timer = null;
    document.body.dataset.cuePending = "false";
    if (!cue) return;
    if (cue.sound) playSound(cue.sound);
    if (cue.turn) playSound("turn", cue.sound ? 0.18 : 0);
    if (cue.end) playSound("end", cue.sound ? 0.5 : 0);
    if (cue.text) say(cue.text);
  }
}
