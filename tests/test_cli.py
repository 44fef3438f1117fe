"""The ``wmq`` command line: ``score`` and ``rules`` (RULES §1.4, §7.3)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

import weimaque
from weimaque.cli import app

# RULES §1.4 example (a win under anxiang: 硬息 13, 单吊).
HAND = "碰:七七七 偎:捌捌捌 吃:一二三 手:贰贰贰四五六柒捌玖九 胡:九"
# RULES §9, first worked example: 172 under xiaomingtang.
EXAMPLE_172 = "偎:十十十 吃:八九十 碰:贰贰贰 碰:柒柒柒 碰:二二二 碰:拾拾拾 手:七 胡:七"
# The winning card completes a pair held in hand: a forced 偎 when drawn by oneself, a 碰-valued
# triple when drawn by another (RULES §6.1, §6.4).
PAIR_HAND = "碰:七七七 偎:捌捌捌 吃:一二三 手:贰贰四五六柒捌玖九九 胡:贰"
# Six runs and a black 麻雀: 硬息 below 10 (RULES §4.7).
LOW_HAND = "吃:一二三 吃:四五六 吃:壹贰叁 手:肆伍陆柒捌玖七八九三 胡:三"

# Wide enough that rich does not wrap what the tests look for.
runner = CliRunner(env={"COLUMNS": "250"})


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def run_json(*args: str) -> tuple[int, dict[str, object]]:
    code, out, err = run("score", "--json", *args)
    assert err == ""
    lines = out.strip().splitlines()
    assert len(lines) == 1, out  # exactly one JSON object
    data = json.loads(lines[0])
    assert isinstance(data, dict)
    return code, data


def test_score_json_equals_api() -> None:
    code, data = run_json(HAND)
    assert code == 0
    assert data == weimaque.score(HAND).to_dict()
    assert data["winning"] is True
    assert data["total"] == 33


def test_score_json_non_winning_exit_1() -> None:
    # RULES §4.7: a valid hand whose 硬息 is below min_xi does not win.
    code, data = run_json(LOW_HAND)
    assert code == 1
    assert data == weimaque.score(LOW_HAND).to_dict()
    assert data["winning"] is False and data["total"] == 0 and data["reason"]


def test_score_non_decomposable_exit_1() -> None:
    # RULES §6.1: 20 valid cards that do not form 6 groups + 麻雀.
    text = "手:一一二三四五六七八九十壹贰叁肆伍柒捌拾 胡:陆"
    code, data = run_json(text)
    assert code == 1
    assert data["winning"] is False
    assert data["groups"] == []


def test_score_text_output() -> None:
    code, out, _ = run("score", HAND)
    assert code == 0
    assert "33" in out
    assert "单吊" in out
    assert "七七七" in out
    code, out, _ = run("score", LOW_HAND)
    assert code == 1
    assert "不胡" in out


@pytest.mark.parametrize(
    ("hand", "quoted"),
    [
        (HAND.replace("胡:九", "胡:Q"), "'Q'"),  # UnknownCard
        (HAND.replace("碰:七七七", "碰:七七八"), "碰:七七八"),  # InvalidMeld
        (HAND.replace(" 胡:九", ""), "胡"),  # WinningCardError
        (HAND.replace("手:贰贰贰", "手:贰贰"), "19"),  # WrongCardCount
        (HAND.replace("碰:", "杠:"), "'杠'"),  # unknown segment kind
        (HAND.replace("手:贰贰贰", "手:222"), "'222'"),  # unclosed digits
        # TooManyCopies: a fifth 一
        (HAND.replace("碰:七七七", "碰:一一一").replace("手:贰贰贰", "手:贰贰一"), "一"),
        (HAND + " --from=nobody", "'nobody'"),
    ],
)
def test_score_invalid_input_exit_2(hand: str, quoted: str) -> None:
    # RULES §1.3: bad input is an error that quotes the bad part; exit 2, nothing on stdout.
    code, out, err = run("score", "--json", hand)
    assert code == 2
    assert out == ""
    assert quoted in err, err
    assert "error" in err


def test_score_unknown_rules_exit_2() -> None:
    code, out, err = run("score", "--rules", "nosuch", HAND)
    assert code == 2
    assert out == ""
    assert "'nosuch'" in err


def test_score_bad_from_option_exit_2() -> None:
    code, _, err = run("score", "--from", "nobody", HAND)
    assert code == 2
    assert "nobody" in err


def test_rules_option() -> None:
    # RULES §9: 22 + 50 + 10 + 90 = 172 under xiaomingtang; pinghu counts 硬息 only (§6.4).
    code, data = run_json("--rules", "xiaomingtang", EXAMPLE_172)
    assert code == 0
    assert data["total"] == 172
    assert data["rules"] == "xiaomingtang"
    assert data == weimaque.score(EXAMPLE_172, rules="xiaomingtang").to_dict()
    code, data = run_json("-r", "pinghu", EXAMPLE_172)
    assert (code, data["total"], data["hard_xi"], data["patterns"]) == (0, 22, 22, [])
    code, data = run_json("--rules", "default", EXAMPLE_172)
    assert data["rules"] == "anxiang"
    assert data == weimaque.score(EXAMPLE_172).to_dict()


def test_from_option() -> None:
    # RULES §6.1, §6.4: drawn by oneself the 贰 is a forced 偎 (4 息); by another a 碰 (3 息).
    code, own = run_json(PAIR_HAND)
    assert code == 0
    code, other = run_json("--from", "other", PAIR_HAND)
    assert code == 0
    assert own == weimaque.score(PAIR_HAND, source="self").to_dict()
    assert other == weimaque.score(PAIR_HAND, source="other").to_dict()
    assert own["hard_xi"] == other["hard_xi"] + 1  # type: ignore[operator]
    own_groups = {(g["kind"], g["cards"]) for g in own["groups"]}  # type: ignore[attr-defined, index]
    other_groups = {(g["kind"], g["cards"]) for g in other["groups"]}  # type: ignore[attr-defined, index]
    assert ("wei", "贰贰贰") in own_groups
    assert ("peng", "贰贰贰") in other_groups
    # The flag written inside the description does the same.
    code, inline = run_json(PAIR_HAND + " --from other")
    assert inline == other
    code, inline = run_json(PAIR_HAND + " --from=other")
    assert inline == other


def test_last_option() -> None:
    # RULES §7.2 海底胡: +10 under anxiang.
    _, plain = run_json(HAND)
    code, last = run_json("--last", HAND)
    assert code == 0
    assert last["total"] == plain["total"] + 10  # type: ignore[operator]
    assert "haidi" in [p["key"] for p in last["patterns"]]  # type: ignore[attr-defined, index]
    assert "haidi" not in [p["key"] for p in plain["patterns"]]  # type: ignore[attr-defined, index]
    assert last == weimaque.score(HAND, last=True).to_dict()
    _, inline = run_json(HAND + " --last")
    assert inline == last


def test_segments_as_separate_arguments() -> None:
    code, data = run_json(*HAND.split())
    assert code == 0
    assert data == weimaque.score(HAND).to_dict()
    code, data = run_json("--from", "other", *PAIR_HAND.split(), "--last")
    assert data == weimaque.score(PAIR_HAND, source="other", last=True).to_dict()


def test_rules_list() -> None:
    # RULES §7.3: the 11 presets with their sources.
    code, out, _ = run("rules", "list")
    assert code == 0
    for rules in weimaque.list_rules():
        assert rules.id in out
        assert rules.source in out
    for source in ("安乡 tables today", "phone-app scoring, 大卓 table", "players' tier 超级大作"):
        assert source in out
    code, out, _ = run("rules", "list", "--json")
    assert code == 0
    rows = json.loads(out)
    assert [r["id"] for r in rows] == [
        "anxiang",
        "anxiang-old",
        "laomingtang",
        "xiaozhuo",
        "dazhuo",
        "pinghu",
        "xiaomingtang",
        "xiaozuo",
        "dazuo",
        "jiaqiang",
        "chaoji",
    ]
    assert {r["id"]: r["source"] for r in rows}["laomingtang"] == "phone-app scoring, 老名堂 table"
    assert {r["id"]: r["aliases"] for r in rows}["anxiang"] == ["default"]


def test_rules_show() -> None:
    # RULES §7.3: dazhuo has 卡偎 (+50) and 祖孙卓带拖 (390).
    code, out, _ = run("rules", "show", "dazhuo")
    assert code == 0
    assert "卡偎" in out
    assert "kawei" in out
    assert "+390" in out
    assert "×8" in out  # 对子胡
    code, out, _ = run("rules", "show", "dazhuo", "--json")
    data = json.loads(out)
    assert data["id"] == "dazhuo"
    assert data["patterns"]["kawei"] == 50
    assert data["patterns"]["dandiao"] == [30, 30]
    assert data["patterns"]["duizi"] == "x8"
    code, out, _ = run("rules", "show", "xiaozhuo")
    assert "自摸" in out and "option, off" in out
    code, out, _ = run("rules", "show", "default")
    assert code == 0 and "anxiang" in out


def test_rules_show_unknown_exit_2() -> None:
    code, out, err = run("rules", "show", "nosuch")
    assert code == 2
    assert out == ""
    assert "'nosuch'" in err


def _wmq() -> str:
    beside = Path(sys.executable).parent / "wmq"
    if beside.exists():
        return str(beside)
    found = shutil.which("wmq")
    assert found, "the wmq console script is not installed"
    return found


def test_console_script() -> None:
    # The installed entry point (pyproject [project.scripts]) runs the same app.
    env = dict(os.environ, PYTHONIOENCODING="utf-8")
    proc = subprocess.run(
        [_wmq(), "score", "--json", "--from", "other", HAND],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == weimaque.score(HAND, source="other").to_dict()
    proc = subprocess.run(
        [_wmq(), "score", "--json", HAND.replace("胡:九", "胡:Q")],
        capture_output=True,
        text=True,
        encoding="utf-8",
        env=env,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 2
    assert "'Q'" in proc.stderr


@pytest.mark.parametrize(
    ("args", "total", "keys"),
    [
        pytest.param(
            [
                "--rules",
                "anxiang",
                "偎:三三三 偎:九九九 吃:壹贰叁 吃:柒捌玖 手:四五六六六陆陆 胡:六",
            ],
            32,
            {"beikaobei"},
            id="anxiang-self",
        ),
        pytest.param(
            [
                "--rules",
                "anxiang",
                "--from",
                "other",
                "偎:三三三 偎:九九九 吃:壹贰叁 吃:柒捌玖 手:四五六六六陆陆 胡:六",
            ],
            31,
            {"beikaobei"},
            id="anxiang-other",
        ),
        pytest.param(
            [
                "--rules",
                "xiaozhuo",
                "--from",
                "other",
                "吃:贰叁肆 偎:贰贰贰 吃:一二三 手:三四四四五八八八肆肆 胡:四",
            ],
            78,
            {"yin", "zhuo", "beikaobei"},
            id="xiaozhuo-other",
        ),
        pytest.param(
            ["--rules", "dazhuo", "吃:一二三 吃:柒捌玖 吃:八九十 手:四五六六六七七七陆陆 胡:六"],
            110,
            {"beikaobei", "kawei"},
            id="dazhuo-self",
        ),
        pytest.param(
            ["--rules", "chaoji", "--last", "偎:三三三 手:一一一二二二三四四四五六七十十十 胡:一"],
            372,
            {"xiaozi", "zhuo", "haidi", "shouqianshou"},
            id="chaoji-self-last",
        ),
        pytest.param(
            ["--rules", "xiaozhuo", "--tianhu", "一一一三三三四四四五五五六六六八八八九九"],
            344,
            {"wudui", "xiaozi", "tianhu"},
            id="xiaozhuo-tianhu",
        ),
    ],
)
def test_three_held_and_tianhu_examples(args: list[str], total: int, keys: set[str]) -> None:
    # RULES §7.2 (2026-11-30): 对倒/卡偎 with three of the winning face held; 天胡 on dealt cards.
    code, d = run_json(*args)
    assert code == 0
    assert d["total"] == total
    assert {p["key"] for p in d["patterns"]} == keys  # type: ignore[union-attr]


def test_tianhu_bad_input_exit_2() -> None:
    code, _, err = run(
        "score", "--tianhu", "--rules", "anxiang", "一一一三三三四四四五五五六六六八八八九九"
    )
    assert code == 2 and "天胡" in err
    code, _, err = run("score", "--tianhu", "--rules", "xiaozhuo", "一一一三三三")
    assert code == 2 and "'一一一三三三'" in err


def test_serve_keeps_the_cycle_collector_quiet() -> None:
    # wmq serve: what exists at start-up is frozen out of the collector's sight and the first
    # threshold raised, so no full collection pauses every table at once (bench/server.py).
    code = (
        "import gc; from weimaque.cli.serve import quiet_collector; quiet_collector(); "
        "print(gc.get_freeze_count(), gc.get_threshold()[0])"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    frozen, first = map(int, out.stdout.split())
    assert frozen > 1000
    assert first >= 10_000
