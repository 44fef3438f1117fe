"""A server room at 偎麻雀's table of two (RULES §2.5; docs/protocol.md §1, §2): a person sits
at a ``quanmingtang-2p`` room with a bot, with the 留子 pool fed on 臭 (``liuzi_when``, RULES
§8.5.1, a room option), and gets a snapshot whose numbers (明息) cover the two seats."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from tests.serverkit import Server, running


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running(tmp_path_factory.mktemp("two"), {"room_burst": 1000}) as s:
        yield s


def test_liuzi_when_is_a_room_option(server: Server) -> None:
    presets = server.get("/api/presets")
    assert presets["room_options"]["liuzi_when"] == ["deal", "chou", "start_and_chou"]
    status, body = server.post("/api/rooms", {"options": {"liuzi_when": "never"}})
    assert status == 400 and body["error"]["code"] == "bad_options"
    assert "'never'" in body["error"]["message"]


def test_a_person_sits_at_a_table_of_two(server: Server) -> None:
    options = {"liuzi": True, "liuzi_when": "chou", "match_hands": 1}
    made = server.room(variant="quanmingtang-2p", options=options, bots={"1": "greedy"}, seed=5)
    room = made["room"]
    assert len(room["seats"]) == 2 and room["rules"]["overrides"]["liuzi_when"] == "chou"
    client = server.ws(made["room_id"])
    try:
        client.reply(client.send(type="join"), "welcome")
        sat = client.send(type="sit", seat=0, hints=True)
        client.reply(sat, "welcome")
        snap = client.until(lambda m: m["type"] == "snapshot" and m.get("observation"))
        obs = snap["observation"]
        assert obs["viewer"] == 0 and len(obs["hand_sizes"]) == 2
        numbers = snap["numbers"]
        assert len(numbers["melds"]) == 2 and len(numbers["hidden"]) == 2
        assert numbers["own"]["to_min"] >= 0
    finally:
        client.close()


def _call(server: Server, path: str, payload: Any, key: str, method: str = "POST") -> Any:
    head = {"Content-Type": "application/json", "Authorization": f"Bearer {key}"}
    data = None if payload is None else json.dumps(payload).encode()
    status, _, raw = server.request(path, data, head, method)
    return status, json.loads(raw) if raw else None


def test_players_is_a_room_option_on_any_preset(server: Server) -> None:
    """RULES §2.5: ``players`` (2 or 3), ``maipai`` and ``chi_opponent_discard`` are room
    options on every preset, 全名堂 (RULES §7.4) included; a bad value is a 400 quoting it."""
    presets = server.get("/api/presets")
    room_options = presets["room_options"]
    assert {"players", "maipai", "chi_opponent_discard"} <= set(room_options)
    tier = next(p for p in presets["presets"] if p["id"] == "quanmingtang")
    assert tier["options"]["players"] == 3 and tier["options"]["maipai"] is True
    options = {"players": 2, "maipai": False, "liuzi": True, "liuzi_when": "chou"}
    made = server.room(preset="quanmingtang", options=options, bots={"1": "greedy"}, seed=3)
    room = made["room"]
    assert [s["seat"] for s in room["seats"]] == [0, 1]
    assert room["rules"] == {"id": "quanmingtang", "name": "全名堂", "overrides": options}
    for bad, quoted in (
        ({"players": 4}, "4"),
        ({"players": "2"}, "'2'"),
        ({"players": 2, "shouxing": True}, "shouxing"),
        ({"maipai": "no"}, "'no'"),
    ):
        status, body = server.post("/api/rooms", {"preset": "quanmingtang", "options": bad})
        assert status == 400 and body["error"]["code"] == "bad_options", body
        assert quoted in body["error"]["message"], body
    status, body = server.post(
        "/api/rooms", {"preset": "zuanshi", "options": {"players": 2}, "bots": {"2": "greedy"}}
    )
    assert status == 400 and "no seat 2 at a table of 2" in body["error"]["message"], body


def test_a_club_of_two_opens_tables_of_two(server: Server) -> None:
    """A 亲友圈's rules (docs/protocol.md §7.5) take ``players`` and the app tiers as a room's
    body does: a 全名堂 club of two opens 全名堂 tables of two with its 逗溜子 timing; a bad value
    is refused with a 400 quoting it, and the club's rules stay as they were."""
    status, player = server.post("/api/players", {"name": "阿明"})
    assert status == 201, player
    key = player["key"]
    rules = {
        "preset": "quanmingtang",
        "options": {"players": 2, "liuzi": True, "liuzi_when": "chou"},
    }
    status, made = _call(server, "/api/clubs", {"name": "二人全名堂", "rules": rules}, key)
    assert status == 201, made
    club = made["club"]
    assert club["rules"] == rules
    base = f"/api/clubs/{club['id']}"
    for bad, quoted in (({"players": 5}, "5"), ({"liuzi_when": "always"}, "'always'")):
        status, body = _call(
            server, base, {"rules": {"preset": "quanmingtang", "options": bad}}, key, "PATCH"
        )
        assert status == 400 and body["error"]["code"] == "bad_options", body
        assert quoted in body["error"]["message"], body
    status, body = _call(
        server,
        "/api/clubs",
        {"name": "x", "rules": {"preset": "zhizun", "options": {"players": 1}}},
        key,
    )
    assert status == 400 and "1" in body["error"]["message"], body
    status, body = _call(
        server,
        base,
        {"rules": {"preset": "quanmingtang", "options": {"maipai": "yes"}}},
        key,
        "PATCH",
    )
    assert status == 400 and "'yes'" in body["error"]["message"], body
    status, now = _call(server, base, None, key, "GET")
    assert status == 200 and now["club"]["rules"] == rules, now
    status, opened = _call(server, f"{base}/tables", {"bots": {"1": "greedy"}}, key)
    assert status == 201, opened
    room = opened["room"]
    assert len(room["seats"]) == 2
    assert room["rules"]["id"] == "quanmingtang"
    assert room["rules"]["overrides"] == rules["options"]
    # A table of two has no third seat for a bot.
    status, body = _call(server, f"{base}/tables", {"bots": {"1": "greedy", "2": "greedy"}}, key)
    assert status == 400 and "no seat 2" in body["error"]["message"], body
    # The 2-player variant names a table of two too (RULES §2.5).
    status, body = _call(server, base, {"rules": {"preset": "anxiang-2p"}}, key, "PATCH")
    assert status == 200, body
    status, opened = _call(server, f"{base}/tables", {"bots": {"1": "random"}}, key)
    assert status == 201 and len(opened["room"]["seats"]) == 2, opened
