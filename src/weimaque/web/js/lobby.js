// The lobby (/): the player bar (signing up or in, 战绩, the 亲友圈, docs/protocol.md §7), the
// player's name, 快速开始 (a table with two bots at the default rules, seated at once), the
// player's own and the public rooms, then the whole 开房间 form (preset, length, 留子, 守醒,
// seats, timer, countdown, rule options). With `GET /api/games` the form first offers the game
// (偎麻雀 by default); another game's rules are its option schema's form (gameform.js).
import { createRef, h, mount } from "./dom.js";
import { api, myRoomIds } from "./net.js";
import { onLangChange, presetDesc, presetName, refusal, t } from "./i18n.js";
import { loadPresets, optionFields, roomMay, ruleOverrides, ruleSection } from "./rules.js";
import { header, nameField } from "./page.js";
import { botLevel, botTitle, byLevel } from "./bots.js";
import { autositKey, creatorKey, inviteKey, NAME_KEY, noTimerKey, spacedNumber, startRoom } from "./room.js";
import { PlayerBar } from "./player.js";
import { formState, gameOf, loadGames, named, overrides, presetOf, ruleForm } from "./gameform.js";

// The bots of 快速开始: the middle of the ladder, a fair game for a newcomer.
const QUICK_BOT = "greedy";

function field(label, input, testid) {
  return h("label", { class: "field", "data-testid": testid }, h("span", {}, label), input);
}

function checkbox(name, checked, onchange) {
  return h("input", { type: "checkbox", name, defaultChecked: checked, "data-testid": name, onchange });
}

function numberInput(name, value, min = 0, max = 999) {
  return h("input", { type: "number", name, defaultValue: String(value), min, max, inputmode: "numeric" });
}

/** A select for one seat: a person, or one of the server's bots by level. */
function seatSelect(seat, bots, initial) {
  return h(
    "select",
    { name: `seat${seat}`, "data-testid": `seat-kind-${seat}` },
    h("option", { value: "", selected: initial === "" }, t("seat_human")),
    byLevel(bots).map((b) =>
      h("option", { value: b, selected: initial === b, title: botTitle(b) }, `${t("seat_bot")} · ${botLevel(b)}`),
    ),
  );
}

/** Read the form into the POST /api/rooms body. */
function roomRequest(form, preset) {
  const v = (name) => form.elements[name].value;
  const num = (name) => Number.parseInt(v(name), 10) || 0;
  const bots = {};
  // 人数: two seats (RULES §2.5), three, or four persons with a rotating 守醒 (RULES §2.1.1),
  // whose bots are a person's, 0–3.
  const people = form.elements.people?.value;
  const four = people === "4";
  for (const seat of four ? [0, 1, 2, 3] : [0, 1, 2]) {
    // A table of two has no third seat.
    if (form.elements[`seat${seat}`] && v(`seat${seat}`)) bots[String(seat)] = v(`seat${seat}`);
  }
  const options = ruleOverrides(form, preset);
  const players = people === "2" ? 2 : 3;
  if (people && players !== (preset.options.players ?? 3)) options.players = players;
  if (four) Object.assign(options, { shouxing: true, shouxing_rotation: true });
  const seconds = num("turn_seconds");
  const body = {
    preset: preset.id,
    options,
    bots,
    turn_seconds: seconds > 0 ? seconds : null,
    bot_delay_ms: num("bot_delay_ms"),
    public: form.elements.public.checked,
  };
  const next = num("next_seconds");
  body.next_seconds = next > 0 ? next : null;
  // A seed makes the deals reproducible (to replay a match with friends, or in tests).
  if (v("seed").trim() !== "") body.seed = num("seed");
  return body;
}

/**
 * After POST /api/rooms (or a 亲友圈's 开桌, answered the same): what the creator's browser
 * keeps, and to the room. `req` is the body sent. With `here` ({app, leave()}) the room starts
 * in this very document (the address changes, nothing reloads), so the tap that created it
 * still counts as the page's gesture: the deal and the first bell sound (docs/web.md "Sound and
 * voice"); `leave` stops the page that was there.
 */
export function enterCreatedRoom(res, req, here = null) {
  // The creator sits at the first seat left for a person (none: watches the bots).
  const bots = req.bots || {};
  // [key of its bot, place]: a seat, or with four persons each person's place (RULES §2.1.1).
  const places = res.room?.persons
    ? res.room.persons.map((p) => [p.person, p.seat])
    : (res.room?.seats?.map((x) => x.seat) ?? [0, 1, 2]).map((s) => [s, s]);
  const human = places.find(([key]) => !(String(key) in bots));
  if (human !== undefined) sessionStorage.setItem(autositKey(res.room_id), String(human[1]));
  // Shown once by the server: the 守醒 invitation and the creator's token stay with this browser.
  if (res.shouxing_invite) localStorage.setItem(inviteKey(res.room_id), res.shouxing_invite);
  if (res.creator_token) localStorage.setItem(creatorKey(res.room_id), res.creator_token);
  if (req.turn_seconds === null) sessionStorage.setItem(noTimerKey(res.room_id), "1");
  if (!here) {
    location.assign(res.url);
    return;
  }
  here.leave();
  history.pushState(null, "", res.url);
  window.scrollTo(0, 0);
  startRoom(here.app, res.room_id);
}

/** The preset select's options: the presets of RULES §7.3, then the apps' tiers (§7.4, `family`
 * "app", docs/protocol.md §1) in their own group. */
export function presetOptions(presets) {
  const option = (p) => h("option", { value: p.id }, presetName(p));
  const tiers = presets.filter((p) => p.family === "app");
  return [
    ...presets.filter((p) => p.family !== "app").map(option),
    tiers.length ? h("optgroup", { label: t("preset_app_tiers"), "data-testid": "preset-app-tiers" }, tiers.map(option)) : null,
  ];
}

/**
 * The lobby page. Its state: the presets, the rooms, the chosen preset (a new one draws the
 * option controls afresh at its values) and the toggles that grey out what depends on them.
 */
export function startLobby(app) {
  // `left`: the lobby gave the page to a room it created (enterCreatedRoom): it draws no more.
  const ui = { data: null, rooms: null, failed: null, preset: null, toggles: {}, error: null, busy: false, left: false };
  // The games the server hosts (GET /api/games; null: 偎麻雀 only), the one chosen, and the rule
  // form's state of a game other than 偎麻雀 (gameform.js).
  ui.games = null;
  ui.game = "maque";
  ui.rules = null;
  const nameRef = createRef();
  const numberRef = createRef();
  const bar = new PlayerBar({ changed: () => draw(), onSignedIn: () => loadRooms() });

  const savedName = () => localStorage.getItem(NAME_KEY) || "";
  // One name box on the page: a guest's bar asks for a name (创建玩家), and 快速开始 takes the
  // same one; the welcome's own box shows only when the bar has none (signed in, or a code).
  const barAsksName = () => bar.me === null && bar.mode === "name";
  function keepName() {
    const input = nameRef.current || (barAsksName() ? bar.nameRef.current : null);
    if (!input) return; // signed in: the seat takes the player's name (§7.2)
    const name = input.value.trim();
    if (name) localStorage.setItem(NAME_KEY, name);
    else localStorage.removeItem(NAME_KEY);
  }

  function created(res, req) {
    keepName();
    enterCreatedRoom(res, req, { app, leave: () => (ui.left = true) });
  }

  async function create(body) {
    ui.error = null;
    ui.busy = true;
    draw();
    try {
      created(await api("/api/rooms", body), body);
    } catch (err) {
      ui.error = t("error", { msg: err.message });
      ui.busy = false;
      draw();
    }
  }

  const quickStart = () => create({ bots: { 1: QUICK_BOT, 2: QUICK_BOT } });

  const byId = (id) => ui.data.presets.find((p) => p.id === id) || ui.data.presets[0];

  /** The game to play: shown when the server hosts more than 偎麻雀. */
  function gameField() {
    if (!ui.games || ui.games.games.length < 2) return null;
    return field(
      t("game"),
      h(
        "select",
        {
          name: "game",
          "data-testid": "game",
          onchange: (e) => {
            ui.game = e.target.value;
            const game = gameOf(ui.games, ui.game);
            ui.rules = ui.game === "maque" || !game ? null : formState(game.schema, null);
            draw();
          },
        },
        ui.games.games.map((g) => h("option", { key: g.info.id, value: g.info.id, selected: g.info.id === ui.game }, named(g.info.names))),
      ),
      "field-game",
    );
  }

  /** 开房间 for a game other than 偎麻雀: its rule form from its schema, a select per seat of
   * its preset's table (a person or one of its bots), the timers, public, speed and seed. */
  function schemaForm(game) {
    const state = ui.rules;
    const preset = presetOf(game.schema, state.preset);
    const seats = preset.shape?.seats ?? 3;
    const bots = game.bots || [];
    const seatSelect = (seat) =>
      h(
        "select",
        { name: `seat${seat}`, "data-testid": `seat-kind-${seat}` },
        h("option", { value: "", selected: seat === 0 }, t("seat_human")),
        bots.map((b, i) => h("option", { key: b.name, value: b.name, selected: seat !== 0 && i === 0, title: named(b.about) }, `${t("seat_bot")} · ${named(b.names)}`)),
      );
    const speeds = [
      ["0", "speed_fast"],
      ["400", "speed_normal"],
      ["1200", "speed_slow"],
    ];
    const submit = (e) => {
      e.preventDefault();
      const form = e.target;
      const v = (name) => form.elements[name].value;
      const num = (name) => Number.parseInt(v(name), 10) || 0;
      const chosen = {};
      for (let seat = 0; seat < seats; seat++) if (v(`seat${seat}`)) chosen[String(seat)] = v(`seat${seat}`);
      const turn = num("turn_seconds");
      const next = num("next_seconds");
      const body = {
        game: game.info.id,
        preset: state.preset,
        options: overrides(game.schema, state),
        bots: chosen,
        turn_seconds: turn > 0 ? turn : null,
        next_seconds: next > 0 ? next : null,
        bot_delay_ms: num("bot_delay_ms"),
        public: form.elements.public.checked,
      };
      if (v("seed").trim() !== "") body.seed = num("seed");
      create(body);
    };
    return h(
      "form",
      { class: "panel create", "data-testid": "create-form", "data-game": game.info.id, onsubmit: submit },
      h("h2", {}, t("create_room")),
      gameField(),
      ruleForm({ schema: game.schema, state, changed: draw, prefix: "create" }),
      h(
        "fieldset",
        { key: `seats-${seats}` },
        h("legend", {}, t("seats")),
        Array.from({ length: seats }, (_, seat) => field(t("seat_n", { n: seat + 1 }), seatSelect(seat), `field-seat-${seat}`)),
      ),
      field(t("turn_timer"), numberInput("turn_seconds", ui.data.turn_seconds ?? 20, 0, 600), "field-timer"),
      field(t("next_timer"), numberInput("next_seconds", ui.data.next_seconds ?? 20, 0, 600), "field-next"),
      field(t("public_room"), checkbox("public", false), "field-public"),
      h(
        "details",
        { class: "more" },
        h("summary", { "data-testid": "more-options" }, t("more_options")),
        field(
          t("bot_speed"),
          h("select", { name: "bot_delay_ms", "data-testid": "bot-speed" }, speeds.map(([ms, key]) => h("option", { value: ms, selected: ms === "400" }, t(key)))),
          "field-bot-speed",
        ),
        field(t("seed"), h("input", { type: "number", name: "seed", "data-testid": "seed", placeholder: t("seed_random") }), "field-seed"),
      ),
      ui.error ? h("p", { class: "error", "data-testid": "create-error" }, ui.error) : null,
      h("button", { type: "submit", class: "primary", "data-testid": "create-room", disabled: ui.busy }, t("create")),
    );
  }

  function createForm() {
    const other = ui.game !== "maque" ? gameOf(ui.games, ui.game) : null;
    if (other && ui.rules) return schemaForm(other);
    const data = ui.data;
    const bots = data.bots || [];
    const defaultBot = bots.includes(QUICK_BOT) ? QUICK_BOT : bots[0] || "";
    const preset = byId(ui.preset);
    const opts = preset.options;
    const toggles = ui.toggles;
    // 人数: two seats at a table of two (RULES §2.5), three, or four persons (RULES §2.1.1).
    const people = toggles.people ?? (toggles.four ? 4 : (toggles.players ?? opts.players ?? 3));
    const seats = people === 2 ? 2 : 3;
    const toggle = (name) => (e) => {
      ui.toggles = { ...ui.toggles, [name]: e.target.checked };
      draw();
    };
    const seatField = (s) =>
      field(t("seat_n", { n: s + 1 }), seatSelect(s, bots, s === 0 ? "" : defaultBot), `field-seat-${s}`);
    const speeds = [
      ["0", "speed_fast"],
      ["400", "speed_normal"],
      ["1200", "speed_slow"],
    ];
    const submit = (e) => {
      e.preventDefault();
      create(roomRequest(e.target, byId(ui.preset)));
    };
    return h(
      "form",
      { class: "panel create", "data-testid": "create-form", "data-game": "maque", onsubmit: submit },
      h("h2", {}, t("create_room")),
      gameField(),
      field(
        t("preset"),
        h(
          "select",
          {
            name: "preset",
            "data-testid": "preset",
            value: preset.id,
            onchange: (e) => {
              // A new preset brings its own defaults for every option and its own 名堂.
              ui.preset = e.target.value;
              const p = byId(ui.preset);
              ui.toggles = { liuzi: p.options.liuzi, shouxing: p.options.shouxing, four: ui.toggles.four };
              draw();
            },
          },
          presetOptions(data.presets),
        ),
        "field-preset",
      ),
      h("p", { class: "preset-desc", "data-testid": "preset-desc" }, presetDesc(preset)),
      // Everything that follows the preset's values is drawn afresh for a new preset.
      h(
        "div",
        { key: preset.id, class: "preset-fields" },
        field(t("match_hands"), numberInput("match_hands", opts.match_hands, 1, 99), "field-hands"),
        h(
          "fieldset",
          {},
          h("legend", {}, t("seats")),
          // 人数: two seats (RULES §2.5), three, or four persons with the 守醒 moving with the
          // deal (RULES §2.1.1).
          roomMay(data, "players") || roomMay(data, "shouxing_rotation")
            ? field(
                t("people"),
                h(
                  "select",
                  {
                    name: "people",
                    "data-testid": "people",
                    onchange: (e) => {
                      const n = Number(e.target.value);
                      ui.toggles = { ...ui.toggles, people: n, players: n === 2 ? 2 : 3, four: n === 4 };
                      draw();
                    },
                  },
                  roomMay(data, "players") ? h("option", { value: "2", selected: people === 2 }, t("people_2")) : null,
                  h("option", { value: "3", selected: people === 3 }, t("people_3")),
                  roomMay(data, "shouxing_rotation")
                    ? h("option", { value: "4", selected: people === 4 }, t("people_4"))
                    : null,
                ),
                "field-people",
              )
            : null,
          (toggles.four ? [0, 1, 2, 3] : [0, 1, 2].slice(0, seats)).map(seatField),
          toggles.four
            ? optionFields(data, preset, ["shouxing_sees", "shouxing_liuju_reward"], { ...toggles, shouxing: true })
            : [
                // No 守醒 at a table of two (RULES §2.5.8): greyed out, so not sent.
                field(t("shouxing"), h("input", { type: "checkbox", name: "shouxing", defaultChecked: opts.shouxing, disabled: seats === 2, "data-testid": "shouxing", onchange: toggle("shouxing") }), "field-shouxing"),
                optionFields(data, preset, ["shouxing_liuju_reward"], toggles),
              ],
        ),
        h(
          "fieldset",
          {},
          h("legend", {}, t("liuzi")),
          field(t("liuzi"), checkbox("liuzi", opts.liuzi, toggle("liuzi")), "field-liuzi"),
          field(t("liuzi_dealer"), h("input", { type: "number", name: "liuzi_dealer", defaultValue: String(opts.liuzi_dealer), min: 0, disabled: !toggles.liuzi }), "field-liuzi-dealer"),
          field(t("liuzi_other"), h("input", { type: "number", name: "liuzi_other", defaultValue: String(opts.liuzi_other), min: 0, disabled: !toggles.liuzi }), "field-liuzi-other"),
          optionFields(data, preset, ["deng_value", "liuzi_min_xi", "liuzi_when"], toggles),
        ),
        ruleSection(data, preset),
      ),
      field(t("turn_timer"), numberInput("turn_seconds", data.turn_seconds ?? 20, 0, 600), "field-timer"),
      h("p", { class: "help" }, t("turn_timer_help")),
      field(t("next_timer"), numberInput("next_seconds", data.next_seconds ?? 20, 0, 600), "field-next"),
      h("p", { class: "help" }, t("next_timer_help")),
      field(t("public_room"), checkbox("public", false), "field-public"),
      h(
        "details",
        { class: "more" },
        h("summary", { "data-testid": "more-options" }, t("more_options")),
        field(
          t("bot_speed"),
          h(
            "select",
            { name: "bot_delay_ms", "data-testid": "bot-speed" },
            speeds.map(([ms, key]) => h("option", { value: ms, selected: ms === "400" }, t(key))),
          ),
          "field-bot-speed",
        ),
        field(
          t("seed"),
          h("input", { type: "number", name: "seed", "data-testid": "seed", placeholder: t("seed_random") }),
          "field-seed",
        ),
      ),
      ui.error ? h("p", { class: "error", "data-testid": "create-error" }, ui.error) : null,
      h("button", { type: "submit", class: "primary", "data-testid": "create-room", disabled: ui.busy }, t("create")),
    );
  }

  function roomList(title, testid, rooms) {
    if (!rooms.length) return null;
    const name = (r) => {
      const p = ui.data.presets.find((x) => x.id === r.rules.id);
      return p ? presetName(p) : r.rules.name;
    };
    return h(
      "section",
      { class: "panel rooms", "data-testid": testid },
      h("h2", {}, title),
      h(
        "ul",
        {},
        rooms.map((r) =>
          h(
            "li",
            { key: r.room_id, "data-testid": "room-entry", "data-room": r.room_id },
            h("a", { href: `/r/${r.room_id}` }, r.number ? t("room_number", { n: spacedNumber(r.number) }) : r.room_id),
            ` · ${name(r)} · ${t("players_n", { n: r.seats.filter((s) => s.taken).length })}`,
          ),
        ),
      ),
    );
  }

  function welcome() {
    return h(
      "section",
      { class: "panel welcome", "data-testid": "welcome" },
      bar.me || barAsksName() ? null : nameField(nameRef, "lobby-name", savedName()),
      h(
        "button",
        { class: "primary quick", "data-testid": "quick-start", disabled: ui.busy || !ui.data, onclick: quickStart },
        t("quick_start"),
      ),
      h("p", { class: "help" }, t("quick_start_help")),
      numberForm(),
    );
  }

  /** 输入房间号: the six digits a friend reads out join their room (GET /api/numbers/N). */
  function numberForm() {
    const go = async (e) => {
      e.preventDefault();
      const text = (numberRef.current?.value || "").replace(/\s/g, "");
      if (!/^[0-9]{6}$/.test(text)) {
        ui.numberError = t("join_number_bad");
        draw();
        return;
      }
      ui.numberError = null;
      try {
        const found = await api(`/api/numbers/${text}`);
        location.href = found.url;
      } catch (err) {
        ui.numberError = refusal(err);
        draw();
      }
    };
    return h(
      "form",
      { class: "join-number", "data-testid": "join-number", onsubmit: go },
      h(
        "label",
        { class: "field" },
        h("span", {}, t("join_number")),
        h("input", { ref: numberRef, name: "number", inputmode: "numeric", maxlength: 7, autocomplete: "off", placeholder: "000 000", "data-testid": "room-number-input" }),
      ),
      h("button", { type: "submit", "data-testid": "room-number-go" }, t("join_number_go")),
      h("p", { class: ui.numberError ? "error" : "help", "data-testid": "room-number-note" }, ui.numberError || t("join_number_help")),
    );
  }

  function draw() {
    if (ui.left) return;
    let body;
    if (ui.failed) body = h("p", { class: "error" }, t("error", { msg: ui.failed }));
    else if (!ui.data) body = [bar.render(), welcome(), h("p", { class: "loading" }, t("connecting"))];
    else {
      // The rooms this browser holds a seat in, and those where the player holds one (GET /api/me).
      const theirs = bar.me?.rooms || [];
      const list = [...theirs, ...(ui.rooms || []).filter((r) => !theirs.some((x) => x.room_id === r.room_id))];
      const mine = [...myRoomIds(), ...theirs.map((r) => r.room_id)];
      body = [
        bar.render(),
        welcome(),
        roomList(t("my_rooms"), "my-rooms", list.filter((r) => mine.includes(r.room_id))),
        roomList(t("public_rooms"), "open-rooms", list.filter((r) => !mine.includes(r.room_id))),
        createForm(),
      ];
    }
    mount(app, header(), h("main", { class: "lobby" }, body));
  }

  // Our own rooms (this browser holds a seat in them) and the rooms opened as public.
  function roomsNow() {
    const mine = myRoomIds();
    const query = mine.length ? `?ids=${mine.map(encodeURIComponent).join(",")}` : "";
    return api(`/api/rooms${query}`).catch(() => ({ rooms: [] })); // the list is optional
  }

  // After signing in: the player's rooms join the list.
  async function loadRooms() {
    ui.rooms = (await roomsNow()).rooms || [];
    draw();
  }

  async function load() {
    try {
      const [data, open, games] = await Promise.all([loadPresets(), roomsNow(), loadGames()]);
      ui.data = data;
      ui.games = games;
      ui.game = "maque";
      ui.rooms = open.rooms || [];
      ui.preset = data.default;
      const first = byId(ui.preset);
      ui.toggles = { liuzi: first.options.liuzi, shouxing: first.options.shouxing };
    } catch (err) {
      ui.failed = err.message;
    }
    draw();
  }

  onLangChange(draw);
  draw();
  bar.load();
  load();
}
