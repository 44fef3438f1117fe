// Quick chat: a fixed list of phrases and 表情 (the server's weimaque.server.wire.quickchat holds the same
// ids; a test keeps the two equal), sent with one tap from a small panel and shown for a few
// seconds at the sender's seat. No free text. Anyone may mute a seat's chat for themselves
// (remembered per device and room). The emotes and the header's icons are drawn here, as SVG.
import { h } from "./dom.js";
import { t } from "./i18n.js";

export const PHRASES = ["hurry", "sorry", "nice", "again", "hello", "thanks", "lucky", "wait"];
export const EMOTES = ["smile", "laugh", "cry", "angry", "wow", "thumbs"];

/** How long a line stays at its seat. */
export const BUBBLE_MS = 3000;

const muteKey = (roomId) => `wmq.chatmute.${roomId}`;

/** The seats whose chat this device does not show in room `roomId`. */
export function mutedSeats(roomId) {
  try {
    const list = JSON.parse(localStorage.getItem(muteKey(roomId)) || "[]");
    return new Set(Array.isArray(list) ? list.map(String) : []);
  } catch {
    return new Set();
  }
}

export function setSeatMuted(roomId, seat, muted) {
  const set = mutedSeats(roomId);
  if (muted) set.add(String(seat));
  else set.delete(String(seat));
  localStorage.setItem(muteKey(roomId), JSON.stringify([...set]));
}

const svg = (attrs, ...children) =>
  h("svg", { viewBox: "0 0 24 24", width: 22, height: 22, "aria-hidden": "true", ...attrs }, ...children);

// A round face and its features, one set per emote.
const FEATURES = {
  smile: [eyes(), h("path", { d: "M7.5 14.5q4.5 4 9 0", fill: "none", stroke: "#5a3a00", "stroke-width": 1.6, "stroke-linecap": "round" })],
  laugh: [
    h("path", { d: "M7 9.5l2 -1.2M7 8.3l2 1.2M17 9.5l-2 -1.2M17 8.3l-2 1.2", stroke: "#5a3a00", "stroke-width": 1.4, "stroke-linecap": "round" }),
    h("path", { d: "M6.5 13h11q-1 5.5 -5.5 5.5t-5.5 -5.5z", fill: "#8a2a1a" }),
  ],
  cry: [
    eyes(),
    h("path", { d: "M8 17q4 -3.5 8 0", fill: "none", stroke: "#5a3a00", "stroke-width": 1.6, "stroke-linecap": "round" }),
    h("path", { d: "M7.6 11.5q-1.4 2.6 0 3.4q1.4 -0.8 0 -3.4z", fill: "#4aa3ff" }),
    h("path", { d: "M16.4 11.5q-1.4 2.6 0 3.4q1.4 -0.8 0 -3.4z", fill: "#4aa3ff" }),
  ],
  angry: [
    h("path", { d: "M6.5 7.5l4 1.6M17.5 7.5l-4 1.6", stroke: "#5a3a00", "stroke-width": 1.6, "stroke-linecap": "round" }),
    eyes(10.5),
    h("path", { d: "M8 17q4 -3 8 0", fill: "none", stroke: "#5a3a00", "stroke-width": 1.6, "stroke-linecap": "round" }),
  ],
  wow: [eyes(), h("ellipse", { cx: 12, cy: 15.5, rx: 2.2, ry: 2.8, fill: "#5a3a00" })],
};

function eyes(y = 9.5) {
  return [h("circle", { cx: 8.8, cy: y, r: 1.3, fill: "#5a3a00" }), h("circle", { cx: 15.2, cy: y, r: 1.3, fill: "#5a3a00" })];
}

/** An emote drawn as SVG (no image files, no emoji). */
export function emoteIcon(id, size = 22) {
  const label = t(`emote_${id}`);
  if (id === "thumbs") {
    return svg(
      { width: size, height: size, class: "emote", "data-emote": id, role: "img", "aria-label": label },
      h("path", {
        d: "M3 11h3.5v9H3zM8 20h8.3q1.5 0 1.9 -1.4l1.7 -6q.5 -1.9 -1.5 -1.9H14l.8 -3.8q.3 -1.9 -1.2 -2.4L13 4.3L8 11z",
        fill: "#f2c14e",
        stroke: "#5a3a00",
        "stroke-width": 1.2,
        "stroke-linejoin": "round",
      }),
    );
  }
  return svg(
    { width: size, height: size, class: "emote", "data-emote": id, role: "img", "aria-label": label },
    h("circle", { cx: 12, cy: 12, r: 10, fill: "#f2c14e", stroke: "#5a3a00", "stroke-width": 1 }),
    FEATURES[id] || null,
  );
}

const STROKE = { fill: "none", stroke: "currentColor", "stroke-width": 2, "stroke-linecap": "round", "stroke-linejoin": "round" };
const slash = () => h("path", { d: "M3 3l18 18", ...STROKE });

/** The header's icons: a speaker (sound), a speaking head (voice), a speech bubble (chat). */
export function icon(kind, off = false) {
  if (kind === "sound") {
    return svg({}, h("path", { d: "M4 9h3l5 -4v14l-5 -4H4z", ...STROKE }), off ? slash() : h("path", { d: "M15.5 9q2 3 0 6M18 6.5q4 5.5 0 11", ...STROKE }));
  }
  if (kind === "voice") {
    return svg(
      {},
      h("path", { d: "M12 20v-3h2.5v-3.5l1.5 -.5l-1.5 -3q0 -5 -5.5 -5q-5 0 -5 5q0 3 2 4.5V20", ...STROKE }),
      off ? slash() : h("path", { d: "M18.5 8q1.5 2.5 0 5M20.5 6q3 4.5 0 9", ...STROKE }),
    );
  }
  return svg({}, h("path", { d: "M4 5h16v11H10l-4 3.5V16H4z", ...STROKE }), h("path", { d: "M8.5 10.5h.01M12 10.5h.01M15.5 10.5h.01", ...STROKE, "stroke-width": 2.6 }));
}

/** What a chat line shows: a phrase's words or the emote. */
export function chatContent(line, size = 26) {
  return line.phrase ? t(`chat_${line.phrase}`) : emoteIcon(line.emote, size);
}

/** The bubble at a seat, while its line is fresh. */
export function bubble(line) {
  if (!line || line.until <= Date.now()) return null;
  return h(
    "span",
    { class: `chat-bubble${line.emote ? " emote-bubble" : ""}`, "data-testid": "chat-bubble", "data-seat": String(line.seat), role: "status" },
    chatContent(line),
  );
}

/**
 * The panel the chat button opens: the phrases, the 表情, and a mute for each other seat.
 * opts: {canSend, online, send({phrase} | {emote}), seats: [{seat, label}], muted: Set,
 *        toggleMute(seat)}
 */
export function chatPanel(opts) {
  const phrase = (id) =>
    h(
      "button",
      { key: id, class: "chat-phrase", "data-testid": "chat-phrase", "data-phrase": id, disabled: !opts.online, onclick: () => opts.send({ phrase: id }) },
      t(`chat_${id}`),
    );
  const emote = (id) =>
    h(
      "button",
      {
        key: id,
        class: "chat-emote",
        "data-testid": "chat-emote",
        "data-emote": id,
        disabled: !opts.online,
        "aria-label": t(`emote_${id}`),
        onclick: () => opts.send({ emote: id }),
      },
      emoteIcon(id, 26),
    );
  const mute = ({ seat, label }) => {
    const muted = opts.muted.has(String(seat));
    return h(
      "button",
      {
        key: seat,
        class: `chat-mute${muted ? " muted" : ""}`,
        "data-testid": `chat-mute-${seat}`,
        "aria-pressed": muted ? "true" : "false",
        onclick: () => opts.toggleMute(seat),
      },
      muted ? t("chat_muted", { who: label }) : label,
    );
  };
  return h(
    "div",
    { class: "chat-panel", "data-testid": "chat-panel", role: "dialog", "aria-label": t("chat") },
    opts.canSend ? h("div", { class: "chat-phrases" }, PHRASES.map(phrase)) : null,
    opts.canSend ? h("div", { class: "chat-emotes" }, EMOTES.map(emote)) : null,
    opts.seats.length
      ? h("div", { class: "chat-mutes" }, h("span", { class: "label" }, t("chat_mute")), opts.seats.map(mute))
      : null,
  );
}
