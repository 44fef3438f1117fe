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
