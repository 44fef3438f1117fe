// The room page (/r/{id}): wires the socket (net.js) to the state (store.js) and describes the
// page from that state; dom.js `mount` brings the DOM in line with it on every change, touching
// only what changed. The table fills the screen (a phone held sideways shows it whole); the
// room's bar (seats, rules, invite link, hands played, the whole log) is a drawer behind the
// menu button, as the apps keep it. Between hands the result lies over the table with the
// countdown, who is ready and 下一局 always in reach.
import { button, createRef, h, mount } from "./dom.js";
import { api, RoomSocket, saveToken } from "./net.js";
import { applyMessage, emptyRoomState, secondsLeft } from "./store.js";
import { onLangChange, refusal, t } from "./i18n.js";
import { matchTotals } from "./result.js";
import { historyView, loadHistory, Replay } from "./replay.js";
import { noteCommitment } from "./fairness.js";
import { loadPresets, rulesSummary } from "./rules.js";
import { hintsWanted } from "./hints.js";
import { header, nameField, notFoundPage, openConfirm } from "./page.js";
import { botLevel, botTitle } from "./bots.js";
import { loadMe } from "./player.js";
import { setSoundOn, soundOn } from "./sound.js";
import { setVoiceOn, voiceOn } from "./voice.js";
import { TableCues } from "./cues.js";
import { BUBBLE_MS, bubble, chatContent, chatPanel, icon, mutedSeats, setSeatMuted } from "./chat.js";
import { boardFor } from "./boards/index.js";
import { discardConfirmWanted, setDiscardConfirm } from "./boards/common.js";
import { gameOf, loadGames, schemaRulesSummary } from "./gameform.js";
import { RematchRules } from "./rematch.js";

export const NAME_KEY = "wmq.name";
export const autositKey = (roomId) => `wmq.autosit.${roomId}`;
export const inviteKey = (roomId) => `wmq.invite.${roomId}`;
// The creator's token (shown once by POST /api/rooms): frees a seat or gives it to a bot.
export const creatorKey = (roomId) => `wmq.creator.${roomId}`;
// The creator of a room without a timer agrees to it when seated.
export const noTimerKey = (roomId) => `wmq.notimer.${roomId}`;
// This tab's seat went to another device of the player (docs/protocol.md §7.2): it does not
// take it back by itself, only when asked (在此设备继续).
const movedKey = (roomId) => `wmq.moved.${roomId}`;
/** A room number as read out: 482 913. */
export const spacedNumber = (n) => (n ? `${n.slice(0, 3)} ${n.slice(3)}` : "");

const TOAST_MS = 6000;
// A seat request of the lobby refused as storage_unavailable: sent again this often, this many times.
const AUTOSIT_RETRY_MS = 500;
const AUTOSIT_TRIES = 10;

export function startRoom(app, roomId) {
  const s = emptyRoomState(roomId);
  const ui = {
    menu: false, // the room drawer is open
    history: null, // the list of finished hands, while shown
    replay: null, // the open Replay
    busy: false, // an action is in flight
    // The lobby asked for a seat for this tab: no join panel until the server has answered.
    sitting: sessionStorage.getItem(autositKey(roomId)) !== null,
    confirm: null, // {text, yes, onYes}
    logOpen: false,
    toast: null, // {text, until}
    copied: false,
    resultHidden: false, // the player put the result aside to look at the table
    forceResult: false, // a visitor who may sit down asked to see the result
    chatOpen: false, // the quick chat panel is open
    bubbles: {}, // seat → the chat line shown there ({seat, phrase, emote, until})
    elsewhere: false, // the seat went to another device of the player (elsewhere)
    claimLooked: false, // whether the player's seat here was looked for once
  };
  // The lobby's seat request, until the server has answered it: {seat, name, id, timer, tries}.
  let autosit = null;
  const nameRef = createRef();
  // The board of the room's game (boards/index.js), made once the room says which game it is.
  const boards = {};
  const shell = { roomId, app, draw: () => draw(), act: (text) => act(text), label: (seat) => label(seat) };
  function boardOf(game) {
    const kind = boardFor(game);
    if (!boards[kind.id]) boards[kind.id] = kind.create(shell);
    return boards[kind.id];
  }
  const gameBoard = () => boardOf(s.room?.game);
  // 再来一局 at other rules, in a new room: the rule form of a game drawn from its schema.
  const rematchRules = new RematchRules({ changed: () => draw() });
  const cues = new TableCues(gameBoard);
  const socket = new RoomSocket(roomId, {
    // 听 hints are asked for only at a game that offers them.
    hints: () => (boardFor(s.room?.game)?.hints ?? true) && hintsWanted(),
    onMessage: (msg) => receive(msg),
    onState: (conn) => {
      s.conn = conn;
      if (conn !== "open") ui.busy = false; // nothing is in flight on a dead socket
      if (conn !== "open") cues.disconnected(); // the next snapshot is history: silent
      draw();
    },
  });

  shell.socket = socket;

  function toast(text) {
    ui.toast = { text, until: Date.now() + TOAST_MS };
  }

  let received = 0;

  function receive(msg) {
    document.body.dataset.received = String(++received); // for tests: messages taken in
    const handBefore = s.handNumber;
    const board = boardOf(msg.room?.game ?? s.room?.game);
    const flights = board.before ? board.before(msg, s) : null;
    const wasToAct = s.toAct;
    applyMessage(s, msg);
    cues.message(msg, s, wasToAct);
    if (msg.type === "chat") heard(msg);
    if (msg.type === "snapshot") noteCommitment(roomId, msg.hand_number, msg.commitment);
    if (s.handNumber !== handBefore) ui.resultHidden = ui.forceResult = false;
    // "ack": the server took the action; its events may wait for a claim window to close.
    if (["ack", "events", "snapshot", "error", "hand_end"].includes(msg.type)) ui.busy = false;
    const later = autositLater(msg);
    if (msg.type === "error") {
      if (msg.code === "bad_token") saveToken(roomId, null);
      if (msg.code !== "room_not_found" && !later) toast(refusal(msg));
      // A stale or refused action, or a gap in the events: ask for a fresh snapshot.
      if (["stale", "not_your_turn", "illegal_action"].includes(msg.code)) s.resync = true;
    }
    if (msg.type === "vote_result" && !msg.passed) {
      const who = (msg.refused_by || []).map(label).join("、");
      const absent = (msg.absent || []).map(label).join("、");
      toast(who ? t("vote_refused", { who }) : t("vote_lapsed", { who: absent }));
    }
    if (msg.type === "elsewhere") {
      sessionStorage.setItem(movedKey(roomId), "1");
      ui.elsewhere = true;
    }
    if (msg.type === "snapshot" && !ui.claimLooked) maybeClaim();
    if (s.resync) {
      s.resync = false;
      socket.join();
    }
    // The join panel stays held back while the lobby's seat request is still to be answered.
    if (!autosit && (msg.type === "error" || (msg.type === "welcome" && (msg.seat !== null || msg.held !== null)))) ui.sitting = false;
    if (msg.type === "welcome") {
      if (msg.seat === null && msg.held === null) maybeAutosit();
      if (typeof msg.seat === "number" && sessionStorage.getItem(noTimerKey(roomId))) {
        sessionStorage.removeItem(noTimerKey(roomId));
        socket.noTimer(true);
      }
    }
    if (msg.type === "hand_end" && ui.history) showHistory();
    draw();
    if (board.after) board.after(msg, s, flights);
  }

  /** A chat line: shown at its seat for a while, its words said, unless we muted that seat. */
  function heard(msg) {
    if (mutedSeats(roomId).has(String(msg.seat))) return;
    ui.bubbles[String(msg.seat)] = { ...msg, until: Date.now() + BUBBLE_MS };
    cues.chat(msg.phrase ? t(`chat_${msg.phrase}`) : null);
  }

  /** Opened on another of the player's devices: take the seat the player holds here (§7.2),
   * once per page, unless this tab was told the seat went elsewhere. */
  function maybeClaim() {
    ui.claimLooked = true;
    if (mySeat() !== null || heldSeat() !== null || sessionStorage.getItem(movedKey(roomId))) return;
    loadMe().then(
      (me) => {
        const mine = me && s.room?.seats?.some((x) => x.taken && x.player_id === me.player.id);
        if (mine && mySeat() === null && heldSeat() === null) claim();
      },
      () => {},
    );
  }

  function claim() {
    sessionStorage.removeItem(movedKey(roomId));
    ui.elsewhere = false;
    socket.send("join", { claim: true, hints: hintsWanted() });
    draw();
  }

  /** The seat is played from another device now: say so, and offer to take it back here. */
  function elsewhereBanner() {
    if (!ui.elsewhere) return null;
    return h(
      "div",
      { class: "panel elsewhere", "data-testid": "elsewhere", role: "status" },
      h("p", {}, t("elsewhere")),
      button("claim-here", claim, t("elsewhere_back"), { class: "primary", disabled: !online() }),
    );
  }

  function maybeAutosit() {
    const seat = sessionStorage.getItem(autositKey(roomId));
    if (seat !== null) {
      sessionStorage.removeItem(autositKey(roomId));
      autosit = { seat: Number(seat), name: localStorage.getItem(NAME_KEY) || undefined, id: null, timer: null, tries: 0 };
    }
    if (!autosit) {
      ui.sitting = false;
      return;
    }
    if (autosit.timer === null) sendAutosit();
  }

  function sendAutosit() {
    if (!autosit) return;
    autosit.timer = null;
    autosit.id = socket.sit(autosit.seat, autosit.name);
  }

  /** Whether `msg` refuses the lobby's seat request for now (storage_unavailable: nothing was
   * applied, docs/scale.md): it is sent again shortly, a few times, the join panel held back. */
  function autositLater(msg) {
    if (!autosit || autosit.id === null || msg.re !== autosit.id) return false;
    if (msg.type === "error" && msg.code === "storage_unavailable" && autosit.tries < AUTOSIT_TRIES) {
      autosit.tries += 1;
      autosit.timer = setTimeout(sendAutosit, AUTOSIT_RETRY_MS);
      return true;
    }
    autosit = null; // answered: seated, or refused for good (the join panel shows)
    return false;
  }

  const mySeat = () => (typeof s.you.seat === "number" ? s.you.seat : null);
  const heldSeat = () => (s.you.held === null || s.you.held === undefined ? null : s.you.held);
  const online = () => s.conn === "open";
  const seatInfo = (seat) => s.room?.seats?.[seat];
  /** Where this page's person votes to 解散: its seat, or the 守醒's place (docs/protocol.md §2.4). */
  const myVoter = () => (s.you.seat === "shouxing" ? "shouxing" : mySeat());
  const between = () => s.room && s.room.status !== "playing";

  // Four persons with a rotating 守醒 (RULES §2.1.1): RoomInfo `persons`, each with the seat it
  // holds this hand ("shouxing": sitting out); the match's scores and ledger are theirs.
  const persons = () => s.room?.persons ?? null;
  const personOf = (seat) => (seat === "shouxing" ? s.room?.shouxing?.person : seatInfo(seat)?.person);

  /** A person's name (four persons at the table): as `label`, numbered by person. */
  function personLabel(p) {
    const info = persons()?.[p];
    const unnamed = !info?.name || info.name === `玩家${p + 1}`;
    const name =
      info?.kind === "bot"
        ? t("bot_named", { n: p + 1, level: botLevel(info.bot) })
        : unnamed
          ? t("player_n", { n: p + 1 })
          : info.name;
    return p === personOf(s.you.seat) && s.you.seat !== null && s.you.seat !== undefined ? `${name}（${t("you")}）` : name;
  }

  /** A seat's name for people: the player's name, or a bot's level (新手 / 普通 / 高手). */
  function label(seat) {
    if (persons() && personOf(seat) !== undefined) return personLabel(personOf(seat));
    if (seat === "shouxing") {
      // The server names an unnamed 守醒 守醒: the role alone, then.
      const name = s.room?.shouxing?.name;
      const shown = !name || name === "守醒" ? t("shouxing_gets") : `${t("shouxing_gets")} ${name}`;
      return s.you.seat === "shouxing" ? `${shown}（${t("you")}）` : shown;
    }
    const info = seatInfo(seat);
    // The server names an unnamed player 玩家N: show that in the chosen language.
    const unnamed = !info?.name || info.name === `玩家${seat + 1}`;
    const name =
      info?.kind === "bot"
        ? t("bot_named", { n: seat + 1, level: botLevel(info.bot) })
        : unnamed
          ? t("player_n", { n: seat + 1 })
          : info.name;
    return seat === mySeat() ? `${name}（${t("you")}）` : name;
  }

  /** How a finished hand is named: 第 N 局 of its match (第 M 场 too once a room has had two). */
  function handTitle(hand, many) {
    return many ? t("match_hand_n", { m: hand.match ?? 1, n: hand.inMatch }) : t("hand_n", { n: hand.inMatch });
  }

  function badges(seat) {
    const info = seatInfo(seat);
    if (!info) return [];
    const gone = info.kind === "human" && info.taken && !info.connected && !info.away;
    return [
      info.away ? h("span", { class: "badge away" }, t("away")) : null,
      gone ? h("span", { class: "badge off", "data-testid": "offline-badge" }, t("offline")) : null,
      info.autoplay || info.away || info.offline
        ? h("span", { class: "badge auto", "data-testid": "autoplay-badge" }, t("autoplay"))
        : null,
    ].filter(Boolean);
  }

  const score = (seat) => s.match?.scores?.[persons() ? personOf(seat) : seat] ?? 0;

  /** Send an action once: the controls stay disabled until the server answers. */
  function act(text) {
    if (ui.busy || !online()) return;
    if (socket.act(text, s.decision, s.handNumber || undefined) === null) return;
    ui.busy = true;
    draw();
  }

  function sit(seat) {
    const name = (nameRef.current?.value ?? localStorage.getItem(NAME_KEY) ?? "").trim();
    if (name) localStorage.setItem(NAME_KEY, name);
    const invite =
      seat === "shouxing"
        ? new URLSearchParams(location.hash.slice(1)).get("invite") ||
          localStorage.getItem(inviteKey(roomId))
        : null;
    socket.sit(seat, name || undefined, invite || undefined);
  }

  function ask(text, yes, onYes) {
    ui.confirm = { text, yes, onYes };
    draw();
  }

  async function showHistory() {
    try {
      // The room numbers its hands across 再来一局; each match counts its own from 1.
      const hands = await loadHistory(roomId);
      const count = {};
      for (const hand of hands) {
        const m = hand.match ?? 1;
        count[m] = (count[m] || 0) + 1;
        hand.inMatch = count[m];
      }
      const many = Object.keys(count).length > 1;
      // A function: the title follows the language switch (i18n.js).
      for (const hand of hands) hand.title = () => handTitle(hand, many);
      ui.history = { hands };
    } catch (err) {
      ui.history = { error: err.message };
    }
    draw();
  }

  function showReplay(hand) {
    ui.menu = false;
    // four persons (RULES §2.1.1): the hand's seats named by who played them then
    const seatPersons = persons() && hand.seat_persons;
    ui.replay = new Replay(roomId, hand.number, {
      label: seatPersons ? (seat) => personLabel(seatPersons[seat]) : label,
      game: s.room?.game,
      title: hand.title,
      bottom: mySeat() ?? 0,
      changed: draw,
      onClose: () => {
        ui.replay = null;
        draw();
      },
    });
    window.scrollTo(0, 0);
    draw();
  }

  const creatorToken = () => localStorage.getItem(creatorKey(roomId));

  async function creatorCall(path, body = {}) {
    try {
      await api(`/api/rooms/${encodeURIComponent(roomId)}/seats/${path}`, { creator_token: creatorToken(), ...body });
    } catch (err) {
      toast(refusal({ code: err.code, message: err.message }));
      draw();
    }
  }

  // ---- pieces of the room drawer

  /** The rules named as their game names them: 偎麻雀's presets (rules.js), another game's
   * schema (GET /api/games) once loaded. */
  function roomRules() {
    const other = s.room?.game && s.room.game !== "maque";
    const game = schemaGame();
    // Another game's rules before its schema is loaded: the name the room gives them.
    return game ? schemaRulesSummary(game, s.room.rules) : other ? s.room.rules.name ?? "" : rulesSummary(s.room.rules);
  }

  /** The room's game when its rules are drawn from its schema (not 偎麻雀), once loaded. */
  function schemaGame() {
    return s.room?.game && s.room.game !== "maque" ? gameOf(ui.games, s.room.game) : null;
  }

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
      roomRules(),
      " · ",
      h("span", { "data-testid": "room-timer" }, turn ? t("timer_room", { s: turn }) : t("no_timer")),
      s.room.no_timer_asked && turn ? h("span", { class: "muted" }, ` (${t("no_timer_pending")})`) : null,
      s.room.practice
        ? h("span", { class: "muted", "data-testid": "practice-seed" }, ` · ${t("practice_seed", { seed: s.room.practice_seed })}`)
        : null,
      commitment
        ? h(
            "span",
            { class: "muted", "data-testid": "commitment", title: commitment },
            ` · ${t("commitment")} ${commitment.slice(0, 12)}…`,
          )
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
    const number = s.room?.number;
    const copy = async () => {
      try {
        await navigator.clipboard.writeText(url);
        ui.copied = true;
        draw();
      } catch {
        document.querySelector("[data-testid=share-link]")?.select();
      }
    };
    return h(
      "div",
      { class: "share" },
      number ? h("span", { class: "room-number", "data-testid": "room-number", "data-number": number }, t("room_number", { n: spacedNumber(number) })) : null,
      h("span", {}, t("share")),
      h("input", { readonly: true, value: url, "data-testid": "share-link", onfocus: (e) => e.target.select() }),
      button("copy-link", copy, ui.copied ? t("copied") : t("copy")),
    );
  }

  /** Only bots besides this seat: leaving ends the match (docs/protocol.md §2.4). */
  const aloneWithBots = (seat) =>
    !!s.room && s.room.seats.every((x) => x.seat === seat || x.kind === "bot" || !x.taken);

  /** A room nobody holding a seat is in, or a match ending with its hand: said to all. */
  function restLine() {
    if (s.room?.closing) return h("p", { class: "rest-line", "data-testid": "closing" }, t("closing_after_hand"));
    if (s.room?.resting) return h("p", { class: "rest-line", "data-testid": "resting" }, t("resting", { m: Math.ceil(s.room.resting.seconds / 60) }));
    return null;
  }

  /** 旁观 (confirmed, keeps the seat), 坐回, 离座 (between hands only), 解散 (by vote). */
  function seatControls() {
    const me = mySeat();
    const held = heldSeat();
    const out = [];
    if (me !== null) {
      out.push(
        button("spectate", () => ask(t("watch_confirm"), t("watch_yes"), () => socket.spectate()), t("watch"), {
          disabled: !online(),
        }),
      );
    }
    if (held !== null) {
      out.push(h("span", { class: "watching", "data-testid": "watching" }, t("watching_seat")));
      out.push(
        button(
          "sit-back",
          () => {
            // Back at the table: the drawer closes and the page shows the table.
            ui.menu = false;
            socket.sitBack();
            window.scrollTo(0, 0);
            draw();
          },
          t("sit_back"),
          { class: "small primary", disabled: !online() },
        ),
      );
    }
    if (me !== null) {
      const on = discardConfirmWanted();
      out.push(
        button(
          "discard-confirm",
          () => {
            setDiscardConfirm(!on);
            gameBoard().resetRaised?.();
            draw();
          },
          on ? t("discard_two_taps") : t("discard_one_tap"),
          { "aria-pressed": on ? "true" : "false", title: t("discard_confirm_help") },
        ),
      );
    }
    if (me !== null && s.room?.no_timer_asked) {
      const agreed = seatInfo(me)?.no_timer;
      out.push(
        button("no-timer", () => socket.noTimer(!agreed), agreed ? t("no_timer_agreed") : t("no_timer_agree"), {
          "aria-pressed": agreed ? "true" : "false",
          disabled: !online(),
        }),
      );
    }
    const seat = me !== null ? me : held;
    if (typeof seat === "number" && aloneWithBots(seat) && s.room && !s.room.match_over && !s.room.closing) {
      // Alone with bots: leave the match (mid-hand 托管 plays the hand out, then it ends).
      out.push(
        button("leave-match", () => ask(between() ? t("leave_match_confirm") : t("leave_match_confirm_hand"), t("leave_yes"), () => { ui.menu = false; socket.leave(); }), t("leave_match"), {
          disabled: !online(),
        }),
      );
    } else if (me !== null || held !== null) {
      out.push(
        button("leave-seat", () => ask(t("leave_confirm"), t("leave_yes"), () => { ui.menu = false; socket.leave(); }), t("leave_seat"), {
          disabled: !between() || !online(),
          title: between() ? "" : t("leave_between_vote"),
        }),
      );
    }
    if (myVoter() !== null && s.room && !s.room.match_over && !s.room.vote) {
      out.push(
        button(
          "dissolve",
          () =>
            ask(t("dissolve_confirm"), t("dissolve_yes"), () => {
              ui.menu = false;
              socket.send("dissolve");
            }),
          t("dissolve"),
          { disabled: !online() },
        ),
      );
    }
    return out;
  }

  /** The creator's buttons for a seat whose player has gone, or an empty one. */
  function creatorButtons(x) {
    if (!creatorToken() || x.kind !== "human" || x.seat === mySeat()) return null;
    const gone = !x.taken || !x.connected;
    if (!gone) return null;
    return h(
      "span",
      { class: "creator" },
      x.taken
        ? button("free-seat", () => ask(t("free_confirm", { who: label(x.seat) }), t("free_yes"), () => creatorCall(`${x.seat}/free`)), t("free_seat"), {
            disabled: !between(),
            title: between() ? t("free_help") : t("leave_between"),
          })
        : null,
      button("seat-bot", () => ask(t("bot_confirm", { who: x.taken ? label(x.seat) : t("seat_n", { n: x.seat + 1 }) }), t("bot_yes"), () => creatorCall(`${x.seat}/bot`)), t("give_bot")),
    );
  }

  function seatChips(withSit) {
    if (!s.room) return null;
    const seatless = mySeat() === null && s.you.seat !== "shouxing" && heldSeat() === null;
    const shouxingFree = s.room.shouxing && !s.room.shouxing.taken;
    return [
      s.room.seats.map((x) =>
        h(
          "span",
          {
            key: x.seat,
            class: `seat-chip${x.seat === mySeat() ? " me" : ""}`,
            "data-testid": `seat-chip-${x.seat}`,
            title: x.kind === "bot" ? botTitle(x.bot) : null,
          },
          x.taken ? label(x.seat) : t("empty"),
          ...badges(x.seat),
          withSit && seatless && x.kind === "human" && !x.taken ? button(`sit-${x.seat}`, () => sit(x.seat), t("sit"), { class: "small primary" }) : null,
          withSit ? null : creatorButtons(x),
        ),
      ),
      s.room.shouxing
        ? h(
            "span",
            { key: "shouxing", class: `seat-chip${s.you.seat === "shouxing" ? " me" : ""}`, "data-testid": "seat-chip-shouxing" },
            "守醒 ",
            persons() && s.room.shouxing.taken ? personLabel(s.room.shouxing.person) : s.room.shouxing.name || t("empty"),
            withSit && seatless && shouxingFree ? button("sit-shouxing", () => sit("shouxing"), t("sit"), { class: "small primary" }) : null,
          )
        : null,
    ];
  }

  /** Whether this visitor holds no seat and may take one (the join panel shows). */
  function mayJoin() {
    if (!s.room || ui.sitting || mySeat() !== null || s.you.seat === "shouxing" || heldSeat() !== null) return false;
    const free = s.room.seats.some((x) => x.kind === "human" && !x.taken);
    return free || Boolean(s.room.shouxing && !s.room.shouxing.taken);
  }

  /** A visitor with no seat: the name first, then 坐下 at a free seat. */
  function joinPanel() {
    if (!mayJoin()) return null;
    return h(
      "section",
      { class: "panel join", "data-testid": "join" },
      h("h2", {}, t("join_title")),
      nameField(nameRef, "name-input", localStorage.getItem(NAME_KEY) || ""),
      h("div", { class: "seats", "data-testid": "seat-list" }, seatChips(true)),
    );
  }

  function drawer() {
    if (!ui.menu) return null;
    return h(
      "div",
      { class: "drawer-host", "data-testid": "drawer-host" },
      h("div", { class: "drawer-shade", onclick: () => { ui.menu = false; draw(); } }),
      h(
        "aside",
        { class: "drawer", "data-testid": "drawer" },
        h(
          "div",
          { class: "drawer-head" },
          h("strong", {}, `${t("room")} ${s.room?.number ? spacedNumber(s.room.number) : roomId}`),
          button("menu-close", () => { ui.menu = false; draw(); }, "✕", { "aria-label": t("close") }),
        ),
        h(
          "div",
          { class: "seats", "data-testid": "seat-list" },
          seatChips(false),
          h("span", { class: "spectators" }, t("spectators", { n: s.room?.spectators ?? 0 })),
        ),
        h("div", { class: "seat-controls" }, seatControls()),
        rulesLine(),
        shareBar(),
        inviteBar(),
        gameBoard().legend?.() ?? null,
        h(
          "div",
          { class: "history-bar" },
          button(
            "history-toggle",
            () => {
              if (ui.history) {
                ui.history = null;
                draw();
              } else showHistory();
            },
            t("history"),
          ),
        ),
        ui.history
          ? ui.history.error
            ? h("p", { class: "error" }, t("error", { msg: ui.history.error }))
            : historyView(ui.history.hands, { label, onReplay: boardFor(s.room?.game)?.replays === false ? null : showReplay, drawn: boardFor(s.room?.game)?.drawnText?.() })
          : null,
        log(true),
      ),
    );
  }

  // ---- the table

  /** The header's sound and voice toggles and the chat button: small icons, one tap each. */
  function avTools() {
    const sound = soundOn();
    const voice = voiceOn();
    const toggle = (testid, on, set, kind, label) =>
      h(
        "button",
        {
          class: `icon${on ? "" : " off"}`,
          "data-testid": testid,
          "aria-pressed": on ? "true" : "false",
          title: label,
          "aria-label": label,
          onclick: () => {
            set(!on);
            draw();
          },
        },
        icon(kind, !on),
      );
    return h(
      "span",
      { class: "av-tools" },
      toggle("sound-toggle", sound, setSoundOn, "sound", sound ? t("sound_on") : t("sound_off")),
      toggle("voice-toggle", voice, setVoiceOn, "voice", voice ? t("voice_on") : t("voice_off")),
      s.room
        ? h(
            "button",
            {
              class: `icon${ui.chatOpen ? " open" : ""}`,
              "data-testid": "chat-toggle",
              "aria-expanded": ui.chatOpen ? "true" : "false",
              title: t("chat"),
              "aria-label": t("chat"),
              onclick: () => {
                ui.chatOpen = !ui.chatOpen;
                draw();
              },
            },
            icon("chat"),
          )
        : null,
    );
  }

  /** The quick chat panel under the header: phrases and 表情 for a seated player, mutes. */
  function chatDrawer() {
    if (!ui.chatOpen || !s.room) return null;
    const mine = s.you.seat;
    const seats = s.room.seats
      .filter((x) => x.kind === "human" && x.seat !== mine)
      .map((x) => ({ seat: x.seat, label: label(x.seat) }));
    if (s.room.shouxing && mine !== "shouxing") seats.push({ seat: "shouxing", label: "守醒" });
    const muted = mutedSeats(roomId);
    return chatPanel({
      canSend: mine !== null && mine !== undefined,
      online: online(),
      seats,
      muted,
      send: (line) => {
        socket.send("chat", line);
        ui.chatOpen = false;
        draw();
      },
      toggleMute: (seat) => {
        const was = muted.has(String(seat));
        setSeatMuted(roomId, seat, !was);
        if (!was) delete ui.bubbles[String(seat)];
        draw();
      },
    });
  }

  /** The 守醒 sits at no side of the table: its line shows at the top of the board. */
  function shouxingBubble() {
    const line = ui.bubbles.shouxing;
    if (!line || line.until <= Date.now()) return null;
    return h("div", { class: "chat-bubble shouxing", "data-testid": "chat-bubble", "data-seat": "shouxing" }, "守醒 ", chatContent(line));
  }

  const timerText = () => t("timer", { s: secondsLeft(s.deadline) });

  /** Two seats held from one network address (docs/protocol.md §7.2): said, never who. */
  function sameNetwork() {
    if (!s.room?.same_network) return null;
    return h("div", { class: "same-network", "data-testid": "same-network", role: "note" }, `⚠ ${t("same_network")}`);
  }

  function timerNode() {
    if (!s.deadline) return null;
    return h("div", { class: "timer", "data-testid": "timer" }, timerText());
  }

  /** The clock of the seat that must 出, at that seat for every seat and watcher to see
   * (docs/protocol.md §3 `turn_timer`: sent only while a seat must 出, the view's `turn`). */
  function seatClock(seat) {
    if (!s.turnDeadline || s.obs?.turn !== seat) return null;
    const left = secondsLeft(s.turnDeadline);
    return h(
      "span",
      { class: `badge clock${left <= 5 ? " low" : ""}`, "data-testid": "seat-clock", "data-left": left, title: t("seat_clock_help") },
      t("seat_clock", { s: left }),
    );
  }

  /** 托管 state of our seat: a banner with 取消托管 (one tap). */
  function autoplayControl() {
    const me = mySeat();
    if (me === null) return null;
    if (!seatInfo(me)?.autoplay) return null;
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

  /** 托管 by one's own choice: the tool row's button every game has. */
  function autoplayOn() {
    const me = mySeat();
    const info = me === null ? null : seatInfo(me);
    if (!info || info.autoplay) return null;
    return h(
      "button",
      { class: "small", "data-testid": "autoplay-on", disabled: !online(), onclick: () => socket.autoplay(true) },
      t("autoplay_on"),
    );
  }

  /** The table: the board of the room's game (boards/index.js) with the shell's pieces. */
  function board() {
    const me = mySeat();
    const mayAct = me !== null && s.toAct && !ui.busy;
    const env = {
      mySeat: me,
      bottom: me ?? (typeof heldSeat() === "number" ? heldSeat() : 0),
      seats: s.room?.seats?.length ?? null,
      mayAct,
      canAct: mayAct && online(),
      online: online(),
      act,
      label,
      badges,
      score,
      clock: seatClock,
      bubble: (seat) => bubble(ui.bubbles[String(seat)]),
      timer: timerNode(),
      notice: sameNetwork(),
      banner: autoplayControl(),
      autoplayOn: autoplayOn(),
    };
    return gameBoard().render(s, env);
  }

  /** The log of the hand: the last lines under the table, every line in the drawer. */
  function log(all) {
    const lines = s.history.map((e, i) => [e, i]).filter(([e]) => e.type !== "dealt");
    if (!lines.length) return null;
    const open = all || ui.logOpen;
    const shown = open ? lines : lines.slice(-4);
    return h(
      "div",
      { class: `log-box${open ? " open" : ""}${all ? " all" : ""}` },
      h(
        "ol",
        { class: "log", "data-testid": all ? "log-all" : "log" },
        shown.map(([e, i]) => h("li", { key: i }, gameBoard().eventText(e, label))),
      ),
      !all && lines.length > 4
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

  // ---- between hands: the result, the countdown, who is ready; the vote; the match's end

  /** Who is ready for the next hand (准备), and the countdown to the deal. */
  function readyLine() {
    if (!s.room || s.room.match_over) return null;
    const seats = s.room.seats;
    const waiting = seats.filter((x) => !x.ready).map((x) => label(x.seat));
    const left = secondsLeft(s.nextDeadline);
    return h(
      "div",
      { class: "ready-line", "data-testid": "ready-line" },
      seats.map((x) =>
        h(
          "span",
          {
            key: x.seat,
            class: `ready-mark${x.ready ? " ready" : ""}`,
            "data-testid": `ready-${x.seat}`,
            "data-ready": x.ready ? "true" : "false",
          },
          label(x.seat),
          " ",
          x.ready ? t("ready") : "…",
        ),
      ),
      s.nextDeadline
        ? h("span", { class: "countdown", "data-testid": "next-countdown", "data-left": left }, t("next_in", { s: left }))
        : null,
      waiting.length ? h("span", { class: "waiting-for", "data-testid": "waiting-for" }, t("waiting_for", { who: waiting.join("、") })) : null,
    );
  }

  /** The bar that stays in reach over the result: 下一局 (or 再来一局), ready marks, countdown. */
  function resultBar() {
    const me = mySeat();
    const end = s.lastHand;
    const over = s.room?.match_over || end?.match_over;
    const ready = me !== null && seatInfo(me)?.ready;
    const out = [];
    if (over) {
      out.push(rematchLine());
    } else {
      out.push(readyLine());
      if (me !== null) {
        out.push(
          ready
            ? h("span", { class: "ready-done", "data-testid": "ready-done" }, t("ready_done"))
            : h("button", { class: "primary", "data-testid": "next-hand", disabled: !online(), onclick: () => socket.next() }, t("next_hand")),
        );
      }
    }
    out.push(button("result-hide", () => { ui.resultHidden = true; draw(); }, t("see_table")));
    return h("div", { class: "result-bar", "data-testid": "result-bar" }, out);
  }

  function rematchLine() {
    const me = mySeat();
    const r = s.room?.rematch;
    const chosen = r?.chosen || (s.room?.seats || []).map(() => false);
    // four persons (RULES §2.1.1): the one who sat the last hand out chooses too
    const out = persons() && s.you.seat === "shouxing";
    const mine = out ? Boolean(r?.shouxing) : me !== null && chosen[me];
    return h(
      "div",
      { class: "rematch", "data-testid": "rematch" },
      r
        ? h(
            "span",
            { class: "rematch-marks" },
            (s.room?.seats || []).map((x) =>
              h("span", { key: x.seat, class: `ready-mark${chosen[x.seat] || x.kind === "bot" ? " ready" : ""}`, "data-testid": `rematch-${x.seat}` }, label(x.seat), " ", chosen[x.seat] || x.kind === "bot" ? "✓" : "…"),
            ),
            h("span", { class: "countdown", "data-testid": "rematch-countdown" }, t("rematch_in", { s: secondsLeft(s.rematchDeadline) })),
          )
        : null,
      (me !== null || out) && !mine
        ? h("button", { class: "primary", "data-testid": "rematch-button", disabled: !online(), onclick: () => socket.send("rematch") }, t("rematch"))
        : null,
      mine ? h("span", { class: "ready-done" }, t("rematch_chosen")) : null,
      schemaGame() ? button("rematch-rules-open", () => rematchRules.open(schemaGame(), s.room), t("rematch_rules")) : null,
      h("a", { href: "/", class: "button", "data-testid": "to-lobby" }, t("back_lobby")),
    );
  }

  /** The final standings, once, with how the match ended (比赛结束 or 房间已解散). */
  function matchEndPanel() {
    const end = s.matchEnd;
    if (!end) return null;
    return h(
      "section",
      { class: "match-end", "data-testid": "match-end", "data-dissolved": end.dissolved ? "true" : "false" },
      h("h2", {}, end.dissolved ? t(end.ended_by === "leave" ? "ended_leave" : end.ended_by === "idle" ? "ended_idle" : "dissolved") : t("match_over")),
      matchTotals(end, persons() ? personLabel : label),
    );
  }

  function resultOverlay() {
    // A visitor who may sit down sees the join panel first; the result is one tap away.
    if (ui.resultHidden || ui.replay || (mayJoin() && !ui.forceResult)) return null;
    const end = s.lastHand;
    const dissolved = s.matchEnd?.dissolved;
    if (!end && !dissolved) return null;
    if (s.room?.status === "playing") return null;
    return h(
      "div",
      { class: "result-host", "data-testid": "result-host" },
      h(
        "div",
        { class: "result-sheet" },
        resultBar(),
        h(
          "div",
          { class: "result-body" },
          matchEndPanel(),
          end && !(dissolved && end.hand_number !== s.handNumber)
            ? gameBoard().handEnd(end, { label, person: persons() ? personLabel : null, s, title: t("hand_n", { n: end.hand_number - (s.room?.first_hand ?? 1) + 1 }) })
            : null,
        ),
      ),
    );
  }

  /** A 解散 vote in progress: who asked, who agreed (every person: the 守醒 too), and our
   * 同意 / 拒绝. */
  function votePanel() {
    const v = s.room?.vote;
    if (!v) return null;
    // A bot agrees without answering (docs/protocol.md §2.4).
    const bot = (x) => (x === "shouxing" ? s.room.shouxing?.kind : seatInfo(x)?.kind) === "bot";
    const answer = (x) => (bot(x) ? true : x === "shouxing" ? v.shouxing : v.answers[x]) ?? null;
    const me = myVoter();
    const voters = (s.room.seats || []).map((x) => x.seat);
    if (s.room.shouxing?.taken) voters.push("shouxing");
    return h(
      "div",
      { class: "modal", "data-testid": "vote" },
      h(
        "div",
        { class: "panel dialog vote" },
        h("h2", {}, t("vote_title", { who: label(v.by) })),
        h("p", { class: "help" }, t("vote_help", { s: secondsLeft(s.voteDeadline) })),
        h(
          "ul",
          { class: "vote-answers" },
          voters.map((x) =>
            h(
              "li",
              { key: x, "data-testid": `vote-${x}`, "data-answer": String(answer(x)) },
              label(x),
              " · ",
              answer(x) === true ? t("agree") : answer(x) === false ? t("refuse") : t("vote_waiting"),
            ),
          ),
        ),
        me !== null && answer(me) === null
          ? h(
              "div",
              { class: "dialog-buttons" },
              h("button", { class: "primary", "data-testid": "vote-agree", onclick: () => socket.send("vote", { agree: true }) }, t("agree")),
              h("button", { "data-testid": "vote-refuse", onclick: () => socket.send("vote", { agree: false }) }, t("refuse")),
            )
          : null,
      ),
    );
  }

  /** Four persons (RULES §2.1.1): who sits this hand out as 守醒, over the board; the one who
   * does watches the table with what `shouxing_sees` lets him see (RULES §2.1.2). */
  function shouxingLine() {
    const out = s.room?.shouxing;
    if (!persons() || !out || out.person === undefined) return null;
    const me = s.you.seat === "shouxing";
    const sees = s.room.rules?.overrides?.shouxing_sees === "dealer" ? "sees_dealer" : "sees_all";
    return h(
      "p",
      { class: `shouxing-line${me ? " me" : ""}`, "data-testid": "shouxing-line", "data-person": String(out.person) },
      h("span", { class: "badge shouxing" }, "守醒"),
      " ",
      personLabel(out.person),
      " · ",
      me ? t("you_sit_out") : t("sits_out"),
      " · ",
      t(sees),
    );
  }

  function main() {
    if (ui.replay) return [ui.replay.render()];
    const end = s.lastHand || s.matchEnd;
    return [
      joinPanel(),
      shouxingLine(),
      s.obs
        ? board()
        : h(
            "section",
            { class: "panel waiting", "data-testid": "waiting" },
            h("p", {}, t("waiting_players")),
            h(
              "div",
              { class: "seats" },
              seatChips(false),
              h("span", { class: "spectators" }, t("spectators", { n: s.room?.spectators ?? 0 })),
            ),
            sameNetwork(),
            shareBar(),
          ),
      (ui.resultHidden || (mayJoin() && !ui.forceResult)) && end && s.room?.status !== "playing"
        ? h("button", { class: "primary result-show", "data-testid": "result-show", onclick: () => { ui.resultHidden = false; ui.forceResult = true; draw(); } }, t("see_result"))
        : null,
      log(false),
    ];
  }

  function draw() {
    document.body.dataset.busy = ui.busy ? "true" : "false"; // for tests: an action in flight
    if (s.notFound) {
      mount(app, header(null, false, s.room?.game), h("main", { class: "not-found" }, notFoundPage(roomId)));
      return;
    }
    const offline = s.conn === "closed";
    const status = offline
      ? h("span", { class: "offline-banner", "data-testid": "offline" }, t("offline_banner"))
      : s.conn === "open"
        ? null
        : h("span", { class: "conn", "data-testid": "conn" }, t("connecting"));
    const toastNode = ui.toast && ui.toast.until > Date.now()
      ? h("p", { class: "toast error", "data-testid": "error", role: "status" }, ui.toast.text)
      : null;
    mount(
      app,
      header(
        [
          h(
            "span",
            { class: "room-id" },
            button("menu", () => { ui.menu = !ui.menu; draw(); }, `☰ ${t("room")} ${s.room?.number ? spacedNumber(s.room.number) : roomId}`, {
              class: "menu-button",
              "aria-expanded": ui.menu ? "true" : "false",
            }),
            status,
          ),
          avTools(),
        ],
        offline,
        s.room?.game,
      ),
      h(
        "main",
        { class: `room${s.conn === "open" ? "" : " offline"}${s.lastHand || s.matchEnd ? " ended" : ""}` },
        restLine(),
        main(),
      ),
      resultOverlay(),
      elsewhereBanner(),
      votePanel(),
      rematchRules.render(),
      chatDrawer(),
      shouxingBubble(),
      drawer(),
      toastNode,
      openConfirm(ui, draw),
    );
  }

  // The clocks tick (the turn timer, the countdown to the next deal, a vote) and a toast fades:
  // a redraw that changes only those numbers.
  setInterval(() => {
    cues.tick(s);
    const bubbles = Object.values(ui.bubbles).some((b) => b.until > Date.now() - 1000);
    if (s.deadline || s.turnDeadline || s.nextDeadline || s.voteDeadline || s.rematchDeadline || ui.toast || bubbles) {
      if (ui.toast && ui.toast.until <= Date.now()) ui.toast = null;
      draw();
    }
  }, 500);
  // Keep idle connections (and proxies) alive.
  setInterval(() => socket.send("ping", { t: Date.now() }), 25000);

  onLangChange(draw);
  draw();
  socket.connect();
  // The presets name the 名堂 a room turned on or off; without them the keys show instead.
  loadPresets().then(draw, () => {});
  loadGames().then((games) => {
    ui.games = games;
    draw();
  });
}
