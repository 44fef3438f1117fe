"""Passkeys a player controls, and the edges of the players' API, against a real ``wmq serve``
(docs/protocol.md §6, §7.1, §7.6): a passkey is listed, named and removed; signing out
everywhere leaves nothing that signs the player in; a known credential is a 409; malformed
answers and numbers are 4xx; a foreign page's request is refused; guesses spread over many
addresses share one budget per target. The passkeys are :mod:`tests.softkey`'s.
"""

from __future__ import annotations

import http.client
import json
import ssl
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from tests import serverkit
from tests.softkey import SoftKey
from weimaque.server.store import accounts
from weimaque.server.store.store import open_store

Answer = tuple[int, dict[str, str], Any]


class Site:
    """A server (or a balancer) on ``port`` opened by the name ``localhost`` (passkeys need a
    domain name), as a browser of its own pages would: ``Host`` and ``Origin`` say
    ``localhost:PORT``; with ``tls`` (the context trusting its certificate) over https."""

    def __init__(
        self, port: int, tls: ssl.SSLContext | None = None, host: int | None = None
    ) -> None:
        """``host``: the port the page names, when it is not ``port`` (one process of a
        cluster, asked directly, as the balancer would ask it)."""
        self.port = port
        self.tls = tls
        self.netloc = f"localhost:{port if host is None else host}"
        self.origin = f"{'http' if tls is None else 'https'}://{self.netloc}"

    def call(
        self,
        method: str,
        path: str,
        payload: Any = None,
        key: str | None = None,
        headers: Mapping[str, str | None] | None = None,
        raw: bytes | None = None,
    ) -> Answer:
        # As the site's own page sends it: its Origin on what changes something (a header
        # given as None is left out).
        own = {} if method in ("GET", "HEAD") else {"Origin": self.origin}
        given = {"Host": self.netloc, **own, **(headers or {})}
        sent = {k: v for k, v in given.items() if v is not None}
        if key is not None:
            sent["Authorization"] = f"Bearer {key}"
        body = raw
        if payload is not None:
            body = json.dumps(payload).encode()
            sent.setdefault("Content-Type", "application/json")
        conn: http.client.HTTPConnection
        if self.tls is None:
            conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        else:
            conn = http.client.HTTPSConnection("127.0.0.1", self.port, timeout=20, context=self.tls)
        try:
            conn.request(method, path, body=body, headers=sent)
            res = conn.getresponse()
            data = res.read()
            got = {k.lower(): v for k, v in res.getheaders()}
            cookies = [v for k, v in res.getheaders() if k.lower() == "set-cookie"]
            got["set-cookie"] = "\n".join(cookies)
            return res.status, got, json.loads(data) if data else None
        finally:
            conn.close()

    def player(self, name: str) -> str:
        status, _, data = self.call("POST", "/api/players", {"name": name})
        assert status == 201, data
        return str(data["key"])

    def register(self, key: str, soft: SoftKey) -> Answer:
        status, _, made = self.call("POST", "/api/me/passkeys/options", key=key)
        assert status == 200, made
        answer = {
            "ticket": made["ticket"],
            "credential": soft.register(made["options"], self.origin),
        }
        return self.call("POST", "/api/me/passkeys", answer, key=key)

    def sign_in(self, soft: SoftKey) -> Answer:
        status, _, asked = self.call("POST", "/api/players/passkey/options")
        assert status == 200, asked
        answer = {
            "ticket": asked["ticket"],
            "credential": soft.sign_in(asked["options"], self.origin),
        }
        return self.call("POST", "/api/players/passkey", answer)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    server = serverkit.Server(tmp_path_factory.mktemp("passkeys"), {"player_burst": 1000})
    try:
        yield Site(server.port)
    finally:
        server.stop()


def error_of(answer: Answer, status: int, code: str | None = None) -> str:
    got, _, data = answer
    assert got == status, (got, data)
    assert code is None or data["error"]["code"] == code, data
    return str(data["error"]["message"])


def test_a_passkey_is_listed_named_used_and_removed(site: Site) -> None:
    key = site.player("甲")
    soft = SoftKey(1)
    status, _, made = site.register(key, soft)
    assert status == 201, made
    assert made["passkey"]["id"] == soft.id
    status, _, listed = site.call("GET", "/api/me/passkeys", key=key)
    assert status == 200, listed
    [row] = listed["passkeys"]
    assert row["id"] == soft.id and row["last_used"] is None and row["created"] > 0
    assert isinstance(row["name"], str)
    # Named by its player, not by another.
    other = site.player("乙")
    path = f"/api/me/passkeys/{soft.id}"
    error_of(site.call("PATCH", path, {"name": "手机"}, key=other), 404, "not_found")
    error_of(site.call("DELETE", path, key=other), 404, "not_found")
    assert "'x'" in error_of(site.call("PATCH", path, {"name": 7, "x": 1}, key=key), 400)
    status, _, renamed = site.call("PATCH", path, {"name": "  手机  "}, key=key)
    assert status == 200 and renamed["passkey"] == {"id": soft.id, "name": "手机"}, renamed
    # It signs a device in as its player, and its last use is shown.
    status, headers, signed = site.sign_in(soft)
    assert status == 200, signed
    assert signed["player"]["name"] == "甲"
    assert "wmq_player=" in headers["set-cookie"] and "secure" not in headers["set-cookie"].lower()
    [row] = site.call("GET", "/api/me/passkeys", key=key)[2]["passkeys"]
    assert row["name"] == "手机" and row["last_used"] >= row["created"]
    # Removed, it signs nobody in.
    status, _, gone = site.call("DELETE", path, key=key)
    assert status == 200 and gone["removed"] == soft.id, gone
    assert site.call("GET", "/api/me/passkeys", key=key)[2]["passkeys"] == []
    error_of(site.sign_in(soft), 404, "bad_passkey")
    error_of(site.call("DELETE", path, key=key), 404, "not_found")


def test_signing_out_everywhere_leaves_nothing_that_signs_in(site: Site) -> None:
    """A key stolen and used once to add a passkey: the player sees the passkey, and signing out
    everywhere removes it with every device (docs/protocol.md §7.1)."""
    key = site.player("丙")
    thief = SoftKey(2)
    assert site.register(key, thief)[0] == 201
    status, _, second = site.sign_in(thief)
    assert status == 200, second
    ids = [p["id"] for p in site.call("GET", "/api/me/passkeys", key=key)[2]["passkeys"]]
    assert ids == [thief.id]
    status, headers, out = site.call("POST", "/api/me/signout/all", key=key)
    assert status == 200 and out["devices"] == 2 and out["passkeys"] == 1, out
    # This device alone is signed in again, with a new key (a copy of the old one is dead).
    assert out["key"] not in (key, second["key"]) and out["player"]["name"] == "丙"
    assert f"wmq_player={out['key']}" in headers["set-cookie"]
    for old in (key, second["key"]):
        error_of(site.call("GET", "/api/me", key=old), 401, "unauthorized")
    error_of(site.sign_in(thief), 404, "bad_passkey")
    status, _, devices = site.call("GET", "/api/me/devices", key=out["key"])
    assert status == 200 and [d["current"] for d in devices["devices"]] == [True], devices
    assert site.call("GET", "/api/me/passkeys", key=out["key"])[2]["passkeys"] == []


def test_a_known_credential_is_a_409_and_writes_nothing(site: Site) -> None:
    first, second = site.player("丁"), site.player("戊")
    soft = SoftKey(3)
    assert site.register(first, soft)[0] == 201
    message = error_of(site.register(first, soft), 409, "passkey_known")
    assert "already registered" in message
    error_of(site.register(second, soft), 409, "passkey_known")
    assert site.call("GET", "/api/me/passkeys", key=second)[2]["passkeys"] == []
    status, _, signed = site.sign_in(soft)
    assert status == 200 and signed["player"]["name"] == "丁", signed


@pytest.mark.parametrize("credential", [[], [1, 2], 7, "x", None, True, {"id": 5}, {"id": []}])
def test_a_credential_of_the_wrong_kind_is_a_400_quoting_it(site: Site, credential: Any) -> None:
    key = site.player("己")
    ticket = site.call("POST", "/api/me/passkeys/options", key=key)[2]["ticket"]
    answer = {"ticket": ticket, "credential": credential}
    message = error_of(site.call("POST", "/api/me/passkeys", answer, key=key), 400, "bad_passkey")
    assert "credential" in message
    ticket = site.call("POST", "/api/players/passkey/options")[2]["ticket"]
    answer = {"ticket": ticket, "credential": credential}
    error_of(site.call("POST", "/api/players/passkey", answer), 400, "bad_passkey")


@pytest.mark.parametrize(
    "before",
    [
        "1~r~" + "9" * 100,
        "9" * 400 + "~r~1",
        "1e999~r~1",
        "nan~r~1",
        "-1~r~1",
        "1~r~-5",
        "1~r~2147483648",
    ],
)
def test_every_number_of_a_cursor_is_bounded(site: Site, before: str) -> None:
    key = site.player("庚")
    message = error_of(site.call("GET", f"/api/me/matches?before={before}", key=key), 400)
    assert "not a cursor" in message and before[:20] in message


def test_a_foreign_pages_request_is_refused(site: Site) -> None:
    key = site.player("辛")
    cookie = {"Cookie": f"wmq_player={key}"}
    plain = {**cookie, "Content-Type": "text/plain"}
    foreign = "http://attacker.example"
    for path in ("/api/me/transfer", "/api/me/signout", "/api/me/signout/all"):
        answer = site.call("POST", path, raw=b"x", headers={**plain, "Origin": foreign})
        assert foreign in error_of(answer, 403, "forbidden_origin")
        # Without Origin, a browser says another site made it.
        answer = site.call(
            "POST",
            path,
            raw=b"x",
            headers={**plain, "Origin": None, "Sec-Fetch-Site": "cross-site"},
        )
        error_of(answer, 403, "forbidden_origin")
    answer = site.call("PATCH", "/api/me", {"name": "x"}, headers={**cookie, "Origin": "null"})
    error_of(answer, 403, "forbidden_origin")
    # The player is untouched, and still signed in.
    status, _, me = site.call("GET", "/api/me", headers=cookie)
    assert status == 200 and me["player"]["name"] == "辛", me
    # The server's own page passes; so does a program with a key whatever it says.
    same = {**cookie, "Origin": site.origin, "Sec-Fetch-Site": "same-origin"}
    status, _, moved = site.call("POST", "/api/me/transfer", headers=same)
    assert status == 200 and len(moved["code"]) == 8, moved
    status, _, moved = site.call("POST", "/api/me/transfer", key=key, headers={"Origin": foreign})
    assert status == 200, moved
    # A program sending neither Origin nor Sec-Fetch-Site is no browser: let through.
    status, _, moved = site.call("POST", "/api/me/transfer", headers={**cookie, "Origin": None})
    assert status == 200, moved
    # Reading is not refused (a GET changes nothing).
    assert site.call("GET", "/api/me", headers={**cookie, "Origin": foreign})[0] == 200


def test_guesses_from_many_addresses_share_the_targets_budget(tmp_path: Path) -> None:
    """Behind a trusted balancer every address has its own budget, yet wrong transfer codes
    from 40 addresses stop at the budget of all transfer codes (docs/protocol.md §7.6)."""
    server = serverkit.Server(
        tmp_path,
        limits={"target_guess_burst": 10, "target_guess_interval": 600},
        extra=["--trust-proxy", "127.0.0.1"],
    )
    try:
        site = Site(server.port)
        answers = []
        for k in range(40):
            spoofed = {"X-Forwarded-For": f"198.51.100.{k + 1}"}
            answers.append(
                site.call("POST", "/api/players/transfer", {"code": "ABCD-EFGH"}, headers=spoofed)
            )
        statuses = [a[0] for a in answers]
        assert statuses[:10] == [404] * 10 and set(statuses[10:]) == {429}, statuses
        assert "retry-after" in answers[-1][1]
        # A right code is refused too while the budget is spent: nothing is learnt past it.
        key = site.player("壬")
        code = site.call("POST", "/api/me/transfer", key=key)[2]["code"]
        spoofed = {"X-Forwarded-For": "203.0.113.9"}
        answer = site.call("POST", "/api/players/transfer", {"code": code}, headers=spoofed)
        error_of(answer, 429, "rate_limited")
    finally:
        server.stop()


def test_ceremonies_are_good_once_and_bounded_the_oldest_going_first(
    store_target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store's side of a ceremony (SQLite and PostgreSQL): a ticket is spent by its first
    taker, an expired one gives nothing, and past the bound the oldest are forgotten."""
    monkeypatch.setattr(accounts, "MAX_CEREMONIES", 3)
    store = open_store(store_target)
    try:
        for k in range(5):
            store.write(
                lambda db, k=k: accounts.keep_ceremony(db, f"t{k}", bytes([k]), "p", 60.0 + k)
            ).result(30)
        store.write(lambda db: accounts.keep_ceremony(db, "old", b"x", None, -1.0)).result(30)
        taken: list[Any] = []
        for ticket in ("t0", "t1", "t2", "t3", "t4", "t4", "old"):
            store.write(
                lambda db, ticket=ticket: taken.append(accounts.take_ceremony(db, ticket))
            ).result(30)
        assert taken == [None, None, None, (b"\x03", "p"), (b"\x04", "p"), None, None]
    finally:
        store.close()
