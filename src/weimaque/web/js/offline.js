// The page the service worker shows for a page asked for while the network is gone (sw.js):
// it says so in both languages and opens the page asked for again once the server answers.
import { h, mount } from "./dom.js";
import { currentLang, onLangChange, t } from "./i18n.js";
import { header } from "./page.js";
import { STRINGS } from "./strings.js";

const app = document.getElementById("app");
let tries = 0;
let timer = null;

// The other language under the current one: whoever holds the phone can read it.
const other = (key) => STRINGS[currentLang() === "zh" ? "en" : "zh"][key];

/** Ask the server; when it answers, open the page asked for again, else wait a little more. */
async function retry() {
  clearTimeout(timer);
  try {
    const res = await fetch("/api/health", { cache: "no-store" });
    if (res.ok) {
      location.reload();
      return;
    }
  } catch {
    // still offline
  }
  timer = setTimeout(retry, Math.min(8000, 1000 * 2 ** tries++));
}

function draw() {
  document.title = `${t("title")} · ${t("offline_title")}`;
  mount(
    app,
    header(null, true),
    h(
      "main",
      { class: "not-found" },
      h(
        "section",
        { class: "panel offline-page", "data-testid": "offline-page" },
        h("h2", {}, t("offline_title")),
        h("p", { class: "other-lang" }, other("offline_title")),
        h("p", {}, t("offline_text")),
        h("button", { class: "primary", "data-testid": "offline-retry", onclick: retry }, t("offline_retry")),
      ),
    ),
  );
}

app.replaceChildren();
onLangChange(draw);
draw();
window.addEventListener("online", () => {
  tries = 0;
  retry();
});
retry();
