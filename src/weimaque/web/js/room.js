// The room page (/r/{id}): wires the socket (net.js) to the state (store.js) and redraws the
// page from that state on every change. The table comes first, so a phone held sideways shows
// the three seats, the claim, the hand and the buttons on one screen; the room's bar follows.
import { button, h, mount } from "./dom.js";
import { RoomSocket, saveToken } from "./net.js";
import { applyMessage, emptyRoomState } from "./store.js";
import { onLangChange, refusal, t } from "./i18n.js";
import { actionBar, renderBoard } from "./table.js";
import { eventText, handEndView } from "./result.js";
import { historyView, openReplay } from "./replay.js";
import { noteCommitment } from "./fairness.js";
import { loadPresets, rulesSummary } from "./rules.js";
import { hintFaces, hintsView, hintsWanted, setHintsWanted } from "./hints.js";
import { confirmBox, header, notFoundPage } from "./page.js";

const NAME_KEY = "wmq.name";
export const autositKey = (roomId) => `wmq.autosit.${roomId}`;
export const inviteKey = (roomId) => `wmq.invite.${roomId}`;
// The creator of a room without a timer agrees to it when seated.
export const noTimerKey = (roomId) => `wmq.notimer.${roomId}`;

export function startRoom(app, roomId) {
  const s = emptyRoomState(roomId);
  // `name` is what the player has typed so far: a redraw (another seat joining) must not wipe it.
  const ui = { history: null, replay: null, busy: false, confirm: null, logOpen: false, name: null };
  const socket = new RoomSocket(roomId, {
    onMessage: (msg) => receive(msg),
    onState: (conn) => {
      s.conn = conn;
      if (conn !== "open") ui.busy = false; // nothing is in flight on a dead socket
      draw();
    },
  });

  function receive(msg) {
    applyMessage(s, msg);
    if (msg.type === "snapshot") noteCommitment(roomId, msg.hand_number, msg.commitment);
    // "ack": the server took the action; its events may wait for a claim window to close.
    if (["ack", "events", "snapshot", "error", "hand_end"].includes(msg.type)) ui.busy = false;
    if (msg.type === "error" && msg.code === "bad_token") saveToken(roomId, null);
    // A stale or refused action, or a gap in the events: ask for a fresh snapshot.
    if (msg.type === "error" && ["stale", "not_your_turn", "illegal_action"].includes(msg.code)) {
      s.resync = true;
    }
    if (s.resync) {
      s.resync = false;
      socket.join();
    }
    if (msg.type === "welcome") {
      if (msg.seat === null && msg.held === null) maybeAutosit();
      if (typeof msg.seat === "number" && hintsWanted()) socket.hints(true);
      if (typeof msg.seat === "number" && sessionStorage.getItem(noTimerKey(roomId))) {
        sessionStorage.removeItem(noTimerKey(roomId));
        socket.noTimer(true);
      }
    }
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
  const online = () => s.conn === "open";

  function label(seat) {
    const info = s.room?.seats?.[seat];
    // Bots are named after their kind by the server; number them so two bots differ.
    // The server names an unnamed player 玩家N: show that in the chosen language.
    const unnamed = !info?.name || info.name === `玩家${seat + 1}`;
    const name =
      info?.kind === "bot"
        ? t("bot_name", { n: seat + 1 })
        : unnamed
          ? t("player_n", { n: seat + 1 })
          : info.name;
    return seat === mySeat() ? `${name}（${t("you")}）` : name;
  }

  function badges(seat) {
    const info = s.room?.seats?.[seat];
    if (!info) return [];
    return [
      info.kind === "bot" ? h("span", { class: "badge bot" }, info.bot) : null,
      info.away ? h("span", { class: "badge away" }, t("away")) : null,
      info.autoplay || info.away
        ? h("span", { class: "badge auto", "data-testid": "autoplay-badge" }, t("autoplay"))
        : null,
      info.kind === "human" && info.taken && !info.connected && !info.away
        ? h("span", { class: "badge off" }, t("offline"))
        : null,
    ].filter(Boolean);
  }

  const score = (seat) => s.match?.scores?.[seat] ?? 0;

  /** Send an action once: the controls stay disabled until the server answers. */
  function act(text) {
    if (ui.busy || !online()) return;
    if (socket.act(text, s.handNumber || undefined) === null) return;
    ui.busy = true;
    draw();
  }

  function sit(seat) {
    const name = (ui.name ?? "").trim();
    if (name) localStorage.setItem(NAME_KEY, name);
    const invite =
      seat === "shouxing"
        ? new URLSearchParams(location.hash.slice(1)).get("invite") ||
          localStorage.getItem(inviteKey(roomId))
        : null;
    socket.sit(seat, name || undefined, invite || undefined);
  }

  function ask(text, yes, onYes) {
    ui.confirm = confirmBox(text, yes, () => {
      ui.confirm = null;
      onYes();
      draw();
    }, () => {
      ui.confirm = null;
      draw();
    });
    draw();
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
    const opts = { label, bottom: mySeat() ?? 0, onClose: close };
    openReplay(ui.replay, roomId, number, opts).catch((err) =>
      mount(ui.replay, h("p", { class: "error" }, err.message), button("replay-close", close, t("close"))),
    );
    draw();
  }

  // ---- pieces of the room page

  /** The room's rules: its preset and every option its creator changed; its timer. */
  function rulesLine() {
    if (!s.room?.rules) return null;
    const turn = s.room.turn_seconds;
    // The deal's commitment, published before the hand (docs/fairness.md).
    const commitment = s.handNumber ? localStorage.getItem(`wmq.commit.${roomId}.${s.handNumber}`) : null;
    return h(
      "div",
      { class: "rules-line", "data-testid": "room-rules" },
      h("span", { class: "label" }, t("room_rules")),
      rulesSummary(s.room.rules),
      " · ",
      h("span", { "data-testid": "room-timer" }, turn ? t("timer_room", { s: turn }) : t("no_timer")),
      s.room.no_timer_asked && turn ? h("span", { class: "muted" }, ` (${t("no_timer_pending")})`) : null,
      s.room.practice ? h("span", { class: "muted", "data-testid": "practice-seed" }, ` · 练习 seed ${s.room.practice_seed}`) : null,
      commitment
        ? h("span", { class: "muted", "data-testid": "commitment", title: commitment }, ` · 发牌承诺 ${commitment.slice(0, 12)}…`)
        : null,
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
      h("input", { readonly: true, value: url, "data-testid": "share-link", onfocus: (e) => e.target.select() }),
      copy,
    );
  }

  /** 旁观 (confirmed, keeps the seat), 坐回, 离座 (between hands only). */
  function seatControls() {
    const me = mySeat();
    const held = s.you.held;
    const between = s.room?.status !== "playing";
    const out = [];
    if (me !== null) {
      out.push(
        button("spectate", () => ask(t("watch_confirm"), t("watch_yes"), () => socket.spectate()), t("watch"), {
          disabled: !online(),
        }),
      );
    }
    if (held !== null && held !== undefined) {
      out.push(h("span", { class: "watching", "data-testid": "watching" }, t("watching_seat")));
      out.push(button("sit-back", () => socket.sitBack(), t("sit_back"), { class: "small primary", disabled: !online() }));
    }
    if (me !== null && s.room?.no_timer_asked) {
      const agreed = s.room.seats[me]?.no_timer;
      out.push(
        button("no-timer", () => socket.noTimer(!agreed), agreed ? t("no_timer_agreed") : t("no_timer_agree"), {
          "aria-pressed": agreed ? "true" : "false",
          disabled: !online(),
        }),
      );
    }
    if (me !== null || (held !== null && held !== undefined)) {
      out.push(
        button("leave-seat", () => ask(t("leave_confirm"), t("leave_yes"), () => socket.leave()), t("leave_seat"), {
          disabled: !between || !online(),
          title: between ? "" : t("leave_between"),
        }),
      );
    }
    return out;
  }

  function seatList() {
    if (!s.room) return null;
    const seatless = mySeat() === null && s.you.seat !== "shouxing" && (s.you.held === null || s.you.held === undefined);
    const free = s.room.seats.filter((x) => x.kind === "human" && !x.taken);
    const shouxingFree = s.room.shouxing && !s.room.shouxing.taken;
    return h(
      "div",
      { class: "seats", "data-testid": "seat-list" },
      s.room.seats.map((x) =>
        h(
          "span",
          { class: `seat-chip${x.seat === mySeat() ? " me" : ""}`, "data-testid": `seat-chip-${x.seat}` },
          x.taken ? label(x.seat) : t("empty"),
          seatless && x.kind === "human" && !x.taken ? button(`sit-${x.seat}`, () => sit(x.seat), t("sit")) : null,
        ),
      ),
      s.room.shouxing
        ? h(
            "span",
            { class: `seat-chip${s.you.seat === "shouxing" ? " me" : ""}` },
            "守醒 ",
            s.room.shouxing.name || t("empty"),
            seatless && shouxingFree ? button("sit-shouxing", () => sit("shouxing"), t("sit")) : null,
          )
        : null,
      seatless && (free.length || shouxingFree)
        ? h("input", {
            class: "name",
            "data-testid": "name-input",
            placeholder: t("your_name"),
            maxlength: 24,
            value: ui.name ?? (ui.name = localStorage.getItem(NAME_KEY) || ""),
            oninput: (e) => {
              ui.name = e.target.value;
            },
          })
        : null,
      seatControls(),
      h("span", { class: "spectators" }, t("spectators", { n: s.room.spectators })),
    );
  }

  const timerText = () => t("timer", { s: Math.max(0, Math.ceil((s.deadline - Date.now()) / 1000)) });

  function timerNode() {
    if (!s.deadline) return null;
    return h("div", { class: "timer", "data-testid": "timer" }, timerText());
  }

  /** 托管 state of our seat: a banner with 取消托管 (one tap), or the 托管 button. */
  function autoplayControl() {
    const me = mySeat();
    if (me === null) return null;
    const info = s.room?.seats?.[me];
    if (info?.autoplay) {
      return h(
        "div",
        { class: "autoplay-banner", "data-testid": "autoplay-banner" },
        h("span", {}, t("autoplay_banner")),
        h(
          "button",
          { class: "primary", "data-testid": "autoplay-off", disabled: !online(), onclick: () => socket.autoplay(false) },
          t("autoplay_off"),
        ),
      );
    }
    return null;
  }

  function toolRow() {
    const me = mySeat();
    if (me === null) return null;
    const info = s.room?.seats?.[me];
    const on = hintsWanted();
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
            socket.hints(!on);
            draw();
          },
        },
        on ? t("hints_on") : t("hints_off"),
      ),
      info && !info.autoplay
        ? h(
            "button",
            { class: "small", "data-testid": "autoplay-on", disabled: !online(), onclick: () => socket.autoplay(true) },
            t("autoplay_on"),
          )
        : null,
    );
  }

  function board() {
    document.body.dataset.busy = ui.busy ? "true" : "false"; // for tests: an action in flight
    const me = mySeat();
    const legal = s.legal.map((a) => a.text);
    const mayAct = me !== null && s.toAct && !ui.busy;
    const canAct = mayAct && online();
    const showHints = me !== null && hintsWanted() ? s.hints : null;
    const ctx = {
      bottom: me ?? (typeof s.you.held === "number" ? s.you.held : 0),
      mySeat: me,
      label,
      badges,
      score,
      hands: s.obs.hands,
      numbers: s.numbers,
      hintFaces: showHints ? hintFaces(showHints) : null,
      legal: canAct ? legal : [],
      toAct: s.toAct,
      onDiscard: canAct ? (face) => act(`出${face}`) : null,
      timer: timerNode(),
      banner: autoplayControl(),
      side: toolRow(),
      below: showHints ? hintsView(showHints) : null,
      controls: mayAct
        ? actionBar(legal, {
            act,
            offline: !online(),
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
    const lines = s.history.filter((e) => e.type !== "dealt");
    if (!lines.length) return null;
    const shown = ui.logOpen ? lines : lines.slice(-4);
    return h(
      "div",
      { class: `log-box${ui.logOpen ? " open" : ""}` },
      h("ol", { class: "log", "data-testid": "log" }, shown.map((e) => h("li", {}, eventText(e, label)))),
      lines.length > 4
        ? button(
            "log-toggle",
            () => {
              ui.logOpen = !ui.logOpen;
              draw();
            },
            ui.logOpen ? t("log_less") : `${t("log_more")} (${lines.length})`,
          )
        : null,
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
      h("ol", {}, end.ranking.map((seat) => h("li", {}, `${label(seat)}: ${end.ledger.seats[seat]}`))),
      h("a", { href: "/", class: "button primary" }, t("create_room")),
    );
  }

  function main() {
    return [
      s.obs ? board() : h("p", { class: "panel waiting", "data-testid": "waiting" }, t("waiting_players")),
      handEnd(),
      matchEnd(),
      log(),
      h("div", { class: "room-bar" }, seatList(), rulesLine(), shareBar(), inviteBar()),
      h(
        "div",
        { class: "history-bar" },
        button(
          "history-toggle",
          () => {
            if (ui.history) {
              ui.history = null;
              draw();
            } else loadHistory();
          },
          t("history"),
        ),
      ),
      ui.history,
    ];
  }

  function draw() {
    if (s.notFound) {
      mount(app, header(), notFoundPage(roomId));
      return;
    }
    const conn =
      s.conn === "open"
        ? null
        : h("span", { class: "conn", "data-testid": "conn" }, s.conn === "closed" ? t("disconnected") : t("connecting"));
    const err = s.error && !s.notFound ? h("p", { class: "toast error", "data-testid": "error" }, refusal(s.error)) : null;
    s.error = null; // an error is shown once, with the redraw that follows it
    mount(
      app,
      header(h("span", { class: "room-id" }, `${t("room")} ${roomId}`, conn)),
      s.conn === "closed" ? h("div", { class: "offline-banner", "data-testid": "offline" }, t("offline_banner")) : null,
      err,
      h("main", { class: `room${s.conn === "open" ? "" : " offline"}` }, ui.replay || main()),
      ui.confirm,
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
