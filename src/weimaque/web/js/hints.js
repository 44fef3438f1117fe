// 听 hints (games/maque/numbers.py hints): which discards leave the hand waiting and on what, with the
// totals by 自摸 / by another's card and the unseen copies left. Computed by the server from
// this seat's own view only.
import { h } from "./dom.js";
import { card } from "./cards.js";
import { t } from "./i18n.js";

const KEY = "wmq.hints";
/** Hints are on unless the player switched them off (remembered in this browser). */
export const hintsWanted = () => localStorage.getItem(KEY) !== "off";
export function setHintsWanted(on) {
  localStorage.setItem(KEY, on ? "on" : "off");
}

/** Faces whose discard leaves the hand 听 (to tag the hand's columns). */
export function hintFaces(hints) {
  return new Set((hints?.discards || []).map((d) => d.discard));
}

function waitItem(w) {
  return h(
    "li",
    { class: `wait${w.left ? "" : " dead"}`, "data-testid": "hint-wait", "data-face": w.face, "data-left": w.left },
    card(w.face, { size: "xs" }),
    h(
      "span",
      {},
      t("hint_wait", {
        face: "",
        left: w.left,
        self: w.self ?? "—",
        other: w.other ?? "—",
      }),
    ),
  );
}

/** The hint panel: what each discard waits on, or what wins now. */
export function hintsView(hints) {
  if (!hints) return null;
  const rows = [];
  if (hints.waits?.length) {
    rows.push(
      h(
        "div",
        { class: "hint-row", "data-testid": "hint-now" },
        h("span", { class: "hint-head" }, t("hint_now")),
        h("ul", {}, hints.waits.map(waitItem)),
      ),
    );
  }
  for (const d of hints.discards || []) {
    rows.push(
      h(
        "div",
        { class: "hint-row", "data-testid": "hint-discard", "data-discard": d.discard },
        h("span", { class: "hint-head" }, t("hint_discard", { face: d.discard })),
        h("ul", {}, d.waits.map(waitItem)),
      ),
    );
  }
  if (!rows.length) return null;
  return h("div", { class: "hints", "data-testid": "hints" }, rows);
}
