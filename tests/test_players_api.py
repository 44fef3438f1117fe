"""Players, devices, 亲友圈, 战绩 and 回放码 over HTTP and the WebSocket (docs/protocol.md §7).

In process through Starlette's TestClient: every endpoint, each of its authorization rules,
bad input answered with a 4xx that quotes it, and guesses at secrets rate-limited. The tests
that go through the accounts' SQL run on both engines, SQLite and PostgreSQL (``store_target``,
tests/pg.py).
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from tests import serverkit
from tests.test_server_protocol import Client, acked, room_of
from weimaque.server.app import create_app
from weimaque.server.base.limits import Limits


@pytest.fixture
def client(store_target: str) -> Iterator[TestClient]:
    limits = Limits(player_burst=100, room_burst=100)
    with TestClient(create_app(store_target, limits=limits)) as c:
        yield c


def bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def sign_up(client: TestClient, name: str) -> tuple[str, dict[str, str]]:
    """A new player: (id, the headers that sign their requests)."""
    res = client.post("/api/players", json={"name": name}, headers={"cookie": ""})
    assert res.status_code == 201, res.text
    body = res.json()
    assert body["player"]["name"] == name and len(body["key"]) == 43
    client.cookies.clear()  # each player below signs with their own header
    return body["player"]["id"], bearer(body["key"])


def error(res: Any, status: int, code: str | None = None) -> str:
    assert res.status_code == status, (res.status_code, res.text)
    err = res.json()["error"]
    if code is not None:
        assert err["code"] == code, err
    return str(err["message"])


# ------------------------------------------------------------------ §7.1 signing in


def test_a_player_signs_up_with_a_cookie_and_a_key(client: TestClient) -> None:
    res = client.post("/api/players", json={"name": "  阿明\u202e "})
    assert res.status_code == 201
    body = res.json()
    key = body["key"]
    assert body["player"]["name"] == "阿明"  # cleaned as a seat's name is
    cookie = res.headers["set-cookie"]
    assert "wmq_player=" in cookie and "HttpOnly" in cookie and "SameSite=lax" in cookie
    # The cookie signs the browser in ...
    me = client.get("/api/me").json()
    assert me["player"]["id"] == body["player"]["id"] and me["clubs"] == [] and me["rooms"] == []
    # ... and so does the key, anywhere.
    client.cookies.clear()
    assert client.get("/api/me", headers=bearer(key)).json()["player"]["name"] == "阿明"
    error(client.get("/api/me"), 401, "unauthorized")
    renamed = client.patch("/api/me", json={"name": "明哥"}, headers=bearer(key))
    assert renamed.json()["player"] == {"id": body["player"]["id"], "name": "明哥"}
    assert client.get("/api/me", headers=bearer(key)).json()["player"]["name"] == "明哥"


@pytest.mark.parametrize(
    ("payload", "quoted"),
    [
        ({"name": ""}, "''"),
        ({"name": "x" * 25}, "xxxxxxxx"),
        ({"name": 12345678901234567890}, "12345678901234567890"),
        ({"name": "ok", "admin": True}, "admin"),
        ({}, "name"),
        ([1, 2], "[1, 2]"),
    ],
)
def test_bad_sign_ups_are_refused_quoting_them(
    client: TestClient, payload: Any, quoted: str
) -> None:
    assert quoted in error(client.post("/api/players", json=payload), 400)


def test_devices_are_listed_and_signed_out(client: TestClient) -> None:
    pid, phone = sign_up(client, "小芳")
    transfer = client.post("/api/me/transfer", headers=phone).json()
    assert re.fullmatch(r"[2-9A-HJKMNP-Z]{8}", transfer["code"])
    assert transfer["expires_in"] == 300 and transfer["qr_svg"].startswith("<svg")
    # The laptop types the code in lower case with spaces: it is the same player.
    typed = f"{transfer['code'][:4].lower()} {transfer['code'][4:]}"
    moved = client.post(
        "/api/players/transfer", json={"code": typed}, headers={"user-agent": "Firefox/130 Linux"}
    )
    assert moved.status_code == 200 and moved.json()["player"] == {"id": pid, "name": "小芳"}
    assert "wmq_player=" in moved.headers["set-cookie"]
    laptop = bearer(moved.json()["key"])
    client.cookies.clear()
    # A code is good once.
    again = client.post("/api/players/transfer", json={"code": transfer["code"]})
    error(again, 404, "bad_code")
    devices = client.get("/api/me/devices", headers=laptop).json()["devices"]
    assert len(devices) == 2
    assert [d["current"] for d in devices].count(True) == 1
    assert {d["label"] for d in devices} >= {"Firefox · Linux"}
    phone_id = next(d["id"] for d in devices if not d["current"])
    # The laptop signs the phone out: the phone's key stops working at once.
    assert client.delete(f"/api/me/devices/{phone_id}", headers=laptop).status_code == 200
    error(client.get("/api/me", headers=phone), 401)
    error(client.delete(f"/api/me/devices/{phone_id}", headers=laptop), 404, "not_found")
    # Another player cannot sign out this one's devices.
    _, other = sign_up(client, "老王")
    laptop_id = next(d["id"] for d in devices if d["current"])
    error(client.delete(f"/api/me/devices/{laptop_id}", headers=other), 404)
    assert client.post("/api/me/signout", headers=laptop).json()["signed_out"]
    error(client.get("/api/me", headers=laptop), 401)


def test_guesses_at_keys_and_codes_are_rate_limited(store_target: str) -> None:
    limits = Limits(guess_burst=5, guess_interval=60)
    with TestClient(create_app(store_target, limits=limits)) as client:
        pid, key = sign_up(client, "阿明")
        code = client.post("/api/me/transfer", headers=key).json()["code"]
        # A wrong key is a guess, and answers as no key at all.
        wrong = bearer("A" * 43)
        error(client.get("/api/me", headers=wrong), 401)
        error(client.post("/api/players/transfer", json={"code": "2222-2222"}), 404, "bad_code")
        error(client.get("/api/replays/ABCDEFGH"), 404, "bad_code")
        error(client.post("/api/clubs/join", json={"code": "ZZZZZZZZ"}, headers=key), 404)
        error(client.get("/api/me", headers=bearer("B" * 43)), 401)
        # Five wrong guesses: now even the right code is refused, with when to try again.
        res = client.post("/api/players/transfer", json={"code": code})
        error(res, 429, "rate_limited")
        assert int(res.headers["retry-after"]) >= 1
        error(client.get("/api/me", headers=bearer("C" * 43)), 429)
        # The right key is no guess.
        assert client.get("/api/me", headers=key).json()["player"]["id"] == pid


# ------------------------------------------------------------------ §7.5 亲友圈 and §7.2 seats


def club_of(client: TestClient, owner: dict[str, str], **body: Any) -> dict[str, Any]:
    res = client.post("/api/clubs", json={"name": "周五牌局", **body}, headers=owner)
    assert res.status_code == 201, res.text
    club: dict[str, Any] = res.json()["club"]
    return club


def invite_code(client: TestClient, club_id: str, admin: dict[str, str]) -> str:
    res = client.post(f"/api/clubs/{club_id}/invites", json={}, headers=admin)
    assert res.status_code == 201, res.text
    body = res.json()
    assert body["url"] == f"/c/{body['code']}"
    return str(body["code"])


def test_a_club_is_nothing_to_a_non_member(client: TestClient) -> None:
    _, owner = sign_up(client, "阿明")
    _, stranger = sign_up(client, "路人")
    club = club_of(client, owner)
    assert club["role"] == "owner" and [m["role"] for m in club["members"]] == ["owner"]
    cid = club["id"]
    for method, path, body in [
        ("get", f"/api/clubs/{cid}", None),
        ("get", f"/api/clubs/{cid}/leaderboard", None),
        ("patch", f"/api/clubs/{cid}", {"name": "mine"}),
        ("post", f"/api/clubs/{cid}/invites", {}),
        ("post", f"/api/clubs/{cid}/tables", {}),
        ("post", f"/api/clubs/{cid}/leave", None),
        ("post", f"/api/clubs/{cid}/members/x", {"action": "remove"}),
    ]:
        kwargs: dict[str, Any] = {"headers": stranger}
        if body is not None:
            kwargs["json"] = body
        res = client.request(method.upper(), path, **kwargs)
        # Exactly as for a club that does not exist.
        missing = client.request(method.upper(), path.replace(cid, "nope"), **kwargs)
        assert res.status_code == missing.status_code == 404, (path, res.text)
        assert res.json()["error"]["code"] == missing.json()["error"]["code"] == "club_not_found"
    error(client.get(f"/api/clubs/{cid}"), 401)


def test_invitations_approval_and_roles(client: TestClient) -> None:
    _, owner = sign_up(client, "阿明")
    bid, b = sign_up(client, "小芳")
    cid_, c = sign_up(client, "老王")
    club = club_of(client, owner, approval=True)
    cid = club["id"]
    code = invite_code(client, cid, owner)
    joined = client.post("/api/clubs/join", json={"code": code.lower()}, headers=b).json()
    assert joined["role"] == "pending" and joined["club"] == {
        "id": cid,
        "name": "周五牌局",
        "role": "pending",
    }
    # Waiting: the club's name only; no tables, no leaderboard.
    waiting = client.get(f"/api/clubs/{cid}", headers=b).json()["club"]
    assert "members" not in waiting and "tables" not in waiting
    error(client.get(f"/api/clubs/{cid}/leaderboard", headers=b), 404)
    seen = client.get(f"/api/clubs/{cid}", headers=owner).json()["club"]
    assert [m["player"]["name"] for m in seen["pending"]] == ["小芳"]
    approved = client.post(
        f"/api/clubs/{cid}/members/{bid}", json={"action": "approve"}, headers=owner
    )
    assert approved.status_code == 200
    assert client.get(f"/api/clubs/{cid}", headers=b).json()["club"]["role"] == "member"
    # A member is no admin.
    error(client.post(f"/api/clubs/{cid}/invites", json={}, headers=b), 403, "forbidden")
    error(client.patch(f"/api/clubs/{cid}", json={"name": "x"}, headers=b), 403)
    # The owner makes 小芳 an admin: she invites 老王 (no approval any more).
    client.post(f"/api/clubs/{cid}/members/{bid}", json={"action": "admin"}, headers=owner)
    client.patch(f"/api/clubs/{cid}", json={"approval": False}, headers=b)
    code = invite_code(client, cid, b)
    assert client.post("/api/clubs/join", json={"code": code}, headers=c).json()["role"] == "member"
    me = client.get("/api/me", headers=c).json()
    assert me["clubs"] == [{"id": cid, "name": "周五牌局", "role": "member"}]
    # An admin cannot touch the owner, nor unmake another admin; the owner cannot leave.
    owner_id = client.get("/api/me", headers=owner).json()["player"]["id"]
    error(
        client.post(f"/api/clubs/{cid}/members/{owner_id}", json={"action": "remove"}, headers=b),
        409,
    )
    error(client.post(f"/api/clubs/{cid}/leave", headers=owner), 409)
    bad = client.post(f"/api/clubs/{cid}/members/{cid_}", json={"action": "ban"}, headers=owner)
    assert "'ban'" in error(bad, 400)
    error(client.post(f"/api/clubs/{cid}/invites", json={"hours": 10**40}, headers=owner), 400)
    assert "10000" in error(
        client.post(f"/api/clubs/{cid}/invites", json={"hours": 10**40}, headers=owner), 400
    )
    # 老王 leaves; removed, 小芳 is a stranger again.
    assert client.post(f"/api/clubs/{cid}/leave", headers=c).status_code == 200
    client.post(f"/api/clubs/{cid}/members/{bid}", json={"action": "remove"}, headers=owner)
    error(client.get(f"/api/clubs/{cid}", headers=b), 404)


def play_hand(client: TestClient, room_id: str, seats: dict[int, Client]) -> None:
    """Play the room's hand to its end, each seat of ``seats`` its first legal action (the
    room's bots play theirs)."""
    room = room_of(client, room_id)
    number = room.table.hand_number
    for _ in range(400):
        state = room.state
        if state is None or state.is_terminal() or room.table.hand_number != number:
            # The hand's record (and its seats' rows) follows its last action into the store
            # (docs/protocol.md §4): the reads of 战绩 that come next wait for it.
            store = client.app.state.manager.store  # type: ignore[attr-defined]
            deadline = time.monotonic() + 10
            while store.hand(room_id, number) is None:
                assert time.monotonic() < deadline, "the hand's record was not written"
                time.sleep(0.01)
            return
        to_act = [seat for seat in state.to_act() if seat in seats]
        if not to_act:
            next(iter(seats.values())).drain(0.02)
            continue
        seat = to_act[0]
        c = seats[seat]
        acked(
            c,
            c.send(
                type="act",
                action=str(state.legal_actions(seat)[0]),
                decision=room.decision_of(seat),
            ),
        )
    raise AssertionError("the hand did not end")


def test_a_club_table_its_seats_and_its_records(client: TestClient) -> None:
    ids: list[str] = []
    heads: list[dict[str, str]] = []
    for name in ("阿明", "小芳", "老王"):
        pid, head = sign_up(client, name)
        ids.append(pid)
        heads.append(head)
    _, stranger = sign_up(client, "路人")
    club = club_of(client, heads[0], rules={"turn_seconds": None, "options": {"match_hands": 2}})
    cid = club["id"]
    for head in heads[1:]:
        client.post(
            "/api/clubs/join", json={"code": invite_code(client, cid, heads[0])}, headers=head
        )
    error(client.post(f"/api/clubs/{cid}/tables", json={"seed": -1}, headers=heads[0]), 400)
    made = client.post(
        f"/api/clubs/{cid}/tables", json={"seed": 11, "next_seconds": None}, headers=heads[0]
    )
    assert made.status_code == 201, made.text
    room_id = made.json()["room_id"]
    info = made.json()["room"]
    assert info["club"] == cid and info["no_timer_asked"]  # the club's rules
    # The table is the club's: members see it, nobody else does, anywhere.
    assert [
        t["room_id"]
        for t in client.get(f"/api/clubs/{cid}", headers=heads[1]).json()["club"]["tables"]
    ] == [room_id]
    for path in (f"/api/rooms/{room_id}", f"/api/rooms/{room_id}/hands", f"/r/{room_id}"):
        assert client.get(path, headers=stranger).status_code == 404, path
        assert client.get(path, headers=heads[2]).status_code == 200, path
    listed = client.get(f"/api/rooms?ids={room_id}", headers=heads[1]).json()["rooms"]
    assert listed == []  # never in the lobby's lists
    with client.websocket_connect(f"/ws/{room_id}", headers=stranger) as ws:
        assert ws.receive_json()["code"] == "room_not_found"
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
        assert closed.value.code == 4404
    with contextlib.ExitStack() as stack:
        seats: dict[int, Client] = {}
        for seat in range(3):
            c = Client(
                stack.enter_context(client.websocket_connect(f"/ws/{room_id}", headers=heads[seat]))
            )
            c.reply(c.send(type="sit", seat=seat, name="typed names give way"), "welcome")
            seats[seat] = c
        room = client.get(f"/api/rooms/{room_id}", headers=heads[0]).json()["room"]
        # Each seat is its player's, by name and id; three seats from one address are said.
        assert [s["player_id"] for s in room["seats"]] == ids
        assert [s["name"] for s in room["seats"]] == ["阿明", "小芳", "老王"]
        assert room["same_network"] is True
        online = client.get(f"/api/clubs/{cid}", headers=heads[0]).json()["club"]["members"]
        assert all(m["online"] for m in online)
        assert [r["room_id"] for r in client.get("/api/me", headers=heads[1]).json()["rooms"]] == [
            room_id
        ]
        play_hand(client, room_id, seats)
    # 战绩: the match, with everyone's totals, for each of them.
    hands = client.get(f"/api/rooms/{room_id}/hands", headers=heads[0]).json()["hands"]
    assert len(hands) == 1
    code = hands[0]["code"]
    assert re.fullmatch(r"[2-9A-HJKMNP-Z]{8}", code)
    totals = hands[0]["settlement"]["seats"]
    for seat in range(3):
        found = client.get("/api/me/matches", headers=heads[seat]).json()
        assert found["next"] is None and len(found["matches"]) == 1
        m = found["matches"][0]
        assert (m["room_id"], m["match"], m["seat"], m["hands"]) == (room_id, 1, seat, 1)
        assert m["club"] == {"id": cid, "name": "周五牌局"} and m["rules"]["id"] == "anxiang"
        assert m["total"] == totals[seat] and not m["over"]
        assert m["place"] == 1 + sum(t > totals[seat] for t in totals)
        assert [p["player_id"] for p in m["players"]] == ids
        stats = client.get("/api/me/stats?days=7", headers=heads[seat]).json()
        assert (stats["matches"], stats["hands"], stats["points"]) == (1, 1, totals[seat])
    # A practice table (a chosen seed) is in 战绩, marked, and on no leaderboard (§7.5).
    board = client.get(f"/api/clubs/{cid}/leaderboard?days=1", headers=heads[1]).json()
    assert board["rows"] == []
    assert not client.get("/api/me/matches", headers=heads[0]).json()["matches"][0]["ranked"]
    assert "0" in error(client.get(f"/api/clubs/{cid}/leaderboard?days=0", headers=heads[1]), 400)
    # 老王 also plays a table of his own, outside the club.
    elsewhere = bot_table(client, heads[2], seed=3)
    mine = client.get("/api/me/matches", headers=heads[2]).json()["matches"]
    assert [m["room_id"] for m in mine] == [elsewhere, room_id]
    # Another member's 战绩: only the club's matches; a stranger's: nothing.
    theirs = client.get(f"/api/players/{ids[2]}/matches", headers=heads[1]).json()["matches"]
    assert [m["room_id"] for m in theirs] == [room_id]
    error(client.get(f"/api/players/{ids[2]}/matches", headers=stranger), 404)
    # The 回放码 opens that hand's replay for anyone, and nothing else.
    answer = client.get(f"/api/replays/{code.lower()}")
    replay = answer.json()
    assert (replay["number"], replay["match"], replay["code"]) == (1, 1, code)
    assert replay["steps"] and replay["record"]["actions"]
    assert [(s["name"], s["player_id"]) for s in replay["seats"]] == list(
        zip(("阿明", "小芳", "老王"), ids, strict=True)
    )
    # Nothing leads from the code to the room and its other hands.
    assert room_id not in answer.text
    review = client.get(f"/api/replays/{code}/review?seat=1")
    assert review.status_code == 200, review.text
    assert review.json()["code"] == code and room_id not in review.text
    assert "'9'" in error(client.get(f"/api/replays/{code}/review?seat=9"), 400, "bad_seat")


def bot_table(client: TestClient, head: dict[str, str], seed: int) -> str:
    """A one-hand match of the player of ``head`` against two bots, played to its end."""
    res = client.post(
        "/api/rooms",
        json={
            "seed": seed,
            "bots": {"1": "random", "2": "random"},
            "bot_delay_ms": 0,
            "turn_seconds": None,
            "next_seconds": None,
            "options": {"match_hands": 1},
        },
    )
    room_id = str(res.json()["room_id"])
    with client.websocket_connect(f"/ws/{room_id}", headers=head) as ws:
        c = Client(ws)
        c.reply(c.send(type="sit", seat=0), "welcome")
        play_hand(client, room_id, {0: c})
    return room_id


def test_paging_a_long_record(client: TestClient) -> None:
    _, head = sign_up(client, "阿明")
    rooms = [bot_table(client, head, seed) for seed in range(3)]
    page = client.get("/api/me/matches?limit=2", headers=head).json()
    assert [m["room_id"] for m in page["matches"]] == rooms[:0:-1] and page["next"]
    rest = client.get(f"/api/me/matches?limit=2&before={page['next']}", headers=head).json()
    assert [m["room_id"] for m in rest["matches"]] == rooms[:1] and rest["next"] is None
    assert all(m["over"] and m["club"] is None for m in page["matches"] + rest["matches"])
    seats = page["matches"][0]["players"]
    bot = ("random", "random")
    assert [(p["name"], p["bot"]) for p in seats] == [("阿明", None), bot, bot]
    for bad in ("limit=0", "limit=51", "limit=9" * 50, "before=xyz", "before=1~2"):
        assert bad.split("=")[1][:20] in error(
            client.get(f"/api/me/matches?{bad}", headers=head), 400
        )


def test_no_secret_reaches_the_servers_log(tmp_path: Path) -> None:
    """A real ``wmq serve``: keys, transfer codes, invitations and 回放码 are never logged,
    not even the wrong ones tried."""
    with serverkit.running(tmp_path) as server:
        _, made = server.post("/api/players", {"name": "阿明"})
        key = made["key"]
        head = {"Authorization": f"Bearer {key}", "Content-Type": "application/json"}

        def post(path: str, body: bytes) -> Any:
            status, _, answer = server.request(path, body, head, "POST")
            assert status in (200, 201), answer
            return json.loads(answer)

        transfer = post("/api/me/transfer", b"{}")["code"]
        club = post("/api/clubs", b'{"name": "c"}')["club"]["id"]
        invite = post(f"/api/clubs/{club}/invites", b"{}")["code"]
        wrong = "Z" * 43
        server.request("/api/me", headers={"Authorization": f"Bearer {wrong}"})
        server.request("/api/replays/QQQQQQQQ")
        server.request("/p/QQQQQQQQ")
        server.request(f"/c/{invite}")
        server.request(f"/me?code={transfer}")
        assert server.post("/api/players/transfer", {"code": transfer})[0] == 200
        server.stop()
        log = server.log()
        for secret in (key, transfer, transfer.replace("-", ""), invite, wrong, "QQQQQQQQ"):
            assert secret not in log, secret


def test_a_device_signed_out_elsewhere_forgets_its_cookie(client: TestClient) -> None:
    res = client.post("/api/players", json={"name": "阿明"})
    key = res.json()["key"]
    phone = client.get("/api/me/devices").json()["devices"][0]["id"]
    client.cookies.clear()
    moved_code = client.post("/api/me/transfer", headers=bearer(key)).json()["code"]
    laptop = client.post("/api/players/transfer", json={"code": moved_code}).json()["key"]
    client.cookies.clear()
    assert client.delete(f"/api/me/devices/{phone}", headers=bearer(laptop)).status_code == 200
    # The phone still sends its cookie: told to sign in, and its cookie is deleted.
    answer = client.get("/api/me", headers={"cookie": f"wmq_player={key}"})
    error(answer, 401, "unauthorized")
    assert 'wmq_player=""' in answer.headers["set-cookie"]
    assert "Max-Age=0" in answer.headers["set-cookie"]


def test_passkey_ceremonies_refuse_what_is_not_theirs(client: TestClient) -> None:
    """The browser test makes and uses a passkey with Chromium's virtual authenticator; here,
    what the server refuses (docs/protocol.md §7.1)."""
    _, head = sign_up(client, "阿明")
    # An IP address is no relying party.
    by_ip = client.post("/api/players/passkey/options", headers={"host": "127.0.0.1:8000"})
    assert "127.0.0.1" in error(by_ip, 400, "no_passkeys")
    made = client.post("/api/me/passkeys/options", headers=head).json()
    options = made["options"]
    assert options["rp"]["id"] == "testserver" and options["user"]["name"] == "阿明"
    assert options["authenticatorSelection"]["residentKey"] == "required"
    error(client.post("/api/me/passkeys/options"), 401)
    # A ticket is good once, for its own player and ceremony only.
    _, other = sign_up(client, "小芳")
    answer = {"ticket": made["ticket"], "credential": {"id": "x", "response": {}}}
    error(client.post("/api/me/passkeys", json=answer, headers=other), 400, "bad_ticket")
    error(client.post("/api/me/passkeys", json=answer, headers=head), 400, "bad_ticket")
    fresh = client.post("/api/me/passkeys/options", headers=head).json()["ticket"]
    broken = {"ticket": fresh, "credential": {"id": "x", "response": {}}}
    error(client.post("/api/me/passkeys", json=broken, headers=head), 400, "bad_passkey")
    # Signing in: a passkey this server never made is refused.
    ticket = client.post("/api/players/passkey/options").json()["ticket"]
    unknown = {"ticket": ticket, "credential": {"id": "AAAA", "response": {}}}
    error(client.post("/api/players/passkey", json=unknown), 404, "bad_passkey")
    extra = {"ticket": ticket, "credential": {}, "player": "x"}
    assert "'player'" in error(client.post("/api/players/passkey", json=extra), 400)


@pytest.mark.parametrize(
    "rules",
    [
        {"options": {"min_xi": int("9" * 4000)}},
        {"options": {"min_xi": -3}},
        {"preset": "nowhere"},
        {"bots": {"1": "mcts:iters=99999999"}},
        {"club": "another"},
        [1],
    ],
)
def test_a_clubs_rules_are_checked_as_a_rooms_body_is(client: TestClient, rules: Any) -> None:
    _, owner = sign_up(client, "阿明")
    made = client.post("/api/clubs", json={"name": "c", "rules": rules}, headers=owner)
    assert made.status_code == 400, made.text
    cid = club_of(client, owner)["id"]
    patched = client.patch(f"/api/clubs/{cid}", json={"rules": rules}, headers=owner)
    assert patched.status_code == 400, patched.text
    assert client.get(f"/api/clubs/{cid}", headers=owner).json()["club"]["rules"] == {}


def test_rooms_that_left_memory_are_still_the_players_and_the_clubs(store_target: str) -> None:
    limits = Limits(idle_evict=0.5)
    with TestClient(create_app(store_target, limits=limits)) as client:
        _, head = sign_up(client, "阿明")
        cid = club_of(client, head)["id"]
        made = client.post(
            f"/api/clubs/{cid}/tables",
            json={"bots": {"1": "random", "2": "random"}, "turn_seconds": None},
            headers=head,
        )
        room_id = made.json()["room_id"]
        with client.websocket_connect(f"/ws/{room_id}", headers=head) as ws:
            c = Client(ws)
            c.reply(c.send(type="sit", seat=0), "welcome")
        rooms = client.app.state.server.manager.rooms  # type: ignore[attr-defined]
        deadline = time.monotonic() + 20
        while room_id in rooms:
            assert time.monotonic() < deadline, "the idle room never left memory"
            time.sleep(0.1)
        # Out of memory, the room is still the player's and the club's (restored when listed).
        listed = client.get("/api/me", headers=head).json()["rooms"]
        assert [r["room_id"] for r in listed] == [room_id]
        assert listed[0]["seats"][0]["name"] == "阿明"
        tables = client.get(f"/api/clubs/{cid}", headers=head).json()["club"]["tables"]
        assert [t["room_id"] for t in tables] == [room_id]


HOSTILE_BODIES: list[Any] = [
    None,
    [],
    "text",
    12,
    {"name": int("9" * 4000)},
    {"name": {"deep": [[[[["x"]]]]]}},
    {"name": "\ud800"},
    {"code": "A" * 5000},
    {"code": 10**40},
    {"action": None, "hours": -1},
    {"rules": {"options": {"min_xi": 1e308}}},
    {"ticket": [], "credential": "x"},
]
HOSTILE_PATHS = ["x", "A" * 300, "%00", "..", "😀"]


def test_every_new_endpoint_answers_hostile_input_with_a_4xx(store_target: str) -> None:
    """Nothing a client sends to an endpoint of docs/protocol.md §7 is a 500."""
    many = 10**6  # the rates are tested elsewhere: here every request is answered
    limits = Limits(http_burst=many, http_rate=many, guess_burst=many, player_burst=many)
    with TestClient(create_app(store_target, limits=limits)) as client:
        hostile_input(client)


def hostile_input(client: TestClient) -> None:
    _, head = sign_up(client, "阿明")
    cid = club_of(client, head)["id"]
    endpoints = [
        ("POST", "/api/players"),
        ("POST", "/api/players/transfer"),
        ("POST", "/api/players/passkey/options"),
        ("POST", "/api/players/passkey"),
        ("PATCH", "/api/me"),
        ("POST", "/api/me/transfer"),
        ("POST", "/api/me/passkeys/options"),
        ("POST", "/api/me/passkeys"),
        ("PATCH", "/api/me/passkeys/{x}"),
        ("POST", "/api/clubs"),
        ("POST", "/api/clubs/join"),
        ("PATCH", f"/api/clubs/{cid}"),
        ("POST", f"/api/clubs/{cid}/invites"),
        ("POST", f"/api/clubs/{cid}/tables"),
        ("POST", f"/api/clubs/{cid}/members/{{x}}"),
    ]
    for method, path in endpoints:
        for body in HOSTILE_BODIES:
            text = json.dumps(body, ensure_ascii=True, allow_nan=True).encode()
            for who in ({}, head):
                res = client.request(
                    method,
                    path.replace("{x}", "someone"),
                    content=text,
                    headers={**who, "Content-Type": "application/json"},
                )
                assert 400 <= res.status_code < 500 or res.status_code in (200, 201), (
                    method,
                    path,
                    body,
                    res.status_code,
                    res.text[:200],
                )
                if res.status_code >= 400:
                    assert res.json()["error"]["message"], res.text
    for part in HOSTILE_PATHS:
        for path in (
            f"/api/clubs/{part}",
            f"/api/clubs/{part}/leaderboard?days={part}",
            f"/api/players/{part}/matches?limit={part}&before={part}",
            f"/api/replays/{part}",
            f"/api/replays/{part}/review?seat={part}",
            f"/api/me/matches?limit=5&before={part}",
            f"/api/me/stats?days={part}",
            f"/api/numbers/{part}",
        ):
            res = client.get(path, headers=head)
            assert 400 <= res.status_code < 500, (path, res.status_code, res.text[:200])
        res = client.delete(f"/api/me/devices/{part}", headers=head)
        assert res.status_code in (404, 405) and res.json()["error"]["message"], res.text
        res = client.delete(f"/api/me/passkeys/{part}", headers=head)
        assert res.status_code in (404, 405) and res.json()["error"]["message"], res.text
    # The player and the club are as they were.
    assert client.get("/api/me", headers=head).json()["player"]["name"] == "阿明"
    assert client.get(f"/api/clubs/{cid}", headers=head).json()["club"]["name"] == "周五牌局"
