// 再来一局 at other rules, for a game whose rules a page draws from its option schema (gameform.js,
// 三丁拐 and any game but 偎麻雀, whose lobby form is rules.js's): once a match is over the
// result's bar offers, beside 再来一局 (the same room, the same rules, docs/protocol.md §2.4),
// a new room of the same game with its rule form filled in at this room's rules (the preset and
// every option the room changed), the same bots in the same seats, the same timers; 开房间
// creates it (POST /api/rooms) and goes there, our seat the first left for a person.
import { h } from "./dom.js";
import { api } from "./net.js";
import { t } from "./i18n.js";
import { formState, overrides, ruleForm } from "./gameform.js";
import { enterCreatedRoom } from "./lobby.js";

/** The rule form's state at a room's rules (RoomInfo `rules`: {id, overrides}). */
export function stateOfRoom(schema, rules) {
  const state = formState(schema, rules?.id ?? null);
  Object.assign(state.values, rules?.overrides || {});
  return state;
}

/** The POST /api/rooms body of a new room like `room` (RoomInfo) at the form's rules. */
export function roomBody(game, room, state) {
  const bots = {};
  for (const x of room.seats || []) if (x.kind === "bot" && x.bot) bots[String(x.seat)] = x.bot;
  const body = {
    game: game.info.id,
    preset: state.preset,
    options: overrides(game.schema, state),
    bots,
    next_seconds: room.next_seconds ?? null,
    bot_delay_ms: room.bot_delay_ms ?? 400,
    public: Boolean(room.public),
  };
  // A room that asked for no timer asks again; else the timer in force.
  body.turn_seconds = room.no_timer_asked ? null : room.turn_seconds ?? null;
  return body;
}

/** How the rematch dialog lays out the options so that it fits the screen without scrolling in
 * itself: columns by the width, rows by the height left under its title, preset and buttons
 * (style.css sizes the rows to match: 30 px on a phone held sideways, 36 px elsewhere). */
export function optionsLayout(width = innerWidth, height = innerHeight) {
  const short = height <= 500;
  const cols = width >= 1000 ? 4 : width >= 700 ? 3 : width >= 480 ? 2 : 1;
  const rows = Math.max(3, Math.floor((height - (short ? 230 : 300)) / (short ? 30 : 36)));
  return { cols, perPage: cols * rows };
}

/**
 * The form, while open: `open(game, room)` fills it, `render()` draws it as a dialog (null when
 * closed). opts: {changed() (the page's redraw)}.
 */
export class RematchRules {
  constructor(opts) {
    this.opts = opts;
    this.form = null; // {game, room, state}
    this.error = null;
    this.busy = false;
    this.page = 0; // the page of options shown
    this.resized = () => this.opts.changed();
  }

  open(game, room) {
    this.form = { game, room, state: stateOfRoom(game.schema, room.rules) };
    this.error = null;
    this.page = 0;
    addEventListener("resize", this.resized);
    this.opts.changed();
  }

  close() {
    this.form = null;
    removeEventListener("resize", this.resized);
    this.opts.changed();
  }

  async submit() {
    const { game, room, state } = this.form;
    const body = roomBody(game, room, state);
    this.busy = true;
    this.error = null;
    this.opts.changed();
    try {
      const created = await api("/api/rooms", body);
      removeEventListener("resize", this.resized); // this room's page redraws no more
      enterCreatedRoom(created, body);
    } catch (err) {
      this.busy = false;
      this.error = t("error", { msg: err.message });
      this.opts.changed();
    }
  }

  render() {
    if (!this.form) return null;
    const { game, state } = this.form;
    const { cols, perPage } = optionsLayout();
    const page = {
      at: this.page,
      set: (i) => {
        this.page = i;
        this.opts.changed();
      },
    };
    return h(
      "div",
      { class: "modal", "data-testid": "rematch-rules" },
      h(
        "form",
        {
          class: "panel dialog create rematch-form",
          "data-testid": "rematch-form",
          "data-game": game.info.id,
          style: `--cols: ${cols}`,
          onsubmit: (e) => {
            e.preventDefault();
            this.submit();
          },
        },
        h("h2", {}, t("rematch_rules_title")),
        h("p", { class: "help" }, t("rematch_rules_help")),
        ruleForm({ schema: game.schema, state, changed: this.opts.changed, prefix: "rematch", perPage, page }),
        this.error ? h("p", { class: "error", "data-testid": "rematch-error" }, this.error) : null,
        h(
          "div",
          { class: "dialog-buttons" },
          h("button", { type: "submit", class: "primary", "data-testid": "rematch-create", disabled: this.busy }, t("create")),
          h("button", { type: "button", "data-testid": "rematch-cancel", onclick: () => this.close() }, t("cancel")),
        ),
      ),
    );
  }
}
