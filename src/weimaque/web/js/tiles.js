// 三丁拐's tiles (docs/sandingguai.md §1), drawn in code as SVG: no image and no font is
// downloaded (the characters of 万 come from the device's own fonts). A tile is named in the
// engine's ASCII notation, a rank and a suit letter: `5p` (五筒), `1s` (幺鸡), `9m` (九万).
// 万 show their Chinese numeral over a red 万; 条 are bamboo sticks in their traditional
// layouts, 一条 the bird; 筒 are circles in theirs. `tile(null)` is a tile's back.
import { h } from "./dom.js";
import { currentLang } from "./i18n.js";

export const SUITS = ["m", "s", "p"];
export const RANKS = [1, 2, 3, 4, 5, 6, 7, 8, 9];
/** Every kind, in the engine's order (万 0–8, 条 9–17, 筒 18–26; docs/sandingguai.md §1.2). */
export const ALL_TILES = SUITS.flatMap((suit) => RANKS.map((r) => `${r}${suit}`));
const NUMERALS = "一二三四五六七八九";
const SUIT_ZH = { m: "万", s: "条", p: "筒" };
const SUIT_EN = { m: "characters", s: "bamboo", p: "dots" };

const W = 60;
const H = 80;
const INK = "#1d2f6f";
const RED = "#c0262d";
const GREEN = "#1b7a3e";
const BLUE = "#1f4fa0";

/** The tiles of a list in notation (`123m45p`, or one tile per entry). */
export function splitTiles(text) {
  const out = [];
  let digits = "";
  for (const ch of String(text || "").replace(/\s+/g, "")) {
    if (/[1-9]/.test(ch)) digits += ch;
    else if (/[msp]/i.test(ch)) {
      for (const d of digits) out.push(`${d}${ch.toLowerCase()}`);
      digits = "";
    }
  }
  return out;
}

export const rankOf = (name) => Number(name[0]);
export const suitOf = (name) => name[1];
/** The engine's kind of a tile (万 0–8, 条 9–17, 筒 18–26): the order tiles are sorted in. */
export const kindOf = (name) => SUITS.indexOf(suitOf(name)) * 9 + rankOf(name) - 1;

/** A tile's name for people: 五筒, 幺鸡; "5 dots" in English. */
export function tileName(name, lang = "zh") {
  const r = rankOf(name);
  const suit = suitOf(name);
  if (lang === "en") return `${r} ${SUIT_EN[suit]}`;
  if (name === "1s") return "幺鸡";
  return `${NUMERALS[r - 1]}${SUIT_ZH[suit]}`;
}

// ---- the faces

/** One bamboo stick centred at (x, y), `len` long, with its nodes. */
function stick(x, y, len, colour, key, tilt = 0) {
  const w = 6.4;
  const top = y - len / 2;
  return h(
    "g",
    { key, transform: tilt ? `rotate(${tilt} ${x} ${y})` : null },
    h("rect", { x: x - w / 2, y: top, width: w, height: len, rx: 2.6, fill: colour }),
    h("rect", { x: x - w / 2 + 1.4, y: top + 1.5, width: 1.3, height: len - 3, rx: 0.6, fill: "#ffffff", opacity: 0.45 }),
    h("line", { x1: x - w / 2, x2: x + w / 2, y1: y, y2: y, stroke: "#ffffff", "stroke-width": 1.1 }),
    h("line", { x1: x - w / 2, x2: x + w / 2, y1: top + 2.4, y2: top + 2.4, stroke: "#0b3d1f", "stroke-width": 0.9 }),
    h("line", { x1: x - w / 2, x2: x + w / 2, y1: top + len - 2.4, y2: top + len - 2.4, stroke: "#0b3d1f", "stroke-width": 0.9 }),
  );
}

// Stick positions of 2..9 条 as [x, y, colour, tilt] on the 60×80 face, as printed tiles lay them.
const COLS2 = [21, 39];
const COLS3 = [15, 30, 45];
const BAMBOO = {
  2: [[30, 23], [30, 57]],
  3: [[30, 23], [21, 57], [39, 57]],
  4: [[21, 23], [39, 23], [21, 57], [39, 57]],
  5: [[17, 23], [43, 23], [30, 40, RED], [17, 57], [43, 57]],
  6: [...COLS3.map((x) => [x, 24]), ...COLS3.map((x) => [x, 56])],
  7: [[30, 15, RED], ...COLS3.map((x) => [x, 40]), ...COLS3.map((x) => [x, 64])],
  8: [[12, 24], [24, 24, GREEN, 28], [36, 24, GREEN, -28], [48, 24], [12, 56], [24, 56, GREEN, -28], [36, 56, GREEN, 28], [48, 56]],
  9: [15, 40, 65].flatMap((y) => COLS3.map((x, i) => [x, y, i === 1 ? RED : GREEN])),
};
const STICK_LEN = { 2: 26, 3: 26, 4: 26, 5: 22, 6: 26, 7: 18, 8: 26, 9: 18 };

/** 一条: the bird (幺鸡), the one 条 drawn as no stick. */
function bird() {
  return h(
    "g",
    { "data-part": "bird" },
    // the tail: three long feathers
    h("path", { d: "M22 46 C10 40 8 26 12 16 C16 28 20 36 26 42 Z", fill: GREEN }),
    h("path", { d: "M24 48 C14 46 6 38 5 30 C14 38 20 42 28 45 Z", fill: BLUE }),
    h("path", { d: "M26 44 C20 34 20 22 25 12 C26 24 27 34 30 41 Z", fill: RED }),
    // the body and the wing
    h("ellipse", { cx: 34, cy: 50, rx: 13, ry: 10, fill: GREEN }),
    h("path", { d: "M28 48 C33 42 41 44 43 50 C38 48 33 49 28 53 Z", fill: "#7fc48f" }),
    // the head, its eye and beak, its crest
    h("circle", { cx: 45, cy: 38, r: 6.5, fill: GREEN }),
    h("circle", { cx: 46.5, cy: 36.5, r: 1.6, fill: "#ffffff" }),
    h("circle", { cx: 46.8, cy: 36.5, r: 0.8, fill: "#111111" }),
    h("path", { d: "M51 38 L57 40 L51 41.5 Z", fill: RED }),
    h("path", { d: "M42 32 C43 27 46 26 48 27 C46 29 45 31 45 33 Z", fill: RED }),
    // the legs
    h("path", { d: "M32 59 L30 69 M38 59 L40 69 M27 69 L33 69 M37 69 L43 69", stroke: RED, "stroke-width": 1.6, fill: "none" }),
  );
}

function bamboo(rank) {
  if (rank === 1) return bird();
  const len = STICK_LEN[rank];
  return h(
    "g",
    { "data-part": "sticks" },
    BAMBOO[rank].map(([x, y, colour, tilt], i) => stick(x, y, len, colour || GREEN, i, tilt || 0)),
  );
}

/** One circle of 筒 at (x, y): rings in `colour` round a centre. */
function circle(x, y, r, colour, key) {
  return h(
    "g",
    { key },
    h("circle", { cx: x, cy: y, r, fill: "#ffffff", stroke: colour, "stroke-width": r * 0.22 }),
    h("circle", { cx: x, cy: y, r: r * 0.58, fill: "none", stroke: colour, "stroke-width": r * 0.12, "stroke-dasharray": `${r * 0.28} ${r * 0.16}` }),
    h("circle", { cx: x, cy: y, r: r * 0.26, fill: colour }),
  );
}

// Circle positions of 2..9 筒 as [x, y, colour], and their radius, as printed tiles lay them.
const DOTS = {
  2: [[30, 22, GREEN], [30, 58, BLUE]],
  3: [[15, 17, BLUE], [30, 40, RED], [45, 63, GREEN]],
  4: [[18, 22, BLUE], [42, 22, GREEN], [18, 58, GREEN], [42, 58, BLUE]],
  5: [[16, 18, BLUE], [44, 18, GREEN], [30, 40, RED], [16, 62, GREEN], [44, 62, BLUE]],
  6: [[19, 14, GREEN], [41, 14, GREEN], [19, 44, RED], [41, 44, RED], [19, 66, RED], [41, 66, RED]],
  7: [[13, 11, GREEN], [30, 18, GREEN], [47, 25, GREEN], [19, 46, RED], [41, 46, RED], [19, 67, RED], [41, 67, RED]],
  8: [12, 30, 50, 68].flatMap((y) => COLS2.map((x) => [x, y, BLUE])),
  9: [
    ...COLS3.map((x) => [x, 15, BLUE]),
    ...COLS3.map((x) => [x, 40, RED]),
    ...COLS3.map((x) => [x, 65, GREEN]),
  ],
};
const DOT_R = { 2: 13, 3: 10, 4: 11, 5: 10, 6: 9.5, 7: 8, 8: 8, 9: 8.5 };

function dots(rank) {
  if (rank === 1) {
    return h(
      "g",
      { "data-part": "dots" },
      h("circle", { cx: 30, cy: 40, r: 24, fill: "#ffffff", stroke: GREEN, "stroke-width": 3 }),
      h("circle", { cx: 30, cy: 40, r: 19, fill: "none", stroke: RED, "stroke-width": 2.2, "stroke-dasharray": "4 2.4" }),
      h("circle", { cx: 30, cy: 40, r: 13, fill: BLUE }),
      h("circle", { cx: 30, cy: 40, r: 8, fill: "#ffffff" }),
      h("circle", { cx: 30, cy: 40, r: 4.5, fill: RED }),
    );
  }
  return h("g", { "data-part": "dots" }, DOTS[rank].map(([x, y, colour], i) => circle(x, y, DOT_R[rank], colour, i)));
}

function characters(rank) {
  return h(
    "g",
    { "data-part": "characters", "font-family": "'Noto Serif CJK SC', 'Noto Sans CJK SC', 'Songti SC', serif", "text-anchor": "middle" },
    h("text", { x: 30, y: 35, "font-size": 28, "font-weight": 700, fill: INK }, NUMERALS[rank - 1]),
    h("text", { x: 30, y: 70, "font-size": 30, "font-weight": 700, fill: RED }, "万"),
  );
}

function face(name) {
  const rank = rankOf(name);
  const suit = suitOf(name);
  if (suit === "m") return characters(rank);
  if (suit === "s") return bamboo(rank);
  return dots(rank);
}

/** The SVG of a tile (null: its back). */
export function tileSvg(name) {
  const back = name === null || name === undefined;
  return h(
    "svg",
    { viewBox: `0 0 ${W} ${H}`, class: "tile-svg", "aria-hidden": "true", focusable: "false" },
    back
      ? [
          h("rect", { key: "b", x: 1, y: 1, width: W - 2, height: H - 2, rx: 7, fill: "#1f8a5b", stroke: "#0f5a38", "stroke-width": 2 }),
          h("rect", { key: "i", x: 7, y: 7, width: W - 14, height: H - 14, rx: 4, fill: "none", stroke: "#8fd6b0", "stroke-width": 1.2, opacity: 0.7 }),
        ]
      : [
          h("rect", { key: "f", x: 1, y: 1, width: W - 2, height: H - 2, rx: 7, fill: "#fbf8ef", stroke: "#b9b09a", "stroke-width": 1.5 }),
          h("g", { key: "d" }, face(name)),
        ],
  );
}

/**
 * One tile. opts: {size: "l" | "m" | "s" | "xs" (small), mark: a class added ("claimed",
 * "chicken", "drawn", "win"), title, key}. A face-down tile (`name` null) shows its back.
 */
export function tile(name, opts = {}) {
  const back = name === null || name === undefined;
  const cls = ["tile", `size-${opts.size || "m"}`, back ? "back" : `suit-${suitOf(name)}`, opts.mark || ""].filter(Boolean).join(" ");
  return h(
    "span",
    {
      key: opts.key,
      class: cls,
      "data-testid": opts.testid || "tile",
      "data-tile": back ? "back" : name,
      title: opts.title ?? null,
      role: "img",
      "aria-label": back ? "🀫" : tileName(name, opts.lang || currentLang()),
    },
    tileSvg(name),
  );
}

/** A row of tiles from a list in notation (or an array of names). */
export function tileRow(tiles, opts = {}) {
  const names = Array.isArray(tiles) ? tiles : splitTiles(tiles);
  return names.map((n, i) => tile(n, { ...opts, key: i }));
}

/** Tiles sorted as the engine sorts them: 万, 条, 筒, then rank. */
export const sortTiles = (names) => [...names].sort((a, b) => kindOf(a) - kindOf(b));
