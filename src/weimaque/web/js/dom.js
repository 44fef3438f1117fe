// Rendering: Preact (from the npm registry, src/weimaque/web/node_modules, served as it is).
// A page describes what it shows as a tree of h() calls and `mount` brings the DOM in line with
// it: a node that still stands for the same thing stays the same node, so a redraw keeps the
// focus, the caret, a text selection and the scroll position (docs/web.md).
import { createElement, createRef, Fragment, render } from "../node_modules/preact/dist/preact.mjs";

/** A handle on a node once it is drawn (`ref: r` in its attributes; `r.current`). */
export { createRef };

/**
 * Describe an element: h("div", {class: "x", "data-testid": "y", onclick: fn}, child, ...).
 * Children may be strings, numbers, trees, arrays (flattened) or null/false (skipped). A `key`
 * tells apart the items of a list whose items come and go.
 */
export function h(tag, attrs, ...children) {
  return createElement(tag, attrs || null, ...children);
}

/** Bring `parent`'s children in line with the tree (only what changed is touched). */
export function mount(parent, ...children) {
  render(createElement(Fragment, null, ...children), parent);
  return parent;
}

/** A small button with a test id: the common control of the room bar and the panels. */
export function button(testid, onclick, label, attrs = {}) {
  return h("button", { class: "small", "data-testid": testid, onclick, ...attrs }, label);
}
