// The 算息 page (/score): build a winning hand by tapping cards or typing the notation, choose
// the preset and where the winning card came from, and see the breakdown POST /api/score
// returns (the same scorer and the same errors as `wmq score`).
import { h, mount } from "./dom.js";
import { card } from "./cards.js";
import { api } from "./net.js";
import { currentLang, onLangChange, presetName, t } from "./i18n.js";
import { loadPresets } from "./rules.js";
import { breakdownView } from "./result.js";
import { header } from "./page.js";
import { gameSwitch, startSdgScore } from "./sdgscore.js";

// The games with a calculator on this page: /score?game=sandingguai is 三丁拐's 算番.
const SDG_NAMES = ["sandingguai", "sdg", "三丁拐"];

const SMALL = "一二三四五六七八九十";
const BIG = "壹贰叁肆伍陆柒捌玖拾";
const TOKENS = ["碰:", "偎:", "吃:", "手:", "胡:"];

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
  const key = `err_${err.code}`;
  const head = t(key) === key ? t("err_bad_hand") : t(key);
  const detail = currentLang() === "en" ? err.message : detailIn(err.message);
  return h(
    "div",
    { class: "score-error error", "data-testid": "score-error", "data-code": err.code, "data-hand": err.hand },
    h("strong", {}, head),
    detail ? h("p", { class: "detail" }, h("code", {}, detail)) : null,
  );
}

function resultView(result) {
  if (!result) return null;
  if (result.error) return errorView(result.error);
  const b = result.breakdown;
  return h(
    "div",
    { class: "score-result", "data-testid": "score-result", "data-winning": String(b.winning) },
    b.winning ? null : h("p", { class: "error", "data-testid": "score-no-win" }, t("score_no_win", { reason: b.reason })),
    breakdownView(b),
  );
}

export function startScore(app) {
  if (SDG_NAMES.includes(new URLSearchParams(location.search).get("game"))) return startSdgScore(app);
  // The page's whole state; the textarea shows `hand` and every tap or keystroke updates it.
  const form = { data: null, failed: null, hand: "", rules: null, source: "self", last: false, result: null };

  const add = (text) => {
    const needsSpace = text.endsWith(":") && form.hand && !form.hand.endsWith(" ");
    form.hand += (needsSpace ? " " : "") + text;
    draw();
  };

  async function submit(e) {
    e?.preventDefault();
    const hand = form.hand;
    try {
      const res = await api("/api/score", { hand, rules: form.rules, source: form.source, last: form.last });
      form.result = { breakdown: res.breakdown };
    } catch (err) {
      form.result = { error: { code: err.code, message: err.message, hand } };
    }
    draw();
  }

  function page() {
    if (form.failed) return h("p", { class: "error" }, t("error", { msg: form.failed }));
    if (!form.data) return h("p", { class: "loading" }, t("connecting"));
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
        h(
          "label",
          { class: "field" },
          h("span", {}, t("score_rules")),
          h(
            "select",
            { "data-testid": "score-rules", value: form.rules, onchange: (e) => { form.rules = e.target.value; } },
            form.data.presets.map((p) => h("option", { value: p.id }, presetName(p))),
          ),
        ),
        h(
          "label",
          { class: "field" },
          h("span", {}, t("score_source")),
          h(
            "select",
            { "data-testid": "score-source", value: form.source, onchange: (e) => { form.source = e.target.value; } },
            h("option", { value: "self" }, t("score_self")),
            h("option", { value: "other" }, t("score_other")),
          ),
        ),
        h(
          "label",
          { class: "field" },
          h("input", { type: "checkbox", "data-testid": "score-last", checked: form.last, onchange: (e) => { form.last = e.target.checked; } }),
          h("span", {}, t("score_last")),
        ),
        h("button", { type: "submit", class: "primary", "data-testid": "score-go" }, t("score_go")),
      ),
      h("div", { class: "score-out" }, resultView(form.result)),
    ];
  }

  function draw() {
    mount(app, header(), h("main", { class: "score-page" }, page()));
  }

  onLangChange(draw);
  draw();
  loadPresets().then(
    (data) => {
      form.data = data;
      form.rules = data.default;
      draw();
    },
    (err) => {
      form.failed = err.message;
      draw();
    },
  );
}
