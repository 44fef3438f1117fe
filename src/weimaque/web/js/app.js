// Entry point: routes "/" to the lobby and "/r/{room_id}" to the room, wires the socket
// (net.js) to the state (store.js) and redraws the page from that state on every change.
import { button, h, mount } from "./dom.js";
import { RoomSocket, saveToken } from "./net.js";
import { applyMessage, emptyRoomState } from "./store.js";
import { t, toggleLang, onLangChange } from "./i18n.js";
import { renderLobby } from "./lobby.js";
import { actionBar, renderBoard } from "./table.js";
import { eventText, handEndView } from "./result.js";
import { historyView, openReplay } from "./replay.js";
import { loadPresets, rulesSummary } from "./rules.js";

const app = document.getElementById("app");
const roomMatch = location.pathname.match(/^\/r\/([^/]+)/);
const NAME_KEY = "wmq.name";
const autositKey = (roomId) => `wmq.autosit.${roomId}`;
const inviteKey = (roomId) => `wmq.invite.${roomId}`;

function header(extra) {
  return h(
    "header",
    { class: "top" },
    h("a", { href: "/", class: "brand" }, t("title")),
    extra || null,
    h("button", { class: "lang", "data-testid": "lang-toggle", onclick: toggleLang }, t("lang")),
  );
}

// ---------------------------------------------------------------- lobby

function startLobby() {
  const body = h("main", { class: "lobby" });
  const draw = () => {
    mount(app, header(), body);
    renderLobby(body, (res, req) => {
      // The creator sits at the first seat left for a person (none: watches the bots).
      const human = [0, 1, 2].find((s) => !(String(s) in req.bots));
      if (human !== undefined) sessionStorage.setItem(autositKey(res.room_id), String(human));
      // Shown once by the server: the 守醒 invitation stays with the creator's browser.
      if (res.shouxing_invite) localStorage.setItem(inviteKey(res.room_id), res.shouxing_invite);
      location.assign(res.url);
    });
  };
  onLangChange(draw);
  draw();
}

// ---------------------------------------------------------------- room

function startRoom(roomId) {
  const s = emptyRoomState(roomId);
  const ui = { history: null, replay: null, busy: false };
  const socket = new RoomSocket(roomId, {
    onMessage: (msg) => receive(msg),
    onState: (conn) => {
      s.conn = conn;
      draw();
    },
  });

  function receive(msg) {
    applyMessage(s, msg);
    if (["events", "snapshot", "error", "hand_end"].includes(msg.type)) ui.busy = false;
    if (msg.type === "error" && msg.code === "bad_token") saveToken(roomId, null);
    // A stale or refused action, or a gap in the events: ask for a fresh snapshot.
    if (msg.type === "error" && ["stale", "not_your_turn", "illegal_action"].includes(msg.code)) {
      s.resync = true;
    }
    if (s.resync) {
      s.resync = false;
      socket.join();
    }
    if (msg.type === "welcome" && msg.seat === null) maybeAutosit();
    if (msg.type === "hand_end" && ui.history) loadHistory();
    draw();
  }

  function maybeAutosit() {
    const seat = sessionStorage.getItem(autositKey(roomId));
    if (seat === null) return;
    sessionStorage.removeItem(autositKey(roomId));
    socket.sit(Number(seat), localStorage.getItem(NAME_KEY) || undefined);
  }

  const mySeat = () => (typeof s.you.seat === "number" ? s.you.seat : null);

  function label(seat) {
    const info = s.room?.seats?.[seat];
    // Bots are named after their kind by the server; number them so two bots differ.
    const name =
      info?.kind === "bot"
        ? t("bot_name", { n: seat + 1 })
        : info?.name || t("seat_n", { n: seat + 1 });
    return seat === mySeat() ? `${name}（${t("you")}）` : name;
  }

  function badges(seat) {
    const info = s.room?.seats?.[seat];
    if (!info) return [];
    return [
      info.kind === "bot" ? h("span", { class: "badge bot" }, info.bot) : null,
      info.autoplay ? h("span", { class: "badge auto" }, t("autoplay")) : null,
      info.kind === "human" && info.taken && !info.connected
        ? h("span", { class: "badge off" }, t("offline"))
        : null,
    ].filter(Boolean);
  }

  const score = (seat) => s.match?.scores?.[seat] ?? 0;

  function act(text) {
    if (ui.busy) return;
    ui.busy = true;
    socket.act(text, s.handNumber || undefined);
    draw();
  }

  function sit(seat) {
    const input = document.querySelector("[data-testid=name-input]");
    const name = input?.value.trim();
    if (name) localStorage.setItem(NAME_KEY, name);
    const invite =
      seat === "shouxing"
        ? new URLSearchParams(location.hash.slice(1)).get("invite") ||
          localStorage.getItem(inviteKey(roomId))
        : null;
    socket.sit(seat, name || undefined, invite || undefined);
  }

  async function loadHistory() {
    try {
      ui.history = await historyView(roomId, { label, onReplay: showReplay });
    } catch (err) {
      ui.history = h("p", { class: "error" }, t("error", { msg: err.message }));
    }
    draw();
  }

  function showReplay(number) {
    ui.replay = h("div", { class: "replay-host", "data-testid": "replay-host" });
    const close = () => {
      ui.replay = null;
      draw();
    };
    const opts = { label, bottom: mySeat() ?? 0, score, onClose: close };
    openReplay(ui.replay, roomId, number, opts).catch((err) =>
      mount(ui.replay, h("p", { class: "error" }, err.message), button("replay-close", close, t("close"))),
    );
    draw();
  }

  // ---- pieces of the room page

  /** The room's rules: its preset and every option its creator changed. */
  function rulesLine() {
    if (!s.room?.rules) return null;
    return h(
      "div",
      { class: "rules-line", "data-testid": "room-rules" },
      h("span", { class: "label" }, t("room_rules")),
      rulesSummary(s.room.rules),
    );
  }

  function inviteBar() {
    // The 守醒 sees all three hands: only someone the creator sends this link may sit there.
    const invite = localStorage.getItem(inviteKey(roomId));
    if (!invite || !s.room?.shouxing || s.room.shouxing.taken) return null;
    return h(
      "div",
      { class: "share" },
      h("span", {}, `${t("share")} · 守醒`),
      h("input", {
        readonly: true,
        value: `${location.origin}/r/${roomId}#invite=${invite}`,
        "data-testid": "shouxing-link",
        onfocus: (e) => e.target.select(),
      }),
    );
  }

  function shareBar() {
    const url = `${location.origin}/r/${roomId}`;
    const copy = h("button", { class: "small", "data-testid": "copy-link" }, t("copy"));
    copy.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(url);
        copy.textContent = t("copied");
      } catch {
        document.querySelector("[data-testid=share-link]")?.select();
      }
    });
    return h(
      "div",
      { class: "share" },
      h("span", {}, t("share")),
      h("input", {
        readonly: true,
        value: url,
        "data-testid": "share-link",
        onfocus: (e) => e.target.select(),
      }),
      copy,
    );
  }

  function seatList() {
    if (!s.room) return null;
    const spectator = s.you.role === "spectator";
    const free = s.room.seats.filter((x) => x.kind === "human" && !x.taken);
    const shouxingFree = s.room.shouxing && !s.room.shouxing.taken;
    return h(
      "div",
      { class: "seats", "data-testid": "seat-list" },
      s.room.seats.map((x) =>
        h(
          "span",
          {
            class: `seat-chip${x.seat === mySeat() ? " me" : ""}`,
            "data-testid": `seat-chip-${x.seat}`,
          },
          x.taken ? label(x.seat) : t("empty"),
          spectator && x.kind === "human" && !x.taken
            ? button(`sit-${x.seat}`, () => sit(x.seat), t("sit"))
            : null,
        ),
      ),
      s.room.shouxing
        ? h(
            "span",
            { class: `seat-chip${s.you.seat === "shouxing" ? " me" : ""}` },
            "守醒 ",
            s.room.shouxing.name || t("empty"),
            spectator && shouxingFree
              ? button("sit-shouxing", () => sit("shouxing"), t("sit"))
              : null,
          )
        : null,
      spectator && (free.length || shouxingFree)
        ? h("input", {
            class: "name",
            "data-testid": "name-input",
            placeholder: t("your_name"),
            maxlength: 24,
            value: localStorage.getItem(NAME_KEY) || "",
          })
        : null,
      !spectator
        ? button("spectate", () => socket.spectate(), t("spectate"))
        : null,
      h("span", { class: "spectators" }, t("spectators", { n: s.room.spectators })),
    );
  }

  function timerNode() {
    if (!s.deadline) return null;
    return h("div", { class: "timer", "data-testid": "timer" }, timerText());
  }

  const timerText = () =>
    t("timer", { s: Math.max(0, Math.ceil((s.deadline - Date.now()) / 1000)) });

  function board() {
    const me = mySeat();
    const legal = s.legal.map((a) => a.text);
    const canAct = me !== null && s.toAct && !ui.busy;
    const ctx = {
      bottom: me ?? 0,
      mySeat: me,
      label,
      badges,
      score,
      hands: s.obs.hands,
      legal: canAct ? legal : [],
      toAct: s.toAct,
      onDiscard: canAct ? (face) => act(`出${face}`) : null,
      timer: timerNode(),
      controls:
        canAct
          ? actionBar(legal, {
              act,
              chiOpen: s.chiOpen,
              toggleChi: () => {
                s.chiOpen = !s.chiOpen;
                draw();
              },
            })
          : null,
    };
    return renderBoard(s.obs, ctx);
  }

  function log() {
    const lines = s.history.filter((e) => e.type !== "dealt").slice(-6);
    if (!lines.length) return null;
    return h(
      "ol",
      { class: "log", "data-testid": "log" },
      lines.map((e) => h("li", {}, eventText(e, label))),
    );
  }

  function handEnd() {
    if (!s.lastHand) return null;
    const me = mySeat();
    const ready = me !== null && s.room?.seats?.[me]?.ready;
    return handEndView(s.lastHand, {
      label,
      canNext: me !== null && !ready && !s.lastHand.match_over,
      onNext: () => socket.next(),
    });
  }

  function matchEnd() {
    const end = s.matchEnd;
    if (!end) return null;
    return h(
      "section",
      { class: "panel match-end", "data-testid": "match-end" },
      h("h2", {}, t("match_over")),
      h(
        "ol",
        {},
        end.ranking.map((seat) => h("li", {}, `${label(seat)}: ${end.ledger.seats[seat]}`)),
      ),
      h("a", { href: "/", class: "button primary" }, t("create_room")),
    );
  }

  function main() {
    if (s.notFound) {
      return h("p", { class: "panel error", "data-testid": "not-found" }, t("not_found"));
    }
    return [
      s.obs
        ? board()
        : h("p", { class: "panel waiting", "data-testid": "waiting" }, t("waiting_players")),
      handEnd(),
      matchEnd(),
      log(),
      h(
        "div",
        { class: "history-bar" },
        h(
          "button",
          {
            class: "small",
            "data-testid": "history-toggle",
            onclick: () => {
              if (ui.history) {
                ui.history = null;
                draw();
              } else loadHistory();
            },
          },
          t("history"),
        ),
      ),
      ui.history,
    ];
  }

  function draw() {
    const connText = s.conn === "closed" ? t("disconnected") : t("connecting");
    const conn = s.conn === "open" ? null : h("span", { class: "conn", "data-testid": "conn" }, connText);
    const errText = s.error && !s.notFound ? t("error", { msg: s.error.message }) : null;
    const err = errText ? h("p", { class: "toast error", "data-testid": "error" }, errText) : null;
    s.error = null; // an error is shown once, with the redraw that follows it
    mount(
      app,
      header(h("span", { class: "room-id" }, `${t("room")} ${roomId}`, conn)),
      h("div", { class: "room-bar" }, rulesLine(), shareBar(), inviteBar(), seatList()),
      err,
      h("main", { class: "room" }, ui.replay || main()),
    );
  }

  // The countdown ticks without a full redraw.
  setInterval(() => {
    const node = document.querySelector("[data-testid=timer]");
    if (node && s.deadline) node.textContent = timerText();
  }, 500);
  // Keep idle connections (and proxies) alive.
  setInterval(() => socket.send("ping", { t: Date.now() }), 25000);

  onLangChange(draw);
  draw();
  socket.connect();
  // The presets name the 名堂 a room turned on or off; without them the keys show instead.
  loadPresets().then(draw, () => {});
}

if (roomMatch) startRoom(decodeURIComponent(roomMatch[1]));
else startLobby();
