"""The 算息 calculator at the tables the apps play (docs/players.md, docs/protocol.md §1): the 留子
pool the winner may take, scored with ``liuzi_choice`` (RULES §8.5.3), and two or three players
(RULES §2.5), through ``wmq score --pool/--players/--options`` and ``POST /api/score``."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.serverkit import Server, running
from weimaque.cli import app
from weimaque.games import get_game
from weimaque.games.maque.scoring.explain import breakdown_json
from weimaque.games.maque.scoring.scorer import score

# RULES §8.5.3's example: 二三四 ×3 (硬息 10, total 160) or 二二二 三三三 四四四 (硬息 20, total 70)
HAND = "偎:七七七 偎:贰贰贰 吃:八九十 手:二二二三三三四四四柒 胡:柒"
EIGHTY = {"deng_value": 80}  # 1 等 = 80 units, as in the example


def wmq(*args: str) -> tuple[int, Any, str]:
    result = CliRunner().invoke(app, ["score", *args])
    body = json.loads(result.stdout) if "--json" in args and result.exit_code < 2 else None
    return result.exit_code, body, " ".join(result.stderr.split())


@pytest.mark.parametrize(
    ("players", "pool", "hard_xi", "total", "take", "gain"),
    [
        (3, 240, 20, 70, 240, 380),  # 2 × 70 + 240 beats 2 × 160 (RULES §8.5.3)
        (3, 100, 10, 160, 0, 320),  # 2 × 70 + 100 = 240 does not
        (2, 100, 20, 70, 100, 170),  # at two players 70 + 100 beats 160
        (2, 0, 10, 160, 0, 160),  # an empty pool: §6.2's reading
    ],
)
def test_cli_weighs_the_pool_by_the_players(
    players: int, pool: int, hard_xi: int, total: int, take: int, gain: int
) -> None:
    args = ["--options", json.dumps(EIGHTY), "--pool", str(pool), "--players", str(players)]
    code, body, _ = wmq(HAND, *args, "--json")
    assert code == 0
    assert (body["hard_xi"], body["total"]) == (hard_xi, total)
    assert body["gain"] == {"players": players, "pool": pool, "take": take, "gain": gain}
    table = CliRunner().invoke(app, ["score", HAND, *args])
    assert f"得 gain ({players} 人)" in table.stdout and str(gain) in table.stdout


def test_cli_without_the_new_options_scores_as_before() -> None:
    code, body, _ = wmq(HAND, "--json")
    assert code == 0 and body == score(HAND).to_dict() and "gain" not in body
    assert body["total"] == 160
    # the two-player variant, and players alone: the same reading, the gain of a table of two
    code, body, _ = wmq(HAND, "--rules", "anxiang-2p", "--json")
    assert code == 0 and body["total"] == 160
    assert body["gain"] == {"players": 2, "pool": None, "take": 0, "gain": 160}
    code, body, _ = wmq(HAND, "--players", "3", "--json")
    assert body["gain"] == {"players": 3, "pool": None, "take": 0, "gain": 320}
    # the default 1 等 = 1: 硬息 20 takes 3 units, too few to choose the 砍 reading
    code, body, _ = wmq(HAND, "--pool", "50", "--json")
    assert body["total"] == 160 and body["gain"]["take"] == 0


@pytest.mark.parametrize(
    ("args", "quoted"),
    [
        (["--pool", "-1"], "not -1"),
        (["--pool", "1000001"], "not 1000001"),
        (["--players", "4"], "not 4"),
        (["--options", "[1]"], "'[1]'"),
        (["--options", '{"players": 5}'], "not 5"),
        (["--tianhu", "--pool", "3"], "--pool"),
        (["--game", "sdg", "--pool", "3"], "--pool"),
        (["--game", "sdg", "--players", "2"], "--players"),
    ],
)
def test_cli_refuses_bad_values_quoting_them(args: list[str], quoted: str) -> None:
    code, _, err = wmq(HAND, *args)
    assert code == 2 and quoted in err, err


def test_calculator_capability_takes_pool_and_players() -> None:
    calc = get_game("maque")
    answer = calc.calculate({"hand": HAND, "pool": 100, "players": 2, "options": EIGHTY})
    assert answer["breakdown"]["total"] == 70 and answer["breakdown"]["hard_xi"] == 20
    assert answer["gain"] == {"players": 2, "pool": 100, "take": 100, "gain": 170}
    plain = calc.calculate({"hand": HAND})
    assert plain == {"rules": "anxiang", "breakdown": breakdown_json(score(HAND))}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running(tmp_path_factory.mktemp("score-pool"), {"http_burst": 10_000}) as s:
        yield s


def test_api_score_takes_pool_and_players(server: Server) -> None:
    body = {"hand": HAND, "pool": 240, "options": EIGHTY}
    status, answer = server.post("/api/score", body)
    assert status == 200 and answer["breakdown"]["total"] == 70
    assert answer["gain"] == {"players": 3, "pool": 240, "take": 240, "gain": 380}
    status, answer = server.post("/api/score", {**body, "pool": 100, "players": 2})
    assert status == 200 and answer["gain"]["gain"] == 170
    status, answer = server.post("/api/score", {"hand": HAND, "rules": "anxiang-2p"})
    assert status == 200 and answer["rules"] == "anxiang" and answer["gain"]["gain"] == 160
    status, answer = server.post("/api/score", {"hand": HAND})
    assert status == 200 and "gain" not in answer
    for bad, code, quoted in (
        ({"pool": -5}, "bad_request", "-5"),
        ({"pool": True}, "bad_request", "True"),
        ({"pool": "9"}, "bad_request", "'9'"),
        ({"players": 4}, "bad_request", "4"),
        ({"options": [1]}, "bad_request", "[1]"),
        ({"options": {"deng_value": -1}}, "bad_rules", "-1"),
        ({"options": {"nosuch": 1}}, "bad_rules", "'nosuch'"),
    ):
        status, answer = server.post("/api/score", {"hand": HAND, **bad})
        assert status == 400, (bad, answer)
        assert answer["error"]["code"] == code and quoted in answer["error"]["message"], answer
