// The 算息 page (/score): build a winning hand by tapping cards or typing the notation, choose
// the preset (the apps' tiers too, RULES §7.4), the players (§2.5), the 留子 pool (§8.5.3), the
// facts of the hand (§7.4.4: 自吃, 天胡 or the dealt cards, a dealt 坎 of the winning face, the
// faces a 胡 was declined on) and rule options, and see the breakdown and the winner's gain
// POST /api/score returns (the same scorer and the same errors as `wmq score`; docs/web.md).
import { h, mount } from "./dom.js";
import { card } from "./cards.js";
import { api } from "./net.js";
import { currentLang, onLangChange, presetDesc, t } from "./i18n.js";
import { loadPresets, patternName } from "./rules.js";
import { presetOptions } from "./lobby.js";
import { breakdownView } from "./result.js";
import { aboutPattern } from "./mingtang.js";
import { header } from "./page.js";
import { gameSwitch, startSdgScore } from "./sdgscore.js";

// The games with a calculator on this page: /score?game=sandingguai is 三丁拐's 算番.
const SDG_NAMES = ["sandingguai", "sdg", "三丁拐"];

const SMALL = "一二三四五六七八九十";
const BIG = "壹贰叁肆伍陆柒捌玖拾";
// 自吃: a 吃 of one's own drawn card (RULES §7.4.4), told apart for 全求人.
const TOKENS = ["碰:", "偎:", "吃:", "自吃:", "手:", "胡:"];

// A Python repr quoted in the scorer's messages ('…' or "…"), as one regular-expression group.
const Q = `(?:'([^']*)'|"([^"]*)")`;
// The scorer's messages (weimaque/notation.py, weimaque/errors.py) and what each says, in the
// current language, with every number and quoted input it names: as specific as the English.
const DETAILS = [
  [`^empty card list ${Q}$`, "err_d_empty_cards"],
  [`^digits ${Q} not closed by 'x' or 'd' in ${Q}$`, "err_d_digits"],
  [`^case letter ${Q} without digits before it in ${Q}$`, "err_d_case_letter"],
  [`^unknown card character ${Q} in ${Q}$`, "err_d_unknown_card"],
  [`^expected one card, got (\\d+) in ${Q}$`, "err_d_one_card", "n"],
  [`^(\\S+) appears (\\d+) times \\(at most (\\d+)\\) in ${Q}$`, "err_d_copies", "card n max"],
  [`^unknown meld kind ${Q} in ${Q}$`, "err_d_meld_kind"],
  [`^a meld has exactly 3 cards, got (\\d+) in ${Q}$`, "err_d_meld_size", "n"],
  [`^吃 needs a run of one case, not ${Q}$`, "err_d_chi_run"],
  [`^(\\S+) needs three identical cards, not ${Q}$`, "err_d_three_alike", "kind"],
  [`^segment ${Q} is not of the form kind:cards$`, "err_d_segment_form"],
  [`^unknown segment kind ${Q} in ${Q}$`, "err_d_segment_kind"],
  [`^segment ${Q} has no cards$`, "err_d_segment_empty"],
  [`^empty hand description ${Q}$`, "err_d_empty_hand"],
  [`^--from takes 'self' or 'other', not ${Q} in ${Q}$`, "err_d_from"],
  [`^more than one 胡: segment in ${Q}$`, "err_d_two_wins"],
  [`^胡: takes exactly one card, not ${Q}$`, "err_d_win_one"],
  [`^no 胡: \\(win:\\) segment in ${Q}$`, "err_d_no_win"],
  [`^a hand has (\\d+) cards, got (\\d+) in ${Q}$`, "err_d_card_count", "want n"],
  // The fields of the request and the rule options (docs/protocol.md §1 POST /api/score).
  [`^pool must be an integer 0\\.\\.(\\d+), not (.+)$`, "err_d_pool", "max v"],
  [`^option '([^']*)' takes an integer (\\d+)\\.\\.(\\d+), not (.+)$`, "err_d_option_range", "opt min max v"],
].map(([re, key, names]) => [new RegExp(re), key, names ? names.split(" ") : []]);

/**
 * What a scorer's message says, in the current language: its numbers by name ({n}, {card}…),
 * the texts it quotes as {a} and {b}. A message no pattern knows is shown by what it quotes.
 */
export function detailIn(message) {
  for (const [re, key, names] of DETAILS) {
    const m = message.match(re);
    if (!m) continue;
    const params = {};
    let k = 1;
    for (const name of names) params[name] = m[k++];
    const quotes = [];
    for (; k < m.length; k += 2) quotes.push(m[k] ?? m[k + 1] ?? "");
    [params.a, params.b] = quotes;
    if (params.opt) params.opt = t(`opt_${params.opt}`);
    return t(key, params);
  }
  const quoted = message.match(/'([^']*)'/);
  return quoted ? `“${quoted[1]}”` : "";
}

/**
 * An error of the scorer in the current language: the sentence for its code, and the part of
 * the input it quotes. The engine's own message (English) follows in English only.
 */
function errorView(err) {
  // A rule option's value out of its bounds is not an unknown preset (docs/protocol.md §1).
  const key = err.code === "bad_rules" && /^option '/.test(err.message) ? "err_bad_option" : `err_${err.code}`;
  const head = t(key) === key ? t("err_bad_hand") : t(key);
  const detail = currentLang() === "en" ? err.message : detailIn(err.message);
  return h(
    "div",
    { class: "score-error error", "data-testid": "score-error", "data-code": err.code, "data-hand": err.hand },
    h("strong", {}, head),
    detail ? h("p", { class: "detail" }, h("code", {}, detail)) : null,
  );
}

/**
 * What the winner gains at the table the form describes (docs/protocol.md §1 `gain`): each
 * loser pays the total, and a 留子 pool adds the take (RULES §8.5.3: with a pool the scorer
 * picks the layout of the largest whole gain, so the breakdown may not be the largest total).
 */
function gainView(gain, b) {
  if (!gain || !b.winning) return null;
  const losers = gain.players - 1;
  return h(
    "div",
    {
      class: "score-gain",
      "data-testid": "score-gain",
      "data-players": String(gain.players),
      "data-take": String(gain.take),
      "data-gain": String(gain.gain),
    },
    h(
      "strong",
      {},
      t(gain.pool === null ? "score_gain_plain" : "score_gain_line", { total: b.total, losers, take: gain.take, gain: gain.gain }),
    ),
    gain.pool === null ? null : h("p", { class: "help-line" }, t("score_gain_pool", { pool: gain.pool, take: gain.take })),
  );
}

function resultView(result) {
  if (!result) return null;
  if (result.error) return errorView(result.error);
  const b = result.breakdown;
  return h(
    "div",
    { class: "score-result", "data-testid": "score-result", "data-winning": String(b.winning), "data-rules": result.rules },
    b.winning ? null : h("p", { class: "error", "data-testid": "score-no-win" }, t("score_no_win", { reason: b.reason })),
    gainView(result.gain, b),
    breakdownView(b),
  );
}

/** A control with its label and, under it, one line on what it means. */
function field(labelKey, control, helpKey, testid, params) {
  return h(
    "div",
    { class: "score-field", "data-testid": `field-${testid}` },
    h("label", { class: "field" }, h("span", {}, t(labelKey)), control),
    h("p", { class: "help-line" }, t(helpKey, params)),
  );
}

// What the hand description scores (docs/protocol.md §1): a win, the dealer's 20 dealt cards as
// 天胡, or a seat's dealt cards for the deal 名堂 (RULES §7.4.2 #9).
const KINDS = ["win", "tianhu", "deal"];

export function startScore(app) {
  if (SDG_NAMES.includes(new URLSearchParams(location.search).get("game"))) return startSdgScore(app);
  // The page's whole state; the textarea shows `hand` and every tap or keystroke updates it. The
  // rule options (players, 每等分值, 起胡息数, optional 名堂) start at the preset's values.
  const form = {
    data: null,
    failed: null,
    hand: "",
    rules: null,
    source: "self",
    last: false,
    kind: "win",
    dealtKan: false,
    declined: "",
    pool: "",
    players: 3,
    deng: "",
    minXi: "",
    enable: [],
    disable: [], // RULES §7.3: the preset's 名堂 the form turned off
    result: null,
    answers: 0, // answers shown so far (the out panel's data-answers)
  };
  const presetOf = (id) => form.data.presets.find((p) => p.id === id) ?? form.data.presets[0];

  function choosePreset(id) {
    form.rules = id;
    const p = presetOf(id);
    form.players = p.options.players ?? 3;
    form.deng = String(p.options.deng_value ?? "");
    form.minXi = String(p.options.min_xi ?? "");
    form.enable = [];
    form.disable = [];
    draw();
  }

  const add = (text) => {
    const needsSpace = text.endsWith(":") && form.hand && !form.hand.endsWith(" ");
    form.hand += (needsSpace ? " " : "") + text;
    draw();
  };

  // A number box as typed: an integer, or the text itself (the server refuses it, quoting it).
  const typed = (text) => (/^-?\d+$/.test(text.trim()) ? Number(text.trim()) : text.trim());

  /** The POST /api/score body: the preset's options sent only where the form changed them. */
  function request() {
    const preset = presetOf(form.rules);
    const body = { hand: form.hand, rules: form.rules, players: Number(form.players) };
    const options = {};
    for (const [name, text] of [["min_xi", form.minXi], ["deng_value", form.deng]]) {
      if (text.trim() !== "" && typed(text) !== preset.options[name]) options[name] = typed(text);
    }
    if (form.enable.length) options.enable_patterns = form.enable;
    if (form.disable.length) options.disable_patterns = form.disable;
    if (Object.keys(options).length) body.options = options;
    if (form.kind !== "win") {
      body[form.kind] = true;
      return body;
    }
    Object.assign(body, { source: form.source, last: form.last });
    if (form.dealtKan) body.dealt_kan = true;
    if (form.declined.trim()) body.declined = form.declined.trim();
    if (form.pool.trim() !== "") body.pool = typed(form.pool);
    return body;
  }

  async function submit(e) {
    e?.preventDefault();
    const body = request();
    try {
      const res = await api("/api/score", body);
      form.result = { breakdown: res.breakdown, gain: res.gain, rules: res.rules };
    } catch (err) {
      form.result = { error: { code: err.code, message: err.message, hand: body.hand } };
    }
    form.answers += 1;
    draw();
  }

  const set = (key, draws) => (e) => {
    const el = e.target;
    form[key] = el.type === "checkbox" ? el.checked : el.value;
    if (draws) draw();
  };

  /** A checkbox per 名堂 of `entries` ([key, value]): ticked when `ticked(key)`, `toggle(key, on)`. */
  const patternBoxes = (entries, prefix, ticked, toggle) =>
    entries.map(([k, v]) =>
      h(
        "label",
        { class: "pattern", title: aboutPattern(k) },
        h("input", { type: "checkbox", "data-testid": `${prefix}-${k}`, checked: ticked(k), onchange: (e) => toggle(k, e.target.checked) }),
        ` ${patternName(k)} `,
        h("small", {}, v),
      ),
    );

  function rulesBox(preset) {
    const optional = Object.entries(preset.optional_patterns || {});
    const active = Object.entries(preset.patterns || {});
    return h(
      "fieldset",
      { class: "score-box" },
      h("legend", {}, t("score_rules")),
      h(
        "label",
        { class: "field" },
        h("span", {}, t("score_rules")),
        h("select", { "data-testid": "score-rules", value: form.rules, onchange: (e) => choosePreset(e.target.value) }, presetOptions(form.data.presets)),
      ),
      h("p", { class: "help-line", "data-testid": "score-preset-desc" }, presetDesc(preset)),
      field(
        "score_players",
        h(
          "select",
          { "data-testid": "score-players", value: String(form.players), onchange: set("players", true) },
          [3, 2].map((n) => h("option", { value: String(n) }, t(`score_players_${n}`))),
        ),
        "score_players_help",
        "players",
      ),
      h(
        "details",
        { class: "more" },
        h("summary", { "data-testid": "score-options" }, t("rule_options")),
        field(
          "opt_min_xi",
          h("input", { "data-testid": "score-min-xi", inputmode: "numeric", size: 5, value: form.minXi, oninput: set("minXi") }),
          "score_min_xi_help",
          "min-xi",
        ),
        optional.length
          ? h(
              "div",
              { class: "score-field", "data-testid": "score-enable" },
              h("span", {}, t("enable_patterns")),
              patternBoxes(optional, "score-enable", (k) => form.enable.includes(k), (k, on) => {
                form.enable = on ? [...form.enable, k] : form.enable.filter((x) => x !== k);
              }),
            )
          : null,
        // The preset's own 名堂, ticked: untick one and the hand is scored without it.
        active.length
          ? h(
              "div",
              { class: "score-field", "data-testid": "score-disable" },
              h("span", {}, t("disable_patterns")),
              patternBoxes(active, "score-disable", (k) => !form.disable.includes(k), (k, on) => {
                form.disable = on ? form.disable.filter((x) => x !== k) : [...form.disable, k];
              }),
            )
          : null,
      ),
    );
  }

  function winBox() {
    const win = form.kind === "win";
    return h(
      "fieldset",
      { class: "score-box facts" },
      h("legend", {}, t("score_facts")),
      field(
        "score_kind",
        h(
          "select",
          { "data-testid": "score-kind", value: form.kind, onchange: set("kind", true) },
          KINDS.map((k) => h("option", { value: k }, t(`score_kind_${k}`))),
        ),
        `score_kind_${form.kind}_help`,
        "kind",
      ),
      win
        ? [
            h(
              "label",
              { class: "field" },
              h("span", {}, t("score_source")),
              h(
                "select",
                { "data-testid": "score-source", value: form.source, onchange: set("source") },
                h("option", { value: "self" }, t("score_self")),
                h("option", { value: "other" }, t("score_other")),
              ),
            ),
            h(
              "label",
              { class: "field" },
              h("input", { type: "checkbox", "data-testid": "score-last", checked: form.last, onchange: set("last") }),
              h("span", {}, t("score_last")),
            ),
            h(
              "div",
              { class: "score-field", "data-testid": "field-dealt-kan" },
              h(
                "label",
                { class: "field" },
                h("input", { type: "checkbox", "data-testid": "score-dealt-kan", checked: form.dealtKan, onchange: set("dealtKan") }),
                h("span", {}, t("score_dealt_kan")),
              ),
              h("p", { class: "help-line" }, t("score_dealt_kan_help")),
            ),
            field(
              "score_declined",
              h("input", {
                "data-testid": "score-declined",
                class: "faces",
                size: 8,
                placeholder: "二五",
                spellcheck: false,
                value: form.declined,
                oninput: set("declined"),
              }),
              "score_declined_help",
              "declined",
            ),
          ]
        : null,
      h("p", { class: "help-line" }, t("score_zichi_help")),
    );
  }

  function poolBox() {
    if (form.kind !== "win") return null;
    return h(
      "fieldset",
      { class: "score-box" },
      h("legend", {}, t("liuzi")),
      field(
        "score_pool",
        h("input", { "data-testid": "score-pool", inputmode: "numeric", size: 7, placeholder: "—", value: form.pool, oninput: set("pool") }),
        "score_pool_help",
        "pool",
      ),
      field(
        "opt_deng_value",
        h("input", { "data-testid": "score-deng", inputmode: "numeric", size: 5, value: form.deng, oninput: set("deng") }),
        "score_deng_help",
        "deng",
      ),
    );
  }

  function page() {
    if (form.failed) return h("p", { class: "error" }, t("error", { msg: form.failed }));
    if (!form.data) return h("p", { class: "loading" }, t("connecting"));
    const preset = presetOf(form.rules);
    const pad = h(
      "div",
      { class: "score-pad", "data-testid": "score-pad" },
      h(
        "div",
        { class: "pad-tokens" },
        TOKENS.map((tok) =>
          h("button", { type: "button", class: "pad-token", "data-testid": "pad-token", "data-token": tok, onclick: () => add(tok) }, tok),
        ),
        h("button", { type: "button", "data-testid": "pad-back", onclick: () => { form.hand = [...form.hand].slice(0, -1).join(""); draw(); } }, t("score_back")),
        h("button", { type: "button", "data-testid": "pad-clear", onclick: () => { form.hand = ""; form.result = null; draw(); } }, t("score_clear")),
      ),
      [SMALL, BIG].map((row) =>
        h(
          "div",
          { class: "pad-cards" },
          [...row].map((f) =>
            h("button", { type: "button", class: "pad-card", "data-testid": "pad-card", "data-face": f, onclick: () => add(f) }, card(f, { size: "m" })),
          ),
        ),
      ),
    );
    return [
      gameSwitch("maque"),
      h(
        "form",
        { class: "panel score-form", "data-testid": "score-form", onsubmit: submit },
        h("h2", {}, t("score_title")),
        h("p", { class: "help" }, t("score_help")),
        h("textarea", {
          class: "score-input",
          "data-testid": "score-input",
          rows: 2,
          placeholder: "碰:七七七 手:… 胡:九",
          spellcheck: false,
          value: form.hand,
          oninput: (e) => {
            form.hand = e.target.value;
          },
        }),
        pad,
        h("div", { class: "score-boxes" }, rulesBox(preset), winBox(), poolBox()),
        h("div", { class: "score-submit" }, h("button", { type: "submit", class: "primary", "data-testid": "score-go" }, t("score_go"))),
      ),
      h("div", { class: "score-out", "data-testid": "score-out", "data-answers": String(form.answers) }, resultView(form.result)),
    ];
  }

  function draw() {
    mount(app, header(), h("main", { class: "score-page maque-score" }, page()));
  }

  onLangChange(draw);
  draw();
  loadPresets().then(
    (data) => {
      form.data = data;
      choosePreset(data.default);
    },
    (err) => {
      form.failed = err.message;
      draw();
    },
  );
}
