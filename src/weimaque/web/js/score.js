// The 算息 page (/score): build a winning hand by tapping cards or typing the notation, choose
// the preset and where the winning card came from, and see the breakdown POST /api/score
// returns (the same scorer and the same errors as `wmq score`).
import { h, mount } from "./dom.js";
import { card } from "./cards.js";
import { api } from "./net.js";
import { currentLang, presetName, t } from "./i18n.js";
import { loadPresets } from "./rules.js";
import { breakdownView } from "./result.js";

const SMALL = "一二三四五六七八九十";
const BIG = "壹贰叁肆伍陆柒捌玖拾";
const TOKENS = ["碰:", "偎:", "吃:", "手:", "胡:"];

// Kept across redraws (a language switch redraws the page).
const form = { hand: "", rules: null, source: "self", last: false, result: null };

/** An error of the scorer in the current language; the engine's own words in English. */
function errorView(err) {
  const head = t(`err_${err.code}`) === `err_${err.code}` ? t("err_bad_hand") : t(`err_${err.code}`);
  // The engine quotes what it could not read; show that part in Chinese too.
  const quoted = err.message.match(/'([^']*)'/);
  const detail = currentLang() === "en" ? err.message : quoted ? `“${quoted[1]}”` : "";
  return h(
    "div",
    { class: "score-error error", "data-testid": "score-error", "data-code": err.code },
    h("strong", {}, head),
    detail ? [" ", h("code", {}, detail)] : null,
  );
}

function resultView() {
  const r = form.result;
  if (!r) return null;
  if (r.error) return errorView(r.error);
  const b = r.breakdown;
  return h(
    "div",
    { class: "score-result", "data-testid": "score-result", "data-winning": String(b.winning) },
    b.winning ? null : h("p", { class: "error", "data-testid": "score-no-win" }, t("score_no_win", { reason: b.reason })),
    breakdownView(b),
  );
}

export async function renderScorePage(root) {
  let data;
  try {
    data = await loadPresets();
  } catch (err) {
    mount(root, h("p", { class: "error" }, t("error", { msg: err.message })));
    return;
  }
  form.rules = form.rules || data.default;
  const input = h("textarea", {
    class: "score-input",
    "data-testid": "score-input",
    rows: 2,
    placeholder: "碰:七七七 手:… 胡:九",
    spellcheck: "false",
  });
  input.value = form.hand;
  input.addEventListener("input", () => {
    form.hand = input.value;
  });
  const add = (text) => {
    const needsSpace = text.endsWith(":") && form.hand && !form.hand.endsWith(" ");
    form.hand += (needsSpace ? " " : "") + text;
    input.value = form.hand;
  };
  const out = h("div", { class: "score-out" });
  const showResult = () => mount(out, resultView());

  async function submit(e) {
    e?.preventDefault();
    try {
      const res = await api("/api/score", {
        hand: form.hand,
        rules: form.rules,
        source: form.source,
        last: form.last,
      });
      form.result = { breakdown: res.breakdown };
    } catch (err) {
      form.result = { error: { code: err.code, message: err.message } };
    }
    showResult();
  }

  const pad = h(
    "div",
    { class: "score-pad", "data-testid": "score-pad" },
    h(
      "div",
      { class: "pad-tokens" },
      TOKENS.map((tok) =>
        h("button", { type: "button", class: "pad-token", "data-testid": "pad-token", "data-token": tok, onclick: () => add(tok) }, tok),
      ),
      h("button", { type: "button", "data-testid": "pad-back", onclick: () => {
        form.hand = [...form.hand].slice(0, -1).join("");
        input.value = form.hand;
      } }, t("score_back")),
      h("button", { type: "button", "data-testid": "pad-clear", onclick: () => {
        form.hand = "";
        input.value = "";
        form.result = null;
        showResult();
      } }, t("score_clear")),
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

  const rulesSelect = h(
    "select",
    { "data-testid": "score-rules", onchange: (e) => { form.rules = e.target.value; } },
    data.presets.map((p) => h("option", { value: p.id, selected: p.id === form.rules }, presetName(p))),
  );
  const sourceSelect = h(
    "select",
    { "data-testid": "score-source", onchange: (e) => { form.source = e.target.value; } },
    h("option", { value: "self", selected: form.source === "self" }, t("score_self")),
    h("option", { value: "other", selected: form.source === "other" }, t("score_other")),
  );
  const last = h("input", {
    type: "checkbox",
    "data-testid": "score-last",
    checked: form.last,
    onchange: (e) => { form.last = e.target.checked; },
  });

  mount(
    root,
    h(
      "form",
      { class: "panel score-form", "data-testid": "score-form", onsubmit: submit },
      h("h2", {}, t("score_title")),
      h("p", { class: "help" }, t("score_help")),
      input,
      pad,
      h("label", { class: "field" }, h("span", {}, t("score_rules")), rulesSelect),
      h("label", { class: "field" }, h("span", {}, t("score_source")), sourceSelect),
      h("label", { class: "field" }, last, h("span", {}, t("score_last"))),
      h("button", { type: "submit", class: "primary", "data-testid": "score-go" }, t("score_go")),
    ),
    out,
  );
  showResult();
}
