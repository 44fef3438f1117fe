// Entry point: routes "/" to the lobby, "/r/{room_id}" to the room, "/score" to the 算息 page,
// "/me" to the player's 战绩, "/clubs/{id}" to a 亲友圈, "/c/{code}" to an invitation, "/p/{code}"
// to a 回放码's replay (docs/protocol.md §7), and any other path to the page that says there is
// nothing there.
import { h, mount } from "./dom.js";
import { onLangChange } from "./i18n.js";
import { startLobby } from "./lobby.js";
import { header, notFoundPage } from "./page.js";
import { startRoom } from "./room.js";
import { startScore } from "./score.js";
import { startMe } from "./me.js";
import { startClub, startInvite } from "./clubs.js";
import { startReplayCode } from "./replaycode.js";
import "./install.js";

const app = document.getElementById("app");
app.replaceChildren(); // the "…" shown while the modules load; from here on the pages draw it
const path = location.pathname;
const roomMatch = path.match(/^\/r\/([^/]+)\/?$/);
const clubMatch = path.match(/^\/clubs\/([^/]+)\/?$/);
const inviteMatch = path.match(/^\/c\/([^/]+)\/?$/);
const replayMatch = path.match(/^\/p\/([^/]+)\/?$/);

function startNotFound() {
  const draw = () => mount(app, header(), h("main", { class: "not-found" }, notFoundPage(null, path)));
  onLangChange(draw);
  draw();
}

// The lobby opens a room it creates in the same document (lobby.js enterCreatedRoom): going
// back loads the page of the address gone back to.
window.addEventListener("popstate", () => location.reload());

if (roomMatch) startRoom(app, decodeURIComponent(roomMatch[1]));
else if (path === "/score") startScore(app);
else if (path === "/me" || path === "/me/") startMe(app);
else if (clubMatch) startClub(app, decodeURIComponent(clubMatch[1]));
else if (inviteMatch) startInvite(app, decodeURIComponent(inviteMatch[1]));
else if (replayMatch) startReplayCode(app, decodeURIComponent(replayMatch[1]));
else if (path === "/" || path === "/index.html") startLobby(app);
else startNotFound();
