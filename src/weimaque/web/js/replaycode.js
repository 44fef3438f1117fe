// A 回放码's page (/p/{code}, docs/protocol.md §7.4): GET /api/replays/{code} gives the hand's
// record, its steps and who sat where (never the room: a code opens its own hand only), and
// the room's replay viewer (replay.js) shows them, from above or from any seat, drawn by the
// board of the game the record names.
import { h, mount } from "./dom.js";
import { api } from "./net.js";
import { onLangChange, t } from "./i18n.js";
import { header } from "./page.js";
import { botLevel } from "./bots.js";
import { Replay } from "./replay.js";
import { loadPresets } from "./rules.js";
import { failure, formatCode, loadMe } from "./player.js";

export function startReplayCode(app, code) {
  const ui = { replay: null, seats: [], error: null, copied: false, game: null };

  /** A seat's name as the hand's end found it (a bot by its level), else 1号位. */
  function label(seat) {
    const held = ui.seats.find((s) => s.seat === seat);
    if (held?.bot) return t("bot_named", { n: seat + 1, level: botLevel(held.bot) });
    return held?.name || t("seat_n", { n: seat + 1 });
  }

  /** 第 N 局 (of the match's, when it was not the room's first match). */
  function handTitle(data) {
    return data.match > 1 ? t("match_hand_n", { m: data.match, n: data.number }) : t("hand_n", { n: data.number });
  }

  async function load() {
    let data;
    try {
      data = await api(`/api/replays/${encodeURIComponent(code)}`);
    } catch (err) {
      ui.error = err.status === 404 ? t("replay_code_bad") : failure(err);
      draw();
      return;
    }
    ui.seats = data.seats || [];
    // Our own seat at the bottom, when we played this hand.
    const me = await loadMe().catch(() => null);
    const mine = me ? ui.seats.find((x) => x.player_id && x.player_id === me.player.id) : null;
    ui.game = typeof data.record?.game === "string" ? data.record.game : null;
    ui.replay = new Replay(null, data.number, {
      label,
      game: ui.game,
      title: () => handTitle(data),
      bottom: mine ? mine.seat : 0,
      loaded: data,
      reviewPath: `/api/replays/${encodeURIComponent(code)}/review`,
      changed: draw,
      onClose: () => location.assign("/"),
    });
    draw();
  }

  function shareLine() {
    const url = `${location.origin}/p/${encodeURIComponent(code)}`;
    const copy = async () => {
      try {
        await navigator.clipboard.writeText(url);
        ui.copied = true;
      } catch {
        document.querySelector("[data-testid=replay-link]")?.select();
      }
      draw();
    };
    return h(
      "div",
      { class: "share replay-share" },
      h("span", {}, t("replay_code"), " ", h("strong", { "data-testid": "replay-code" }, formatCode(code))),
      h("input", { readonly: true, value: url, "data-testid": "replay-link", onfocus: (e) => e.target.select() }),
      h("button", { class: "small", "data-testid": "replay-copy", onclick: copy }, ui.copied ? t("copied") : t("copy")),
    );
  }

  function draw() {
    let body;
    if (ui.error) {
      body = h(
        "section",
        { class: "panel", "data-testid": "not-found" },
        h("h2", {}, t("replay_code_bad_title")),
        h("p", {}, ui.error),
        h("a", { href: "/", class: "button primary", "data-testid": "back-lobby" }, t("back_lobby")),
      );
    } else if (!ui.replay) body = h("p", { class: "loading" }, "…");
    else body = [shareLine(), ui.replay.render()];
    mount(app, header(null, false, ui.game), h("main", { class: `replay-page${ui.error ? " not-found" : ""}`, "data-testid": "replay-page" }, body));
  }

  onLangChange(draw);
  draw();
  // The presets name the 名堂 of the breakdown at the end.
  loadPresets().then(draw, () => {});
  load();
}
