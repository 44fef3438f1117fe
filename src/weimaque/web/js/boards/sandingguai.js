// 三丁拐's board (docs/web.md "Boards", docs/sandingguai.md): drawn from the game's view JSON
// (observation.py `View.to_dict`, a spectator's `"public"` and the all-seeing `"all"` form;
// docs/sandingguai.md §9). The hand sorted by suit with the drawn tile apart, tapped to 出 (two
// taps on a touch screen, as 偎麻雀's); each seat's melds (碰/明杠/补杠 with the seat they came
// from, another seat's 暗杠 as backs), discard row, 报听 and 缺; the wall, the dealer and his
// streak; the claim buttons from the legal actions alone; at the hand's end every hand, the
// 翻牌 tile, the chickens and every payment.
import { h } from "../dom.js";
import { currentLang, t } from "../i18n.js";
import { splitTiles, sortTiles, tile, tileName } from "../tiles.js";
import { discardConfirmWanted, seatPositions } from "./common.js";

export const sandingguai = {
  id: "sandingguai",
  hints: false,
  replays: true, // the replay viewer (replay.js) draws each step with this board
  drawnText: () => t("sdg_huang"), // a hand nobody won, in the list of hands: 荒庄
  create(shell) {
    return new SandingguaiBoard(shell);
  },
};

const SUIT_ZH = { m: "万", s: "条", p: "筒" };
const QUE_SUITS = { 万: "m", 条: "s", 筒: "p" };
// The actions of the view's `legal` and of `legal_actions` (actions.py): a word and a tile.
const WORDS = [
  ["报听", "ting"],
  ["暗杠", "angang"],
  ["补杠", "bugang"],
  ["明杠", "gang"],
  ["定缺", "que"],
  ["出", "discard"],
  ["胡", "hu"],
  ["碰", "peng"],
  ["过", "pass"],
];

/** An action's text (`出5p`, `报听9s`, `暗杠7s`, `碰`, `定缺万`) as {kind, tile, suit, text}. */
export function parseAction(text) {
  for (const [word, kind] of WORDS) {
    if (text.startsWith(word)) {
      const rest = text.slice(word.length);
      if (kind === "que") return { kind, suit: QUE_SUITS[rest] ?? rest, text };
      return { kind, tile: rest || null, text };
    }
  }
  return { kind: "other", tile: null, text };
}

/** The fixed chickens and the 翻牌鸡 of an ended hand (docs/sandingguai.md §6.1): the next
 * rank of the flipped tile's suit, 9 → 1. */
export function chickenTiles(flip, wugu = true) {
  const out = new Set(["1s"]);
  if (wugu) out.add("8p");
  if (flip) out.add(`${(Number(flip[0]) % 9) + 1}${flip[1]}`);
  return out;
}

const SOUND = { discard: "discard", draw: "draw", claim: "peng", angang: "gang", bugang: "gang", win: "hu" };

class SandingguaiBoard {
  constructor(shell) {
    this.shell = shell;
    this.raised = null; // the tile a first tap raised: its key
    this.ting = false; // 报听 chosen: the next tap declares it with its 出
  }

  after(msg, s) {
    if (!s.toAct) {
      this.raised = null;
      this.ting = false;
    }
  }

  resetRaised() {
    this.raised = null;
  }

  /** The sound and the call of an event view (cues.js): 碰, 杠, 胡, 自摸, 报听, the tile 出. */
  cue(e) {
    const sound = SOUND[e.type];
    if (!sound) return null;
    const lang = currentLang();
    let text = null;
    if (e.type === "discard") text = e.baoting ? t("voice_baoting") : e.tile ? tileName(e.tile, lang) : null;
    else if (e.type === "claim") text = e.meld === "gang" ? t("voice_gang") : t("voice_peng");
    else if (e.type === "angang" || e.type === "bugang") text = t("voice_gang");
    else if (e.type === "win") text = e.way === "zimo" || e.way === "gangshanghua" ? t("voice_zimo") : t("voice_hu");
    return { sound, text, discard: e.type === "discard" ? e.tile : undefined };
  }

  ownDiscard(action) {
    const a = parseAction(action);
    if ((a.kind !== "discard" && a.kind !== "ting") || !a.tile) return null;
    return { key: a.tile, text: a.kind === "ting" ? t("voice_baoting") : tileName(a.tile, currentLang()) };
  }

  /** A tap on a tile we may 出 (or 报听 with): plays it, or with two taps raises it first. */
  tap(name, key) {
    if (!discardConfirmWanted() || this.raised === key) {
      this.raised = null;
      const ting = this.ting;
      this.ting = false;
      this.shell.act(`${ting ? "报听" : "出"}${name}`);
      return;
    }
    this.raised = key;
    this.shell.draw();
  }

  render(s, env) {
    const v = s.obs;
    const n = v.seats.length;
    const pos = seatPositions(n, env.bottom);
    const acts = env.canAct ? s.legal.map((a) => parseAction(a.text)) : [];
    const others = v.seats.filter((x) => x.seat !== env.bottom);
    return h(
      "div",
      { class: `board sdg-board seats-${n}`, "data-testid": "board", "data-game": "sandingguai", "data-phase": v.phase },
      others.map((x) => this.seatPanel(v, x, pos[x.seat], env)),
      this.centre(v, s, env),
      this.ownArea(v, v.seats[env.bottom], s, env, acts),
      v.end ? this.endStrip(v, s, env) : null,
    );
  }

  seatHead(v, x, rel, env) {
    const where = { left: t("shangjia"), right: t("xiajia"), top: t("sdg_across") }[rel] || null;
    return h(
      "div",
      { class: "seat-head" },
      where ? h("span", { class: "where" }, where) : null,
      h("span", { class: "seat-name", "data-testid": "seat-name" }, env.label(x.seat)),
      v.dealer === x.seat
        ? h("span", { class: "badge dealer", "data-testid": "dealer", title: t("sdg_streak_help") }, t("dealer"), v.streak > 1 ? ` ×${v.streak}` : "")
        : null,
      x.baoting ? h("span", { class: "badge baoting", "data-testid": "baoting" }, t("sdg_baoting")) : null,
      x.que ? h("span", { class: "badge que", "data-testid": "que", "data-que": x.que }, t("sdg_que", { suit: SUIT_ZH[x.que] })) : null,
      ...(env.badges ? env.badges(x.seat) : []),
      env.clock ? sdgClock(v, x.seat, env) : null,
      h("span", { class: "seat-score", "data-testid": "seat-score" }, signed(env.score(x.seat))),
      env.bubble ? env.bubble(x.seat) : null,
    );
  }

  seatPanel(v, x, rel, env) {
    const open = v.end ? v.end.hands[x.seat] : v.hands ? v.hands[x.seat] : null;
    const active = v.turn === x.seat && v.phase === "self";
    return h(
      "section",
      { key: x.seat, class: `seat sdg-seat ${rel}${active ? " active" : ""}`, "data-testid": `seat-${x.seat}`, "data-rel": rel },
      this.seatHead(v, x, rel, env),
      open !== null && open !== undefined
        ? h("div", { class: "open-hand", "data-testid": "open-hand", "data-tiles": open }, sortedTiles(open, "s", v))
        : h(
            "div",
            { class: "hand-count", "data-testid": "hand-count", "data-n": x.concealed },
            concealedBacks(x.concealed),
            h("span", { class: "n" }, t("sdg_tiles", { n: x.concealed })),
          ),
      meldsView(x, v, "s", env),
      discardRow(x, v, env),
    );
  }

  centre(v, s, env) {
    const claim = v.claim;
    return h(
      "div",
      { class: "centre sdg-centre", "data-testid": "centre" },
      h(
        "div",
        { class: "claim-slot", "data-testid": "claim" },
        claim ? tile(claim, { size: "l", testid: "claim-tile" }) : null,
      ),
      h(
        "div",
        { class: "centre-text" },
        h("div", { class: "status", "data-testid": "status" }, this.status(v, s, env)),
        h("div", { class: "stock", "data-testid": "wall", "data-left": v.wall_left }, t("sdg_wall", { n: v.wall_left })),
        h(
          "div",
          { class: "dealer-line", "data-testid": "dealer-line" },
          t("sdg_dealer_line", { who: env.label(v.dealer), k: v.streak }),
        ),
        v.chickens?.length ? h("div", { class: "chicken-fates", "data-testid": "chicken-fates" }, v.chickens.map((c) => chickenFate(c, env))) : null,
        env.timer || null,
        env.notice || null,
      ),
    );
  }

  status(v, s, env) {
    if (v.phase === "over") return v.end?.huang ? t("sdg_huang") : t("result");
    if (v.phase === "dingque") return env.mySeat !== null && s.toAct ? t("sdg_choose_que") : t("sdg_dingque_wait");
    if (v.phase === "self") return v.turn === env.mySeat ? t("your_turn") : t("turn_of", { who: env.label(v.turn) });
    const text = t(v.phase === "rob" ? "sdg_rob_on" : "sdg_claim_on", { who: env.label(v.turn), tile: v.claim ? tileName(v.claim, currentLang()) : "" });
    if (env.mySeat === null) return text;
    return `${text} · ${s.toAct ? t("decide") : t("waiting_others")}`;
  }

  ownArea(v, x, s, env, acts) {
    const me = env.mySeat !== null && x.seat === env.mySeat;
    const rel = "bottom";
    const active = v.turn === x.seat && v.phase === "self";
    let hand = null;
    if (me && typeof v.hand === "string") hand = this.handView(v, acts, env);
    else if (v.hands) hand = h("div", { class: "open-hand", "data-testid": "open-hand" }, sortedTiles(v.hands[x.seat], "m", v));
    else if (v.end) hand = h("div", { class: "open-hand", "data-testid": "open-hand" }, sortedTiles(v.end.hands[x.seat], "m", v));
    return h(
      "section",
      { class: `seat sdg-seat bottom${active ? " active" : ""}`, "data-testid": `seat-${x.seat}`, "data-rel": rel },
      h(
        "div",
        { class: "own-head" },
        this.seatHead(v, x, rel, env),
        me && (v.locks?.length || v.lock_any)
          ? h("span", { class: "locks", "data-testid": "locks", title: t("sdg_locks_help") }, t("sdg_locks"), " ", v.lock_any ? t("sdg_lock_any") : v.locks.map((l) => tile(l, { size: "xs", key: l })))
          : null,
        me ? h("div", { class: "tools", "data-testid": "tools" }, env.autoplayOn) : null,
      ),
      env.banner || null,
      h(
        "div",
        { class: "own-body" },
        h("div", { class: "own-table" }, meldsView(x, v, "m", env), discardRow(x, v, env)),
        hand || h("div", { class: "hand-count", "data-testid": "hand-count" }, concealedBacks(x.concealed)),
        env.mayAct ? h("div", { class: "side" }, this.actionBar(acts, env)) : null,
      ),
    );
  }

  /** Our hand: sorted by suit, the drawn tile apart at the right; a tile is a button when its
   * 出 (or, with 报听 chosen, its 报听) is legal now. */
  handView(v, acts, env) {
    const all = sortTiles(splitTiles(v.hand));
    if (v.drawn) all.splice(all.lastIndexOf(v.drawn), 1);
    const kind = this.ting ? "ting" : "discard";
    const playable = new Set(acts.filter((a) => a.kind === kind).map((a) => a.tile));
    const chickens = v.end ? chickenTiles(v.end.flip) : null;
    const button = (name, key, apart) => {
      const ok = playable.has(name);
      const raised = ok && this.raised === key;
      return h(
        "button",
        {
          key,
          class: `hand-tile${ok ? " legal" : ""}${playable.size && !ok ? " blocked" : ""}${raised ? " raised" : ""}${apart ? " drawn" : ""}`,
          "data-testid": "hand-tile",
          "data-tile": name,
          "data-legal": ok ? "true" : "false",
          "data-raised": raised ? "true" : null,
          "data-drawn": apart ? "true" : null,
          "aria-disabled": ok ? null : "true",
          tabindex: ok ? null : "-1",
          "aria-label": `${t("discard_hint")}: ${tileName(name, currentLang())}`,
          onclick: ok ? () => this.tap(name, key) : null,
        },
        tile(name, { size: "l", mark: chickens?.has(name) ? "chicken" : "" }),
      );
    };
    return h(
      "div",
      { class: `sdg-hand${this.ting ? " ting-mode" : ""}`, "data-testid": "hand", "data-tiles": v.hand, "data-drawn": v.drawn || "" },
      all.map((name, i) => {
        const gap = i && all[i - 1][1] !== name[1];
        return h("span", { key: `c${i}`, class: gap ? "suit-gap" : "" }, button(name, `h${i}${name}`, false));
      }),
      v.drawn ? h("span", { key: "drawn", class: "drawn-gap" }, button(v.drawn, `d${v.drawn}`, true)) : null,
    );
  }

  /** The claim buttons, only the legal options: 胡 (自摸 in our turn), 碰, 杠 (明杠, each 暗杠
   * and 补杠 with its tile), 报听 (then a tile), 过, and 定缺's three suits. */
  actionBar(acts, env) {
    const offline = !env.online;
    const btn = (kind, label, text, more = {}) =>
      h(
        "button",
        { key: text, class: `act ${kind}`, "data-testid": `action-${kind}`, "data-action": text, disabled: offline, onclick: () => env.act(text), ...more },
        label,
      );
    const out = [];
    const self = acts.some((a) => a.kind === "discard");
    for (const a of acts) {
      if (a.kind === "hu") out.push(btn("hu", self ? t("sdg_zimo") : t("hu"), a.text));
    }
    for (const a of acts) {
      if (a.kind === "peng") out.push(btn("peng", t("peng"), a.text));
      if (a.kind === "gang") out.push(btn("gang", t("sdg_gang"), a.text));
      if (a.kind === "angang") out.push(btn("angang", [t("sdg_angang"), " ", tile(a.tile, { size: "xs" })], a.text));
      if (a.kind === "bugang") out.push(btn("bugang", [t("sdg_bugang"), " ", tile(a.tile, { size: "xs" })], a.text));
      if (a.kind === "que") out.push(btn("que", t("sdg_que_pick", { suit: SUIT_ZH[a.suit] }), a.text, { "data-suit": a.suit }));
    }
    if (acts.some((a) => a.kind === "ting")) {
      out.push(
        h(
          "button",
          {
            key: "ting",
            class: `act ting${this.ting ? " on" : ""}`,
            "data-testid": "action-ting",
            "aria-pressed": this.ting ? "true" : "false",
            disabled: offline,
            title: t("sdg_ting_help"),
            onclick: () => {
              this.ting = !this.ting;
              this.raised = null;
              this.shell.draw();
            },
          },
          t("sdg_baoting"),
        ),
      );
    }
    for (const a of acts) if (a.kind === "pass") out.push(btn("pass", t("pass"), a.text));
    const hint = self
      ? h("span", { class: "hint", "data-testid": "discard-hint" }, this.ting ? t("sdg_ting_hint") : discardConfirmWanted() ? t("discard_hint_two") : t("discard_hint"))
      : null;
    return h("div", { class: "controls", "data-testid": "actions" }, h("div", { class: "buttons" }, out, hint));
  }

  /** Under the table at the hand's end: the 翻牌 tile, the chickens, what each seat won. */
  endStrip(v, s, env) {
    const end = v.end;
    const chickens = chickenTiles(end.flip);
    return h(
      "div",
      { class: "sdg-end-strip", "data-testid": "end-strip" },
      end.huang
        ? h("span", { class: "huang" }, t("sdg_huang"))
        : [
            h("span", { key: "f", class: "flip", "data-testid": "flip" }, t("sdg_flip"), " ", end.flip ? tile(end.flip, { size: "s" }) : t("sdg_no_flip")),
            h("span", { key: "c", class: "chickens", "data-testid": "chickens" }, t("sdg_chickens"), " ", [...chickens].map((c) => tile(c, { size: "s", key: c, mark: "chicken" }))),
          ],
    );
  }

  legend() {
    return h(
      "div",
      { class: "legend", "data-testid": "meld-legend" },
      h("span", { class: "label" }, t("legend")),
      h("span", { class: "legend-item" }, h("span", { class: "legend-card" }, tile("5p", { size: "xs", mark: "claimed" })), t("sdg_legend_claimed")),
      h("span", { class: "legend-item" }, h("span", { class: "legend-card" }, tile(null, { size: "xs" })), t("sdg_legend_angang")),
      h("span", { class: "legend-item" }, h("span", { class: "legend-card" }, tile("1s", { size: "xs", mark: "chicken" })), t("sdg_legend_chicken")),
    );
  }

  /** The result of a hand: the winners and their hands, the 翻牌, the chickens, the payments;
   * from the view's `end` and the hand's `win` events (docs/sandingguai.md §8). */
  handEnd(end, opts) {
    const s = opts.s;
    // The table as it ended: our view's end, else the all-seeing view `hand_end` carries.
    const v = s?.obs?.end ? s.obs : end?.view?.end ? end.view : s?.obs;
    const label = opts.label;
    const e = v?.end || endOf(end);
    const wins = (s?.history || []).filter((x) => x.type === "win");
    if (!e) return h("section", { class: "panel result", "data-testid": "result" }, h("h2", {}, opts.title));
    const chickens = chickenTiles(e.flip);
    const n = e.net.length;
    return h(
      "section",
      { class: "panel result sdg-result", "data-testid": "result" },
      h("h2", {}, opts.title, " · ", e.huang ? t("sdg_huang") : wins.map((w) => label(w.seat)).join("、") + " " + t("sdg_won")),
      h(
        "div",
        { class: "sdg-net", "data-testid": "net" },
        Array.from({ length: n }, (_, seat) => h("span", { key: seat, class: e.net[seat] > 0 ? "plus" : e.net[seat] < 0 ? "minus" : "" }, label(seat), " ", signed(e.net[seat]))),
      ),
      wins.map((w, i) =>
        h(
          "div",
          { key: i, class: "sdg-win", "data-testid": "win" },
          h("span", { class: "who" }, label(w.seat)),
          " ",
          h("span", { class: "way" }, t(`sdg_way_${w.way}`), w.from !== null && w.from !== w.seat && w.from !== undefined ? ` · ${t("sdg_from", { who: label(w.from) })}` : ""),
          " ",
          h("span", { class: "fan", "data-testid": "fan" }, t("sdg_fan", { n: w.fan })),
          h(
            "div",
            { class: "win-hand", "data-testid": "win-hand" },
            v ? meldsView(v.seats[w.seat], v, "s", { label }) : null,
            winnerTiles(e.hands[w.seat], w, v?.seats[w.seat]).map((name, k) => tile(name, { size: "m", key: k, mark: chickens.has(name) ? "chicken" : "" })),
            h("span", { class: "win-tile" }, tile(w.tile, { size: "m", mark: "win" })),
          ),
        ),
      ),
      e.huang
        ? null
        : h(
            "div",
            { class: "sdg-flip-line" },
            h("span", { "data-testid": "result-flip" }, t("sdg_flip"), " ", e.flip ? tile(e.flip, { size: "s" }) : t("sdg_no_flip")),
            h("span", { "data-testid": "result-chickens" }, t("sdg_chickens"), " ", [...chickens].map((c) => tile(c, { size: "s", key: c, mark: "chicken" }))),
          ),
      // A 荒庄 that moved no points has no payments to list: no empty table.
      e.transfers.length === 0 ? null : h(
        "table",
        { class: "ledger sdg-transfers", "data-testid": "transfers" },
        h("thead", {}, h("tr", {}, h("th", {}, t("sdg_payer")), h("th", {}, t("sdg_payee")), h("th", {}, t("sdg_amount")), h("th", {}, t("sdg_reason")))),
        h(
          "tbody",
          {},
          e.transfers.map(([payer, payee, amount, reason], i) =>
            h("tr", { key: i, "data-reason": reason }, h("td", {}, label(payer)), h("td", {}, label(payee)), h("td", { class: "num" }, amount), h("td", {}, t(`sdg_reason_${reason}`))),
          ),
        ),
      ),
    );
  }

  eventText(e, label) {
    const name = (x) => (x ? tileName(x, currentLang()) : t("hidden"));
    switch (e.type) {
      case "dealt":
        return t("sdg_ev_dealt", { who: label(e.seat) });
      case "draw":
        return t("sdg_ev_draw", { who: label(e.seat), n: e.wall_left ?? "" });
      case "discard":
        return t(e.baoting ? "sdg_ev_baoting" : "sdg_ev_discard", { who: label(e.seat), tile: name(e.tile) });
      case "claim":
        return t(e.meld === "gang" ? "sdg_ev_gang" : "sdg_ev_peng", { who: label(e.seat), tile: name(e.tile), from: label(e.from) });
      case "angang":
        return t("sdg_ev_angang", { who: label(e.seat), tile: e.tile ? name(e.tile) : t("hidden") });
      case "bugang":
        return t("sdg_ev_bugang", { who: label(e.seat), tile: name(e.tile) });
      case "bugang_stands":
        return t("sdg_ev_bugang_stands", { who: label(e.seat), tile: name(e.tile) });
      case "chicken":
        return t(`sdg_ev_${e.fate}`, { who: label(e.seat), tile: name(e.tile) });
      case "que":
        return t("sdg_ev_que", { who: label(e.seat), suit: SUIT_ZH[e.suit] });
      case "win":
        return t("sdg_ev_win", { who: label(e.seat), tile: name(e.tile), way: t(`sdg_way_${e.way}`), fan: e.fan });
      case "end":
        return e.huang ? t("sdg_huang") : t("sdg_ev_end", { tile: e.flip ? name(e.flip) : t("sdg_no_flip") });
      default:
        return e.type;
    }
  }
}

/** The `end` part from a `hand_end` message, when the server sends it there. */
function endOf(end) {
  if (!end) return null;
  if (end.view?.end) return end.view.end; // the all-seeing view of the hand's end
  if (end.end) return end.end;
  return null;
}

/** The running clock of the seat that must 出 (`turn_timer`, docs/protocol.md §3). */
function sdgClock(v, seat, env) {
  if (v.phase !== "self" || v.turn !== seat) return null;
  return env.clock(seat);
}

/** The winner's concealed tiles, sorted, without the winning tile (shown apart) when the hand
 * at the end holds it already (14 with the melds, a kong counted as three). */
function winnerTiles(text, win, seat) {
  const names = sortTiles(splitTiles(text));
  const melds = seat ? seat.melds.length : 0;
  if (names.length + 3 * melds >= 14) {
    const at = names.lastIndexOf(win.tile);
    if (at >= 0) names.splice(at, 1);
  }
  return names;
}

function concealedBacks(n) {
  return Array.from({ length: n }, (_, i) => tile(null, { size: "xs", key: i }));
}

/** Tiles in notation, sorted, small; chickens marked at the hand's end. */
function sortedTiles(text, size, v, chickens = null) {
  const marks = chickens || (v?.end ? chickenTiles(v.end.flip) : null);
  return sortTiles(splitTiles(text)).map((name, i) => tile(name, { size, key: i, mark: marks?.has(name) ? "chicken" : "" }));
}

/** A seat's melds: 碰 three tiles, kongs four; the claimed tile tinted with the seat it came
 * from; another seat's 暗杠 as four backs, our own face up. */
function meldsView(x, v, size, env) {
  const chickens = v?.end ? chickenTiles(v.end.flip) : null;
  return h(
    "div",
    { class: "melds", "data-testid": "melds" },
    x.melds.map((m, i) => {
      const count = m.kind === "peng" ? 3 : 4;
      const from = m.from !== null && m.from !== undefined ? m.from : null;
      const tiles = Array.from({ length: count }, (_, k) => {
        if (m.tile === null) return tile(null, { size, key: k }); // another seat's 暗杠: backs
        const claimed = from !== null && k === 1;
        return tile(m.tile, { size, key: k, mark: claimed ? "claimed" : chickens?.has(m.tile) ? "chicken" : "" });
      });
      return h(
        "div",
        {
          key: i,
          class: `sdg-meld ${m.kind}`,
          "data-testid": "meld",
          "data-kind": m.kind,
          "data-tile": m.tile || "",
          "data-from": from ?? "",
          title: from !== null && env?.label ? t("sdg_meld_from", { who: env.label(from) }) : null,
        },
        tiles,
        from !== null && env?.label ? h("span", { class: "meld-from" }, t("sdg_from_short", { who: shortName(env.label(from)) })) : null,
      );
    }),
  );
}

const shortName = (name) => (name.length > 4 ? `${name.slice(0, 4)}…` : name);

/** A seat's discard row in order; a tile another seat claimed stays, dimmed. */
function discardRow(x, v) {
  const chickens = v.end ? chickenTiles(v.end.flip) : null;
  return h(
    "div",
    { class: "row sdg-row", "data-testid": "row", "data-n": x.discards.length },
    x.discards.map(([name, taken], i) =>
      tile(name, { size: "xs", key: i, mark: taken ? "taken" : chickens?.has(name) ? "chicken" : "" }),
    ),
  );
}

/** The first chicken's fate (docs/sandingguai.md §6.3): `first:1s@2>peng@1`. */
function chickenFate(text, env) {
  const m = /^first:(\w+)@(\d)(?:>(\w+)(?:@(\d))?)?$/.exec(text);
  if (!m) return h("span", { key: text }, text);
  const [, name, seat, claim, claimant] = m;
  const key = claim ? "sdg_zeren" : "sdg_chongfeng";
  return h(
    "span",
    { key: text, class: "fate", "data-testid": "chicken-fate" },
    tile(name, { size: "xs" }),
    " ",
    t(key, { who: env.label(Number(seat)), by: claimant !== undefined ? env.label(Number(claimant)) : "" }),
  );
}

function signed(n) {
  if (n === null || n === undefined) return "";
  return n > 0 ? `+${n}` : String(n);
}
