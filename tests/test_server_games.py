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
