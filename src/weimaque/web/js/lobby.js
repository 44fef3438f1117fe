// The lobby: create a room (preset, length, 留子, 守醒, bots, timer, rule options) and list
// open rooms.
import { h, mount } from "./dom.js";
import { api, myRoomIds } from "./net.js";
import { presetDesc, presetName, t } from "./i18n.js";
import {
  applyPreset,
  loadPresets,
  optionFields,
  ruleOverrides,
  ruleSection,
  syncDependents,
} from "./rules.js";

function field(label, input, testid) {
  return h("label", { class: "field", "data-testid": testid }, h("span", {}, label), input);
}

function checkbox(name, checked) {
  return h("input", { type: "checkbox", name, checked, "data-testid": name });
}

function numberInput(name, value, min = 0, max = 999) {
  return h("input", { type: "number", name, value, min, max, inputmode: "numeric" });
}

/** A select for one seat: a person, or one of the server's bot kinds. */
function seatSelect(seat, bots, initial) {
  return h(
    "select",
    { name: `seat${seat}`, "data-testid": `seat-kind-${seat}` },
    h("option", { value: "", selected: initial === "" }, t("seat_human")),
    bots.map((b) =>
      h("option", { value: b, selected: initial === b }, `${t("seat_bot")}: ${b}`),
    ),
  );
}


/** Read the form into the POST /api/rooms body. */
function roomRequest(form, preset) {
  const v = (name) => form.elements[name].value;
  const num = (name) => Number.parseInt(v(name), 10) || 0;
  const bots = {};
  for (const seat of [0, 1, 2]) {
    if (v(`seat${seat}`)) bots[String(seat)] = v(`seat${seat}`);
  }
  const seconds = num("turn_seconds");
  const body = {
    preset: preset.id,
    options: ruleOverrides(form, preset),
    bots,
    turn_seconds: seconds > 0 ? seconds : null,
    bot_delay_ms: num("bot_delay_ms"),
    public: form.elements.public.checked,
  };
  // A seed makes the deals reproducible (to replay a match with friends, or in tests).
  if (v("seed").trim() !== "") body.seed = num("seed");
  return body;
}

function createForm(data, onCreated) {
  const presets = data.presets;
  const bots = data.bots || [];
  const defaultBot = bots.includes("greedy") ? "greedy" : bots[0] || "";
  const byId = (id) => presets.find((p) => p.id === id) || presets[0];
  const first = byId(data.default);
  const error = h("p", { class: "error", "data-testid": "create-error" });
  const desc = h("p", { class: "preset-desc", "data-testid": "preset-desc" }, presetDesc(first));

  const opts = first.options;
  const seatField = (s) =>
    field(
      t("seat_n", { n: s + 1 }),
      seatSelect(s, bots, s === 0 ? "" : defaultBot),
      `field-seat-${s}`,
    );
  const speeds = [
    ["0", "speed_fast"],
    ["400", "speed_normal"],
    ["1200", "speed_slow"],
  ];

  const form = h(
    "form",
    { class: "panel create", "data-testid": "create-form" },
    h("h2", {}, t("create_room")),
    field(
      t("preset"),
      h(
        "select",
        { name: "preset", "data-testid": "preset" },
        presets.map((p) =>
          h("option", { value: p.id, selected: p.id === first.id }, presetName(p)),
        ),
      ),
      "field-preset",
    ),
    desc,
    field(t("match_hands"), numberInput("match_hands", opts.match_hands, 1, 99), "field-hands"),
    h(
      "fieldset",
      {},
      h("legend", {}, t("seats")),
      [0, 1, 2].map(seatField),
      field(t("shouxing"), checkbox("shouxing", opts.shouxing), "field-shouxing"),
      optionFields(data, first, ["shouxing_liuju_reward"]),
    ),
    h(
      "fieldset",
      {},
      h("legend", {}, t("liuzi")),
      field(t("liuzi"), checkbox("liuzi", opts.liuzi), "field-liuzi"),
      field(t("liuzi_dealer"), numberInput("liuzi_dealer", opts.liuzi_dealer), "field-liuzi-dealer"),
      field(t("liuzi_other"), numberInput("liuzi_other", opts.liuzi_other), "field-liuzi-other"),
      optionFields(data, first, ["deng_value", "liuzi_min_xi"]),
    ),
    ruleSection(data, first),
    field(t("turn_timer"), numberInput("turn_seconds", data.turn_seconds ?? 20, 0, 600), "field-timer"),
    h("p", { class: "help" }, t("turn_timer_help")),
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
    error,
    h("button", { type: "submit", class: "primary", "data-testid": "create-room" }, t("create")),
  );

  // The stakes only matter with a 留子 pool, the 臭 reward only with a 守醒.
  form.elements.liuzi.addEventListener("change", () => syncDependents(form));
  form.elements.shouxing.addEventListener("change", () => syncDependents(form));
  // A new preset brings its own defaults for every option and its own 名堂.
  form.elements.preset.addEventListener("change", () => {
    const p = byId(form.elements.preset.value);
    desc.textContent = presetDesc(p);
    applyPreset(form, data, p);
  });
  syncDependents(form);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    const body = roomRequest(form, byId(form.elements.preset.value));
    try {
      const res = await api("/api/rooms", body);
      onCreated(res, body);
    } catch (err) {
      error.textContent = t("error", { msg: err.message });
    }
  });
  return form;
}

function roomList(title, testid, rooms, presets) {
  if (!rooms.length) return null;
  const name = (r) => {
    const p = presets.find((x) => x.id === r.rules.id);
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
          { "data-testid": "room-entry", "data-room": r.room_id },
          h("a", { href: `/r/${r.room_id}` }, r.room_id),
          ` · ${name(r)} · ${t("players_n", { n: r.seats.filter((s) => s.taken).length })}`,
        ),
      ),
    ),
  );
}

/** Draw the lobby into `root`; onCreated(response, request) runs after a room is made. */
export async function renderLobby(root, onCreated) {
  mount(root, h("p", { class: "loading" }, t("connecting")));
  try {
    // Our own rooms (this browser holds a seat in them) and the rooms opened as public.
    const mine = myRoomIds();
    const query = mine.length ? `?ids=${mine.map(encodeURIComponent).join(",")}` : "";
    const rooms = api(`/api/rooms${query}`).catch(() => ({ rooms: [] })); // the list is optional
    const [data, open] = await Promise.all([loadPresets(), rooms]);
    const list = open.rooms || [];
    const own = list.filter((r) => mine.includes(r.room_id));
    const others = list.filter((r) => !mine.includes(r.room_id));
    mount(
      root,
      createForm(data, onCreated),
      roomList(t("my_rooms"), "my-rooms", own, data.presets),
      roomList(t("public_rooms"), "open-rooms", others, data.presets),
    );
  } catch (err) {
    mount(root, h("p", { class: "error" }, t("error", { msg: err.message })));
  }
}
