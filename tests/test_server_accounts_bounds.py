"""What one player or address can make a real ``wmq serve`` keep, and removal from a club
(docs/protocol.md §7.1, §7.5), over sockets to 127.0.0.1 as a client's would go:

- a member removed from a club is removed: their socket at the club's table is closed and the
  act they send then is never answered, their seat goes to 托管, the table is no room to them,
  and no invitation made before the removal brings them back (a new one does);
- invitations are one-use unless the admin says otherwise, capped per club, listed (never
  their codes) and revoked;
- a player holds at most ``MAX_DEVICES`` devices (a new one signs out the one used longest
  ago), a device unused for a year is signed out, and ``/api/me/devices`` is paged;
- ``/metrics`` serves the named series to loopback only, never through a forwarding header or
  to another address.
"""

from __future__ import annotations

import contextlib
import json
import socket
import sqlite3
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

from tests.serverkit import Client, Server, Table, running
from weimaque.server.store import accounts

JSON = {"Content-Type": "application/json"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    limits = {
        "player_burst": 1000,
        "guess_burst": 1000,
        "invite_burst": 1000,
        "http_burst": 100_000,
    }
    with running(tmp_path_factory.mktemp("accounts"), limits) as s:
        yield s


def call(
    server: Server, method: str, path: str, key: str | None = None, body: Any = None
) -> tuple[int, Any]:
    headers = dict(JSON)
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    data = None if body is None else json.dumps(body).encode()
    status, _, raw = server.request(path, data, headers, method)
    return status, json.loads(raw) if raw else None


def player(server: Server, name: str) -> tuple[str, str]:
    """A new player: (id, key)."""
    status, data = call(server, "POST", "/api/players", body={"name": name})
    assert status == 201, data
    return str(data["player"]["id"]), str(data["key"])


def invite(server: Server, club: str, key: str, **body: Any) -> dict[str, Any]:
    status, data = call(server, "POST", f"/api/clubs/{club}/invites", key, body)
    assert status == 201, data
    return dict(data)


def join(server: Server, code: str, key: str) -> tuple[int, Any]:
    return call(server, "POST", "/api/clubs/join", key, {"code": code})


def socket_of(server: Server, room_id: str, key: str) -> Client:
    ws = connect(
        f"ws://127.0.0.1:{server.port}/ws/{room_id}",
        additional_headers={"Authorization": f"Bearer {key}"},
        open_timeout=10,
        close_timeout=2,
    )
    return Client(ws.__enter__())


def test_a_removed_member_leaves_the_table_and_no_old_invitation_brings_them_back(
    server: Server,
) -> None:
    owner_id, owner = player(server, "阿明")
    member_id, member = player(server, "小芳")
    _, other = player(server, "老王")
    status, data = call(server, "POST", "/api/clubs", owner, {"name": "周五牌局"})
    assert status == 201, data
    club = data["club"]["id"]
    # One use by default: 小芳 spends it, 老王 finds it spent.
    first = invite(server, club, owner)
    assert first["uses"] == 1
    assert join(server, first["code"], member)[1]["role"] == "member"
    status, data = join(server, first["code"], other)
    assert (status, data["error"]["code"]) == (404, "bad_code"), data
    # An invitation for five, made before the removal.
    spare = invite(server, club, owner, uses=5, hours=2)
    body = {"seed": 7, "turn_seconds": None, "bots": {"1": "greedy", "2": "greedy"}}
    status, room = call(server, "POST", f"/api/clubs/{club}/tables", owner, body)
    assert status == 201, room
    room_id = room["room_id"]
    seat = socket_of(server, room_id, member)
    i = seat.send(type="sit", seat=0, name="小芳")
    seat.until(lambda m: m["type"] == "welcome" and m.get("re") == i)
    seat.send(type="no_timer", agree=True)
    # 小芳 is asked to decide: her act would be acknowledged now.
    view = seat.until(
        lambda m: m["type"] in ("snapshot", "events") and bool(m.get("legal_actions")), 30
    )
    status, _ = call(server, "POST", f"/api/clubs/{club}/members/{member_id}", owner,
                     {"action": "remove"})  # fmt: skip
    assert status == 200
    act: int | None = None
    with contextlib.suppress(ConnectionClosed):  # closed already: the act cannot even go
        act = seat.send(
            type="act",
            action=view["legal_actions"][0]["text"],
            hand=view["hand_number"],
            decision=view["decision"],
        )
    answered: list[dict[str, Any]] = []
    with pytest.raises(ConnectionClosed):
        while True:
            answered.append(seat.recv(10))
    assert act is None or not [m for m in answered if act in (m.get("ack"), m.get("re"))]
    assert seat.ws.close_code is not None and seat.ws.close_code != 1000
    # Her seat is played by 托管 now; the table is no room to her.
    info = call(server, "GET", f"/api/rooms/{room_id}", owner)[1]
    assert info["room"]["seats"][0]["autoplay"] is True, info["room"]["seats"][0]
    with pytest.raises(ConnectionClosed):
        again = socket_of(server, room_id, member)
        again.send(type="join", token="x")
        assert again.recv(10)["code"] == "room_not_found"
        again.recv(10)
    # The invitation made before her removal does not bring her back; it still works for 老王.
    status, data = join(server, spare["code"], member)
    assert (status, data["error"]["code"]) == (403, "removed"), data
    assert join(server, spare["code"], other)[1]["role"] == "member"
    assert call(server, "GET", f"/api/clubs/{club}", member)[0] == 404
    # An admin's new invitation does.
    fresh = invite(server, club, owner)
    assert join(server, fresh["code"], member)[1]["role"] == "member"
    assert owner_id != member_id


def test_invitations_are_capped_listed_and_revoked(server: Server) -> None:
    _, owner = player(server, "阿明")
    _, guest = player(server, "路人")
    club = call(server, "POST", "/api/clubs", owner, {"name": "牌友"})[1]["club"]["id"]
    made = [invite(server, club, owner, uses=3) for _ in range(accounts.MAX_LIVE_INVITES)]
    status, data = call(server, "POST", f"/api/clubs/{club}/invites", owner, {})
    assert (status, data["error"]["code"]) == (429, "too_many_invites"), data
    assert str(accounts.MAX_LIVE_INVITES) in data["error"]["message"]
    for bad in (0, 101, "3", True, 2.5):
        status, data = call(server, "POST", f"/api/clubs/{club}/invites", owner, {"uses": bad})
        assert status == 400 and repr(bad) in data["error"]["message"], (bad, data)
    status, listed = call(server, "GET", f"/api/clubs/{club}/invites", owner)
    assert status == 200
    assert {i["id"] for i in listed["invites"]} == {m["id"] for m in made}
    assert all(i["max_uses"] == 3 and i["uses"] == 0 for i in listed["invites"])
    assert not any(m["code"] in json.dumps(listed) for m in made)  # only hashes are kept
    # A member who is no admin sees none and revokes none.
    assert join(server, made[0]["code"], guest)[1]["role"] == "member"
    assert call(server, "GET", f"/api/clubs/{club}/invites", guest)[0] == 403
    assert call(server, "DELETE", f"/api/clubs/{club}/invites/{made[1]['id']}", guest)[0] == 403
    # Revoked: its code stops working at once, and there is room for a new one.
    status, data = call(server, "DELETE", f"/api/clubs/{club}/invites/{made[1]['id']}", owner)
    assert status == 200 and data["revoked"] == made[1]["id"]
    _, late = player(server, "迟到")
    status, data = join(server, made[1]["code"], late)
    assert (status, data["error"]["code"]) == (404, "bad_code")
    assert call(server, "DELETE", f"/api/clubs/{club}/invites/{made[1]['id']}", owner)[0] == 404
    invite(server, club, owner)
    listed = call(server, "GET", f"/api/clubs/{club}/invites", owner)[1]["invites"]
    assert [i["uses"] for i in listed if i["id"] == made[0]["id"]] == [1]


def test_an_address_makes_invitations_at_a_bounded_rate(tmp_path: Path) -> None:
    with running(tmp_path, {"invite_burst": 2, "invite_interval": 3600}) as server:
        _, owner = player(server, "阿明")
        club = call(server, "POST", "/api/clubs", owner, {"name": "牌友"})[1]["club"]["id"]
        invite(server, club, owner)
        invite(server, club, owner, uses=2)
        status, _, raw = server.request(
            f"/api/clubs/{club}/invites",
            b"{}",
            {**JSON, "Authorization": f"Bearer {owner}"},
        )
        assert status == 429 and json.loads(raw)["error"]["code"] == "rate_limited", raw
        listed = call(server, "GET", f"/api/clubs/{club}/invites", owner)[1]["invites"]
        assert len(listed) == 2


def test_devices_are_capped_paged_and_expire(server: Server) -> None:
    pid, key = player(server, "阿明")
    keys = [key]
    for _ in range(accounts.MAX_DEVICES + 3):
        status, code = call(server, "POST", "/api/me/transfer", key)
        assert status == 200, code
        status, data = call(server, "POST", "/api/players/transfer", body={"code": code["code"]})
        assert status == 200 and data["player"]["id"] == pid, data
        keys.append(data["key"])
    # The first device asked for every code: in use, it is kept; those used longest ago went.
    assert call(server, "GET", "/api/me", key)[0] == 200
    gone = [k for k in keys if call(server, "GET", "/api/me", k)[0] == 401]
    assert gone == keys[1 : len(keys) - accounts.MAX_DEVICES + 1]
    pages: list[dict[str, Any]] = []
    cursor = ""
    while True:
        status, page = call(server, "GET", f"/api/me/devices?limit=7{cursor}", key)
        assert status == 200 and len(page["devices"]) <= 7, page
        pages += page["devices"]
        if page["next"] is None:
            break
        cursor = f"&before={page['next']}"
    assert len(pages) == len({d["id"] for d in pages}) == accounts.MAX_DEVICES
    assert [d["last_seen"] for d in pages] == sorted((d["last_seen"] for d in pages), reverse=True)
    assert sum(d["current"] for d in pages) == 1
    for bad in ("0", "51", "x"):
        assert call(server, "GET", f"/api/me/devices?limit={bad}", key)[0] == 400
    for bad in ("nan~x", "1.5", "inf~a", "x~y"):
        status, data = call(server, "GET", f"/api/me/devices?before={bad}", key)
        assert status == 400 and "cursor" in data["error"]["message"], (bad, data)
    # A device unused for longer than DEVICE_IDLE_SECONDS is signed out.
    old = time.time() - accounts.DEVICE_IDLE_SECONDS - 60
    last = keys[-1]
    db = sqlite3.connect(server.db, timeout=10)
    try:
        db.execute(
            "UPDATE player_keys SET last_seen = ? WHERE hash = ?", (old, accounts.digest(last))
        )
        db.commit()
    finally:
        db.close()
    assert call(server, "GET", "/api/me", last)[0] == 401


def other_address() -> str | None:
    """An address of this machine that is not loopback, if it has one."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        try:
            s.connect(("192.0.2.1", 9))  # no packet is sent
            found = str(s.getsockname()[0])
        except OSError:
            return None
    return None if found.startswith("127.") else found


def get_from(address: str, port: int, path: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(f"http://{address}:{port}{path}", timeout=10) as res:
            return res.status, res.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_metrics_are_served_to_loopback_only(tmp_path: Path) -> None:
    # Listening on every address, so that it can be asked from another one of this machine.
    server = Server(tmp_path, extra=["--host", "0.0.0.0"])
    try:
        room = server.room(seed=3, turn_seconds=None)
        table = Table(server, room["room_id"])
        for _ in range(6):
            k = table.to_act()
            assert k is not None
            assert table.act(k) == "ack"
        status, headers, body = server.request("/metrics")
        assert status == 200, body[:300]
        assert {k.lower(): v for k, v in headers.items()}["content-type"].startswith("text/plain")
        text = body.decode()
        series = {
            line.split("{")[0].split(" ")[0]: line
            for line in text.splitlines()
            if line and not line.startswith("#")
        }
        for name in (
            "wmq_act_ack_seconds_bucket",
            "wmq_act_ack_seconds_count",
            "wmq_store_write_seconds_count",
            "wmq_store_queue",
            "wmq_store_failing",
            "wmq_rooms_in_memory",
            "wmq_sockets",
            "wmq_leases_renewed_total",
            "wmq_leases_lost_total",
            "wmq_fenced_writes_refused_total",
            "wmq_relay_requests_total",
            "wmq_relay_bytes_total",
            "wmq_rate_limited_total",
        ):
            assert name in series, (name, text[:2000])
        assert float(series["wmq_act_ack_seconds_count"].split()[-1]) >= 6
        assert float(series["wmq_store_write_seconds_count"].split()[-1]) >= 6
        assert float(series["wmq_rooms_in_memory"].split()[-1]) >= 1
        assert 'wmq_sockets{state="seated"} 3.0' in text
        # Through a balancer or a relay (a forwarding header), it is not there.
        for header in ("X-Forwarded-For", "Forwarded", "X-Real-IP"):
            status, _, body = server.request("/metrics", headers={header: "127.0.0.1"})
            assert status == 404 and b"wmq_" not in body, header
        # Nor to an address of this machine that is not loopback.
        address = other_address()
        if address is None:
            pytest.skip("this machine has no address but loopback")
        status, body = get_from(address, server.port, "/metrics")
        assert status == 404 and b"wmq_" not in body
        assert get_from(address, server.port, "/api/live")[0] == 200
        table.close()
    finally:
        server.stop()
