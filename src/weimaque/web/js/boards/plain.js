// The board of a game that has none of its own (docs/web.md "Boards"): its seats laid out as
// the room's, each with its name and score, the game's view JSON as it comes (its own words),
// and its legal actions as buttons by their text. Playable, if plain, so that a game the
// server hosts is never a blank page.
import { h } from "../dom.js";
import { seatPositions } from "./common.js";

export const plain = {
  id: "plain",
  hints: false,
  replays: false,
  create(shell) {
    return new PlainBoard(shell);
  },
};

class PlainBoard {
  constructor(shell) {
    this.shell = shell;
  }

  render(s, env) {
    const n = env.seats || s.room?.seats?.length || 0;
    const pos = n >= 2 && n <= 4 ? seatPositions(n, env.bottom) : {};
    return h(
      "div",
      { class: "board plain-board", "data-testid": "board", "data-game": s.room?.game || "" },
      Array.from({ length: n }, (_, seat) =>
        h(
          "section",
          { key: seat, class: `seat ${pos[seat] || ""}`, "data-testid": `seat-${seat}`, "data-rel": pos[seat] || "" },
          h(
            "div",
            { class: "seat-head" },
            h("span", { class: "seat-name", "data-testid": "seat-name" }, env.label(seat)),
            ...(env.badges ? env.badges(seat) : []),
            env.clock ? env.clock(seat) : null,
            h("span", { class: "seat-score", "data-testid": "seat-score" }, String(env.score(seat))),
            env.bubble ? env.bubble(seat) : null,
          ),
        ),
      ),
      h(
        "div",
        { class: "centre" },
        h("pre", { class: "plain-view", "data-testid": "plain-view" }, JSON.stringify(s.obs, null, 1)),
        env.timer || null,
        env.notice || null,
      ),
      env.banner || null,
      env.mayAct
        ? h(
            "div",
            { class: "controls", "data-testid": "actions" },
            h(
              "div",
              { class: "buttons" },
              s.legal.map((a) =>
                h("button", { key: a.id, class: "act", "data-testid": "action", "data-action": a.text, disabled: !env.online, onclick: () => env.act(a.text) }, a.text),
              ),
            ),
          )
        : null,
    );
  }

  legend() {
    return null;
  }

  handEnd(end, opts) {
    return h(
      "section",
      { class: "panel result", "data-testid": "result" },
      h("h2", {}, opts.title),
      h("pre", { class: "plain-view" }, JSON.stringify(end.result ?? end, null, 1)),
    );
  }

  eventText(event) {
    return JSON.stringify(event);
  }

  cue() {
    return null;
  }

  ownDiscard() {
    return null;
  }
}

