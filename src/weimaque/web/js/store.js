// The room's client state, updated from server messages (docs/protocol.md §2.2).
// Pure data: rendering reads it, nothing here touches the DOM.

export function emptyRoomState(roomId) {
  return {
    roomId,
    conn: "connecting",
    room: null, // RoomInfo
    you: { seat: null, role: "spectator", name: null, held: null },
    handNumber: 0,
    obs: null, // observation of this connection's viewer
    history: [], // event views of the current hand
    legal: [], // [{text, id}]
    numbers: null, // 明息 of every seat, our own 息 (server/numbers.py table_xi)
    hints: null, // 听 hints, when asked for
    toAct: false,
    deadline: null, // local Date.now()-based deadline of our decision
    match: null,
    lastHand: null, // hand_end payload while between hands
    matchEnd: null,
    error: null,
    notFound: false,
    chiOpen: false, // UI: the 吃 run chooser is open
    resync: false, // we missed a hand's start (or an action was refused): ask for a snapshot
  };
}

/** Fold one server message into the state; returns the same (mutated) object. */
export function applyMessage(s, msg) {
  const handler = HANDLERS[msg.type];
  if (handler) handler(s, msg);
  return s;
}

function setDecision(s, msg) {
  s.numbers = msg.numbers || null;
  s.hints = msg.hints || null;
  s.legal = msg.legal_actions || [];
  s.toAct = Boolean(msg.to_act);
  s.deadline = msg.timer ? Date.now() + msg.timer.left_ms : null;
  s.chiOpen = false;
}

const HANDLERS = {
  welcome(s, msg) {
    s.you = { seat: msg.seat, role: msg.role, name: msg.name, held: msg.held ?? null };
  },

  snapshot(s, msg) {
    s.room = msg.room;
    s.you = { held: null, ...(msg.you || s.you) };
    s.handNumber = msg.hand_number;
    s.obs = msg.observation;
    s.history = msg.history || [];
    s.match = msg.match;
    s.lastHand = msg.last_hand;
    if (msg.match && !msg.match.over) s.matchEnd = null;
    s.resync = false;
    setDecision(s, msg);
  },

  // The server took our action. Its events come once no claim window keeps them back
  // (docs/protocol.md §2.3); until then there is nothing for us to decide. A discard leaves
  // our hand at once and lies in the middle, as it does when nobody may claim it: the
  // player never sees a card they threw stay in hand while others think.
  ack(s, msg) {
    s.legal = [];
    s.toAct = false;
    s.deadline = null;
    s.hints = null;
    const obs = s.obs;
    const done = msg.actor;
    if (!done || done.seat !== s.you.seat || !obs || typeof obs.hand !== "string") return;
    const face = String(done.action).startsWith("出") ? String(done.action).slice(1) : null;
    const at = face ? obs.hand.indexOf(face) : -1;
    if (at < 0) return;
    const seat = s.you.seat;
    s.obs = {
      ...obs,
      hand: obs.hand.slice(0, at) + obs.hand.slice(at + 1),
      hand_sizes: obs.hand_sizes.map((n, i) => (i === seat ? n - 1 : n)),
      claim: { card: face, origin: "discard", from: seat },
      phase: "claim",
      turn: null,
      to_act: false,
    };
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
    if (s.match) {
      s.match.ledger = msg.ledger;
      s.match.scores = msg.scores;
      s.match.hands_played = msg.hand_number;
      s.match.over = msg.match_over;
    }
  },

  match_end(s, msg) {
    s.matchEnd = msg;
    if (s.match) s.match.hands = msg.hands;
  },

  room(s, msg) {
    s.room = msg.room;
  },

  error(s, msg) {
    if (msg.code === "room_not_found") s.notFound = true;
    s.error = msg;
  },
};
