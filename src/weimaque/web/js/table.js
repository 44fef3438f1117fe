// The table: three seats around the open claim. The viewer's seat is at the bottom,
// its 上家 on the left and 下家 on the right (RULES §2.1), as players sit.
import { h } from "./dom.js";
import { card, cardRow, faces, groupHand, parseAction } from "./cards.js";
import { t } from "./i18n.js";

/** Relative positions of the seats for a viewer at `bottom`. */
export function seatsAround(bottom) {
  return { bottom, right: (bottom + 1) % 3, left: (bottom + 2) % 3 };
}

/**
 * Draw a board from an observation.
 * ctx: {bottom, label(seat) → string, badges(seat) → [nodes], hands (per seat, when visible),
 *       legal: [action text], onDiscard(face) | null, controls: node | null}
 */
export function renderBoard(obs, ctx) {
  const pos = seatsAround(ctx.bottom);
  return h(
    "div",
    { class: "board", "data-testid": "board" },
    h(
      "div",
      { class: "opponents" },
      seatPanel(obs, pos.left, "left", ctx),
      seatPanel(obs, pos.right, "right", ctx),
    ),
    centre(obs, ctx),
    ownArea(obs, pos.bottom, ctx),
  );
}

function isActive(obs, seat) {
  return obs.phase === "discard" && obs.turn === seat;
}

function seatHeader(obs, seat, ctx) {
  return h(
    "div",
    { class: "seat-head" },
    h("span", { class: "seat-name", "data-testid": "seat-name" }, ctx.label(seat)),
    obs.dealer === seat ? h("span", { class: "badge dealer" }, t("dealer")) : null,
    obs.dead[seat] ? h("span", { class: "badge dead", "data-testid": "dead" }, t("dead")) : null,
    ...(ctx.badges ? ctx.badges(seat) : []),
    h("span", { class: "seat-score", "data-testid": "seat-score" }, signed(ctx.score(seat))),
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
    seatHeader(obs, seat, ctx),
    hand !== undefined
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
function melds(list, size) {
  return h(
    "div",
    { class: "melds", "data-testid": "melds" },
    list.map((m) =>
      h(
        "div",
        { class: `meld ${m.kind}${m.face_down ? " face-down" : ""}`, "data-kind": m.kind },
        m.cards
          ? cardRow(m.cards, { size })
          : [0, 1, 2].map(() => card(null, { size, down: true })),
      ),
    ),
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

/** The bottom seat: its melds and row, and (for a player) the hand and the controls. */
function ownArea(obs, seat, ctx) {
  const hand = seat === ctx.mySeat ? obs.hand : ctx.hands?.[seat];
  return h(
    "section",
    {
      class: `seat bottom${isActive(obs, seat) ? " active" : ""}`,
      "data-testid": `seat-${seat}`,
      "data-rel": "bottom",
    },
    seatHeader(obs, seat, ctx),
    h("div", { class: "own-table" }, melds(obs.melds[seat], "m"), discardRow(obs.rows[seat])),
    hand !== undefined
      ? handView(hand, ctx)
      : h(
          "div",
          { class: "hand-count", "data-testid": "hand-count" },
          t("hand_size", { n: obs.hand_sizes[seat] }),
        ),
    ctx.controls || null,
  );
}

/**
 * The hand: small and big apart, identical faces stacked in one column.
 * A column is clickable when 出 of its face is legal now.
 */
function handView(hand, ctx) {
  const legal = new Set(
    (ctx.legal || []).map(parseAction).filter((a) => a.kind === "discard").map((a) => a.face),
  );
  const groups = groupHand(hand);
  const cols = groups.small.length + groups.big.length;
  const column = ([face, n]) => {
    const ok = legal.has(face) && Boolean(ctx.onDiscard);
    return h(
      "button",
      {
        class: `stack${ok ? " legal" : ""}${legal.size && !ok ? " blocked" : ""}`,
        "data-testid": "hand-face",
        "data-face": face,
        "data-legal": ok ? "true" : "false",
        disabled: !ok,
        "aria-label": `${t("discard_hint")}: ${face}`,
        onclick: ok ? () => ctx.onDiscard(face) : null,
      },
      Array.from({ length: n }, () => card(face, { size: "l" })),
    );
  };
  return h(
    "div",
    {
      class: "hand",
      "data-testid": "hand",
      "data-cards": hand,
      style: `--cols: ${Math.max(cols, 8)}`,
    },
    h("div", { class: "hand-group small" }, groups.small.map(column)),
    h("div", { class: "hand-group big" }, groups.big.map(column)),
  );
}

/**
 * Claim buttons, built only from the legal actions the server sent: 胡, 碰, 吃 (one button per
 * run; with several runs the 吃 button opens the choice), 过. 出 is done by clicking a card.
 */
export function actionBar(legalTexts, { act, chiOpen, toggleChi }) {
  const acts = legalTexts.map(parseAction);
  const has = (kind) => acts.some((a) => a.kind === kind);
  const chis = acts.filter((a) => a.kind === "chi");
  const button = (kind, label, text, extra = {}) =>
    h(
      "button",
      {
        class: `act ${kind}`,
        "data-testid": `action-${kind}`,
        "data-action": text,
        onclick: () => act(text),
        ...extra,
      },
      label,
    );
  const buttons = [];
  if (has("hu")) buttons.push(button("hu", t("hu"), "胡"));
  if (has("peng")) buttons.push(button("peng", t("peng"), "碰"));
  if (chis.length === 1) {
    buttons.push(button("chi", [t("chi"), " ", runCards(chis[0].run)], chis[0].text));
  } else if (chis.length > 1) {
    buttons.push(
      h(
        "button",
        {
          class: "act chi",
          "data-testid": "action-chi",
          "data-action": "choose",
          onclick: toggleChi,
        },
        t("chi"),
        " ▾",
      ),
    );
  }
  if (has("pass")) buttons.push(button("pass", t("pass"), "过"));
  const hint = has("discard")
    ? h("span", { class: "hint", "data-testid": "discard-hint" }, t("discard_hint"))
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
                onclick: () => act(c.text),
              },
              runCards(c.run),
            ),
          ),
        )
      : null,
  );
}

function runCards(run) {
  return h("span", { class: "run" }, faces(run).map((f) => card(f, { size: "xs" })));
}

export function signed(n) {
  if (n === null || n === undefined) return "";
  return n > 0 ? `+${n}` : String(n);
}
