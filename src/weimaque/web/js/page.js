// Pieces shared by every page: the header with its links, the in-page confirmation box and
// the styled page for an unknown room or address.
import { h } from "./dom.js";
import { t, toggleLang } from "./i18n.js";
import { STRINGS } from "./strings.js";

// The name of the player this browser is signed in as (docs/protocol.md §7.1), kept by
// player.js whenever GET /api/me answers: the key itself is an HttpOnly cookie no script reads.
export const PLAYER_KEY = "wmq.player";

/** The name a page of `game` (an id; none: 偎麻雀's) goes by: the platform's own, or the game's
 * (`title_{id}` in strings.js, both languages: a 三丁拐 room says 三丁拐). */
export function gameTitle(game) {
  const key = `title_${game}`;
  return game && game !== "maque" && key in STRINGS.zh ? t(key) : t("title");
}

/** The page's top bar; `offline` turns it red (the connection is gone); `game` names the game
 * the page shows (a room's, a replay's), in the bar and the document's title. */
export function header(extra, offline = false, game = null) {
  // 战绩 for a signed-in player, except over a table (its bar is full: menu, sound, chat).
  const me = !extra && localStorage.getItem(PLAYER_KEY);
  const title = gameTitle(game);
  if (document.title !== title) document.title = title;
  return h(
    "header",
    { class: `top${offline ? " offline" : ""}` },
    h("a", { href: "/", class: "brand", "data-testid": "brand", "data-game": game || "maque" }, title),
    extra || null,
    me ? h("a", { href: "/me", class: "nav", "data-testid": "nav-me" }, t("me_page")) : null,
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

/** A page's open question, `ui.confirm` ({text, yes, onYes}), as a confirmBox; null when
 * there is none. Either answer closes it and redraws (`draw`). */
export function openConfirm(ui, draw) {
  const asked = ui.confirm;
  if (!asked) return null;
  const close = () => {
    ui.confirm = null;
    draw();
  };
  return confirmBox(asked.text, asked.yes, () => {
    ui.confirm = null;
    asked.onYes();
    draw();
  }, close);
}

/** The page for an unknown room (`roomId`) or an unknown address (`path`), with the way back. */
export function notFoundPage(roomId, path) {
  return h(
    "section",
    { class: "panel", "data-testid": "not-found" },
    h("h2", {}, roomId ? t("not_found_title") : t("no_page_title")),
    h("p", {}, roomId ? t("not_found_text", { id: roomId }) : t("no_page_text", { path })),
    h("a", { href: "/", class: "button primary", "data-testid": "back-lobby" }, t("back_lobby")),
  );
}

/** The player's name field (lobby and join panel): uncontrolled, so a redraw keeps what is typed. */
export function nameField(ref, testid, initial) {
  return h(
    "label",
    { class: "field" },
    h("span", {}, t("your_name")),
    h("input", {
      class: "name",
      ref,
      "data-testid": testid,
      placeholder: t("your_name"),
      maxlength: 24,
      defaultValue: initial,
      autocomplete: "nickname",
    }),
  );
}
