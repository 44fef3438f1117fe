// Rule options of a room (RULES §7.3): the lobby's "规则选项" controls, the diff against the
// preset that becomes POST /api/rooms `options`, and the one-line summary of a room's rules.
import { h } from "./dom.js";
import { api } from "./net.js";
import { presetName, t } from "./i18n.js";

let presetsCache = null;

/** GET /api/presets once per page: the lobby and the room header share it. */
export async function loadPresets() {
  presetsCache = presetsCache || (await api("/api/presets"));
  return presetsCache;
}

/** The Chinese name of a 名堂 key (the key itself before the presets have loaded). */
export const patternName = (key) => presetsCache?.pattern_names?.[key] ?? key;

// Every plain option the lobby offers, with how its control reads. `min` mirrors the checks of
// RuleConfig, so the browser refuses what the server would. `needs`: the toggle it depends on.
const OPTIONS = [
  { name: "match_hands", kind: "int", min: 1, label: "match_hands" },
  { name: "shouxing", kind: "bool", label: "shouxing" },
  { name: "shouxing_liuju_reward", kind: "int", min: 0, needs: "shouxing" },
  // RULES §2.1.2: what the 守醒 may see (drawn with four persons, lobby.js)
  { name: "shouxing_sees", kind: "choice", choices: ["all", "dealer"], needs: "shouxing" },
  { name: "liuzi", kind: "bool", label: "liuzi" },
  { name: "liuzi_dealer", kind: "int", min: 0, needs: "liuzi", label: "liuzi_dealer" },
  { name: "liuzi_other", kind: "int", min: 0, needs: "liuzi", label: "liuzi_other" },
  { name: "deng_value", kind: "int", min: 0, needs: "liuzi" },
  { name: "liuzi_min_xi", kind: "int", min: 1, needs: "liuzi" },
  // RULES §8.5.1: when the pool is fed; §2.5: a table of two and its two options.
  { name: "liuzi_when", kind: "choice", choices: ["deal", "chou", "start_and_chou"], needs: "liuzi" },
  { name: "players", kind: "int", min: 2 },
  { name: "maipai", kind: "bool" },
  { name: "chi_opponent_discard", kind: "bool" },
  { name: "min_xi", kind: "int", min: 0 },
  { name: "wei_face_up", kind: "bool" },
  { name: "holder_may_not_chi", kind: "bool" },
  { name: "dealer_rotation", kind: "choice", choices: ["keep_or_next", "winner_deals"] },
  { name: "first_dealer", kind: "choice", choices: ["seat0", "random"] },
  { name: "score_target", kind: "int", min: 0 },
];
const SPEC = Object.fromEntries(OPTIONS.map((o) => [o.name, o]));
// The lobby's older fields (length, 留子, 守醒) keep their labels; the others are "opt_<name>".
const label = (name) => t(SPEC[name]?.label || `opt_${name}`);

/** Whether this server lets a room set `name` (an older one may not know every option). */
export const roomMay = (data, name) => name in (data.room_options || {});

// The form's controls are uncontrolled: they start at the preset's values (defaultValue /
// defaultChecked) and are read when the form is sent; a new preset draws them afresh (a `key`).
function optionField(spec, value, toggles) {
  const attrs = { name: spec.name, "data-testid": spec.name };
  // A stake or reward only matters with its 留子 / 守醒 on: greyed out otherwise.
  const disabled = spec.needs ? !toggles?.[spec.needs] : false;
  let input;
  if (spec.kind === "bool") {
    input = h("input", { ...attrs, type: "checkbox", defaultChecked: value, disabled });
  } else if (spec.kind === "choice") {
    input = h(
      "select",
      { ...attrs, disabled },
      spec.choices.map((c) => h("option", { value: c, selected: c === value }, t(`opt_${c}`))),
    );
  } else {
    input = h("input", { ...attrs, type: "number", defaultValue: String(value), min: spec.min, inputmode: "numeric", disabled });
  }
  return h(
    "label",
    { class: "field", "data-testid": `field-${spec.name}` },
    h("span", {}, label(spec.name)),
    input,
  );
}

/** The fields of the named options this server accepts, set to the preset's values. */
export function optionFields(data, preset, names, toggles) {
  return names.filter((n) => roomMay(data, n)).map((n) => optionField(SPEC[n], preset.options[n], toggles));
}

function patternBox(key, value, group, checked) {
  return h(
    "label",
    { class: "pattern", title: key },
    h("input", { type: "checkbox", name: group, value: key, defaultChecked: checked, "data-testid": `${group}-${key}` }),
    ` ${patternName(key)} `,
    h("small", {}, value),
  );
}

/** The preset's optional 名堂 to turn on, and (where allowed) its active ones to turn off. */
function patternFields(data, preset) {
  const optional = Object.entries(preset.optional_patterns || {});
  const active = Object.entries(preset.patterns || {});
  return [
    optional.length && roomMay(data, "enable_patterns")
      ? h(
          "fieldset",
          { class: "patterns", "data-testid": "enable-patterns" },
          h("legend", {}, t("enable_patterns")),
          optional.map(([k, v]) => patternBox(k, v, "enable", false)),
        )
      : null,
    active.length && roomMay(data, "disable_patterns")
      ? h(
          "fieldset",
          { class: "patterns", "data-testid": "disable-patterns" },
          h("legend", {}, t("disable_patterns")),
          active.map(([k, v]) => patternBox(k, v, "active", true)),
        )
      : null,
  ];
}

/** The collapsible "规则选项" section: the preset's rules, each one changeable. */
export function ruleSection(data, preset) {
  const names = ["min_xi", "wei_face_up", "holder_may_not_chi", "dealer_rotation", "first_dealer"];
  return h(
    "details",
    { class: "more rule-options" },
    h("summary", { "data-testid": "rule-options" }, t("rule_options")),
    optionFields(data, preset, [...names, "score_target"]),
    h("div", { class: "pattern-host" }, patternFields(data, preset)),
  );
}

function readOption(el, spec, fallback) {
  if (spec.kind === "bool") return el.checked;
  if (spec.kind === "choice") return el.value;
  const n = Number.parseInt(el.value, 10);
  return Number.isNaN(n) ? fallback : Math.max(spec.min, n); // a cleared box keeps the preset's
}

/** The `options` of POST /api/rooms: only what differs from the preset, so the room's
 *  rules.overrides reads as exactly what its creator changed. */
export function ruleOverrides(form, preset) {
  const out = {};
  for (const spec of OPTIONS) {
    const el = form.elements[spec.name];
    if (!el || el.disabled) continue; // a greyed-out stake keeps the preset's value
    const value = readOption(el, spec, preset.options[spec.name]);
    if (value !== preset.options[spec.name]) out[spec.name] = value;
  }
  const ticked = (group, on) =>
    [...form.querySelectorAll(`input[name=${group}]`)].filter((b) => b.checked === on);
  const enable = ticked("enable", true).map((b) => b.value);
  const disable = ticked("active", false).map((b) => b.value);
  if (enable.length) out.enable_patterns = enable;
  if (disable.length) out.disable_patterns = disable;
  return out;
}

function overrideText(name, value) {
  if (name === "enable_patterns") return value.map((k) => `+${patternName(k)}`).join(" ");
  if (name === "disable_patterns") return value.map((k) => `−${patternName(k)}`).join(" ");
  const spec = SPEC[name];
  let shown = value;
  if (typeof value === "boolean") shown = t(value ? "on" : "off");
  else if (spec?.kind === "choice") shown = t(`opt_${value}`);
  return t("opt_value", { k: spec ? label(name) : name, v: shown });
}

/** One line for the room header: the preset and each change a room made (rules.overrides). */
export function rulesSummary(rules) {
  const changes = Object.entries(rules.overrides || {}).map(([k, v]) => overrideText(k, v));
  const preset = presetsCache?.presets?.find((p) => p.id === rules.id);
  return [preset ? presetName(preset) : rules.name, ...changes].join(" · ");
}
