"""The games a server hosts, over HTTP: ``GET /api/games`` lists every registered game with its
rule options, presets and bots (docs/protocol.md §1), as the game's own objects say."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from weimaque.games.registry import get_game, list_games
from weimaque.server.app import create_app


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "games.db")) as c:
        yield c


def test_api_games_lists_every_registered_game(client: TestClient) -> None:
    body = client.get("/api/games").json()
    assert body["v"] == 1 and body["default"] == "maque"
    ids = [g["info"]["id"] for g in body["games"]]
    assert ids == [g.info.id for g in list_games()]
    assert {"maque", "sandingguai"} <= set(ids)
    for entry in body["games"]:
        game = get_game(entry["info"]["id"])
        assert entry["info"] == game.info.to_json()
        assert entry["schema"] == game.schema.to_json()
        assert entry["bots"] == [b.to_json() for b in game.bots]
        assert entry["schema"]["presets"] and entry["bots"][0]["name"]
    sdg = next(g for g in body["games"] if g["info"]["id"] == "sandingguai")
    assert sdg["info"]["names"]["zh"] == "三丁拐"
    assert {"key", "type", "default", "label"} <= set(sdg["schema"]["options"][0])
    # Every choice of both games is named in both languages: a form shows names, not values.
    for entry in body["games"]:
        if entry["info"]["id"] not in ("maque", "sandingguai"):
            continue
        for option in entry["schema"]["options"]:
            if option["type"] in ("choice", "keys"):
                names = option["choice_names"]
                assert len(names) == len(option["choices"]), option["key"]
                assert all(n["zh"] and n["en"] for n in names), option["key"]
    rotation = next(o for o in sdg["schema"]["options"] if o["key"] == "dealer_rotation")
    assert rotation["choice_names"][0] == {"zh": "赢家坐庄", "en": "the winner deals"}


def test_a_room_names_its_game_and_preset(client: TestClient) -> None:
    info = client.post("/api/rooms", json={}).json()["room"]
    assert (info["game"], info["variant"], len(info["seats"])) == ("maque", "anxiang", 3)
    res = client.post(
        "/api/rooms",
        json={
            "game": "三丁拐",
            "variant": "baike-3p",
            "options": {"tiles": 72},
            "bots": {"2": "greedy"},
        },
    )
    assert res.status_code == 201, res.text
    info = res.json()["room"]
    assert (info["game"], info["variant"]) == ("sandingguai", "baike-3p")
    assert info["rules"]["overrides"] == {"tiles": 72}
    assert [s["kind"] for s in info["seats"]] == ["human", "human", "bot"]
    assert info["shouxing"] is None
    listed = client.get("/api/rooms", params={"ids": info["room_id"]}).json()["rooms"]
    assert [r["game"] for r in listed] == ["sandingguai"]


@pytest.mark.parametrize(
    ("body", "code", "quoted"),
    [
        ({"game": "go"}, "bad_game", "'go'"),
        ({"game": 7}, "bad_game", "7"),
        ({"game": "sdg", "options": {"tiles": 100}}, "bad_options", "100"),
        ({"game": "sdg", "options": {"wings": 2}}, "bad_options", "'wings'"),
        ({"game": "sdg", "variant": "anxiang"}, "bad_options", "'anxiang'"),
        ({"game": "sdg", "bots": {"3": "random"}}, "bad_bots", "3"),
        ({"game": "sdg", "bots": {"1": "mcts"}}, "bad_bots", "'mcts'"),
        ({"preset": "anxiang", "variant": "anxiang"}, "bad_request", "preset or variant"),
    ],
)
def test_a_room_of_a_bad_game_preset_option_or_bot_is_a_400_quoting_it(
    client: TestClient, body: dict[str, object], code: str, quoted: str
) -> None:
    res = client.post("/api/rooms", json=body)
    assert res.status_code == 400, res.text
    error = res.json()["error"]
    assert error["code"] == code and quoted in error["message"], error


def test_a_three_ding_guai_hand_counts_in_that_games_record_only(client: TestClient) -> None:
    # 战绩 per game (docs/protocol.md §7.3): a signed-in player's 三丁拐 hand, played from its
    # deal and then by 托管, counts under game=sandingguai with its winners, not under 偎麻雀.
    res = client.post("/api/players", json={"name": "阿明"}, headers={"cookie": ""})
    key = res.json()["key"]
    client.cookies.clear()
    head = {"Authorization": f"Bearer {key}"}
    body = {
        "game": "sandingguai",
        "options": {"match_hands": 1},
        "bots": {"1": "random", "2": "random"},
        "bot_delay_ms": 0,
    }
    room_id = client.post("/api/rooms", json=body).json()["room_id"]
    with client.websocket_connect(f"/ws/{room_id}", headers=head) as ws:
        ws.send_json({"v": 1, "type": "sit", "seat": 0, "id": 1})
        ws.send_json({"v": 1, "type": "autoplay", "on": True, "id": 2})
        ends = []
        while True:
            msg = ws.receive_json()
            if msg["type"] == "hand_end":
                ends.append(msg)
            if msg["type"] == "match_end":
                break
    (end,) = ends
    assert end["result"]["net"] == end["settlement"]["seats"] == end["scores"]
    assert end["settlement"]["winners"] == end["result"]["winners"]
    assert "view" in end and "breakdown" not in end
    hands = client.get(f"/api/rooms/{room_id}/hands").json()["hands"]
    winners = end["result"]["winners"]
    assert hands[0]["winner"] == (winners[0] if winners else None)
    mine = client.get("/api/me/stats?game=sdg", headers=head).json()
    assert (mine["game"], mine["matches"], mine["hands"]) == ("sandingguai", 1, 1)
    assert mine["points"] == end["scores"][0] and mine["wins"] == int(0 in winners)
    assert mine["chou"] == int(not winners)
    maque = client.get("/api/me/stats", headers=head).json()
    assert (maque["game"], maque["hands"]) == ("maque", 0)
    (match,) = client.get("/api/me/matches?game=sandingguai", headers=head).json()["matches"]
    assert match["rules"] == {"id": "sandingguai", "name": "三丁拐"}
