// The table: three seats around the open claim. The viewer's seat is at the bottom,
// its 上家 on the left and 下家 on the right (RULES §2.1), as players sit; at a table of two
// (RULES §2.5) the other seat faces it at the top (boards/common.js seatPositions).
import { h } from "./dom.js";
import { seatPositions } from "./boards/common.js";
import { card, cardRow, faces, isBig, parseAction } from "./cards.js";
import { sortedColumns } from "./arrange.js";
import { t } from "./i18n.js";

/** Relative positions of the seats for a viewer at `bottom`. */
export function seatsAround(bottom) {
  return { bottom, right: (bottom + 1) % 3, left: (bottom + 2) % 3 };
}

/**
 * Draw a board from an observation.
 * ctx: {bottom, mySeat, label(seat), badges(seat) → [nodes], score(seat), hands (per seat,
 *       when visible), numbers (明息, own 息), legal: [action text], onDiscard(face) | null,
 *       hintFaces: Set of faces whose 出 leaves us 听, raised: {face, key} of the card a first
 *       tap raised (two-tap discards) | null, controls, side, banner, below: nodes
 *       | null, timer, bubble(seat) → node | null, notice: a line under the stock | null,
 *       clock(seat) → the running clock of the seat that must 出, seen by every seat | null}
 */
export function renderBoard(obs, ctx) {
  const n = obs.hand_sizes.length;
  if (n !== 3) {
    const pos = seatPositions(n, ctx.bottom);
    const others = obs.hand_sizes.map((_, seat) => seat).filter((seat) => seat !== ctx.bottom);
    return h(
      "div",
      { class: `board seats-${n}`, "data-testid": "board", "data-seats": n },
      others.map((seat) => seatPanel(obs, seat, pos[seat], ctx)),
      centre(obs, ctx),
      ownArea(obs, ctx.bottom, ctx),
    );
  }
  const pos = seatsAround(ctx.bottom);
  return h(
    "div",
    { class: "board", "data-testid": "board", "data-seats": 3 },
    seatPanel(obs, pos.left, "left", ctx),
    centre(obs, ctx),
    seatPanel(obs, pos.right, "right", ctx),
    ownArea(obs, pos.bottom, ctx),
  );
}

function isActive(obs, seat) {
  return obs.phase === "discard" && obs.turn === seat;
}

/** 明息 of a seat's open melds (a face-down 偎 we may not see is counted apart). */
function mingXi(seat, ctx) {
  const n = ctx.numbers;
  if (!n) return null;
  const k = n.hidden[seat];
  const text = k ? t("ming_xi_hidden", { n: n.melds[seat], k }) : t("ming_xi", { n: n.melds[seat] });
  return h("span", { class: "xi", "data-testid": "ming-xi", "data-xi": n.melds[seat] }, text);
}

function seatHeader(obs, seat, rel, ctx) {
  const where = { left: t("shangjia"), right: t("xiajia"), top: t("across") }[rel] || null;
  return h(
    "div",
    { class: "seat-head" },
    where ? h("span", { class: "where" }, where) : null,
    h("span", { class: "seat-name", "data-testid": "seat-name" }, ctx.label(seat)),
    obs.dealer === seat ? h("span", { class: "badge dealer" }, t("dealer")) : null,
    obs.dead[seat]
      ? h(
          "details",
          { class: "badge dead", "data-testid": "dead" },
          h("summary", {}, t("dead")),
          h("span", { class: "explain", "data-testid": "dead-explain" }, t("dead_explain")),
        )
      : null,
    ...(ctx.badges ? ctx.badges(seat) : []),
    ctx.clock ? ctx.clock(seat) : null,
    mingXi(seat, ctx),
    h("span", { class: "seat-score", "data-testid": "seat-score" }, signed(ctx.score(seat))),
    ctx.bubble ? ctx.bubble(seat) : null, // a chat line at the seat (chat.js)
  );
}

function seatPanel(obs, seat, rel, ctx) {
  const hand = ctx.hands?.[seat];
  return h(
    "section",
    {
      class: `seat ${rel}${isActive(obs, seat) ? " active" : ""}`,
      "data-testid": `seat-${seat}`,
      "data-rel": rel,
    },
    seatHeader(obs, seat, rel, ctx),
    // a 守醒 who sees the dealer's hand only is sent null for the others (RULES §2.1.2)
    hand != null
      ? h("div", { class: "open-hand" }, cardRow(hand, { size: "s" }))
      : h(
          "div",
          { class: "hand-count", "data-testid": "hand-count" },
          t("hand_size", { n: obs.hand_sizes[seat] }),
        ),
    melds(obs.melds[seat], "s"),
    discardRow(obs.rows[seat]),
  );
}

/** Melds as little columns of three; a face-down 偎 of another seat shows three backs. */
export function melds(list, size) {
  return h(
    "div",
    { class: "melds", "data-testid": "melds" },
    list.map((m, i) =>
      h(
        "div",
        {
          key: i,
          class: `meld ${m.kind}${m.face_down ? " face-down" : ""}`,
          "data-kind": m.kind,
          "data-cards": m.cards || "",
        },
        m.cards
          ? claimedRow(m.cards, m.claimed, size)
          : [0, 1, 2].map(() => card(null, { size, down: true })),
      ),
    ),
  );
}

/** A meld's cards; the card a 吃 took from the table is tinted, as the apps show it. */
function claimedRow(cards, claimed, size) {
  const at = claimed ? faces(cards).indexOf(claimed) : -1;
  return faces(cards).map((f, i) => card(f, { size, key: i, mark: i === at ? "claimed" : null }));
}

/**
 * Our own bans (RULES §4.6, §5.3): the faces we may not 吃 or 碰. A face we discarded or
 * released, or our 上家 did (过张), stays banned to the hand's end; a face we hold twice or more
 * (`holder_may_not_chi`, RULES §4.6(3)) only while we hold two, so it is said apart: at the
 * dealer's first turn nothing is 过张 yet, and a pair broken by a 吃, 碰 or 偎 may be 吃'd again.
 */
function bansLine(obs, seat) {
  const b = obs.bans?.[seat];
  if (!b || (!b.chi && !b.peng)) return null;
  const held = (f) => [...(obs.hand || "")].filter((x) => x === f).length >= 2;
  const chi = [...(b.chi || "")];
  const guo = chi.filter((f) => !held(f)).join("");
  const pairs = chi.filter(held).join("");
  return h(
    "div",
    { class: "bans", "data-testid": "bans" },
    guo ? h("span", { "data-testid": "bans-chi" }, t("ban_chi"), " ", guo) : null,
    pairs ? h("span", { "data-testid": "bans-held", title: t("ban_chi_held_help") }, t("ban_chi_held"), " ", pairs) : null,
    b.peng ? h("span", { "data-testid": "bans-peng" }, t("ban_peng"), " ", b.peng) : null,
  );
}

function discardRow(text) {
  return h("div", { class: "row", "data-testid": "row" }, cardRow(text, { size: "xs" }));
}

/** The middle: whose turn it is, the card under claim, the stock, our timer. */
function centre(obs, ctx) {
  const claim = obs.claim;
  return h(
    "div",
    { class: "centre", "data-testid": "centre" },
    h(
      "div",
      { class: "claim-slot", "data-testid": "claim" },
      claim ? card(claim.card, { size: "l", down: claim.card === null }) : null,
    ),
    h(
      "div",
      { class: "centre-text" },
      h("div", { class: "status", "data-testid": "status" }, statusText(obs, ctx)),
      h("div", { class: "stock", "data-testid": "stock" }, t("stock", { n: obs.stock_left })),
      ctx.timer || null,
      ctx.notice || null,
    ),
  );
}

function statusText(obs, ctx) {
  if (obs.phase === "over") return t("result");
  if (obs.phase === "discard") {
    if (obs.turn === ctx.mySeat) return t("your_turn");
    return t("turn_of", { who: ctx.label(obs.turn) });
  }
  const c = obs.claim;
  const origin = c ? t(`origin_${c.origin}`) : "";
  const text = c ? t("claim_on", { who: ctx.label(c.from), origin, card: c.card ?? t("hidden") }) : "";
  if (ctx.mySeat === null || ctx.mySeat === undefined) return text;
  return `${text} · ${ctx.toAct ? t("decide") : t("waiting_others")}`;
}

/** Our own 息 (melds + 砍 in hand) and how far from 起胡. */
function ownNumbers(ctx) {
  const own = ctx.numbers?.own;
  if (!own) return null;
  return h(
    "div",
    { class: "own-xi", "data-testid": "own-xi", "data-total": own.total, "data-to-min": own.to_min },
    h("span", {}, t("own_xi", { hand: own.hand, total: own.total })),
    // Once the hand is over the result panel says who won and why: no "差 N 息" under a win.
    ctx.won
      ? null
      : h(
          "span",
          { class: own.to_min ? "to-min" : "to-min ok" },
          own.to_min ? t("to_min", { n: own.to_min }) : t("min_ok", { n: ctx.numbers.min_xi }),
        ),
  );
}

/**
 * The bottom seat: its header with our 息 and our tools (hints, 托管), a 托管 banner, melds and
 * row, then the hand with the claim buttons beside it (below it on a narrow screen), then the
 * 听 hints.
 */
function ownArea(obs, seat, ctx) {
  const hand = seat === ctx.mySeat ? obs.hand : ctx.hands?.[seat];
  return h(
    "section",
    {
      class: `seat bottom${isActive(obs, seat) ? " active" : ""}`,
      "data-testid": `seat-${seat}`,
      "data-rel": "bottom",
    },
    h(
      "div",
      { class: "own-head" },
      seatHeader(obs, seat, "bottom", ctx),
      ownNumbers(ctx),
      seat === ctx.mySeat ? bansLine(obs, seat) : null,
      ctx.side || null,
    ),
    ctx.banner || null,
    h(
      "div",
      { class: "own-body" },
      h("div", { class: "own-table" }, melds(obs.melds[seat], "m"), discardRow(obs.rows[seat])),
      hand != null
        ? handView(hand, ctx)
        : h(
            "div",
            { class: "hand-count", "data-testid": "hand-count" },
            t("hand_size", { n: obs.hand_sizes[seat] }),
          ),
      ctx.controls ? h("div", { class: "side" }, ctx.controls) : null,
    ),
    ctx.below || null,
  );
}

/**
 * The hand as columns: by default one per face, small before big, identical faces stacked;
 * `ctx.handColumns` (arrange.js) is the player's own arrangement. Within a column each stretch
 * of one face is one button, clickable when 出 of that face is legal now; a 听 tag marks the
 * discards that leave the hand waiting (from the hints). `ctx.arrangeable` lets the player drag.
 */
function handView(hand, ctx) {
  const legal = new Set(
    (ctx.legal || []).map(parseAction).filter((a) => a.kind === "discard").map((a) => a.face),
  );
  const hinted = ctx.hintFaces || new Set();
  const columns = ctx.handColumns || sortedColumns(hand);
  const stretch = (face, from, n, colId) => {
    const ok = legal.has(face) && Boolean(ctx.onDiscard);
    // With two-tap discards (room.js) the first tap raises the card, the second plays it.
    const where = `${colId}:${from}`;
    const raised = ok && ctx.raised?.key === where;
    return h(
      "button",
      {
        key: `${from}${face}`,
        class: `stack${ok ? " legal" : ""}${legal.size && !ok ? " blocked" : ""}${raised ? " raised" : ""}`,
        "data-testid": "hand-face",
        "data-face": face,
        "data-legal": ok ? "true" : "false",
        "data-raised": raised ? "true" : null,
        // Not `disabled`: a disabled button takes no pointer events, and the hand is dragged
        // while others play.
        "aria-disabled": ok ? null : "true",
        tabindex: ok ? null : "-1",
        "aria-label": `${t("discard_hint")}: ${face}`,
        onclick: ok ? () => ctx.onDiscard(face, where) : null,
      },
      hinted.has(face) ? h("span", { class: "ting", "data-testid": "ting-tag" }, t("hint_tag")) : null,
      Array.from({ length: n }, (_, i) => card(face, { size: "l", key: i, pos: from + i })),
    );
  };
  const column = (col, i) => {
    const parts = [];
    col.faces.forEach((f, k) => {
      if (k && f === col.faces[k - 1]) parts[parts.length - 1][2]++;
      else parts.push([f, k, 1]);
    });
    const prev = columns[i - 1];
    const gap = prev && isBig(prev.faces[0]) !== isBig(col.faces[0]);
    return h(
      "div",
      {
        key: col.id,
        class: `hand-col${gap ? " case-gap" : ""}`,
        "data-testid": "hand-col",
        "data-col": i,
        "data-cards": col.faces.join(""),
      },
      parts.map(([f, k, n]) => stretch(f, k, n, col.id ?? i)),
    );
  };
  return h(
    "div",
    {
      class: `hand${ctx.arrangeable ? " arrangeable" : ""}`,
      "data-testid": "hand",
      "data-cards": hand,
      style: `--cols: ${Math.max(columns.length, 8)}`,
    },
    columns.map(column),
  );
}

/**
 * Claim buttons, built only from the legal actions the server sent: 胡, 碰, 吃 (one button per
 * run; with several runs the 吃 button opens the choice), 过. 出 is done by clicking a card.
 * With `offline` the buttons show but are disabled: nothing is sent while disconnected.
 */
export function actionBar(legalTexts, { act, chiOpen, toggleChi, offline, extra, twoTaps }) {
  const acts = legalTexts.map(parseAction);
  const has = (kind) => acts.some((a) => a.kind === kind);
  const chis = acts.filter((a) => a.kind === "chi");
  const button = (kind, label, text, more = {}) =>
    h(
      "button",
      {
        class: `act ${kind}`,
        "data-testid": `action-${kind}`,
        "data-action": text,
        disabled: offline,
        onclick: () => act(text),
        ...more,
      },
      label,
    );
  const buttons = [];
  if (has("hu")) buttons.push(button("hu", t("hu"), "胡"));
  if (has("peng")) buttons.push(button("peng", t("peng"), "碰"));
  if (chis.length === 1) {
    buttons.push(button("chi", [t("chi"), " ", runCards(chis[0].run, "xs")], chis[0].text));
  } else if (chis.length > 1) {
    buttons.push(
      h(
        "button",
        {
          class: "act chi",
          "data-testid": "action-chi",
          "data-action": "choose",
          disabled: offline,
          onclick: toggleChi,
        },
        t("chi"),
        " ▾",
      ),
    );
  }
  if (has("pass")) buttons.push(button("pass", t("pass"), "过"));
  const hint = has("discard")
    ? h("span", { class: "hint", "data-testid": "discard-hint" }, twoTaps ? t("discard_hint_two") : t("discard_hint"))
    : null;
  return h(
    "div",
    { class: "controls", "data-testid": "actions" },
    h("div", { class: "buttons" }, buttons, hint),
    chiOpen && chis.length > 1
      ? h(
          "div",
          { class: "chi-choices", "data-testid": "chi-choices" },
          chis.map((c) =>
            h(
              "button",
              {
                class: "act chi-run",
                "data-testid": "chi-option",
                "data-action": c.text,
                disabled: offline,
                onclick: () => act(c.text),
              },
              runCards(c.run, "m"),
            ),
          ),
        )
      : null,
    extra || null,
  );
}

function runCards(run, size) {
  return h("span", { class: "run" }, faces(run).map((f) => card(f, { size })));
}

export function signed(n) {
  if (n === null || n === undefined) return "";
  return n > 0 ? `+${n}` : String(n);
}
