// Transport: HTTP helpers and the room WebSocket (docs/protocol.md). No rendering here:
// the socket hands parsed messages to a callback and reports its connection state.

const PROTOCOL = 1;

/**
 * An HTTP request of JSON: GET without a body, POST with one, or the `method` named (PATCH,
 * DELETE). The player's cookie goes along by itself (same origin, docs/protocol.md §7.1).
 * Throws an Error carrying the server's error code, message and HTTP status.
 */
export async function api(path, body, method) {
  const init = { method: method || (body === undefined ? "GET" : "POST") };
  if (body !== undefined) {
    init.headers = { "Content-Type": "application/json" };
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const err = new Error(data.error?.message || `HTTP ${res.status}`);
    err.code = data.error?.code || String(res.status);
    err.status = res.status;
    throw err;
  }
  return data;
}

// The seat token is the only proof of a seat: keep it per room so a reload gets the seat back.
const tokenKey = (roomId) => `wmq.token.${roomId}`;
export const loadToken = (roomId) => localStorage.getItem(tokenKey(roomId));
export function saveToken(roomId, token) {
  if (token) localStorage.setItem(tokenKey(roomId), token);
  else localStorage.removeItem(tokenKey(roomId));
}

// Whether we hold our seat but chose to watch (旁观): a reload keeps watching.
const watchKey = (roomId) => `wmq.watch.${roomId}`;
const isWatching = (roomId) => localStorage.getItem(watchKey(roomId)) === "1";
function saveWatching(roomId, on) {
  if (on) localStorage.setItem(watchKey(roomId), "1");
  else localStorage.removeItem(watchKey(roomId));
}

/** Ids of the rooms this browser holds a seat in (for the lobby's "my rooms"). */
export function myRoomIds() {
  const ids = [];
  for (let i = 0; i < localStorage.length; i++) {
    const key = localStorage.key(i);
    if (key?.startsWith("wmq.token.")) ids.push(key.slice("wmq.token.".length));
  }
  return ids;
}

/**
 * One WebSocket to /ws/{roomId} that rejoins with the stored token after every (re)connect.
 * onMessage(msg) gets every server message; onState("connecting" | "open" | "closed");
 * hints() says whether this device wants 听 hints, asked for with every join and sit.
 */
export class RoomSocket {
  constructor(roomId, { onMessage, onState, name, hints = () => false }) {
    this.roomId = roomId;
    this.wantsHints = hints;
    this.onMessage = onMessage;
    this.onState = onState;
    this.name = name;
    this.nextId = 1;
    this.retry = 0;
    this.stopped = false;
    this.ws = null;
    this.timer = null;
    // The browser knows when its network goes: drop the socket at once (the table sees the seat
    // offline and 托管 takes it after the grace), and come back as soon as it returns.
    window.addEventListener("offline", () => this.ws?.close());
    window.addEventListener("online", () => {
      if (this.stopped || this.open || this.ws?.readyState === WebSocket.CONNECTING) return;
      clearTimeout(this.timer);
      this.retry = 0;
      this.connect();
    });
  }

  connect() {
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    const ws = new WebSocket(`${scheme}://${location.host}/ws/${encodeURIComponent(this.roomId)}`);
    this.ws = ws;
    this.onState("connecting");
    ws.addEventListener("open", () => {
      this.retry = 0;
      this.onState("open");
      this.join();
    });
    ws.addEventListener("message", (e) => this.receive(e.data));
    ws.addEventListener("close", (e) => this.closed(ws, e));
  }

  receive(text) {
    let msg;
    try {
      msg = JSON.parse(text);
    } catch {
      return; // the server only sends JSON; ignore anything else rather than crash the page
    }
    if (msg.type === "welcome") {
      // A welcome carries the token of the seat we play or watch from; none: we hold no seat.
      saveToken(this.roomId, msg.token);
      saveWatching(this.roomId, msg.held !== null && msg.held !== undefined);
    }
    this.onMessage(msg);
  }

  closed(ws, event) {
    if (ws !== this.ws) return;
    this.onState("closed");
    // 4404: the room does not exist; retrying cannot help.
    if (this.stopped || event.code === 4404) return;
    if (!navigator.onLine) return; // the "online" event reconnects
    const delay = Math.min(8000, 500 * 2 ** this.retry++);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** Send a message; returns its id (echoed back as "re"), or null when not connected. */
  send(type, fields = {}) {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return null;
    const id = this.nextId++;
    this.ws.send(JSON.stringify({ v: PROTOCOL, type, id, ...fields }));
    return id;
  }

  get open() {
    return Boolean(this.ws) && this.ws.readyState === WebSocket.OPEN;
  }

  /** (Re)join: with the stored token we get our seat (or our watching place) back. */
  join(watch) {
    const token = loadToken(this.roomId);
    const fields = token ? { token } : {};
    if (token && (watch ?? isWatching(this.roomId))) fields.watch = true;
    fields.hints = this.wantsHints();
    return this.send("join", fields);
  }

  /** Back from watching to playing our seat. */
  sitBack() {
    return this.join(false);
  }

  leave() {
    return this.send("leave");
  }

  autoplay(on) {
    return this.send("autoplay", { on });
  }

  noTimer(agree) {
    return this.send("no_timer", { agree });
  }

  hints(on) {
    return this.send("hints", { on });
  }

  sit(seat, name, invite) {
    const fields = { seat, hints: this.wantsHints() };
    if (name) fields.name = name;
    if (invite) fields.invite = invite;
    return this.send("sit", fields);
  }

  /** An action in the decision numbered `decision` (from the last snapshot or events). */
  act(action, decision, hand) {
    return this.send("act", hand ? { action, decision, hand } : { action, decision });
  }

  next() {
    return this.send("next");
  }

  spectate() {
    return this.send("spectate");
  }

  close() {
    this.stopped = true;
    this.ws?.close();
  }
}
