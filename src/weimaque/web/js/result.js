// End-of-hand panel (breakdown, payments, ledger), the match-end panel and event lines.
import { h } from "./dom.js";
import { cardRow } from "./cards.js";
import { t } from "./i18n.js";
import { signed } from "./table.js";

/** The breakdown of a win (scoring/breakdown.py to_dict): groups with 息, 名堂, total. */
export function breakdownView(b) {
  if (!b) return null;
  return h(
    "div",
    { class: "breakdown", "data-testid": "breakdown" },
    h(
      "table",
      { class: "groups" },
      h("caption", {}, t("groups")),
      b.groups.map((g) =>
        h(
          "tr",
          { "data-testid": "group" },
          h("td", { class: "gkind" }, t(`kind_${g.kind}`)),
          h("td", { class: "gcards" }, cardRow(g.cards, { size: "xs" })),
          h("td", { class: "num" }, `${g.xi} ${t("xi")}`),
        ),
      ),
    ),
    h(
      "dl",
      { class: "sums" },
      h("dt", {}, t("hard_xi")),
      h("dd", { "data-testid": "hard-xi" }, b.hard_xi),
      b.multiplier > 1 ? [h("dt", {}, t("multiplier")), h("dd", {}, `×${b.multiplier}`)] : null,
      h("dt", {}, t("red")),
      h("dd", {}, b.red),
    ),
    b.patterns.length
      ? h(
          "table",
          { class: "patterns", "data-testid": "patterns" },
          h("caption", {}, t("patterns")),
          b.patterns.map((p) =>
            h("tr", {}, h("td", {}, p.name), h("td", { class: "num" }, signed(p.points))),
          ),
        )
      : null,
    b.reason ? h("p", { class: "reason" }, `${t("reason")}: ${b.reason}`) : null,
    h("p", { class: "total", "data-testid": "total" }, `${t("total")} ${b.total}`),
  );
}

/** Per-seat money of one hand and the match totals after it. */
function ledgerTable(settlement, ledger, label) {
  const rows = [0, 1, 2].map((s) =>
    h(
      "tr",
      {},
      h("td", {}, label(s)),
      h("td", { class: "num" }, settlement ? signed(settlement.seats[s]) : ""),
      h("td", { class: "num", "data-testid": `ledger-${s}` }, signed(ledger.seats[s])),
    ),
  );
  const extra = [];
  if (ledger.shouxing || settlement?.shouxing) {
    extra.push(["守醒", settlement?.shouxing, ledger.shouxing]);
  }
  if (ledger.pool || settlement?.pool) extra.push([t("pool"), settlement?.pool, ledger.pool]);
  return h(
    "table",
    { class: "ledger", "data-testid": "ledger" },
    h("tr", {}, h("th", {}), h("th", {}, t("payments")), h("th", {}, t("ledger"))),
    rows,
    extra.map(([name, moved, total]) =>
      h(
        "tr",
        {},
        h("td", {}, name),
        h("td", { class: "num" }, signed(moved ?? 0)),
        h("td", { class: "num" }, signed(total)),
      ),
    ),
  );
}

/** The panel shown when a hand ends (protocol hand_end). */
export function handEndView(end, { label, onNext, canNext }) {
  const r = end.result;
  const nextLabel = t("next_hand");
  const headline = r.chou
    ? t("chou")
    : `${t("winner", { who: label(r.winner) })} ${r.card ?? ""}`;
  return h(
    "section",
    { class: "panel hand-end", "data-testid": "hand-end" },
    h("h2", {}, t("hand_n", { n: end.hand_number }), " · ", headline),
    r.hand
      ? h("div", { class: "win-hand", "data-testid": "win-hand" }, cardRow(r.hand, { size: "s" }))
      : null,
    breakdownView(end.breakdown),
    ledgerTable(end.settlement, end.ledger, label),
    end.match_over
      ? h("p", { class: "match-over", "data-testid": "match-over" }, t("match_over"))
      : canNext
        ? h("button", { class: "primary", "data-testid": "next-hand", onclick: onNext }, nextLabel)
        : null,
  );
}

/** One event as a line of text, for the log and the replay viewer. */
export function eventText(ev, label) {
  const card = ev.card ?? t("hidden");
  return t(`ev_${ev.type}`, { who: label(ev.seat), card, run: ev.run ?? "", count: ev.count });
}
