// The boards, one per game (docs/web.md "Boards"). The room shell (room.js) draws what every
// game has (the room bar and drawer, seats and names, clocks, votes and 解散, chat, 准备 and
// 下一局, the result sheet's bar and the match's totals, reconnects) and hands the table to the
// board of the room's game (`room.game`, docs/protocol.md §1).
//
// A board module exports `{id, hints, replays, create(shell)}`; `hints` says whether the game
// offers the 听 hints of docs/protocol.md §2.1 `hints`, `replays: false` that the room's hands
// are listed without the replay viewer (replay.js draws 偎麻雀's steps itself, another game's
// with its board: `render` of the step's view, `handEnd` at the last), `drawnText()` (optional)
// what the list of hands calls a hand nobody won. `create` gets the shell:
//   {roomId, app, draw(), act(actionText), socket, label(seat)}
// and returns an object with
//   render(s, env)         the table (a vnode). `s` is the room state of store.js (s.obs: the
//                          game's view JSON, s.legal: [{text, id}], s.toAct, s.history, s.room);
//                          `env`: {mySeat, bottom (the seat drawn at the bottom), seats (how many),
//                          mayAct, canAct (mayAct and online), online, act(text), label(seat),
//                          badges(seat), score(seat), clock(seat), bubble(seat), timer, notice,
//                          banner (the 托管 bar), autoplayOn (the 托管 button, or null)}
//   legend()               a piece of the room's drawer about the board, or null
//   handEnd(end, opts)     the result of a hand (`hand_end`, opts {label, title, s})
//   eventText(event, label) one line of the log
//   cue(event)             {sound, text, discard} of an event view for cues.js, or null
//   ownDiscard(actionText)  {key, text} of our own 出 (heard at its ack; key: its cue's `discard`), or null
//   before(msg, s), after(msg, s, early)  around each message (motion), optional
//   resetRaised()          the two-tap switch was turned
import { maque } from "./maque.js";
import { sandingguai } from "./sandingguai.js";
import { plain } from "./plain.js";

const BOARDS = { [maque.id]: maque, [sandingguai.id]: sandingguai };

/** The board of a game id (a room that names no game is 偎麻雀's; a game with no board of its
 * own gets the plain one: its view as text, its legal actions as buttons). */
export function boardFor(game) {
  return BOARDS[game || "maque"] || plain;
}
