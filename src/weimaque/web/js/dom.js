// Tiny DOM helpers: one place to build elements so the render modules stay declarative.

/**
 * Build an element: h("div", {class: "x", "data-testid": "y", onclick: fn}, child, ...).
 * Children may be strings, nodes, arrays (flattened) or null/false (skipped).
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2), value);
    } else if (key === "class") {
      el.className = value;
    } else if (key === "dataset") {
      Object.assign(el.dataset, value);
    } else if (value === true) {
      el.setAttribute(key, "");
    } else {
      el.setAttribute(key, String(value));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * Replace all children of a node. A redraw must not take the keyboard from a player who is typing:
 * the focused control (found again by its test id) gets focus and caret back.
 */
export function mount(parent, ...children) {
  const active = document.activeElement;
  const id = active && parent.contains(active) ? active.getAttribute("data-testid") : null;
  const caret = id && typeof active.selectionStart === "number" ? [active.selectionStart, active.selectionEnd] : null;
  parent.replaceChildren();
  append(parent, children);
  if (id) {
    const again = parent.querySelector(`[data-testid="${CSS.escape(id)}"]`);
    if (again) {
      again.focus();
      if (caret && typeof again.setSelectionRange === "function") again.setSelectionRange(...caret);
    }
  }
  return parent;
}

/** A small button with a test id: the common control of the room bar and the panels. */
export function button(testid, onclick, label, attrs = {}) {
  return h("button", { class: "small", "data-testid": testid, onclick, ...attrs }, label);
}
