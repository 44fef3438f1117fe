// What every board shares: the two-tap discard switch (docs/web.md "At the table").
// 出 by two taps (the first raises the tile, the second plays it), as the phone apps do: on by
// default on a touch screen, switched in the room's drawer and remembered on this device.
export const CONFIRM_KEY = "wmq.discardConfirm";

export function discardConfirmWanted() {
  const kept = localStorage.getItem(CONFIRM_KEY);
  if (kept) return kept === "on";
  return Boolean(window.matchMedia?.("(pointer: coarse)").matches);
}

export function setDiscardConfirm(on) {
  localStorage.setItem(CONFIRM_KEY, on ? "on" : "off");
}

/** Seat positions around a table of `n` seats for a viewer at `bottom`, in turn order from
 * the bottom: 2 seats face each other, 3 have 下家 on the right and 上家 on the left, 4 add the
 * seat across (对家) at the top. */
export function seatPositions(n, bottom) {
  const rel = { 2: ["bottom", "top"], 3: ["bottom", "right", "left"], 4: ["bottom", "right", "top", "left"] }[n];
  if (!rel) throw new Error(`a table of ${n} seats has no layout`);
  const out = {};
  rel.forEach((where, i) => {
    out[(bottom + i) % n] = where;
  });
  return out;
}
