// Card faces and the card element. Faces travel as Chinese characters (RULES §1.3):
// small 一..十, big 壹..拾; 二七十 and 贰柒拾 are red.
import { h } from "./dom.js";

export const SMALL = "一二三四五六七八九十";
export const BIG = "壹贰叁肆伍陆柒捌玖拾";
const FACES = SMALL + BIG;
const RED = new Set("二七十贰柒拾");

/** The faces of a string of card characters ("一二三" → ["一","二","三"]). */
export function faces(text) {
  return text ? [...text] : [];
}

export const isRed = (face) => RED.has(face);
export const isBig = (face) => BIG.includes(face);
/** Sort key: small before big, then by number. */
export const faceOrder = (face) => FACES.indexOf(face);

/**
 * A tall narrow 字牌 card. `opts.down` draws its back; `opts.size` is "s" | "m" | "l";
 * `opts.mark` adds a class (a 吃's claimed card is "claimed"); `opts.pos` is a hand card's place in
 * its column (arrange.js drags it). The face is written once large and
 * once small upside down, as on real cards.
 */
export function card(face, opts = {}) {
  const size = opts.size || "m";
  if (opts.down || !face) {
    return h("span", { class: `card back ${size}`, "data-testid": "card-back", title: "偎", key: opts.key });
  }
  const colour = isRed(face) ? "red" : "black";
  return h(
    "span",
    {
      key: opts.key,
      class: `card ${colour} ${size}${isBig(face) ? " big" : ""}${opts.mark ? ` ${opts.mark}` : ""}`,
      "data-testid": "card",
      "data-face": face,
      "data-colour": colour,
      "data-pos": opts.pos,
    },
    h("span", { class: "face" }, face),
    h("span", { class: "face flip", "aria-hidden": "true" }, face),
  );
}

/** A row of cards for a string of faces. */
export function cardRow(text, opts = {}) {
  return faces(text).map((f, i) => card(f, { ...opts, key: i }));
}

/**
 * Group a hand for display: small and big apart, identical faces stacked.
 * Returns {small: [[face, count]...], big: [...]} in face order.
 */
export function groupHand(text) {
  const counts = new Map();
  for (const f of faces(text)) counts.set(f, (counts.get(f) || 0) + 1);
  const sorted = [...counts.entries()].sort((a, b) => faceOrder(a[0]) - faceOrder(b[0]));
  return {
    small: sorted.filter(([f]) => !isBig(f)),
    big: sorted.filter(([f]) => isBig(f)),
  };
}

/**
 * Parse the engine's action words (game/actions.py __str__): 出X, 碰, 吃XYZ, 胡, 过.
 * Returns {kind, face?, run?, text}.
 */
export function parseAction(text) {
  const head = text[0];
  if (head === "出") return { kind: "discard", face: text.slice(1), text };
  if (head === "吃") return { kind: "chi", run: text.slice(1), text };
  const kind = { 碰: "peng", 胡: "hu", 过: "pass" }[head];
  return { kind: kind || "other", text };
}
