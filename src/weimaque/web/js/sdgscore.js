// The 三丁拐 算番 page (/score?game=sandingguai): type or pick a hand description (SDG §1.4) or a
// table description (SDG §1.5), and see the explanation POST /api/score returns through the
// game's calculator (docs/sandingguai.md §12): the hand in its sets, every 番, or the whole
// settlement — chickens, kongs, 查叫, the dealer's stake and every transfer. Tiles are shown in
// their text notation (123m 456s 78p).
import { h, mount } from "./dom.js";
import { api } from "./net.js";
import { currentLang, onLangChange, t } from "./i18n.js";
import { header } from "./page.js";

// The presets of 三丁拐 (docs/sandingguai.md §10).
const PRESETS = [
  ["sandingguai", "sdg_preset_default"],
  ["baike-3p", "sdg_preset_baike"],
];
const WAYS = ["self", "other", "rob", "kong", "repao"];
const SEGMENTS = ["hand:", "peng:", "gang:", "bugang:", "angang:", "win:"];
const SUITS = ["m", "s", "p"];
// Worked examples of SDG §12 to pick: a hand (with its way) or a whole table.
const EXAMPLES = [
  { id: "V6", mode: "hand", way: "self", text: "111m222m333m555m77m" },
  { id: "E1", mode: "hand", way: "other", text: "hand:234m678m23p99p gang:7777p@2 win:4p" },
  {
    id: "E6",
    mode: "table",
    text: "flip:4m first:1s@2\ns0 hand:123p456p789p55m34m discards:1s9s\ns1 hand:11s345m678m78m angang:2222m win:9m@2\ns2 hand:1367m2479s13469p discards:1s5s",
  },
  {
    id: "E8",
    mode: "table",
    text: "flip:9s first:1s@1\ns0 hand:1569m2346s34679p discards:1s\ns1 hand:234m456m789m33m67m discards:1s2p\ns2 hand:11s555s666s222m88m win:8m@0",
  },
];

/** A `{zh, en}` name in the current language. */
const nm = (names) => (names ? names[currentLang()] ?? names.zh : "");

/** The switch between the two calculators (also drawn by the 算息 page, score.js). */
export function gameSwitch(current) {
  return h(
    "nav",
    { class: "score-games", "data-testid": "score-games" },
    [
      ["maque", "/score", "score_game_maque"],
      ["sandingguai", "/score?game=sandingguai", "score_game_sdg"],
    ].map(([id, href, key]) =>
      id === current
        ? h("strong", { "data-testid": `score-game-${id}` }, t(key))
        : h("a", { href, class: "nav", "data-testid": `score-game-${id}` }, t(key)),
    ),
  );
}

function table(head, rows, testid) {
  return h(
    "table",
    { class: "sdg-table", "data-testid": testid },
    h("thead", {}, h("tr", {}, head.map((c) => h("th", {}, c)))),
    h("tbody", {}, rows.map((r) => h("tr", {}, r.map((c) => h("td", {}, c))))),
  );
}

function handView(a) {
  if (!a.win) {
    return h("p", { class: "error", "data-testid": "sdg-no-win" }, t("sdg_no_win", { reason: a.reason }));
  }
  return [
    table(
      [t("sdg_set"), t("sdg_tiles"), ""],
      a.sets.map((s) => [
        nm(s.name),
        h("code", { "data-testid": "sdg-set" }, s.tiles),
        [s.from != null ? t("sdg_from", { seat: s.from }) : "", s.win ? t("sdg_win_tile") : ""].join(" "),
      ]),
      "sdg-sets",
    ),
    table(
      [t("sdg_pattern"), t("sdg_fan")],
      a.patterns.map((p) => [nm(p.name), String(p.fan)]),
      "sdg-patterns",
    ),
    h("p", { class: "total", "data-testid": "sdg-fan", "data-fan": String(a.fan) }, t("sdg_total", { formula: a.formula })),
    a.verdict ? h("p", { class: "error", "data-testid": "sdg-verdict" }, a.verdict) : null,
  ];
}

const ROLE = { collect: "sdg_role_collect", baoji: "sdg_role_baoji", burned: "sdg_role_burned" };
const KONG = {
  paid: "sdg_kong_paid",
  not_jiao: "sdg_kong_not_jiao",
  burned: "sdg_kong_burned",
  baogang: "sdg_kong_baogang",
  huang: "sdg_kong_huang",
};
const FATE = { chongfeng: "sdg_fate_chongfeng", zeren: "sdg_fate_zeren", won: "sdg_fate_won", none: "sdg_fate_none" };

function tableView(a) {
  const d = a.dealer;
  const parts = [
    h("p", { "data-testid": "sdg-dealer" }, t("sdg_dealer", { seat: d.seat, k: d.streak, rule: d.rule })),
  ];
  if (a.flip) {
    parts.push(h("p", { "data-testid": "sdg-flip" }, t("sdg_flip", { tile: a.flip.tile, chickens: a.flip.chickens.join(" ") })));
  }
  if (a.chicken_kinds.length) {
    parts.push(
      h(
        "p",
        { "data-testid": "sdg-chicken-kinds" },
        t("sdg_chicken_kinds"),
        " ",
        a.chicken_kinds.map((k) => `${k.tile} ${k.value} (${k.names.map(nm).join("/")})`).join(", "),
      ),
    );
  }
  for (const f of a.firsts) {
    parts.push(h("p", { "data-testid": "sdg-first" }, t(FATE[f.fate], { tile: f.tile, seat: f.seat, n: f.zeren ?? f.extra ?? 0 })));
  }
  parts.push(
    table(
      [t("sdg_seat"), t("sdg_tiles"), t("sdg_ready"), t("sdg_win"), t("sdg_chickens")],
      a.seats.map((s) => [
        `s${s.seat}`,
        h("code", {}, [s.concealed, ...s.melds.map((m) => m.tiles)].join(" ") + (s.discards ? ` | ${s.discards}` : "")),
        s.jiao ? s.waits + (s.jiao_value != null ? ` J=${s.jiao_value}` : "") : "—",
        s.winner ? `${s.winner.tile} ${nm(s.winner.way_name)} F=${s.winner.fan}` : "",
        h(
          "span",
          { "data-testid": `sdg-chickens-${s.seat}`, "data-total": String(s.chickens.total), "data-role": s.chickens.role },
          `${t(ROLE[s.chickens.role])} ${s.chickens.total}`,
          s.chickens.lines.filter((l) => l.counted).length ? ": " : "",
          s.chickens.lines
            .filter((l) => l.counted)
            .map((l) => `${l.tile}×${l.count}${l.value === 1 ? "" : "·" + l.value} ${nm(l.where_name)}`)
            .join(" + "),
        ),
      ]),
      "sdg-seats",
    ),
  );
  if (a.kongs.length) {
    parts.push(
      table(
        [t("sdg_kong"), t("sdg_seat"), t("sdg_fan"), ""],
        a.kongs.map((k) => [`${nm(k.name)} ${k.tiles}`, `s${k.owner}`, `${k.value} × ${k.payers.map((p) => "s" + p).join(",")}`, t(KONG[k.status])]),
        "sdg-kongs",
      ),
    );
  }
  parts.push(
    table(
      [t("sdg_payer"), t("sdg_payee"), t("sdg_amount"), t("sdg_reason")],
      a.transfers.map((x) => [`s${x.payer}`, `s${x.payee}`, x.base === x.amount ? String(x.amount) : `${x.base} → ${x.amount}`, nm(x.reason_name)]),
      "sdg-transfers",
    ),
    h(
      "p",
      { class: "total", "data-testid": "sdg-net", "data-net": JSON.stringify(a.net) },
      t("sdg_net", { net: a.net.join(" / "), seat: a.next_dealer.seat, k: a.next_dealer.streak }),
    ),
  );
  return parts;
}

function resultView(result) {
  if (!result) return null;
  if (result.error) {
    const key = `err_${result.error.code}`;
    return h(
      "div",
      { class: "score-error error", "data-testid": "sdg-error", "data-code": result.error.code },
      h("strong", {}, t(key) === key ? t("err_bad_hand") : t(key)),
      h("p", { class: "detail" }, h("code", {}, result.error.message)),
    );
  }
  const a = result.answer;
  return h(
    "div",
    { class: "score-result", "data-testid": "sdg-result", "data-kind": a.kind },
    a.kind === "table" ? tableView(a) : handView(a),
  );
}

export function startSdgScore(app) {
  const form = { mode: "hand", text: "", way: "self", baoting: false, rules: "sandingguai", result: null };

  const add = (piece) => {
    const space = piece.endsWith(":") && form.text && !/[\s\n]$/.test(form.text);
    form.text += (space ? " " : "") + piece;
    draw();
  };

  async function submit(e) {
    e?.preventDefault();
    const body = { game: "sandingguai", rules: form.rules };
    if (form.mode === "hand") {
      const flags = (form.way !== "self" ? ` --from ${form.way}` : "") + (form.baoting ? " --baoting" : "");
      body.hand = form.text + flags;
    } else {
      body.table = form.text;
    }
    try {
      form.result = { answer: await api("/api/score", body) };
    } catch (err) {
      form.result = { error: { code: err.code, message: err.message } };
    }
    draw();
  }

  function pad() {
    return h(
      "div",
      { class: "score-pad", "data-testid": "sdg-pad" },
      h(
        "div",
        { class: "pad-tokens" },
        SEGMENTS.map((seg) =>
          h("button", { type: "button", class: "pad-token", "data-testid": "sdg-segment", "data-token": seg, onclick: () => add(seg) }, seg),
        ),
        h("button", { type: "button", "data-testid": "sdg-back", onclick: () => { form.text = [...form.text].slice(0, -1).join(""); draw(); } }, t("score_back")),
        h("button", { type: "button", "data-testid": "sdg-clear", onclick: () => { form.text = ""; form.result = null; draw(); } }, t("score_clear")),
      ),
      SUITS.map((suit) =>
        h(
          "div",
          { class: "pad-cards" },
          [1, 2, 3, 4, 5, 6, 7, 8, 9].map((r) =>
            h("button", { type: "button", class: "pad-token", "data-testid": "sdg-tile", "data-tile": `${r}${suit}`, onclick: () => add(`${r}${suit}`) }, `${r}${suit}`),
          ),
        ),
      ),
    );
  }

  function page() {
    return [
      gameSwitch("sandingguai"),
      h(
        "form",
        { class: "panel score-form", "data-testid": "sdg-form", onsubmit: submit },
        h("h2", {}, t("sdg_title")),
        h("p", { class: "help" }, t(form.mode === "hand" ? "sdg_help_hand" : "sdg_help_table")),
        h(
          "div",
          { class: "field" },
          ["hand", "table"].map((mode) =>
            h(
              "label",
              {},
              h("input", { type: "radio", name: "sdg-mode", "data-testid": `sdg-mode-${mode}`, checked: form.mode === mode, onchange: () => { form.mode = mode; form.result = null; draw(); } }),
              t(`sdg_mode_${mode}`),
            ),
          ),
        ),
        h(
          "div",
          { class: "field" },
          h("span", {}, t("sdg_examples")),
          EXAMPLES.map((ex) =>
            h(
              "button",
              {
                type: "button",
                "data-testid": "sdg-example",
                "data-example": ex.id,
                onclick: () => {
                  Object.assign(form, { mode: ex.mode, text: ex.text, way: ex.way || "self", baoting: false, result: null });
                  draw();
                },
              },
              ex.id,
            ),
          ),
        ),
        h("textarea", {
          class: "score-input",
          "data-testid": "sdg-input",
          rows: form.mode === "hand" ? 2 : 5,
          placeholder: form.mode === "hand" ? "hand:234m678m23p99p gang:7777p@2 win:4p" : "flip:4m\ns0 hand:…\ns1 …\ns2 …",
          spellcheck: false,
          value: form.text,
          oninput: (e) => {
            form.text = e.target.value;
          },
        }),
        form.mode === "hand" ? pad() : null,
        form.mode === "hand"
          ? h(
              "label",
              { class: "field" },
              h("span", {}, t("score_source")),
              h(
                "select",
                { "data-testid": "sdg-way", value: form.way, onchange: (e) => { form.way = e.target.value; } },
                WAYS.map((w) => h("option", { value: w }, t(`sdg_way_${w}`))),
              ),
            )
          : null,
        form.mode === "hand"
          ? h(
              "label",
              { class: "field" },
              h("input", { type: "checkbox", "data-testid": "sdg-baoting", checked: form.baoting, onchange: (e) => { form.baoting = e.target.checked; } }),
              h("span", {}, t("sdg_baoting")),
            )
          : null,
        h(
          "label",
          { class: "field" },
          h("span", {}, t("score_rules")),
          h(
            "select",
            { "data-testid": "sdg-rules", value: form.rules, onchange: (e) => { form.rules = e.target.value; } },
            PRESETS.map(([id, key]) => h("option", { value: id }, t(key))),
          ),
        ),
        h("button", { type: "submit", class: "primary", "data-testid": "sdg-go" }, t("sdg_go")),
      ),
      h("div", { class: "score-out" }, resultView(form.result)),
    ];
  }

  function draw() {
    mount(app, header(), h("main", { class: "score-page" }, page()));
  }

  onLangChange(draw);
  draw();
}
