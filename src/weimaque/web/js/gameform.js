// The rule form of any game, drawn from its option schema (`GET /api/games`, docs/protocol.md
// §1; `OptionSchema.to_json()`, docs/new-game.md): the preset, then each option by its type
// (bool → a checkbox, int → a number within its bounds, choice → a select, keys → a multiple
// select). One component for the lobby's 开房间, a 亲友圈's rules and wherever rules are chosen:
// the caller keeps its state ({preset, values}) and is told of every change.
import { h } from "./dom.js";
import { api } from "./net.js";
import { currentLang, presetDesc, t } from "./i18n.js";

let gamesCache = null;

/** `GET /api/games`, once per page; null when the server lists no games (it plays 偎麻雀 only). */
export async function loadGames() {
  if (!gamesCache) {
    gamesCache = api("/api/games").catch(() => null);
  }
  return gamesCache;
}

/** A {zh, en} name in the page's language. */
export const named = (names) => (names ? names[currentLang()] || names.zh || names.en : "");

/** The game of an id in a `GET /api/games` answer. */
export const gameOf = (games, id) => games?.games.find((g) => g.info.id === id) || null;

/** A preset of a schema by id (its first when the id names none). */
export function presetOf(schema, id) {
  return schema.presets.find((p) => p.id === id) || schema.presets[0];
}

/** The values a preset gives every option: its own, else the option's default. */
export function presetValues(schema, presetId) {
  const preset = presetOf(schema, presetId);
  const out = {};
  for (const o of schema.options) {
    const v = o.key in preset.options ? preset.options[o.key] : o.default;
    out[o.key] = Array.isArray(v) ? [...v] : v;
  }
  return out;
}

/** A fresh form state at a preset. */
export function formState(schema, presetId) {
  const preset = presetOf(schema, presetId);
  return { preset: preset.id, values: presetValues(schema, preset.id) };
}

const same = (a, b) => (Array.isArray(a) && Array.isArray(b) ? a.length === b.length && a.every((x) => b.includes(x)) : a === b);

/** The options changed from the chosen preset: what a request sends as `options`. */
export function overrides(schema, state) {
  const base = presetValues(schema, state.preset);
  const out = {};
  for (const o of schema.options) {
    if (!same(state.values[o.key], base[o.key])) out[o.key] = state.values[o.key];
  }
  return out;
}

/** How a form shows choice `i` of option `o`: its name in the page's language, else the value. */
const choiceName = (o, i) => (o.choice_names?.[i] ? named(o.choice_names[i]) : String(o.choices[i]));

/** One option's control, by its type. */
function control(o, value, set, prefix) {
  const id = `${prefix}-opt-${o.key}`;
  const common = { id, name: o.key, "data-testid": `${prefix}-opt-${o.key}`, "data-key": o.key };
  if (o.type === "bool") {
    return h("input", { ...common, type: "checkbox", checked: Boolean(value), onchange: (e) => set(e.target.checked) });
  }
  if (o.type === "int") {
    return h("input", {
      ...common,
      type: "number",
      inputmode: "numeric",
      min: o.low ?? null,
      max: o.high ?? null,
      value: String(value),
      onchange: (e) => {
        const n = Number.parseInt(e.target.value, 10);
        const low = o.low ?? -Infinity;
        const high = o.high ?? Infinity;
        // Out of bounds or not a number: back to the nearest allowed value, never sent as it is.
        set(Number.isNaN(n) ? value : Math.min(high, Math.max(low, n)));
      },
    });
  }
  if (o.type === "choice") {
    return h(
      "select",
      { ...common, onchange: (e) => set(o.choices[Number(e.target.value)]) },
      o.choices.map((c, i) => h("option", { key: i, value: String(i), selected: c === value }, choiceName(o, i))),
    );
  }
  // keys: any number of the choices.
  return h(
    "select",
    {
      ...common,
      multiple: true,
      size: Math.min(6, o.choices.length),
      onchange: (e) => set([...e.target.selectedOptions].map((x) => o.choices[Number(x.value)])),
    },
    o.choices.map((c, i) => h("option", { key: i, value: String(i), selected: (value || []).includes(c) }, choiceName(o, i))),
  );
}

/**
 * The form: the preset (its description under it) and, folded, every option.
 * opts: {schema, state ({preset, values}), changed(): redraw, prefix (test ids), open (options
 * unfolded), perPage and page ({at, set(i)}): where the form must fit a screen without scrolling
 * (the rematch dialog), the options in pages of `perPage` behind numbered tabs, each tab saying
 * how many options it changed; the options of the other pages stay in the form, hidden}.
 */
export function ruleForm({ schema, state, changed, prefix = "rules", open = false, perPage = 0, page = null }) {
  const preset = presetOf(schema, state.preset);
  const set = (key) => (v) => {
    state.values[key] = v;
    changed();
  };
  const changedKeys = Object.keys(overrides(schema, state));
  const size = perPage > 0 ? perPage : schema.options.length;
  const pages = Math.max(1, Math.ceil(schema.options.length / size));
  const at = page ? Math.min(page.at, pages - 1) : 0;
  return h(
    "div",
    { class: `rule-form${pages > 1 ? " paged" : ""}`, "data-testid": `${prefix}-form` },
    h(
      "label",
      { class: "field", "data-testid": `${prefix}-field-preset` },
      h("span", {}, t("preset")),
      h(
        "select",
        {
          name: "preset",
          "data-testid": `${prefix}-preset`,
          onchange: (e) => {
            // A new preset brings its own value for every option.
            Object.assign(state, formState(schema, e.target.value));
            changed();
          },
        },
        schema.presets.map((p) => h("option", { key: p.id, value: p.id, selected: p.id === preset.id }, named(p.names))),
      ),
    ),
    presetDesc(preset) ? h("p", { class: "preset-desc", "data-testid": `${prefix}-preset-desc` }, presetDesc(preset)) : null,
    h(
      "details",
      { class: "more rule-options", open: open || changedKeys.length > 0 ? true : null },
      h("summary", { "data-testid": `${prefix}-options` }, t("rule_options"), changedKeys.length ? ` (${changedKeys.length})` : ""),
      pages > 1 ? pageTabs(schema, changedKeys, size, at, page.set, prefix) : null,
      h(
        "div",
        { class: "option-grid" },
        schema.options.map((o, i) =>
          h(
            "label",
            {
              key: o.key,
              class: `field option ${o.type}${changedKeys.includes(o.key) ? " changed" : ""}`,
              title: o.key,
              "data-page": pages > 1 ? String(Math.floor(i / size)) : null,
              hidden: pages > 1 && Math.floor(i / size) !== at ? true : null,
            },
            h("span", { title: named(o.label) }, named(o.label)),
            control(o, state.values[o.key], set(o.key), prefix),
          ),
        ),
      ),
    ),
  );
}

/** The tabs of the options' pages: the page's number, and how many of its options differ from
 * the preset. */
function pageTabs(schema, changedKeys, size, at, setPage, prefix) {
  const pages = Math.ceil(schema.options.length / size);
  return h(
    "div",
    { class: "option-pages", role: "tablist", "data-testid": `${prefix}-pages` },
    Array.from({ length: pages }, (_, i) => {
      const keys = schema.options.slice(i * size, (i + 1) * size).map((o) => o.key);
      const changedHere = keys.filter((k) => changedKeys.includes(k)).length;
      return h(
        "button",
        {
          key: i,
          type: "button",
          role: "tab",
          class: `option-page${i === at ? " on" : ""}`,
          "aria-selected": i === at ? "true" : "false",
          "data-testid": `${prefix}-page-${i}`,
          title: t("options_page_title", { first: named(schema.options[i * size].label), last: named(schema.options[Math.min(schema.options.length, (i + 1) * size) - 1].label) }),
          onclick: () => setPage(i),
        },
        String(i + 1),
        changedHere ? h("small", { class: "page-changed" }, ` (${changedHere})`) : null,
      );
    }),
  );
}

/** One line of a room of another game's rules (RoomInfo `rules`: {id, name, overrides}): the
 * game, its preset and each option changed, named as the schema names them. */
export function schemaRulesSummary(game, rules) {
  const preset = game.schema.presets.find((p) => p.id === rules.id);
  const specs = Object.fromEntries(game.schema.options.map((o) => [o.key, o]));
  // A choice by its name where the schema names it (the value itself otherwise).
  const choice = (o, v) => {
    const i = o ? (o.choices || []).indexOf(v) : -1;
    return i >= 0 ? choiceName(o, i) : String(v);
  };
  const shown = (o, v) => (typeof v === "boolean" ? t(v ? "on" : "off") : Array.isArray(v) ? v.map((x) => choice(o, x)).join(" ") : choice(o, v));
  const changes = Object.entries(rules.overrides || {}).map(([k, v]) => t("opt_value", { k: specs[k] ? named(specs[k].label) : k, v: shown(specs[k], v) }));
  const gameName = named(game.info.names);
  const presetName = preset ? named(preset.names) : rules.name;
  // A game's first preset is often named as the game: say it once.
  return [gameName, ...(presetName === gameName ? [] : [presetName]), ...changes].join(" · ");
}
