// End-of-hand panel (the whole sum, payments, every hand face up), the breakdown shared with
// the 算息 page and the replay, and event lines for the log.
import { h } from "./dom.js";
import { cardRow } from "./cards.js";
import { t } from "./i18n.js";
import { melds, signed } from "./table.js";
import { aboutPattern } from "./mingtang.js";

/** A 名堂's effect as players write it: ×N for a multiplier, +N (× units) for an addition. */
export function effectText(p) {
  if (p.mode === "mul") return `×${p.value}`;
  if (p.mode === "add") return p.units > 1 ? `+${p.value} × ${p.units}` : `+${p.points}`;
  return signed(p.points); // an older server without modes
}

/**
 * The breakdown of a win (games/maque/numbers.py breakdown_json): every group with its 息 and tags,
 * every 名堂 with its effect, and the formula 硬息 × M + additions = total.
 */
export function breakdownView(b) {
  if (!b) return null;
  const additions = b.additions ?? b.patterns.filter((p) => p.mode !== "mul").reduce((a, p) => a + p.points, 0);
  const formula = `${b.hard_xi} × ${b.multiplier} + ${additions} = ${b.total}`;
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
          { "data-testid": "group", "data-kind": g.kind },
          h("td", { class: "gkind" }, t(`kind_${g.kind}`)),
          h("td", { class: "gcards" }, h("span", { class: "gcards-row" }, cardRow(g.cards, { size: "s" }))),
          h("td", { class: "num" }, `${g.xi} ${t("xi")}`),
          h(
            "td",
            { class: "tags" },
            h(
              "span",
              { class: "tags-row" },
              (g.tags || []).map((tag) =>
                h("span", { class: `tag ${tag}`, "data-testid": "group-tag", "data-tag": tag }, t(`tag_${tag}`)),
              ),
            ),
          ),
        ),
      ),
    ),
    b.patterns.length
      ? h(
          "table",
          { class: "patterns", "data-testid": "patterns" },
          h("caption", {}, t("patterns")),
          b.patterns.map((p) =>
            h(
              "tr",
              { "data-testid": "pattern", "data-key": p.key },
              h("td", {}, p.name, h("small", { class: "pattern-about", "data-testid": "pattern-about" }, aboutPattern(p.key))),
              h("td", { class: "num", "data-testid": "pattern-effect" }, effectText(p)),
            ),
          ),
        )
      : null,
    h(
      "dl",
      { class: "sums" },
      h("dt", {}, t("hard_xi")),
      h("dd", { "data-testid": "hard-xi" }, b.hard_xi),
      h("dt", {}, t("multiplier")),
      h("dd", { "data-testid": "multiplier" }, `×${b.multiplier}`),
      h("dt", {}, t("additions")),
      h("dd", {}, additions),
      h("dt", {}, t("red")),
      h("dd", {}, b.red),
    ),
    b.reason ? h("p", { class: "reason" }, `${t("reason")}: ${b.reason}`) : null,
    b.winning === false
      ? null
      : h(
          "p",
          { class: "formula", "data-testid": "formula", title: t("formula") },
          h("small", {}, t("formula")),
          h("br"),
          formula,
        ),
    h("p", { class: "total", "data-testid": "total" }, `${t("total")} ${b.total}`),
  );
}

/**
 * Per-seat money of one hand and the match totals after it; 守醒 and 留子 lines where used.
 * With four persons (RULES §8.6.1: `settlement.persons`, `seatPersons` the persons at the hand's
 * seats) a row per person, named by `person`, the one who sat the hand out marked 守醒.
 */
function ledgerTable(settlement, ledger, label, person, seatPersons) {
  const byPerson = Boolean(person && settlement?.persons);
  const moved = byPerson ? settlement.persons : settlement?.seats;
  const rows = ledger.seats.map((_, s) =>
    h(
      "tr",
      { "data-testid": `ledger-row-${s}`, class: byPerson && seatPersons && !seatPersons.includes(s) ? "sat-out" : null },
      h(
        "td",
        {},
        byPerson ? person(s) : label(s),
        byPerson && seatPersons && !seatPersons.includes(s) ? h("span", { class: "badge shouxing", "data-testid": "sat-out" }, "守醒") : null,
      ),
      h("td", { class: "num", "data-testid": `pay-${s}` }, moved ? signed(moved[s]) : ""),
      h("td", { class: "num", "data-testid": `ledger-${s}` }, signed(ledger.seats[s])),
    ),
  );
  const extra = [];
  if (ledger.shouxing || settlement?.shouxing) {
    extra.push([t("shouxing_gets"), settlement?.shouxing, ledger.shouxing, "shouxing"]);
  }
  if (ledger.pool || settlement?.pool) extra.push([t("pool"), settlement?.pool, ledger.pool, "pool"]);
  return h(
    "table",
    { class: "ledger", "data-testid": "ledger" },
    h("tr", {}, h("th", {}), h("th", {}, t("payments")), h("th", {}, t("ledger"))),
    rows,
    extra.map(([name, moved, total, id]) =>
      h(
        "tr",
        { "data-testid": `ledger-${id}` },
        h("td", {}, name),
        h("td", { class: "num" }, signed(moved ?? 0)),
        h("td", { class: "num" }, signed(total)),
      ),
    ),
  );
}

/** Where the winning card came from: 自摸, or who turned it up / discarded it. */
function sourceText(r, label) {
  if (r.origin === "deal") return t("how_deal");
  if (r.source === "self") return t("src_self");
  const how = t(`how_${r.origin}`) || "";
  return r.from === null || r.from === undefined ? how : t("src_from", { who: label(r.from), how });
}

/** Every seat's cards face up at the end of the hand. */
function allHands(end, label) {
  if (!end.hands) return null;
  return h(
    "div",
    { class: "all-hands", "data-testid": "all-hands" },
    h("h3", {}, t("all_hands")),
    end.hands.map((_, s) =>
      h(
        "div",
        { class: "end-seat", "data-testid": `end-hand-${s}` },
        h("span", { class: "who" }, label(s), end.dead?.[s] ? ` · ${t("dead")}` : ""),
        end.melds ? melds(end.melds[s], "xs") : null,
        h("span", { class: "end-cards", "data-cards": end.hands[s] }, cardRow(end.hands[s], { size: "xs" })),
      ),
    ),
  );
}

/** The panel shown when a hand ends (protocol hand_end); the bar over it holds 下一局. */
export function handEndView(end, { label: seatLabel, title, person = null }) {
  const r = end.result;
  // Four persons (RULES §2.1.1): the hand's seats are named by who played them then.
  const seatPersons = end.seat_persons ?? null;
  const label = person && seatPersons ? (seat) => person(seatPersons[seat]) : seatLabel;
  const dealerLabel = person && seatPersons ? person : label;
  const headline = r.chou ? t("chou") : t("winner", { who: label(r.winner) });
  return h(
    "section",
    { class: "panel hand-end", "data-testid": "hand-end" },
    h("h2", {}, title ?? t("hand_n", { n: end.hand_number }), " · ", headline),
    r.chou
      ? h("p", { class: "chou-reason", "data-testid": "chou-reason" }, t(`chou_${r.chou_reason || "stock_empty"}`))
      : h(
          "p",
          { class: "win-card", "data-testid": "win-source" },
          r.card ? [t("win_card", { card: "" }), cardRow(r.card, { size: "s" }), " · "] : null,
          sourceText(r, label),
        ),
    // Who pays what and the match totals first: in view as the sheet opens, on a phone too.
    ledgerTable(end.settlement, end.ledger, label, person, seatPersons),
    end.settlement && end.settlement.next_dealer !== undefined && !end.match_over
      ? h("p", { class: "next-dealer" }, t("next_dealer", { who: dealerLabel(end.settlement.next_dealer) }))
      : null,
    r.hand
      ? h("div", { class: "win-hand", "data-testid": "win-hand" }, cardRow(r.hand, { size: "s" }))
      : null,
    breakdownView(end.breakdown),
    allHands(end, label),
  );
}

/**
 * The final standings of a match (protocol match_end), best first; where the 留子 pool was
 * shared out at the end (RULES §8.5.4, `final_pool_share`), each seat's share, already in its
 * total, beside it.
 */
export function matchTotals(end, label) {
  const share = end.final_pool_share?.some((x) => x) ? end.final_pool_share : null;
  return h(
    "ol",
    { class: "final", "data-testid": "final-totals" },
    end.ranking.map((seat) =>
      h(
        "li",
        { key: seat, "data-testid": `final-${seat}` },
        h("span", { class: "who" }, label(seat)),
        share ? h("small", { class: "pool-share", "data-testid": `pool-share-${seat}`, "data-share": share[seat] }, t("pool_share", { n: signed(share[seat]) || "0" })) : null,
        h("span", { class: "num" }, signed(end.ledger.seats[seat]) || "0"),
      ),
    ),
  );
}

/** One event as a line of text, for the log and the replay viewer. */
export function eventText(ev, label) {
  const card = ev.card ?? t("hidden");
  return t(`ev_${ev.type}`, { who: label(ev.seat), card, run: ev.run ?? "", count: ev.count });
}
