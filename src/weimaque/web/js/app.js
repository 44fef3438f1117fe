// Entry point: routes "/" to the lobby, "/r/{room_id}" to the room and "/score" to the 算息
// page.
import { h, mount } from "./dom.js";
import { onLangChange } from "./i18n.js";
import { renderLobby } from "./lobby.js";
import { header } from "./page.js";
import { autositKey, inviteKey, noTimerKey, startRoom } from "./room.js";
import { renderScorePage } from "./score.js";

const app = document.getElementById("app");
const roomMatch = location.pathname.match(/^\/r\/([^/]+)/);

function startLobby() {
  const body = h("main", { class: "lobby" });
  const draw = () => {
    mount(app, header(), body);
    renderLobby(body, (res, req) => {
      // The creator sits at the first seat left for a person (none: watches the bots).
      const human = [0, 1, 2].find((s) => !(String(s) in req.bots));
      if (human !== undefined) sessionStorage.setItem(autositKey(res.room_id), String(human));
      // Shown once by the server: the 守醒 invitation stays with the creator's browser.
      if (res.shouxing_invite) localStorage.setItem(inviteKey(res.room_id), res.shouxing_invite);
      if (req.turn_seconds === null) sessionStorage.setItem(noTimerKey(res.room_id), "1");
      location.assign(res.url);
    });
  };
  onLangChange(draw);
  draw();
}

function startScore() {
  const body = h("main", { class: "score-page" });
  const draw = () => {
    mount(app, header(), body);
    renderScorePage(body);
  };
  onLangChange(draw);
  draw();
}

if (roomMatch) startRoom(app, decodeURIComponent(roomMatch[1]));
else if (location.pathname === "/score") startScore();
else startLobby();
