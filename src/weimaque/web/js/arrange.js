// 理牌: the order the player gives their own hand (docs/web.md, "A hand the player arranges").
// The hand is a list of columns of faces. Until the player moves a card it is the sort (one
// column per face, small before big); once moved, the arrangement is kept per room and hand in
// sessionStorage and brought in line with the real hand on every redraw: cards gone leave their
// column, new cards go where the sort puts them, the moved ones stay. 自动理牌 asks the server's
// analysis (POST /api/tidy) to group the hand into 坎, 句 and pairs, once per change of the hand.
import { faceOrder, faces, groupHand } from "./cards.js";
import { api } from "./net.js";

/** The most cards one column holds: a drop on a full column starts a new one beside it. */
export const MAX_COLUMN = 4;
/** How far (px) a press moves before it is a drag and no longer a tap (a tap discards). */
const DRAG_PX = 8;
/** How long (ms) a press held still picks up the whole column. */
const HOLD_MS = 450;

export const AUTO_TIDY_KEY = "wmq.autotidy";
const layoutKey = (roomId, hand) => `wmq.arrange.${roomId}.${hand}`;

export const autoTidyWanted = () => localStorage.getItem(AUTO_TIDY_KEY) === "1";
export function setAutoTidy(on) {
  if (on) localStorage.setItem(AUTO_TIDY_KEY, "1");
  else localStorage.removeItem(AUTO_TIDY_KEY);
}

const sortedText = (text) => faces(text).sort((a, b) => faceOrder(a) - faceOrder(b)).join("");
const lead = (col) => Math.min(...col.faces.map(faceOrder));

/** The sort: one column per face, small before big (as groupHand shows the hand). */
export function sortedColumns(text) {
  const g = groupHand(text);
  return [...g.small, ...g.big].map(([f, n]) => ({ id: f, faces: Array(n).fill(f) }));
}

function freshId(cols, face) {
  const used = new Set(cols.map((c) => c.id));
  let k = 1;
  while (used.has(`${face}${k}`)) k++;
  return `${face}${k}`;
}

/** A new card goes where the sort puts it: onto a column of its face alone, or a new column. */
function placeNew(cols, face) {
  const same = cols.find((c) => c.faces.every((f) => f === face) && c.faces.length < MAX_COLUMN);
  if (same) {
    same.faces.push(face);
    return;
  }
  const at = cols.findIndex((c) => lead(c) > faceOrder(face));
  cols.splice(at < 0 ? cols.length : at, 0, { id: freshId(cols, face), faces: [face] });
}

/** Bring kept columns in line with the hand `text`: gone cards dropped, new ones placed. */
export function reconcile(columns, text) {
  const left = new Map();
  for (const f of faces(text)) left.set(f, (left.get(f) || 0) + 1);
  const out = [];
  for (const col of columns) {
    const kept = col.faces.filter((f) => {
      const n = left.get(f) || 0;
      if (!n) return false;
      left.set(f, n - 1);
      return true;
    });
    if (kept.length) out.push({ id: col.id, faces: kept });
  }
  const rest = [...left.entries()].filter(([, n]) => n > 0).sort((a, b) => faceOrder(a[0]) - faceOrder(b[0]));
  for (const [f, n] of rest) for (let i = 0; i < n; i++) placeNew(out, f);
  return out;
}

/** Columns from POST /api/tidy's answer: its groups in order, then the loose cards sorted. */
export function tidyColumns(answer) {
  const groups = answer.groups.map((g, i) => ({ id: `g${i}${g.cards}`, faces: faces(g.cards) }));
  return [...groups, ...sortedColumns(answer.loose)];
}

function valid(columns) {
  return (
    Array.isArray(columns) &&
    columns.every((c) => c && typeof c.id === "string" && Array.isArray(c.faces) && c.faces.every((f) => typeof f === "string"))
  );
}

/** The arrangement of our own hand in one room. `changed()` redraws the page. */
export class HandLayout {
  constructor(roomId, changed) {
    this.roomId = roomId;
    this.changed = changed;
    this.current = null; // {key, text, columns}: what the last redraw showed
    this.asked = null; // the sorted hand last sent to /api/tidy
  }

  load(key) {
    try {
      const columns = JSON.parse(sessionStorage.getItem(key) || "null");
      return valid(columns) ? columns : null;
    } catch {
      return null;
    }
  }

  save(key, columns) {
    const text = JSON.stringify(columns);
    if (sessionStorage.getItem(key) !== text) sessionStorage.setItem(key, text);
  }

  /** A new hand: the arrangements of this room's other hands are of no use any more. */
  forget(hand) {
    const prefix = layoutKey(this.roomId, "");
    const keep = layoutKey(this.roomId, hand);
    for (let i = sessionStorage.length - 1; i >= 0; i--) {
      const key = sessionStorage.key(i);
      if (key?.startsWith(prefix) && key !== keep) sessionStorage.removeItem(key);
    }
  }

  /** The columns to draw for hand number `hand` holding `text`. */
  columns(hand, text) {
    const key = layoutKey(this.roomId, hand);
    if (this.current?.key !== key) this.forget(hand);
    const kept = this.load(key);
    const columns = kept ? reconcile(kept, text) : sortedColumns(text);
    if (kept) this.save(key, columns);
    this.current = { key, text, columns };
    if (autoTidyWanted()) this.autoTidy(key, text);
    return columns;
  }

  /** 自动理牌: one request per change of the hand; the answer is kept as the arrangement. */
  autoTidy(key, text, again = false) {
    const want = `${key}:${sortedText(text)}`;
    if (!text || (this.asked === want && !again)) return;
    this.asked = want;
    api("/api/tidy", { hand: text }).then(
      (answer) => {
        const now = this.current;
        if (!now || now.key !== key || sortedText(now.text) !== sortedText(text)) return;
        this.save(key, reconcile(tidyColumns(answer), text));
        this.changed();
      },
      () => {}, // no grouping: the hand stays as it is
    );
  }

  /** 理牌: back to the sort (or, with 自动理牌 on, to the server's grouping). */
  reset() {
    const now = this.current;
    if (!now) return;
    sessionStorage.removeItem(now.key);
    if (autoTidyWanted()) this.autoTidy(now.key, now.text, true);
    this.changed();
  }

  /** Keep `columns` (a changed copy of the current ones) as the arrangement and redraw. */
  commit(columns) {
    const now = this.current;
    if (!now) return;
    const clean = columns.filter((c) => c.faces.length);
    this.save(now.key, clean);
    this.current = { ...now, columns: clean };
    this.changed();
  }

  copy() {
    return (this.current?.columns || []).map((c) => ({ id: c.id, faces: [...c.faces] }));
  }

  /** Move the card at column `col`, place `pos` into column `to` at `at`, or (to < 0) into a
   * new column at index `at`. */
  moveCard(col, pos, to, at) {
    const cols = this.copy();
    const from = cols[col];
    if (!from || pos >= from.faces.length) return;
    const [face] = from.faces.splice(pos, 1);
    if (to >= 0 && cols[to] && (cols[to] === from || cols[to].faces.length < MAX_COLUMN)) {
      cols[to].faces.splice(Math.min(at, cols[to].faces.length), 0, face);
    } else {
      // A new column, or a full one: the card stands alone beside it.
      const index = to >= 0 ? to + 1 : at;
      cols.splice(Math.max(0, Math.min(index, cols.length)), 0, { id: freshId(cols, face), faces: [face] });
    }
    this.commit(cols);
  }

  /** Move the whole column `col` to index `at` (counted before the move). */
  moveColumn(col, at) {
    const cols = this.copy();
    if (!cols[col]) return;
    const [moved] = cols.splice(col, 1);
    cols.splice(at > col ? at - 1 : at, 0, moved);
    this.commit(cols);
  }
}

// ---- dragging (pointer events: mouse and touch alike)

function columnsOf(hand) {
  return [...hand.querySelectorAll("[data-testid=hand-col]")];
}

/** Where a drop at (x, y) lands: over a column, or between columns (a new column there). */
function dropTarget(hand, x, y, whole) {
  const cols = columnsOf(hand);
  const box = hand.getBoundingClientRect();
  const slack = 40; // a drop a little above or below the hand still counts
  if (x < box.left - slack || x > box.right + slack || y < box.top - slack * 2 || y > box.bottom + slack) return null;
  const before = cols.findIndex((c) => {
    const r = c.getBoundingClientRect();
    return x < r.left + r.width / 2;
  });
  const between = before < 0 ? cols.length : before;
  if (whole) return { col: -1, at: between };
  const over = cols.findIndex((c) => {
    const r = c.getBoundingClientRect();
    return x >= r.left && x <= r.right;
  });
  if (over < 0) return { col: -1, at: between };
  const cards = [...cols[over].querySelectorAll("[data-pos]")];
  const at = cards.findIndex((c) => {
    const r = c.getBoundingClientRect();
    return y < r.top + Math.min(r.height / 2, 24);
  });
  return { col: over, at: at < 0 ? cards.length : at };
}

function ghostOf(node, rect) {
  const ghost = node.cloneNode(true);
  ghost.removeAttribute("data-testid");
  for (const n of ghost.querySelectorAll("[data-testid]")) n.removeAttribute("data-testid");
  ghost.classList.add("drag-ghost");
  Object.assign(ghost.style, { left: `${rect.left}px`, top: `${rect.top}px`, width: `${rect.width}px` });
  document.body.append(ghost);
  return ghost;
}

/**
 * Let the player drag cards and columns of their own hand (`.hand.arrangeable` under `root`).
 * A press that moves less than DRAG_PX is a tap and stays a click (出); one that moves drags
 * the pressed card; one held still for HOLD_MS picks up the whole column.
 */
export function installHandDrag(root, layout) {
  let press = null; // {x, y, col, pos, node, colNode, hand, mode: "press"|"card"|"column", ghost, timer, dx, dy}
  let eatClick = false;

  function lift(mode) {
    const node = mode === "column" ? press.colNode : press.node;
    const rect = node.getBoundingClientRect();
    press.mode = mode;
    press.dx = press.x - rect.left;
    press.dy = press.y - rect.top;
    press.ghost = ghostOf(node, rect);
    press.lifted = node;
    node.style.opacity = "0.3";
    document.body.dataset.dragging = mode;
  }

  function end() {
    if (!press) return;
    clearTimeout(press.timer);
    press.ghost?.remove();
    if (press.lifted) press.lifted.style.opacity = "";
    delete document.body.dataset.dragging;
    press = null;
  }

  root.addEventListener("pointerdown", (e) => {
    if (e.button !== 0 || press) return;
    const node = e.target.closest?.(".hand.arrangeable [data-pos]");
    if (!node) return;
    const colNode = node.closest("[data-testid=hand-col]");
    press = {
      x: e.clientX,
      y: e.clientY,
      col: Number(colNode.dataset.col),
      pos: Number(node.dataset.pos),
      face: node.dataset.face,
      node,
      colNode,
      hand: node.closest(".hand"),
      mode: "press",
      pointer: e.pointerId,
    };
    press.timer = setTimeout(() => {
      if (press?.mode !== "press") return;
      if (press.colNode.isConnected) lift("column");
      else end(); // the hand was redrawn without it
    }, HOLD_MS);
  });

  window.addEventListener("pointermove", (e) => {
    if (!press || e.pointerId !== press.pointer) return;
    if (press.mode === "press") {
      if (Math.hypot(e.clientX - press.x, e.clientY - press.y) < DRAG_PX) return;
      clearTimeout(press.timer);
      lift("card");
    }
    e.preventDefault();
    press.ghost.style.left = `${e.clientX - press.dx}px`;
    press.ghost.style.top = `${e.clientY - press.dy}px`;
  });

  window.addEventListener("pointerup", (e) => {
    if (!press || e.pointerId !== press.pointer) return;
    const { mode, hand, col, pos, face } = press;
    end();
    if (mode === "press") return; // a tap: the click that follows discards
    eatClick = true; // the click a drag ends with is no 出
    setTimeout(() => (eatClick = false), 0);
    // The hand changed under the drag (a claim of ours, 自动理牌's answer): nothing to move.
    if (!hand.isConnected || layout.current?.columns[col]?.faces[pos] !== face) return;
    const target = dropTarget(hand, e.clientX, e.clientY, mode === "column");
    if (!target) return;
    if (mode === "column") layout.moveColumn(col, target.at);
    else if (target.col === col) {
      const at = target.at > pos ? target.at - 1 : target.at;
      if (at !== pos) layout.moveCard(col, pos, col, at);
    } else layout.moveCard(col, pos, target.col, target.at);
  });

  window.addEventListener("pointercancel", end);
  root.addEventListener(
    "click",
    (e) => {
      if (!eatClick) return;
      eatClick = false;
      e.preventDefault();
      e.stopPropagation();
    },
    true,
  );
  root.addEventListener("contextmenu", (e) => {
    if (e.target.closest?.(".hand.arrangeable")) e.preventDefault(); // a long press picks up a column
  });
}
