// The room's client state, updated from server messages (docs/protocol.md §2.2).
// Pure data: rendering reads it, nothing here touches the DOM.

export function emptyRoomState(roomId) {
  return {
    roomId,
    conn: "connecting",
    room: null, // RoomInfo
    you: { seat: null, role: "spectator", name: null, held: null },
    handNumber: 0,
    decision: null, // the number of the decision shown: every act names it (null between hands)
    obs: null, // observation of this connection's viewer
    history: [], // event views of the current hand
    legal: [], // [{text, id}]
    numbers: null, // 明息 of every seat, our own 息 (games/maque/numbers.py table_xi)
    hints: null, // 听 hints, when asked for
    toAct: false,
    deadline: null, // local Date.now()-based deadline of our decision
    turnDeadline: null, // the same for the seat that must 出, whoever it is (turn_timer)
    match: null,
    lastHand: null, // hand_end payload while between hands
    matchEnd: null,
    // Local Date.now()-based deadlines from RoomInfo: the next deal, a 解散 vote, a 再来一局.
    nextDeadline: null,
    voteDeadline: null,
    rematchDeadline: null,
    error: null,
    notFound: false,
    chiOpen: false, // UI: the 吃 run chooser is open
    resync: false, // we missed a hand's start (or an action was refused): ask for a snapshot
  };
}

/** Whole seconds left until a local deadline (0 once it has passed). */
export function secondsLeft(deadline) {
  return deadline ? Math.max(0, Math.ceil((deadline - Date.now()) / 1000)) : 0;
}

// A countdown of RoomInfo ({left_ms}) as a deadline on this browser's clock (clocks differ).
const localDeadline = (block) => (block && typeof block.left_ms === "number" ? Date.now() + block.left_ms : null);

function setRoom(s, room) {
  s.room = room;
  s.nextDeadline = localDeadline(room?.next_hand);
  s.voteDeadline = localDeadline(room?.vote);
  s.rematchDeadline = localDeadline(room?.rematch);
  // A new match in the room (再来一局): the last match's result and standings are history.
  if (room && !room.match_over && s.matchEnd) s.matchEnd = null;
}

/** Fold one server message into the state; returns the same (mutated) object. */
export function applyMessage(s, msg) {
  const handler = HANDLERS[msg.type];
  if (handler) handler(s, msg);
  return s;
}

function setDecision(s, msg) {
  s.decision = msg.decision ?? null;
  s.numbers = msg.numbers || null;
  s.hints = msg.hints || null;
  s.legal = msg.legal_actions || [];
  s.toAct = Boolean(msg.to_act);
  s.deadline = msg.timer ? Date.now() + msg.timer.left_ms : null;
  s.turnDeadline = msg.turn_timer ? Date.now() + msg.turn_timer.left_ms : null;
  s.chiOpen = false;
}

const HANDLERS = {
  welcome(s, msg) {
    s.you = { seat: msg.seat, role: msg.role, name: msg.name, held: msg.held ?? null };
  },

  snapshot(s, msg) {
    setRoom(s, msg.room);
    s.you = { held: null, ...(msg.you || s.you) };
    s.handNumber = msg.hand_number;
    s.obs = msg.observation;
    s.history = msg.history || [];
    s.match = msg.match;
    s.lastHand = msg.last_hand;
    if (msg.match && !msg.match.over) s.matchEnd = null;
    // After a reload the match's end is told by the snapshot alone: rank the seats from it.
    if (msg.match?.over && !s.matchEnd) {
      const scores = msg.match.scores;
      s.matchEnd = {
        ranking: scores.map((_, i) => i).sort((a, b) => scores[b] - scores[a] || a - b),
        ledger: msg.match.ledger,
        scores,
        dissolved: Boolean(msg.room?.dissolved),
      };
    }
    s.resync = false;
    setDecision(s, msg);
  },

  // The server took our action. Its events come once no claim window keeps them back
  // (docs/protocol.md §2.3); until then there is nothing for us to decide. With a discard the
  // server sends our view as it then stands for us: the card has left our hand and lies in
  // the middle, as it does when nobody may claim it.
  ack(s, msg) {
    s.legal = [];
    s.toAct = false;
    s.deadline = null;
    s.turnDeadline = null;
    s.hints = null;
    if (msg.observation) s.obs = msg.observation;
  },

  events(s, msg) {
    if (msg.hand_number !== s.handNumber) {
      s.resync = true; // a hand we never got a snapshot of
      return;
    }
    // "from" counts the events this viewer has been shown; a mismatch means we missed
    // a message, so ask for a fresh snapshot instead of appending.
    if (msg.from !== s.history.length) {
      s.resync = true;
      return;
    }
    s.history.push(...msg.events);
    s.obs = msg.observation;
    setDecision(s, msg);
  },

  hand_end(s, msg) {
    s.lastHand = msg;
    s.toAct = false;
    s.legal = [];
    s.deadline = null;
    s.turnDeadline = null;
    if (s.match) {
      s.match.ledger = msg.ledger;
      s.match.scores = msg.scores;
      s.match.hands_played = msg.hand_number;
      s.match.over = msg.match_over;
    }
  },

  match_end(s, msg) {
    s.matchEnd = msg;
    if (s.match) {
      s.match.hands = msg.hands;
      s.match.over = true;
      s.match.scores = msg.scores ?? s.match.scores;
    }
    if (msg.dissolved) {
      // A dissolved match abandons the hand in progress: nothing is left to decide.
      s.toAct = false;
      s.legal = [];
      s.deadline = null;
      s.turnDeadline = null;
    }
  },

  room(s, msg) {
    setRoom(s, msg.room);
  },

  error(s, msg) {
    if (msg.code === "room_not_found") s.notFound = true;
    s.error = msg;
  },
};
