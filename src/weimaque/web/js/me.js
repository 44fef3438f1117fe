// The player's page (/me, docs/protocol.md §7.1, §7.3): who they are, 战绩 (every match, newest
// first, 更多 for older ones; each match's hands with their 回放码), the totals over a chosen
// period, the devices signed in (退出 each), and moving to another device: 换设备 shows a code
// and its QR code, and the other device types the code here or opens /me?code=CODE. 通行密钥:
// a passkey added here signs any device in later; the player's passkeys are listed (when made,
// when last used), named and removed here, and 全部退出 signs every device out and removes
// every passkey (docs/protocol.md §7.1, "Passkeys").
import { button, createRef, h, mount } from "./dom.js";
import { api } from "./net.js";
import { onLangChange, presetName, t } from "./i18n.js";
import { loadPresets } from "./rules.js";
import { header, openConfirm } from "./page.js";
import { signed } from "./table.js";
import { botLevel } from "./bots.js";

/** Who held a seat of a match (a bot by its level), else 1号位. */
const seatName = (p, seat) =>
  p?.bot ? t("bot_named", { n: seat + 1, level: botLevel(p.bot) }) : (p?.name ?? t("seat_n", { n: seat + 1 }));
import {
  addPasskey,
  cleanCode,
  failure,
  formatCode,
  passkeyNote,
  passkeysBlocked,
  PlayerBar,
  periodSelect,
  signedOut,
  signOut,
  variantKey,
  variantQuery,
  variantSelect,
  when,
} from "./player.js";

const PAGE = 20; // matches per GET /api/me/matches

export function startMe(app) {
  const ui = {
    matches: null, // [Match] loaded so far
    next: null, // the cursor of the older ones, null when none are left
    more: false, // 更多 is loading
    days: "30", // the totals' period (PERIODS)
    stats: null,
    variant: "", // the chosen variant of the totals and the matches (variantKey), "" for all
    devices: null,
    transfer: null, // {code, expires_in, qr_svg, until}
    hands: {}, // `${room_id}:${match}` → the match's hands (shown), or {error}
    renaming: false,
    passkey: { busy: false, added: 0, error: null }, // 添加通行密钥: added this visit, or why not
    passkeys: null, // GET /api/me/passkeys: [{id, name, created, last_used}]
    naming: null, // the id of the passkey being named
    revoked: null, // 全部退出's answer: {devices, passkeys} gone
    presets: null, // GET /api/presets: the rules' names
    confirm: null,
    error: null,
  };
  const renameRef = createRef();
  const passkeyNameRef = createRef();
  const bar = new PlayerBar({ changed: () => draw(), onSignedIn: () => loadAll() });

  /** Any refusal: said once at the top; a 401 means this device was signed out elsewhere. */
  function failed(err) {
    if (err.status === 401) {
      signedOut();
      bar.me = null;
    }
    ui.error = failure(err);
    draw();
  }

  async function loadMatches(before) {
    const query = `?limit=${PAGE}${before ? `&before=${encodeURIComponent(before)}` : ""}${variantQuery(ui.variant)}`;
    const res = await api(`/api/me/matches${query}`);
    ui.matches = before ? [...(ui.matches || []), ...res.matches] : res.matches;
    ui.next = res.next ?? null;
  }

  async function loadStats() {
    const query = [ui.days ? `days=${ui.days}` : "", variantQuery(ui.variant).slice(1)].filter(Boolean).join("&");
    ui.stats = await api(`/api/me/stats${query ? `?${query}` : ""}`);
  }

  async function loadDevices() {
    ui.devices = (await api("/api/me/devices")).devices;
  }

  async function loadPasskeys() {
    ui.passkeys = (await api("/api/me/passkeys")).passkeys;
  }

  async function loadAll() {
    ui.error = null;
    try {
      await Promise.all([loadMatches(), loadStats(), loadDevices(), loadPasskeys()]);
    } catch (err) {
      failed(err);
    }
    draw();
  }

  async function more() {
    ui.more = true;
    draw();
    try {
      await loadMatches(ui.next);
    } catch (err) {
      failed(err);
    }
    ui.more = false;
    draw();
  }

  async function period(days) {
    ui.days = days;
    try {
      await loadStats();
    } catch (err) {
      failed(err);
    }
    draw();
  }

  /** Another variant: the totals and the matches of it alone (or of every one, ""). */
  async function chooseVariant(key) {
    ui.variant = key;
    try {
      await Promise.all([loadStats(), loadMatches()]);
    } catch (err) {
      failed(err);
    }
    draw();
  }

  async function startTransfer() {
    try {
      const res = await api("/api/me/transfer", {});
      ui.transfer = { ...res, until: Date.now() + res.expires_in * 1000 };
    } catch (err) {
      failed(err);
    }
    draw();
  }

  async function signOutDevice(device) {
    try {
      if (device.current) {
        await signOut();
        bar.me = null;
        ui.matches = ui.stats = ui.devices = ui.passkeys = null;
        ui.passkey = { busy: false, added: 0, error: null };
      } else {
        await api(`/api/me/devices/${encodeURIComponent(device.id)}`, undefined, "DELETE");
        await loadDevices();
      }
    } catch (err) {
      failed(err);
    }
    draw();
  }

  /** 添加通行密钥: the server's options, the browser's ceremony, the passkey sent back. */
  async function newPasskey() {
    const pk = ui.passkey;
    if (pk.busy) return;
    pk.busy = true;
    pk.error = null;
    draw();
    try {
      await addPasskey();
      pk.added += 1;
      await loadPasskeys();
    } catch (err) {
      if (err.status === 401) failed(err);
      else pk.error = failure(err);
    }
    pk.busy = false;
    draw();
  }

  /** 全部退出: every device signed out and every passkey removed; this browser alone is signed
   * in again, with a new key (in its cookie). */
  async function signOutEverywhere() {
    try {
      const res = await api("/api/me/signout/all", {});
      ui.transfer = null;
      ui.passkey = { busy: false, added: 0, error: null };
      ui.revoked = { devices: res.devices, passkeys: res.passkeys };
      await Promise.all([loadDevices(), loadPasskeys()]);
    } catch (err) {
      failed(err);
    }
    draw();
  }

  async function namePasskey(pk) {
    const name = (passkeyNameRef.current?.value ?? "").trim();
    if (!name) return;
    try {
      await api(`/api/me/passkeys/${encodeURIComponent(pk.id)}`, { name }, "PATCH");
      ui.naming = null;
      await loadPasskeys();
    } catch (err) {
      failed(err);
    }
    draw();
  }

  async function removePasskey(pk) {
    try {
      await api(`/api/me/passkeys/${encodeURIComponent(pk.id)}`, undefined, "DELETE");
      await loadPasskeys();
    } catch (err) {
      failed(err);
    }
    draw();
  }

  async function rename() {
    const name = (renameRef.current?.value ?? "").trim();
    if (!name) return;
    try {
      await api("/api/me", { name }, "PATCH");
      ui.renaming = false;
      await bar.load(true);
    } catch (err) {
      failed(err);
    }
    draw();
  }

  /** A match's hands (GET /api/rooms/{id}/hands, each with its 回放码), shown or hidden. */
  async function toggleHands(m) {
    const key = `${m.room_id}:${m.match}`;
    if (ui.hands[key]) {
      delete ui.hands[key];
      draw();
      return;
    }
    ui.hands[key] = { loading: true };
    draw();
    try {
      const res = await api(`/api/rooms/${encodeURIComponent(m.room_id)}/hands`);
      ui.hands[key] = { list: res.hands.filter((x) => (x.match ?? 1) === m.match) };
    } catch (err) {
      ui.hands[key] = { error: failure(err) };
    }
    draw();
  }

  function ask(text, yes, onYes) {
    ui.confirm = { text, yes, onYes };
    draw();
  }

  // ---- pieces

  function playerPanel(me) {
    return h(
      "section",
      { class: "panel me-player", "data-testid": "me-player" },
      h(
        "div",
        { class: "player-line" },
        h("h2", { "data-testid": "me-name" }, me.player.name),
        me.player.created ? h("span", { class: "muted" }, t("player_since", { when: when(me.player.created) })) : null,
        ui.renaming
          ? null
          : button("rename", () => { ui.renaming = true; draw(); }, t("rename")),
      ),
      ui.renaming
        ? h(
            "form",
            {
              class: "player-form",
              onsubmit: (e) => {
                e.preventDefault();
                rename();
              },
            },
            h("input", { class: "name", ref: renameRef, "data-testid": "rename-input", maxlength: 24, defaultValue: me.player.name }),
            h("button", { type: "submit", class: "primary", "data-testid": "rename-save" }, t("save")),
            button("rename-cancel", () => { ui.renaming = false; draw(); }, t("cancel")),
          )
        : null,
      me.clubs.length
        ? h(
            "div",
            { class: "club-line" },
            h("span", { class: "label" }, t("clubs")),
            me.clubs.map((c) => h("a", { key: c.id, href: `/clubs/${encodeURIComponent(c.id)}`, class: "club-chip" }, c.name)),
          )
        : null,
    );
  }

  function statsPanel() {
    const st = ui.stats;
    const cell = (key, value, testid) =>
      h("div", { class: "stat", "data-testid": testid, "data-value": String(value ?? "") }, h("span", { class: "stat-value" }, value ?? "—"), h("span", { class: "stat-label" }, t(key)));
    return h(
      "section",
      { class: "panel me-stats", "data-testid": "me-stats" },
      h(
        "div",
        { class: "panel-head" },
        h("h2", {}, t("stats_title")),
        h(
          "span",
          { class: "panel-choices" },
          variantSelect("stats-variant", st?.by_variant.map((x) => x.variant), ui.variant, st?.variant, chooseVariant),
          periodSelect("stats-period", ui.days, period),
        ),
      ),
      st
        ? h(
            "div",
            { class: "stats" },
            cell("stat_matches", st.matches, "stat-matches"),
            cell("stat_hands", st.hands, "stat-hands"),
            cell("stat_wins", st.wins, "stat-wins"),
            cell("stat_chou", st.chou, "stat-chou"),
            cell("stat_points", signed(st.points) || "0", "stat-points"),
            cell("stat_biggest", st.biggest || "—", "stat-biggest"),
          )
        : h("p", { class: "loading" }, "…"),
      // Every variant's own figures where the player played several (one choice away each).
      st && !ui.variant && st.by_variant.length > 1
        ? h(
            "ul",
            { class: "stats-variants", "data-testid": "stats-variants", "aria-label": t("stats_by_variant") },
            st.by_variant.map((x) =>
              h(
                "li",
                { key: variantKey(x.variant), "data-testid": "stats-variant-row", "data-variant": variantKey(x.variant), "data-points": x.points },
                h("button", { type: "button", class: "link", onclick: () => chooseVariant(variantKey(x.variant)) }, presetName(x.variant)),
                h("span", { class: "muted" }, " ", t("hands_n", { n: x.hands }), " · "),
                h("strong", {}, signed(x.points) || "0"),
              ),
            ),
          )
        : null,
    );
  }

  function handsOf(m) {
    const got = ui.hands[`${m.room_id}:${m.match}`];
    if (!got) return null;
    if (got.loading) return h("p", { class: "loading" }, "…");
    if (got.error) return h("p", { class: "error" }, got.error);
    const name = (seat) => seatName(m.players.find((p) => p.seat === seat), seat);
    return h(
      "ol",
      { class: "match-hands", "data-testid": "match-hands" },
      got.list.length === 0 ? h("li", {}, "—") : null,
      got.list.map((x, i) =>
        h(
          "li",
          { key: x.number, "data-testid": "match-hand" },
          h("span", {}, t("hand_n", { n: i + 1 }), " · "),
          // 偎麻雀's 臭 and 胡 with its 息; 三丁拐's 荒庄 (docs/sandingguai.md §3), its 胡 without 息.
          m.game === "sandingguai"
            ? h("span", {}, x.chou ? t("sdg_huang") : t("winner", { who: name(x.winner) }))
            : h("span", {}, x.chou ? t("chou") : t("winner", { who: name(x.winner) }), x.chou ? "" : ` ${x.total}`),
          x.code
            ? h(
                "a",
                { class: "replay-code", href: `/p/${encodeURIComponent(x.code)}`, "data-testid": "hand-code", "data-code": x.code },
                `${t("replay_code")} ${formatCode(x.code)}`,
              )
            : null,
        ),
      ),
    );
  }

  /** A match's rules by the preset's name in the current language (the server's is Chinese). */
  function rulesName(rules) {
    const preset = ui.presets?.presets.find((p) => p.id === rules?.id);
    return preset ? presetName(preset) : (rules?.name ?? "");
  }

  function matchEntry(m) {
    const key = `${m.room_id}:${m.match}`;
    return h(
      "li",
      { key, class: "match", "data-testid": "match-entry", "data-room": m.room_id, "data-match": m.match, "data-total": m.total, "data-place": m.place },
      h(
        "div",
        { class: "match-head" },
        h("span", { class: `place place-${m.place}` }, t(`place_${m.place}`)),
        h("strong", { class: "match-total" }, signed(m.total) || "0"),
        h("span", {}, m.variant?.id ? presetName(m.variant) : rulesName(m.rules)),
        m.club ? h("a", { class: "club-chip", href: `/clubs/${encodeURIComponent(m.club.id)}` }, m.club.name) : null,
        h("span", { class: "muted" }, t("hands_n", { n: m.hands }), " · ", when(m.started)),
        m.over ? null : h("a", { href: `/r/${encodeURIComponent(m.room_id)}`, class: "badge live" }, t("match_live")),
      ),
      h(
        "div",
        { class: "match-players" },
        m.players.map((p) =>
          h("span", { key: p.seat, class: `match-player${p.seat === m.seat ? " me" : ""}` }, seatName(p, p.seat), " ", signed(p.total) || "0"),
        ),
        button("match-hands-toggle", () => toggleHands(m), ui.hands[key] ? t("hands_hide") : t("hands_show")),
      ),
      handsOf(m),
    );
  }

  function matchesPanel() {
    return h(
      "section",
      { class: "panel me-matches", "data-testid": "me-matches" },
      h("h2", {}, t("matches_title")),
      ui.matches === null ? h("p", { class: "loading" }, "…") : null,
      ui.matches?.length === 0 ? h("p", { class: "muted", "data-testid": "matches-none" }, t("matches_none")) : null,
      ui.matches?.length ? h("ol", { class: "matches" }, ui.matches.map(matchEntry)) : null,
      ui.next ? button("matches-more", more, ui.more ? "…" : t("more"), { disabled: ui.more }) : null,
    );
  }

  function devicesPanel() {
    return h(
      "section",
      { class: "panel me-devices", "data-testid": "me-devices" },
      h("h2", {}, t("devices_title")),
      ui.devices === null
        ? h("p", { class: "loading" }, "…")
        : h(
            "ul",
            { class: "devices" },
            ui.devices.map((d) =>
              h(
                "li",
                { key: d.id, "data-testid": "device-entry", "data-current": d.current ? "true" : "false" },
                h("span", { class: "device-label" }, d.label || t("device_unknown")),
                d.current ? h("span", { class: "badge" }, t("device_this")) : null,
                h("span", { class: "muted" }, t("device_seen", { when: when(d.last_seen) })),
                button(
                  "device-signout",
                  () =>
                    ask(d.current ? t("signout_this_confirm") : t("signout_confirm", { device: d.label || t("device_unknown") }), t("signout"), () =>
                      signOutDevice(d),
                    ),
                  t("signout"),
                ),
              ),
            ),
          ),
      transferBox(),
      h(
        "div",
        { class: "signout-all" },
        button("signout-all", () => ask(t("signout_all_confirm"), t("signout_all"), signOutEverywhere), t("signout_all"), { class: "small" }),
        h("p", { class: "help" }, t("signout_all_help")),
        ui.revoked ? h("p", { class: "passkey-added", "data-testid": "signout-all-done" }, t("signout_all_done", ui.revoked)) : null,
      ),
    );
  }

  /** One passkey: its name (named here), when it was made and last used, 删除. */
  function passkeyEntry(pk) {
    const naming = ui.naming === pk.id;
    const name = pk.name || t("passkey_unnamed");
    return h(
      "li",
      { key: pk.id, "data-testid": "passkey-entry", "data-id": pk.id },
      naming
        ? h(
            "form",
            {
              class: "player-form",
              onsubmit: (e) => {
                e.preventDefault();
                namePasskey(pk);
              },
            },
            h("input", { class: "name", ref: passkeyNameRef, "data-testid": "passkey-name-input", maxlength: 24, defaultValue: pk.name }),
            h("button", { type: "submit", class: "primary", "data-testid": "passkey-name-save" }, t("save")),
            button("passkey-name-cancel", () => { ui.naming = null; draw(); }, t("cancel")),
          )
        : h("span", { class: "device-label", "data-testid": "passkey-name" }, name),
      h("span", { class: "muted" }, t("passkey_made", { when: when(pk.created) })),
      h("span", { class: "muted", "data-testid": "passkey-used" }, pk.last_used ? t("passkey_used", { when: when(pk.last_used) }) : t("passkey_never_used")),
      naming ? null : button("passkey-rename", () => { ui.naming = pk.id; draw(); }, t("rename")),
      button("passkey-remove", () => ask(t("passkey_remove_confirm", { name }), t("passkey_remove"), () => removePasskey(pk)), t("passkey_remove")),
    );
  }

  /** 通行密钥: add one (where this page can), and what came of it. */
  function passkeysPanel() {
    const pk = ui.passkey;
    const blocked = passkeysBlocked();
    return h(
      "section",
      { class: "panel me-passkeys", "data-testid": "me-passkeys" },
      h("h2", {}, t("passkeys_title")),
      h("p", { class: "help" }, t("passkeys_help")),
      ui.passkeys === null
        ? h("p", { class: "loading" }, "…")
        : ui.passkeys.length
          ? h("ul", { class: "devices passkeys", "data-testid": "passkeys" }, ui.passkeys.map(passkeyEntry))
          : h("p", { class: "muted", "data-testid": "passkeys-none" }, t("passkeys_none")),
      blocked
        ? passkeyNote(blocked, "")
        : h(
            "div",
            { class: "passkey-add" },
            button("passkey-add", newPasskey, pk.busy ? "…" : t("passkey_add"), { class: "small primary", disabled: pk.busy }),
            pk.added ? h("p", { class: "passkey-added", "data-testid": "passkey-added" }, t("passkey_added")) : null,
          ),
      pk.error ? h("p", { class: "error", "data-testid": "passkey-error" }, pk.error) : null,
    );
  }

  /** 换设备: the code to type on the other device, and its QR code (of /me?code=CODE). */
  function transferBox() {
    const tr = ui.transfer;
    const left = tr ? Math.max(0, Math.ceil((tr.until - Date.now()) / 1000)) : 0;
    if (!tr || left === 0) {
      return h(
        "div",
        { class: "transfer" },
        button("transfer-start", startTransfer, t("transfer"), { class: "small primary" }),
        h("p", { class: "help" }, tr ? t("transfer_expired") : t("transfer_help")),
      );
    }
    return h(
      "div",
      { class: "transfer open", "data-testid": "transfer" },
      h(
        "div",
        { class: "transfer-text" },
        h("p", {}, t("transfer_say")),
        h("p", { class: "transfer-code", "data-testid": "transfer-code" }, formatCode(tr.code)),
        h("p", { class: "muted" }, t("transfer_left", { m: Math.floor(left / 60), s: String(left % 60).padStart(2, "0") })),
        h("input", { readonly: true, value: `${location.origin}/me?code=${cleanCode(tr.code)}`, "data-testid": "transfer-link", onfocus: (e) => e.target.select() }),
        button("transfer-start", startTransfer, t("transfer_again")),
      ),
      // The server's SVG as an image: whatever it holds, nothing in it runs.
      h("img", {
        class: "transfer-qr",
        "data-testid": "transfer-qr",
        alt: t("transfer_qr"),
        src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(tr.qr_svg)}`,
      }),
    );
  }

  function draw() {
    const me = bar.me;
    let body;
    if (me === undefined) body = h("p", { class: "loading" }, "…");
    else if (me === null) {
      body = h(
        "section",
        { class: "panel me-signed-out", "data-testid": "me-signed-out" },
        h("h2", {}, t("me_page")),
        h("p", {}, t("me_signed_out")),
        bar.render(),
      );
    } else {
      body = [playerPanel(me), statsPanel(), matchesPanel(), devicesPanel(), passkeysPanel()];
    }
    mount(
      app,
      header(),
      h(
        "main",
        { class: "me-page", "data-testid": "me-page" },
        ui.error || (me && bar.error)
          ? h("p", { class: "panel error", "data-testid": "me-error" }, ui.error || bar.error)
          : null,
        body,
      ),
      openConfirm(ui, draw),
    );
  }

  // The transfer code's time left ticks while it shows.
  setInterval(() => {
    if (ui.transfer) draw();
  }, 1000);

  onLangChange(draw);
  draw();
  loadPresets().then((p) => {
    ui.presets = p;
    draw();
  }, () => {});
  // /me?code=CODE (the QR code of another device): sign in with it at once, then forget it, so
  // a reload does not send a spent code again.
  const code = new URLSearchParams(location.search).get("code");
  if (code) {
    history.replaceState(null, "", "/me");
    bar.mode = "code";
    bar.codeValue = code;
    // Signed in, the bar's onSignedIn loads the page; refused, we are who we were before.
    bar.useCode(code).then(() => {
      if (bar.me === undefined) bar.load().then((player) => player && loadAll());
    });
  } else {
    bar.load().then((player) => {
      if (player) loadAll();
    });
  }
}
