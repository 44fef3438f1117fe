"""``POST /api/score`` for every game with a calculator, through the real server
(docs/protocol.md §1): ``game`` picks the game (偎麻雀 by default, its answers as before),
三丁拐 scores a hand or settles a table, bad input is a 400 quoting it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.sandingguai.test_settlement import EXAMPLES
from tests.serverkit import Server, running
from weimaque.games import get_game
from weimaque.games.maque.numbers import breakdown_json
from weimaque.games.maque.scoring.scorer import score

MAQUE_HAND = "碰:七七七 偎:捌捌捌 吃:一二三 手:贰贰贰四五六柒捌玖九 胡:九"
E6 = next(t for e, t, *_ in EXAMPLES if e.startswith("E6"))


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running(tmp_path_factory.mktemp("score"), {"http_burst": 10_000}) as s:
        yield s


def post(server: Server, body: Any) -> tuple[int, Any]:
    return server.post("/api/score", body)


def test_maque_answers_as_before(server: Server) -> None:
    want = {"v": 1, "rules": "anxiang", "breakdown": breakdown_json(score(MAQUE_HAND))}
    assert post(server, {"hand": MAQUE_HAND}) == (200, want)
    assert post(server, {"hand": MAQUE_HAND, "game": "maque"}) == (200, want)
    assert post(server, {"hand": MAQUE_HAND, "game": "偎麻雀"}) == (200, want)
    status, body = post(server, {"hand": "碰:七七七 手:猫 胡:九"})
    assert status == 400 and body["error"]["code"] == "unknown_card"
    status, body = post(server, {"hand": MAQUE_HAND, "rules": "nope"})
    assert status == 400 and body["error"]["code"] == "bad_rules"
    status, body = post(server, {"hand": MAQUE_HAND, "table": "x"})
    assert status == 400 and body["error"]["code"] == "bad_request"
    assert "'table'" in body["error"]["message"]


def test_sandingguai_hand_and_table(server: Server) -> None:
    hand = "hand:234m678m23p99p gang:7777p@2 win:4p --from other"
    status, body = post(server, {"game": "sandingguai", "hand": hand})
    assert status == 200
    assert body == {"v": 1, **get_game("sandingguai").calculate({"hand": hand})}
    assert body["fan"] == 1 and body["may_hu"] and body["sets"][-1]["tiles"] == "7777p"
    status, body = post(server, {"game": "sdg", "table": E6})
    assert status == 200 and body["net"] == [10, 10, -20] and body["sum"] == 0
    assert sum(t["amount"] for t in body["transfers"] if t["reason"] == "baoji") == 6
    status, body = post(
        server, {"game": "sdg", "hand": "11223344556677m", "rules": "baike-3p", "options": {}}
    )
    assert status == 200 and body["fan"] == 17


@pytest.mark.parametrize(
    ("body", "code", "quote"),
    [
        ({"game": "sdg", "hand": "123m456m789m234p5x"}, "bad_hand", "5x"),
        ({"game": "sdg", "table": "flip:4m; s0 hand:1m"}, "bad_table", "flip:4m"),
        ({"game": "sdg", "hand": "11223344556677m", "rules": "nope"}, "bad_rules", "nope"),
        (
            {"game": "sdg", "hand": "11223344556677m", "options": {"zimo_bonus": [1]}},
            "bad_rules",
            "zimo_bonus",
        ),
        ({"game": "sdg", "hand": "11223344556677m", "options": {"nokey": 1}}, "bad_rules", "nokey"),
        ({"game": "sdg", "hand": "11223344556677m", "source": "self"}, "bad_request", "source"),
        ({"game": "sdg", "hand": "1m" * 300}, "bad_request", "1m1m"),
        ({"game": "sdg", "hand": 3}, "bad_request", "3"),
        ({"game": "sdg"}, "bad_request", "hand or table"),
        ({"game": "chess", "hand": "1m"}, "bad_game", "chess"),
        ({"game": ["sdg"], "hand": "1m"}, "bad_game", "sdg"),
        (["sdg"], "bad_request", "object"),
    ],
)
def test_bad_input_is_a_400_quoting_it(server: Server, body: Any, code: str, quote: str) -> None:
    status, answer = post(server, body)
    assert status == 400, answer
    assert answer["error"]["code"] == code and quote in answer["error"]["message"], answer
