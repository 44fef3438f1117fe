// Pieces shared by every page: the header with its links, the in-page confirmation box and
// the styled "no such room" page.
import { h } from "./dom.js";
import { t, toggleLang } from "./i18n.js";

export function header(extra) {
  return h(
    "header",
    { class: "top" },
    h("a", { href: "/", class: "brand" }, t("title")),
    extra || null,
    h("a", { href: "/score", class: "nav", "data-testid": "nav-score" }, t("score_page")),
    h("button", { class: "lang", "data-testid": "lang-toggle", onclick: toggleLang }, t("lang")),
  );
}

/** A modal question with two buttons (a deliberate choice, never a stray tap). */
export function confirmBox(text, yes, onYes, onNo) {
  return h(
    "div",
    { class: "modal", "data-testid": "confirm" },
    h(
      "div",
      { class: "panel dialog" },
      h("p", {}, text),
      h(
        "div",
        { class: "dialog-buttons" },
        h("button", { class: "primary", "data-testid": "confirm-yes", onclick: onYes }, yes),
        h("button", { "data-testid": "confirm-no", onclick: onNo }, t("cancel")),
      ),
    ),
  );
}

/** The page for an unknown room, with the way back to the lobby. */
export function notFoundPage(roomId) {
  return h(
    "main",
    { class: "not-found" },
    h(
      "section",
      { class: "panel", "data-testid": "not-found" },
      h("h2", {}, t("not_found_title")),
      h("p", {}, t("not_found_text", { id: roomId })),
      h("a", { href: "/", class: "button primary", "data-testid": "back-lobby" }, t("back_lobby")),
    ),
  );
}
