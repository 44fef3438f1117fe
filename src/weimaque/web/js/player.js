// The player (docs/protocol.md §7.1): someone across rooms and devices, without a password.
// GET /api/me says who this browser is signed in as; signing up and signing in with another
// device's code or a passkey set the HttpOnly cookie, which every request and socket then
// carries by itself.
// The lobby's player bar is drawn here, and its signed-out form serves /me and /c/{code} too.
import { createRef, h } from "./dom.js";
import { api } from "./net.js";
import { presetName, refusal, t } from "./i18n.js";
import { PLAYER_KEY } from "./page.js";
import { NAME_KEY } from "./room.js";

/** A typed code as the server reads it (dashes, spaces and case do not matter, §7.1). */
export const cleanCode = (text) => String(text || "").replace(/[\s-]/g, "").toUpperCase();

/** A code of 8 letters and digits as people read it, ABCD-EFGH, however it was written. */
export function formatCode(code) {
  const text = cleanCode(code);
  return text.length === 8 ? `${text.slice(0, 4)}-${text.slice(4)}` : text;
}

/** A refusal from the server in the current language. */
export const failure = (err) => refusal({ code: err.code, message: err.message });

/** The periods the totals and the leaderboards offer: days, or "" for all time. */
export const PERIODS = [
  ["7", "period_7"],
  ["30", "period_30"],
  ["365", "period_365"],
  ["", "period_all"],
];

/** A select of PERIODS; `value` the chosen one, `onchange(days)`. */
export function periodSelect(testid, value, onchange) {
  return h(
    "select",
    { "data-testid": testid, value, onchange: (e) => onchange(e.target.value) },
    PERIODS.map(([days, key]) => h("option", { value: days }, t(key))),
  );
}

/** A contest of 战绩 or a leaderboard (docs/protocol.md §7.3): `{id, persons}` as the choice's
 * value, "" for every variant. */
export const variantKey = (v) => (v?.id ? `${v.id}|${v.persons ?? ""}` : "");

/** The query of a chosen variant (`&variant=ID&persons=N`), "" for every variant. */
export function variantQuery(key) {
  if (!key) return "";
  const [id, persons] = key.split("|");
  return `&variant=${encodeURIComponent(id)}${persons ? `&persons=${persons}` : ""}`;
}

/** A select of the variants played (`[{id, persons, name, name_en}]`) and "all"; `value` the
 * chosen key (variantKey), kept in the list while the period has none of it; `onchange(key)`. */
export function variantSelect(testid, played, value, chosen, onchange) {
  const list = [...(played || [])];
  if (value && chosen && !list.some((v) => variantKey(v) === value)) list.push(chosen);
  return h(
    "select",
    { "data-testid": testid, value, "aria-label": t("variant_label"), onchange: (e) => onchange(e.target.value) },
    h("option", { value: "" }, t("variant_all")),
    list.map((v) => h("option", { value: variantKey(v) }, presetName(v))),
  );
}

/** A date and time in the current language, from Unix seconds. */
export function when(seconds) {
  if (!seconds) return "";
  const lang = document.documentElement.lang || "zh-CN";
  return new Date(seconds * 1000).toLocaleString(lang, { dateStyle: "medium", timeStyle: "short" });
}

// The name is kept too as the one the room's join panel offers (a seat held by a player takes
// the player's name anyway, §7.2).
function remember(player) {
  localStorage.setItem(PLAYER_KEY, player.name);
  localStorage.setItem(NAME_KEY, player.name);
}

function forget() {
  localStorage.removeItem(PLAYER_KEY);
}

let mePromise = null;

/** GET /api/me, once per page unless `fresh`: the answer, or null when signed out (401). */
export function loadMe(fresh = false) {
  if (!mePromise || fresh) {
    mePromise = api("/api/me").then(
      (me) => {
        remember(me.player);
        return me;
      },
      (err) => {
        if (err.status !== 401) throw err;
        forget();
        return null;
      },
    );
    mePromise.catch(() => {
      mePromise = null; // a failed look (the network, the server) is asked again next time
    });
  }
  return mePromise;
}

/** POST /api/players: a new player, this browser signed in as them. */
export async function signUp(name) {
  const res = await api("/api/players", { name });
  remember(res.player);
  mePromise = null;
  return res;
}

/** POST /api/players/transfer: sign in as the player whose other device shows `code`. */
export async function signInWithCode(code) {
  const res = await api("/api/players/transfer", { code: cleanCode(code) });
  remember(res.player);
  mePromise = null;
  return res;
}

/** POST /api/me/signout: this browser is a guest again. */
export async function signOut() {
  await api("/api/me/signout", {});
  forget();
  mePromise = null;
}

/** Forget who we were when the server says we are nobody (a device signed out elsewhere). */
export function signedOut() {
  forget();
  mePromise = null;
}

// ---- passkeys (docs/protocol.md §7.1, "Passkeys (WebAuthn)")

/** Whether `host` (location.hostname) is an IP address: a passkey needs the site's name. */
const isAddress = (host) => /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(":");

/**
 * Why this page cannot use passkeys, or null when it can: {key} of the words said instead of
 * the passkey buttons, and on this machine's own address the `url` of this page by the name
 * localhost. The relying party is the page's host, which must be a domain name; the browser must
 * offer WebAuthn with its JSON helpers.
 */
export function passkeysBlocked() {
  const host = location.hostname;
  if (isAddress(host)) {
    const loopback = host === "127.0.0.1" || host === "[::1]" || host === "::1";
    const url = `http://localhost${location.port ? `:${location.port}` : ""}${location.pathname}`;
    return loopback ? { key: "passkey_need_name_local", url } : { key: "passkey_need_name" };
  }
  const pk = window.PublicKeyCredential;
  if (typeof pk !== "function" || !pk.parseCreationOptionsFromJSON || !pk.parseRequestOptionsFromJSON || !navigator.credentials) {
    return { key: window.isSecureContext ? "passkey_unsupported" : "passkey_need_https" };
  }
  return null;
}

/** The line said instead of a passkey button (`blocked` from passkeysBlocked()). */
export function passkeyNote(blocked, cls = "help") {
  return h(
    "p",
    { class: `${cls} passkey-none`, "data-testid": "passkey-unavailable" },
    t(blocked.key),
    blocked.url ? [" ", h("a", { href: blocked.url, "data-testid": "passkey-localhost" }, blocked.url)] : null,
  );
}

/**
 * A ceremony of the browser (create or get): what the browser refuses becomes an error with a
 * code of our own, said by failure() like the server's (NotAllowedError is a cancel, or no
 * passkey of this site was chosen).
 */
async function ceremony(work, cancelled) {
  let got;
  try {
    got = await work();
  } catch (exc) {
    const codes = { NotAllowedError: cancelled, AbortError: cancelled, InvalidStateError: "passkey_exists", SecurityError: "passkey_site" };
    const code = codes[exc?.name];
    const err = new Error(code === cancelled ? "" : String(exc?.message || exc));
    err.code = code || "passkey_failed";
    throw err;
  }
  if (!got) throw Object.assign(new Error(""), { code: cancelled });
  return got;
}

/** POST /api/me/passkeys(/options): a passkey of the signed-in player made here, kept there. */
export async function addPasskey() {
  const { ticket, options } = await api("/api/me/passkeys/options", {});
  const publicKey = PublicKeyCredential.parseCreationOptionsFromJSON(options);
  const made = await ceremony(() => navigator.credentials.create({ publicKey }), "passkey_cancelled");
  return api("/api/me/passkeys", { ticket, credential: made.toJSON() });
}

/** POST /api/players/passkey(/options): this browser signed in with one of the site's passkeys. */
export async function signInWithPasskey() {
  const { ticket, options } = await api("/api/players/passkey/options", {});
  const publicKey = PublicKeyCredential.parseRequestOptionsFromJSON(options);
  const used = await ceremony(() => navigator.credentials.get({ publicKey }), "passkey_not_chosen");
  const res = await api("/api/players/passkey", { ticket, credential: used.toJSON() });
  remember(res.player);
  mePromise = null;
  return res;
}

const ROLES = { owner: "role_owner", admin: "role_admin", member: "role_member", pending: "role_pending" };

/** A club role as people say it: 圈主, 管理员, 成员, 待审核. */
export const roleName = (role) => t(ROLES[role] || "role_member");

/**
 * The player bar: signed out, a name and 创建玩家, or the code of another device, and 用通行密钥登录
 * where the page can use passkeys; signed in, the name, 战绩, the player's 亲友圈 and 创建亲友圈.
 * It owns no DOM: `render()` describes it and `changed()` (the page's redraw) runs whenever it
 * moves; `onSignedIn(res)` after signing in.
 */
export class PlayerBar {
  constructor({ changed, onSignedIn }) {
    this.changed = changed;
    this.onSignedIn = onSignedIn || (() => {});
    this.me = undefined; // undefined: not known yet; null: signed out
    this.mode = "name"; // signed out: "name" (a new player) or "code" (another device's code)
    this.codeValue = ""; // the code the field starts with (/me?code=…)
    this.clubOpen = false; // the 创建亲友圈 form is open
    this.error = null;
    this.busy = false;
    this.nameRef = createRef();
    this.codeRef = createRef();
    this.clubRef = createRef();
    this.approvalRef = createRef();
  }

  /** Ask the server who we are (again). */
  async load(fresh = false) {
    try {
      this.me = await loadMe(fresh);
    } catch (err) {
      this.me = null;
      // A server without players (404) is a guest's lobby, as before; anything else is said.
      if (err.status !== 404) this.error = failure(err);
    }
    this.changed();
    return this.me;
  }

  async run(work) {
    if (this.busy) return;
    this.busy = true;
    this.error = null;
    this.changed();
    try {
      await work();
    } catch (err) {
      this.error = failure(err);
    }
    this.busy = false;
    this.changed();
  }

  signUp() {
    const name = (this.nameRef.current?.value ?? "").trim();
    if (!name) {
      this.error = t("player_name_needed");
      this.changed();
      return;
    }
    this.run(async () => {
      const res = await signUp(name);
      await this.load(true);
      this.onSignedIn(res);
    });
  }

  /** Sign in with the code another device shows (also what /me?code=… submits). */
  useCode(code) {
    const text = cleanCode(code ?? this.codeRef.current?.value ?? "");
    if (!text) {
      this.error = t("code_needed");
      this.changed();
      return Promise.resolve();
    }
    return this.run(async () => {
      const res = await signInWithCode(text);
      await this.load(true);
      this.onSignedIn(res);
    });
  }

  /** 用通行密钥登录: the browser offers this site's passkeys; one signs this device in. */
  usePasskey() {
    return this.run(async () => {
      const res = await signInWithPasskey();
      await this.load(true);
      this.onSignedIn(res);
    });
  }

  /** 用通行密钥登录, beside the other ways in (where the page can use passkeys). */
  passkeyButton() {
    return h(
      "button",
      { type: "button", class: "small passkey-sign-in", "data-testid": "passkey-sign-in", disabled: this.busy, onclick: () => this.usePasskey() },
      t("passkey_sign_in"),
    );
  }

  createClub() {
    const name = (this.clubRef.current?.value ?? "").trim();
    if (!name) {
      this.error = t("club_name_needed");
      this.changed();
      return;
    }
    const approval = Boolean(this.approvalRef.current?.checked);
    this.run(async () => {
      const res = await api("/api/clubs", { name, approval });
      location.assign(`/clubs/${encodeURIComponent(res.club.id)}`);
    });
  }

  /** The form of a browser signed in as nobody: a new player, or another device's code. */
  signInForm() {
    const submit = (fn) => (e) => {
      e.preventDefault();
      fn();
    };
    const byName = this.mode === "name";
    const blocked = passkeysBlocked(); // then a line saying why, under the help
    return h(
      "div",
      { class: "sign-in", "data-testid": "sign-in" },
      byName
        ? h(
            "form",
            { class: "player-form", onsubmit: submit(() => this.signUp()) },
            h(
              "label",
              { class: "field" },
              h("span", {}, t("player_sign_up")),
              h("input", {
                class: "name",
                ref: this.nameRef,
                "data-testid": "player-name-input",
                placeholder: t("your_name"),
                maxlength: 24,
                defaultValue: localStorage.getItem(NAME_KEY) || "",
                autocomplete: "nickname",
              }),
            ),
            h("button", { type: "submit", class: "primary", "data-testid": "player-create", disabled: this.busy }, t("player_create")),
          )
        : h(
            "form",
            { class: "player-form", onsubmit: submit(() => this.useCode()) },
            h(
              "label",
              { class: "field" },
              h("span", {}, t("code_label")),
              h("input", {
                class: "code",
                ref: this.codeRef,
                "data-testid": "player-code-input",
                placeholder: "ABCD-EFGH",
                defaultValue: this.codeValue,
                maxlength: 16,
                autocomplete: "off",
                autocapitalize: "characters",
                spellcheck: false,
              }),
            ),
            h("button", { type: "submit", class: "primary", "data-testid": "player-code-submit", disabled: this.busy }, t("code_submit")),
          ),
      h(
        "button",
        {
          class: "link",
          type: "button",
          "data-testid": "player-code-toggle",
          onclick: () => {
            this.mode = byName ? "code" : "name";
            this.error = null;
            this.changed();
          },
        },
        byName ? t("code_sign_in") : t("player_new_instead"),
      ),
      blocked ? null : this.passkeyButton(),
      h("p", { class: "help" }, byName ? t("player_help") : t("code_help")),
      // Why no passkey is offered, said to one signing in as a player already made (另一台设备),
      // not to every newcomer typing a name.
      blocked && !byName ? passkeyNote(blocked) : null,
    );
  }

  /** The signed-in player's line: name, 战绩, the 亲友圈 and 创建亲友圈. */
  signedIn(me) {
    return [
      h(
        "div",
        { class: "player-line" },
        h("span", { class: "player-who" }, t("signed_in_as"), " ", h("strong", { "data-testid": "player-name" }, me.player.name)),
        h("a", { href: "/me", class: "button small", "data-testid": "link-me" }, t("me_page")),
      ),
      h(
        "div",
        { class: "club-line", "data-testid": "club-list" },
        h("span", { class: "label" }, t("clubs")),
        me.clubs.length === 0 ? h("span", { class: "muted" }, t("clubs_none")) : null,
        me.clubs.map((c) =>
          h(
            "a",
            { key: c.id, href: `/clubs/${encodeURIComponent(c.id)}`, class: "club-chip", "data-testid": "club-entry", "data-club": c.id, "data-role": c.role },
            c.name,
            c.role === "member" ? null : h("span", { class: "badge" }, roleName(c.role)),
          ),
        ),
        this.clubOpen
          ? null
          : h(
              "button",
              { class: "small", "data-testid": "club-new", onclick: () => { this.clubOpen = true; this.changed(); } },
              `+ ${t("club_create")}`,
            ),
      ),
      this.clubOpen
        ? h(
            "form",
            {
              class: "player-form club-form",
              "data-testid": "club-form",
              onsubmit: (e) => {
                e.preventDefault();
                this.createClub();
              },
            },
            h(
              "label",
              { class: "field" },
              h("span", {}, t("club_name")),
              h("input", { class: "name", ref: this.clubRef, "data-testid": "club-name-input", maxlength: 24, placeholder: t("club_name") }),
            ),
            h(
              "label",
              { class: "check" },
              h("input", { type: "checkbox", ref: this.approvalRef, "data-testid": "club-approval" }),
              t("club_approval"),
            ),
            h("button", { type: "submit", class: "primary", "data-testid": "club-create", disabled: this.busy }, t("club_create")),
            h("button", { type: "button", class: "small", onclick: () => { this.clubOpen = false; this.changed(); } }, t("cancel")),
          )
        : null,
    ];
  }

  render() {
    const me = this.me;
    return h(
      "section",
      { class: "panel player-bar", "data-testid": "player-bar", "data-signed-in": me ? "true" : "false" },
      me === undefined ? h("p", { class: "loading" }, "…") : me ? this.signedIn(me) : this.signInForm(),
      this.error ? h("p", { class: "error", "data-testid": "player-error" }, this.error) : null,
    );
  }
}
