"""A server room at 偎麻雀's table of two (RULES §2.5; docs/protocol.md §1, §2): a person sits
at a ``quanmingtang-2p`` room with a bot, with the 留子 pool fed on 臭 (``liuzi_when``, RULES
§8.5.1, a room option), and gets a snapshot whose numbers (明息) cover the two seats."""

from __future__ import annotations

from collections.abc import Iterator

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
