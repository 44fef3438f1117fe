// 亲友圈 (docs/protocol.md §7.5). The club's page (/clubs/{id}): its name, the members (online
// or not, their role), those waiting for approval (同意 / 移除, for admins), an invitation's code
// and link (one use by default, or as many as the admin chooses), the invitations still good
// with 撤销 (admins), its open tables with one-tap 加入, 开桌 at the club's rules (admins), the leaderboard
// over a chosen period, and 退出亲友圈. The invitation's page (/c/{code}) joins the club, then
// goes to it, or says the club's admins must approve first.
import { button, h, mount } from "./dom.js";
import { api } from "./net.js";
import { onLangChange, presetName, t } from "./i18n.js";
import { header, openConfirm } from "./page.js";
import { loadPresets, rulesSummary } from "./rules.js";
import { formState, gameOf, loadGames, named, overrides, ruleForm } from "./gameform.js";
import { botLevel, botTitle, byLevel } from "./bots.js";
import { signed } from "./table.js";
import { autositKey } from "./room.js";
import { enterCreatedRoom } from "./lobby.js";

/** 偎麻雀 options of a table of four persons (RULES §2.1.1, §2.1.2), chosen in the lobby only. */
const PERSONS_ONLY = new Set(["shouxing_rotation", "shouxing_sees"]);
import { failure, formatCode, PlayerBar, periodSelect, roleName, variantQuery, variantSelect } from "./player.js";

const ADMINS = new Set(["owner", "admin"]);
// A leaderboard's "all time" (§7.5 takes 1..3650 days).
const ALL_DAYS = "3650";

/** The club's page, /clubs/{id}. */
export function startClub(app, clubId) {
  const ui = {
    club: undefined, // undefined: loading; null: no such club (or not ours to see, §7.6)
    presets: null,
    days: "30",
    board: null,
    variant: "", // the leaderboard's variant (variantKey), "" for every one summed
    invite: null, // {code, url, expires}
    invites: null, // the invitations still good (admins): [{id, created, expires, max_uses, uses}]
    inviteUses: "1",
    tableForm: false, // the 开桌 form is open
    games: null, // GET /api/games (gameform.js)
    rules: null, // the club's rules being edited (admins): {game, form: {preset, values}}
    busy: false,
    confirm: null,
    toast: null,
  };
  const base = `/api/clubs/${encodeURIComponent(clubId)}`;
  const bar = new PlayerBar({ changed: () => draw(), onSignedIn: () => load() });
  const isAdmin = () => ADMINS.has(ui.club?.role);
  const myId = () => bar.me?.player.id;

  function say(err) {
    ui.toast = failure(err);
    draw();
  }

  async function load(withBoard = true) {
    try {
      ui.club = (await api(base)).club;
    } catch (err) {
      if (err.status === 404) ui.club = null;
      else if (err.status === 401) {
        ui.club = undefined;
        await bar.load(true);
      } else say(err);
    }
    draw();
    if (ui.club && withBoard) loadBoard();
    if (ui.club && isAdmin()) loadInvites();
  }

  async function loadInvites() {
    try {
      ui.invites = (await api(`${base}/invites`)).invites;
    } catch (err) {
      say(err);
    }
    draw();
  }

  async function revokeInvite(id) {
    try {
      await api(`${base}/invites/${encodeURIComponent(id)}`, undefined, "DELETE");
      if (ui.invite?.id === id) ui.invite = null;
    } catch (err) {
      say(err);
    }
    await loadInvites();
  }

  async function loadBoard() {
    try {
      const query = `?days=${ui.days || ALL_DAYS}${variantQuery(ui.variant)}`;
      ui.board = await api(`${base}/leaderboard${query}`);
    } catch (err) {
      say(err);
    }
    draw();
  }

  async function member(playerId, action) {
    try {
      await api(`${base}/members/${encodeURIComponent(playerId)}`, { action });
      await load();
    } catch (err) {
      say(err);
    }
  }

  async function makeInvite() {
    try {
      ui.invite = await api(`${base}/invites`, { uses: Number(ui.inviteUses) });
    } catch (err) {
      say(err);
    }
    await loadInvites();
  }

  async function setApproval(on) {
    try {
      ui.club = (await api(base, { approval: on }, "PATCH")).club ?? ui.club;
      await load();
    } catch (err) {
      say(err);
    }
  }

  /**
   * The schema a club's rule form offers for a game. 偎麻雀's rooms set only the options of
   * `GET /api/presets` `room_options` (docs/protocol.md §1: 人数 `players` and the table of two,
   * RULES §2.5; 逗溜子 `liuzi_when`, §8.5.1; …), so its form offers those, with every preset
   * (the app tiers 全名堂 / 钻石 / 至尊 of §7.4 and the tables of two among them), as the lobby does.
   */
  function clubSchema(game) {
    const allowed = ui.presets?.room_options;
    if (game.info.id !== "maque" || !allowed) return game.schema;
    // Four persons with a rotating 守醒 (RULES §2.1.1) are seated by person, from the lobby's
    // 人数; a club's 开桌 seats its members by seat, so its form leaves them out.
    const offered = (o) => o.key in allowed && !PERSONS_ONLY.has(o.key);
    return { ...game.schema, options: game.schema.options.filter(offered) };
  }

  /** An admin edits the club's rules: the form of the game's schema at the club's rules. */
  function editRules() {
    const rules = ui.club.rules || {};
    const game = gameOf(ui.games, rules.game || "maque");
    if (!game) return;
    const form = formState(clubSchema(game), rules.preset || rules.variant || null);
    Object.assign(form.values, rules.options || {});
    ui.rules = { game: game.info.id, form };
    draw();
  }

  /** PATCH the club's rules: the game (when not 偎麻雀), the preset and the options changed. */
  async function saveRules() {
    const game = gameOf(ui.games, ui.rules.game);
    const rules = { preset: ui.rules.form.preset, options: overrides(clubSchema(game), ui.rules.form) };
    if (ui.rules.game !== "maque") rules.game = ui.rules.game;
    try {
      ui.club = (await api(base, { rules }, "PATCH")).club ?? ui.club;
      ui.rules = null;
      await load();
    } catch (err) {
      say(err);
    }
  }

  function rulesEditor() {
    if (!ui.rules) return null;
    const game = gameOf(ui.games, ui.rules.game);
    return h(
      "div",
      { class: "club-rules-form", "data-testid": "club-rules-form" },
      ui.games.games.length > 1
        ? h(
            "label",
            { class: "field" },
            h("span", {}, t("game")),
            h(
              "select",
              {
                "data-testid": "club-game",
                onchange: (e) => {
                  const g = gameOf(ui.games, e.target.value);
                  ui.rules = { game: g.info.id, form: formState(clubSchema(g), null) };
                  draw();
                },
              },
              ui.games.games.map((g) => h("option", { key: g.info.id, value: g.info.id, selected: g.info.id === ui.rules.game }, named(g.info.names))),
            ),
          )
        : null,
      ruleForm({ schema: clubSchema(game), state: ui.rules.form, changed: draw, prefix: "club", open: true }),
      h(
        "div",
        { class: "dialog-buttons" },
        button("club-rules-save", saveRules, t("club_rules_save"), { class: "primary" }),
        button("club-rules-cancel", () => { ui.rules = null; draw(); }, t("cancel")),
      ),
    );
  }

  async function leave() {
    try {
      await api(`${base}/leave`, {});
      location.assign("/");
    } catch (err) {
      say(err);
    }
  }

  /** 开桌: POST /api/clubs/{id}/tables, the club's rules filling what the body leaves out. */
  async function openTable(form) {
    const bots = {};
    for (let seat = 1; seat < tableSeats(); seat++) {
      const kind = form.elements[`seat${seat}`].value;
      if (kind) bots[String(seat)] = kind;
    }
    const body = { bots, bot_delay_ms: Number(form.elements.bot_delay_ms.value) };
    // A length other than the club's: the club's options with that one changed, so whether the
    // server merges `options` or takes them whole, the club's other rules hold.
    const hands = Number.parseInt(form.elements.match_hands.value, 10);
    if (hands > 0 && hands !== clubHands()) {
      const rules = ui.club.rules || {};
      if (rules.preset) body.preset = rules.preset;
      body.options = { ...(rules.options || {}), match_hands: hands };
    }
    ui.busy = true;
    draw();
    try {
      enterCreatedRoom(await api(`${base}/tables`, body), body);
    } catch (err) {
      ui.busy = false;
      say(err);
    }
  }

  function ask(text, yes, onYes) {
    ui.confirm = { text, yes, onYes };
    draw();
  }

  // ---- pieces

  function headPanel(club) {
    return h(
      "section",
      { class: "panel club-head", "data-testid": "club-head" },
      h(
        "div",
        { class: "panel-head" },
        h("h2", { "data-testid": "club-name" }, club.name),
        h("span", { class: "badge role", "data-testid": "club-role", "data-role": club.role }, roleName(club.role)),
      ),
      club.rules ? h("p", { class: "rules-line", "data-testid": "club-rules" }, h("span", { class: "label" }, t("club_rules")), clubRules(club.rules)) : null,
      isAdmin() && ui.games && ui.presets && !ui.rules ? button("club-rules-edit", editRules, t("club_rules_edit"), { class: "small" }) : null,
      isAdmin() ? rulesEditor() : null,
      isAdmin()
        ? h(
            "label",
            { class: "check" },
            h("input", { type: "checkbox", checked: Boolean(club.approval), "data-testid": "club-approval-toggle", onchange: (e) => setApproval(e.target.checked) }),
            t("club_approval"),
          )
        : club.approval
          ? h("p", { class: "help" }, t("club_approval_on"))
          : null,
      club.role === "pending" ? h("p", { class: "help", "data-testid": "club-waiting" }, t("club_pending")) : null,
    );
  }

  /** The club's rules (a POST /api/rooms body) as the room's rules line says them. */
  function clubRules(rules) {
    const other = rules.game && rules.game !== "maque" ? gameOf(ui.games, rules.game) : null;
    if (other) {
      const p = other.schema.presets.find((x) => x.id === (rules.preset || rules.variant)) || other.schema.presets[0];
      const changed = Object.entries(rules.options || {}).map(([k, v]) => `${k}=${v}`).join(" ");
      return `${named(other.info.names)} · ${named(p.names)}${changed ? ` · ${changed}` : ""}`;
    }
    const id = rules.preset || rules.variant || ui.presets?.default || "";
    const preset = ui.presets?.presets.find((p) => p.id === id);
    // A table of two (`anxiang-2p`, RULES §2.5) is a variant of the game's schema, not a preset.
    const variant = gameOf(ui.games, "maque")?.schema.presets.find((p) => p.id === id);
    const name = preset ? presetName(preset) : variant ? named(variant.names) : id;
    return rulesSummary({ id, name, overrides: rules.options || {} });
  }

  function memberRow(m, club) {
    const owner = club.role === "owner";
    const self = m.player.id === myId();
    const actions = [];
    if (isAdmin() && m.role !== "owner" && !self && (owner || m.role === "member")) {
      actions.push(button("member-remove", () => ask(t("remove_confirm", { who: m.player.name }), t("remove"), () => member(m.player.id, "remove")), t("remove")));
    }
    if (owner && m.role === "member") actions.push(button("member-admin", () => member(m.player.id, "admin"), t("make_admin")));
    if (owner && m.role === "admin") actions.push(button("member-unadmin", () => member(m.player.id, "member"), t("take_admin")));
    return h(
      "li",
      { key: m.player.id, class: "member", "data-testid": "member-entry", "data-player": m.player.id, "data-role": m.role, "data-online": m.online ? "true" : "false" },
      h("span", { class: `online-dot${m.online ? " on" : ""}`, "data-testid": "online-dot", title: m.online ? t("online") : t("offline") }),
      h("span", { class: "member-name" }, m.player.name),
      m.role === "member" ? null : h("span", { class: `badge role ${m.role}` }, roleName(m.role)),
      actions.length ? h("span", { class: "member-actions" }, actions) : null,
    );
  }

  function membersPanel(club) {
    const pending = club.pending || [];
    return h(
      "section",
      { class: "panel club-members", "data-testid": "club-members" },
      h("h2", {}, t("members_n", { n: club.members.length })),
      h("ul", { class: "members", "data-testid": "member-list" }, club.members.map((m) => memberRow(m, club))),
      isAdmin() && pending.length
        ? h(
            "div",
            { class: "pending", "data-testid": "pending-list" },
            h("h3", {}, t("pending_n", { n: pending.length })),
            h(
              "ul",
              { class: "members" },
              pending.map((m) =>
                h(
                  "li",
                  { key: m.player.id, class: "member", "data-testid": "pending-entry", "data-player": m.player.id },
                  h("span", { class: "member-name" }, m.player.name),
                  h(
                    "span",
                    { class: "member-actions" },
                    button("pending-approve", () => member(m.player.id, "approve"), t("approve"), { class: "small primary" }),
                    button("pending-remove", () => member(m.player.id, "remove"), t("remove")),
                  ),
                ),
              ),
            ),
          )
        : null,
      isAdmin() ? inviteBox() : null,
    );
  }

  /** How many joins a new invitation allows (§7.5: 1 by default). */
  function usesSelect() {
    return h(
      "label",
      { class: "invite-uses" },
      t("invite_uses"),
      " ",
      h(
        "select",
        {
          "data-testid": "invite-uses",
          value: ui.inviteUses,
          onchange: (e) => {
            ui.inviteUses = e.target.value;
          },
        },
        ["1", "5", "20", "100"].map((n) => h("option", { value: n }, n)),
      ),
    );
  }

  /** The invitations still good, each with 撤销 (their codes are not kept: only the new one shows). */
  function liveInvites() {
    if (!ui.invites?.length) return null;
    const when = (s) => new Date(s * 1000).toLocaleString(document.documentElement.lang);
    return h(
      "div",
      { class: "invites", "data-testid": "invites" },
      h("span", { class: "help" }, t("invites_live")),
      h(
        "ul",
        { class: "members" },
        ui.invites.map((i) =>
          h(
            "li",
            { key: i.id, class: "member", "data-testid": "invite-entry", "data-invite": i.id },
            h("span", { class: "member-name" }, t("invite_uses_left", { used: i.uses, uses: i.max_uses })),
            h("span", { class: "muted" }, t("invite_until", { when: when(i.expires) })),
            h("span", { class: "member-actions" }, button("invite-revoke", () => revokeInvite(i.id), t("invite_revoke"))),
          ),
        ),
      ),
    );
  }

  function inviteBox() {
    return h("div", {}, newInvite(), liveInvites());
  }

  function newInvite() {
    const inv = ui.invite;
    if (!inv) {
      return h(
        "div",
        { class: "invite" },
        usesSelect(),
        button("invite-create", makeInvite, t("invite"), { class: "small primary" }),
        h("span", { class: "help" }, t("invite_help")),
      );
    }
    const link = new URL(inv.url, location.origin).href;
    const copy = async () => {
      try {
        await navigator.clipboard.writeText(link);
        ui.toast = t("copied");
      } catch {
        document.querySelector("[data-testid=invite-link]")?.select();
      }
      draw();
    };
    return h(
      "div",
      { class: "invite open", "data-testid": "invite" },
      h("span", {}, t("invite_code")),
      h("strong", { class: "invite-code", "data-testid": "invite-code", "data-code": inv.code }, formatCode(inv.code)),
      h(
        "div",
        { class: "share" },
        h("input", { readonly: true, value: link, "data-testid": "invite-link", onfocus: (e) => e.target.select() }),
        button("invite-copy", copy, t("copy")),
      ),
      h("span", { class: "help" }, t("invite_until", { when: new Date(inv.expires * 1000).toLocaleString(document.documentElement.lang) })),
    );
  }

  /** A seat of an open table: who sits there (or 空位). */
  function seatText(x) {
    if (x.kind === "bot") return t("bot_named", { n: x.seat + 1, level: botLevel(x.bot) });
    return x.taken ? x.name || t("player_n", { n: x.seat + 1 }) : t("empty");
  }

  /** 加入: to the room, sitting at once at the first free seat (the room's autosit). */
  function join(room, seat) {
    if (seat !== undefined) sessionStorage.setItem(autositKey(room.room_id), String(seat));
    location.assign(`/r/${encodeURIComponent(room.room_id)}`);
  }

  function tableRow(room) {
    const mine = room.seats.find((x) => x.player_id && x.player_id === myId());
    const free = room.seats.find((x) => x.kind === "human" && !x.taken);
    const status = room.status === "waiting" ? t("table_waiting") : t("table_playing");
    return h(
      "li",
      { key: room.room_id, class: "table-entry", "data-testid": "table-entry", "data-room": room.room_id },
      h("span", { class: "table-status" }, status),
      h("span", { class: "table-seats" }, room.seats.map((x) => h("span", { key: x.seat, class: `seat-chip${x.taken ? "" : " free"}` }, seatText(x)))),
      mine
        ? button("table-back", () => join(room), t("table_back"), { class: "small primary" })
        : free
          ? button("table-join", () => join(room, free.seat), t("table_join"), { class: "small primary" })
          : button("table-watch", () => join(room), t("spectate")),
    );
  }

  /** The length of the club's matches: its rules', else its preset's. */
  function clubHands() {
    const rules = ui.club?.rules || {};
    const game = otherGame();
    if (game) {
      const preset = game.schema.presets.find((p) => p.id === (rules.preset || rules.variant)) || game.schema.presets[0];
      return rules.options?.match_hands ?? preset.options.match_hands ?? null;
    }
    const id = rules.preset || rules.variant || ui.presets?.default;
    const variant = gameOf(ui.games, "maque")?.schema.presets.find((p) => p.id === id);
    return rules.options?.match_hands ?? ui.presets?.presets.find((p) => p.id === id)?.options.match_hands ?? variant?.options.match_hands ?? null;
  }

  /** The club's game (its rules' `game`) when it is not 偎麻雀, with its schema and bots. */
  function otherGame() {
    const id = ui.club?.rules?.game;
    return id && id !== "maque" ? gameOf(ui.games, id) : null;
  }

  /** How many seats the club's tables have: its game's preset's table; 偎麻雀's, its `players`
   * (RULES §2.5: two or three), else its preset's (`anxiang-2p`: two), else three. */
  function tableSeats() {
    const game = otherGame();
    if (!game) {
      const rules = ui.club?.rules || {};
      const id = rules.preset || rules.variant;
      const variant = gameOf(ui.games, "maque")?.schema.presets.find((p) => p.id === id);
      return rules.options?.players ?? variant?.options.players ?? variant?.shape?.seats ?? 3;
    }
    const rules = ui.club.rules;
    const preset = game.schema.presets.find((p) => p.id === (rules.preset || rules.variant)) || game.schema.presets[0];
    return preset.shape?.seats ?? 3;
  }

  function tableForm() {
    const bots = ui.presets?.bots || [];
    const game = otherGame();
    // Another game's bots by their own names; 偎麻雀's by level (bots.js).
    const botOptions = game
      ? game.bots.map((b) => h("option", { value: b.name, title: named(b.about) }, `${t("seat_bot")} · ${named(b.names)}`))
      : byLevel(bots).map((b) => h("option", { value: b, title: botTitle(b) }, `${t("seat_bot")} · ${botLevel(b)}`));
    const seatField = (seat) =>
      h(
        "label",
        { class: "field" },
        h("span", {}, t("seat_n", { n: seat + 1 })),
        h(
          "select",
          { name: `seat${seat}`, "data-testid": `table-seat-${seat}` },
          h("option", { value: "" }, t("seat_human")),
          botOptions,
        ),
      );
    return h(
      "form",
      {
        class: "table-form",
        "data-testid": "table-form",
        onsubmit: (e) => {
          e.preventDefault();
          openTable(e.target);
        },
      },
      h("label", { class: "field" }, h("span", {}, t("seat_n", { n: 1 })), h("span", {}, t("you"))),
      Array.from({ length: tableSeats() - 1 }, (_, i) => seatField(i + 1)),
      h(
        "label",
        { class: "field" },
        h("span", {}, t("match_hands")),
        h("input", { key: String(clubHands()), type: "number", name: "match_hands", "data-testid": "table-hands", min: 1, max: 100, inputmode: "numeric", defaultValue: String(clubHands() ?? "") }),
      ),
      h(
        "label",
        { class: "field" },
        h("span", {}, t("bot_speed")),
        h(
          "select",
          { name: "bot_delay_ms", "data-testid": "table-speed" },
          [
            ["0", "speed_fast"],
            ["400", "speed_normal"],
            ["1200", "speed_slow"],
          ].map(([ms, key]) => h("option", { value: ms, selected: ms === "400" }, t(key))),
        ),
      ),
      h(
        "div",
        { class: "dialog-buttons" },
        h("button", { type: "submit", class: "primary", "data-testid": "table-create", disabled: ui.busy }, t("table_open")),
        button("table-cancel", () => { ui.tableForm = false; draw(); }, t("cancel")),
      ),
    );
  }

  function tablesPanel(club) {
    const tables = club.tables || [];
    return h(
      "section",
      { class: "panel club-tables", "data-testid": "club-tables" },
      h(
        "div",
        { class: "panel-head" },
        h("h2", {}, t("tables_title")),
        // Once the games are known: the form is drawn for the club's game (its seats, its bots).
        isAdmin() && !ui.tableForm && ui.games ? button("table-open", () => { ui.tableForm = true; draw(); }, `+ ${t("table_open")}`, { class: "small primary" }) : null,
      ),
      ui.tableForm ? tableForm() : null,
      tables.length === 0 ? h("p", { class: "muted", "data-testid": "tables-none" }, t("tables_none")) : null,
      tables.length ? h("ul", { class: "tables", "data-testid": "table-list" }, tables.map((r) => tableRow(r))) : null,
    );
  }

  function boardPanel() {
    const b = ui.board;
    const rows = b?.rows || [];
    return h(
      "section",
      { class: "panel club-board", "data-testid": "club-board" },
      h(
        "div",
        { class: "panel-head" },
        h("h2", {}, t("leaderboard")),
        h(
          "span",
          { class: "panel-choices" },
          // One leaderboard per variant the club played (or all of them summed, ""): §7.5.
          variantSelect("board-variant", b?.variants, ui.variant, b?.variant, (key) => { ui.variant = key; loadBoard(); }),
          periodSelect("board-period", ui.days, (days) => { ui.days = days; loadBoard(); }),
        ),
      ),
      !b ? h("p", { class: "loading" }, "…") : null,
      b && rows.length === 0 ? h("p", { class: "muted", "data-testid": "board-none" }, t("board_none")) : null,
      rows.length
        ? h(
            "table",
            { class: "board-table" },
            h(
              "thead",
              {},
              h(
                "tr",
                {},
                h("th", {}, "#"),
                h("th", {}, t("board_player")),
                [t("board_points"), t("board_matches"), t("board_hands"), t("board_win_rate"), t("board_biggest")].map((x) => h("th", { class: "num" }, x)),
              ),
            ),
            h(
              "tbody",
              {},
              rows.map((r, i) =>
                h(
                  "tr",
                  { key: r.player.id, "data-testid": "board-row", "data-player": r.player.id, "data-points": r.points },
                  h("td", {}, i + 1),
                  h("td", { class: "who" }, r.player.label || r.player.name),
                  h("td", { class: "num", "data-testid": "board-points" }, signed(r.points) || "0"),
                  h("td", { class: "num" }, r.matches),
                  h("td", { class: "num" }, r.hands),
                  h("td", { class: "num" }, `${Math.round((r.win_rate || 0) * 100)}%`),
                  h("td", { class: "num" }, r.biggest || "—"),
                ),
              ),
            ),
          )
        : null,
    );
  }

  function leaveLine(club) {
    if (club.role === "owner") return null; // the owner cannot leave (§7.5)
    const text = club.role === "pending" ? t("club_cancel_request") : t("club_leave");
    return h(
      "div",
      { class: "club-leave" },
      button("club-leave", () => ask(t("club_leave_confirm", { name: club.name }), text, leave), text),
    );
  }

  /** No such club, or not ours to see: the same words either way (§7.6). */
  function notFound() {
    return h(
      "section",
      { class: "panel", "data-testid": "not-found" },
      h("h2", {}, t("club_not_found_title")),
      h("p", {}, t("club_not_found_text")),
      h("a", { href: "/", class: "button primary", "data-testid": "back-lobby" }, t("back_lobby")),
    );
  }

  function draw() {
    const club = ui.club;
    let body;
    if (club === undefined) body = bar.me === null ? [h("p", {}, t("club_sign_in")), bar.render()] : h("p", { class: "loading" }, "…");
    else if (club === null) body = notFound();
    else if (club.role === "pending") body = [headPanel(club), leaveLine(club)];
    else body = [headPanel(club), tablesPanel(club), membersPanel(club), boardPanel(), leaveLine(club)];
    mount(
      app,
      header(),
      h("main", { class: `club-page${club === null ? " not-found" : ""}`, "data-testid": "club-page" }, body),
      ui.toast ? h("p", { class: "toast", "data-testid": "error", role: "status", onclick: () => { ui.toast = null; draw(); } }, ui.toast) : null,
      openConfirm(ui, draw),
    );
  }

  onLangChange(draw);
  draw();
  loadPresets().then((p) => {
    ui.presets = p;
    draw();
  }, () => {});
  loadGames().then((g) => {
    ui.games = g;
    draw();
  });
  // Who we are tells our own row and seat apart; a club is for players only (§7.5).
  bar.load().then((me) => {
    if (!me) return;
    load();
  });
  // Who is online and the open tables change while the page is open.
  setInterval(() => {
    if (ui.club && !document.hidden) load(false);
  }, 10000);
}

/** The invitation's page, /c/{code}: join, then to the club (or 等待审核). */
export function startInvite(app, code) {
  const ui = { joined: null, error: null, busy: false };
  const bar = new PlayerBar({ changed: () => draw(), onSignedIn: () => draw() });

  async function join() {
    ui.busy = true;
    ui.error = null;
    draw();
    try {
      const res = await api("/api/clubs/join", { code });
      if (res.role === "pending") ui.joined = res;
      else location.assign(`/clubs/${encodeURIComponent(res.club.id)}`);
    } catch (err) {
      if (err.code === "removed") ui.error = t("invite_removed");
      else ui.error = err.code === "bad_code" || err.status === 404 ? t("invite_bad") : failure(err);
    }
    ui.busy = false;
    draw();
  }

  function draw() {
    const me = bar.me;
    let body;
    if (ui.joined) {
      body = h(
        "section",
        { class: "panel invite-page", "data-testid": "club-pending" },
        h("h2", {}, ui.joined.club?.name ?? t("club")),
        h("p", {}, t("club_pending")),
        h("a", { href: "/", class: "button primary", "data-testid": "back-lobby" }, t("back_lobby")),
      );
    } else {
      body = h(
        "section",
        { class: "panel invite-page", "data-testid": "invite-page" },
        h("h2", {}, t("invite_title")),
        h("p", {}, t("invite_text", { code: formatCode(code) })),
        me === undefined ? h("p", { class: "loading" }, "…") : null,
        me === null ? [h("p", { class: "help" }, t("club_sign_in")), bar.render()] : null,
        me
          ? h(
              "div",
              { class: "dialog-buttons" },
              h("span", { class: "muted" }, t("signed_in_as"), " ", me.player.name),
              h("button", { class: "primary", "data-testid": "club-join", disabled: ui.busy, onclick: join }, t("club_join")),
            )
          : null,
        ui.error ? h("p", { class: "error", "data-testid": "invite-error" }, ui.error) : null,
      );
    }
    mount(app, header(), h("main", { class: "invite-main" }, body));
  }

  onLangChange(draw);
  draw();
  bar.load();
}
