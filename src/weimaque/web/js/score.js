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

const SMALL = "一二三四五六七八九十";
const BIG = "壹贰叁肆伍陆柒捌玖拾";
const TOKENS = ["碰:", "偎:", "吃:", "手:", "胡:"];

/**
 * An error of the scorer in the current language: the sentence for its code, and the part of
 * the input it quotes. The engine's own message (English) follows in English only.
 */
function errorView(err) {
  const key = `err_${err.code}`;
  const head = t(key) === key ? t("err_bad_hand") : t(key);
  const quoted = err.message.match(/'([^']*)'/);
  const detail = currentLang() === "en" ? err.message : quoted ? `“${quoted[1]}”` : "";
  return h(
    "div",
    { class: "score-error error", "data-testid": "score-error", "data-code": err.code },
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
  // The page's whole state; the textarea shows `hand` and every tap or keystroke updates it.
  const form = { data: null, failed: null, hand: "", rules: null, source: "self", last: false, result: null };

  const add = (text) => {
    const needsSpace = text.endsWith(":") && form.hand && !form.hand.endsWith(" ");
    form.hand += (needsSpace ? " " : "") + text;
    draw();
  };

  async function submit(e) {
    e?.preventDefault();
    try {
      const res = await api("/api/score", { hand: form.hand, rules: form.rules, source: form.source, last: form.last });
      form.result = { breakdown: res.breakdown };
    } catch (err) {
      form.result = { error: { code: err.code, message: err.message } };
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
