"""The CLI through the seam for 偎麻雀: ``wmq score`` asks the ``Calculator`` and its front end
prints the answer as ``wmq score`` always has (``Breakdown.to_dict`` and the gain with
``--json``), the calculator takes every flag of ``wmq score`` (docs/protocol.md §1 ``POST
/api/score``), and ``wmq play --options`` reaches its board (docs/terminal.md)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from typer.testing import CliRunner

from weimaque.cli import app
from weimaque.games import BadRequest, Calculator, get_game
from weimaque.games.maque.rules.registry import get_rules
from weimaque.games.maque.scoring.scorer import score, score_deal_cards, score_tianhu

runner = CliRunner()
WIN = "碰:七七七 偎:捌捌捌 吃:一二三 手:贰贰贰四五六柒捌玖九 胡:九"
LIUZI = "偎:七七七 偎:贰贰贰 吃:八九十 手:二二二三三三四四四柒 胡:柒"
TIANHU = "一一一三三三四四四五五五六六六八八八九九"
NO_WIN = "吃:一二三 吃:四五六 吃:七八九 吃:壹贰叁 手:肆伍陆柒捌玖十 胡:十"


def _json(args: list[str]) -> tuple[int, dict[str, Any]]:
    res = runner.invoke(app, ["score", *args, "--json"])
    return res.exit_code, json.loads(res.stdout)


@pytest.mark.parametrize(
    ("args", "expected", "code"),
    [
        ([WIN, "--from", "other"], lambda: score(WIN, source="other"), 0),
        ([WIN, "--last"], lambda: score(WIN, last=True), 0),
        ([NO_WIN], lambda: score(NO_WIN), 1),
        (
            ["--tianhu", "--rules", "xiaozhuo", TIANHU],
            lambda: score_tianhu(TIANHU, rules=get_rules("xiaozhuo")),
            0,
        ),
        (
            ["--deal", "--rules", "quanmingtang", TIANHU[:-1]],
            lambda: score_deal_cards(TIANHU[:-1], rules=get_rules("quanmingtang")),
            None,
        ),
    ],
)
def test_score_json_is_the_breakdown_as_it_was(args: list[str], expected: Any, code: Any) -> None:
    status, answer = _json(args)
    want = expected().to_dict()
    assert answer == want
    assert status == (0 if want["winning"] else 1) and (code is None or status == code)


def test_score_json_with_a_pool_adds_the_gain() -> None:
    status, answer = _json([LIUZI, "--options", '{"deng_value": 80}', "--pool", "100"])
    assert status == 0
    assert set(answer) == {
        "winning", "rules", "hard_xi", "multiplier", "total", "red", "groups", "patterns",
        "reason", "gain",
    }  # fmt: skip
    assert answer["gain"]["pool"] == 100 and answer["gain"]["players"] == 3
    assert answer["gain"]["gain"] == answer["total"] * 2 + answer["gain"]["take"]


def test_the_calculator_takes_every_flag_of_wmq_score() -> None:
    game = get_game("maque")
    assert isinstance(game, Calculator)
    dealt = game.calculate({"hand": TIANHU, "rules": "xiaozhuo", "tianhu": True})
    assert (
        dealt["breakdown"]
        == game.calculate({"hand": TIANHU, "rules": "xiaozhuo", "tianhu": True})["breakdown"]
    )
    assert dealt["breakdown"]["total"] == score_tianhu(TIANHU, rules=get_rules("xiaozhuo")).total
    declined = game.calculate({"hand": WIN, "declined": "二", "dealt_kan": True})
    assert declined["breakdown"]["total"] == score(WIN, declined="二", dealt_kan=True).total
    for bad, words in (
        ({"hand": TIANHU, "tianhu": True, "deal": True}, "exclude"),
        ({"hand": TIANHU, "tianhu": True, "pool": 5}, "dealt cards"),
        ({"hand": TIANHU, "deal": True, "declined": "二"}, "dealt cards"),
        ({"hand": WIN, "tianhu": "yes"}, "booleans"),
        ({"hand": WIN, "declined": 2}, "string"),
    ):
        with pytest.raises(BadRequest, match=words):
            game.calculate(bad)


def test_score_refuses_what_the_calculator_refuses() -> None:
    res = runner.invoke(app, ["score", "--rules", "nosuch", WIN])
    assert res.exit_code == 2 and "nosuch" in res.output and "anxiang-2p" in res.output
    res = runner.invoke(app, ["score", "--tianhu", "--deal", TIANHU])
    assert res.exit_code == 2 and "exclude" in res.output


def test_play_takes_rule_options_and_refuses_a_table_it_cannot_seat() -> None:
    args = ["play", "--bots", "random", "--seed", "4", "--options", '{"match_hands": 1}']
    res = runner.invoke(app, args, input="1\n" * 2000)
    assert res.exit_code == 0, res.output
    assert "局数 1" in res.stdout and "第 1/1 局" in res.stdout and "比赛结束" in res.stdout
    res = runner.invoke(app, ["play", "--options", '{"players": 2}'], input="")
    assert res.exit_code == 2 and "three players, not 2" in res.output
    res = runner.invoke(app, ["play", "--options", '{"nosuch": 1}'], input="")
    assert res.exit_code == 2 and "nosuch" in res.output
