"""``wmq score --game sandingguai``: a 三丁拐 hand scored and a table settled through the seam's
calculator (docs/sandingguai.md §12, SDG §12), readable or as JSON; 偎麻雀's flags refused."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from tests.sandingguai.test_settlement import EXAMPLES
from weimaque.cli import app
from weimaque.games import get_game

runner = CliRunner(env={"COLUMNS": "250"})
E1_HAND = "hand:234m678m23p99p gang:7777p@2 win:4p"
E6 = next(t for e, t, *_ in EXAMPLES if e.startswith("E6"))


def run(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_hand_json_is_the_calculator_answer() -> None:
    code, out, err = run("score", "--game", "sandingguai", "--json", E1_HAND, "--from", "other")
    assert code == 0 and err == ""
    got = json.loads(out)
    assert got == get_game("sdg").calculate({"hand": f"{E1_HAND} --from other"})
    assert got["fan"] == 1 and got["may_hu"]


def test_hand_readable_in_both_languages_and_one() -> None:
    code, out, _ = run("score", "-g", "sdg", "111m222m333m555m77m")  # V6: 清大对 15
    assert code == 0
    assert "刻子 concealed pung" in out and "清一色 one suit" in out and "= 15" in out
    code, out, _ = run("score", "-g", "sdg", "--lang", "en", "111m222m333m555m77m")
    assert "concealed pung" in out and "刻子" not in out
    code, out, _ = run("score", "-g", "sdg", "--lang", "zh", "--baoting", "123m456m789m234p55p")
    assert code == 0 and "报听" in out and "= 10" in out and "plain" not in out


def test_not_a_win_exit_1() -> None:
    code, out, _ = run("score", "-g", "sdg", "123m456s789p11m234m")  # V13: 叉胡
    assert code == 1 and "叉胡" in out
    code, out, _ = run("score", "-g", "sdg", "--json", "123m456s789p11m234m")
    assert code == 1 and json.loads(out)["win"] is False


def test_table_settled() -> None:
    one_line = "; ".join(line.strip() for line in E6.splitlines())
    code, out, err = run("score", "-g", "sdg", "--table", one_line)
    assert code == 0, err
    assert "NET [10, 10, -20]" in out and "包鸡" in out and "冲锋鸡" in out
    code, out, _ = run("score", "-g", "sdg", "--table", "--json", "-", stdin=E6)
    assert code == 0 and json.loads(out)["net"] == [10, 10, -20]


def test_bad_input_exit_2_quoting_it() -> None:
    code, out, err = run("score", "-g", "sdg", "123m456m789m234p5x")
    assert code == 2 and out == "" and "5x" in err
    code, _, err = run("score", "-g", "sdg", "--rules", "nosuch", "11223344556677m")
    assert code == 2 and "nosuch" in err
    code, _, err = run("score", "-g", "nosuchgame", "11223344556677m")
    assert code == 2 and "nosuchgame" in err
    code, _, err = run("score", "-g", "sdg", "--last", "11223344556677m")
    assert code == 2 and "--last" in err
    code, _, err = run("score", "-g", "sdg", "--table", "--from", "other", E6)
    assert code == 2 and "--from" in err
    # 偎麻雀 keeps its own ways.
    code, _, err = run("score", "--from", "rob", "碰:七七七 手:一二三 胡:九")
    assert code == 2 and "rob" in err
