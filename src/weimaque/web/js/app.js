// Entry point: routes "/" to the lobby, "/r/{room_id}" to the room, "/score" to the 算息 page
// and any other path to the page that says there is nothing there.
import { h, mount } from "./dom.js";
import { onLangChange } from "./i18n.js";
import { startLobby } from "./lobby.js";
import { header, notFoundPage } from "./page.js";
import { startRoom } from "./room.js";
import { startScore } from "./score.js";
import "./install.js";

const app = document.getElementById("app");
app.replaceChildren(); // the "…" shown while the modules load; from here on the pages draw it
const path = location.pathname;
const roomMatch = path.match(/^\/r\/([^/]+)\/?$/);

function startNotFound() {
  const draw = () => mount(app, header(), h("main", { class: "not-found" }, notFoundPage(null, path)));
  onLangChange(draw);
  draw();
}

if (roomMatch) startRoom(app, decodeURIComponent(roomMatch[1]));
else if (path === "/score") startScore(app);
else if (path === "/" || path === "/index.html") startLobby(app);
else startNotFound();
