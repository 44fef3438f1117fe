"""The arena: duplicate seatings, reproducible figures, the 95% interval, the CLI's JSON."""

from __future__ import annotations

import json
import math
import statistics
from typing import Any

import pytest
from typer.testing import CliRunner

from weimaque.arena import (
    ArenaConfig,
    bot_names,
    deals_for_hands,
    mean_ci95,
    play_deal,
    run_arena,
    seatings,
    split_bot_specs,
    t_quantile_975,
)
from weimaque.cli import app
from weimaque.errors import WeimaqueError

BOTS = ("greedy", "random", "random")


def _without_timings(data: dict[str, Any]) -> dict[str, Any]:
    out = {k: v for k, v in data.items() if k not in ("seconds", "workers")}
    out["bots"] = [{k: v for k, v in b.items() if not k.endswith("_ms")} for b in data["bots"]]
    return out


def test_same_seed_same_results_whatever_the_workers() -> None:
    one = run_arena(ArenaConfig(BOTS, 4, seed=7, workers=1)).to_dict()
    again = run_arena(ArenaConfig(BOTS, 4, seed=7, workers=1)).to_dict()
    two = run_arena(ArenaConfig(BOTS, 4, seed=7, workers=2)).to_dict()
    assert _without_timings(one) == _without_timings(again) == _without_timings(two)
    other = run_arena(ArenaConfig(BOTS, 4, seed=8, workers=1)).to_dict()
    assert _without_timings(other) != _without_timings(one)


def test_points_sum_to_zero_and_counts_add_up() -> None:
    result = run_arena(ArenaConfig(BOTS, 3, seed=2, rules="xiaozhuo"))
    bots = result.bots
    assert result.hands == 18
    assert all(b.hands == 18 for b in bots)
    # each loser pays the winner (RULES §8.3): the three bots' points cancel
    assert math.isclose(sum(b.points_per_hand for b in bots), 0.0, abs_tol=1e-9)
    assert sum(b.win_rate for b in bots) + bots[0].chou_rate == pytest.approx(1.0)
    assert all(b.ci95[0] <= b.points_per_hand <= b.ci95[1] for b in bots)


@pytest.mark.parametrize("rotations", [3, 6])
def test_each_bot_sits_in_each_seat_equally_often(rotations: int) -> None:
    plays = seatings(3, rotations)
    assert len(set(plays)) == rotations
    for bot in range(3):
        assert sorted(p.index(bot) for p in plays) == sorted([0, 1, 2] * (rotations // 3))
    deal = play_deal(ArenaConfig(BOTS, 1, seed=3, rotations=rotations), 0)
    assert deal.seats == plays and len(deal.winners) == rotations
    result = run_arena(ArenaConfig(BOTS, 2, seed=3, rotations=rotations))
    for b in result.bots:
        assert b.seats == (2 * rotations // 3,) * 3


def test_all_six_seatings_reverse_the_turn_order() -> None:
    # in the cyclic rotations bot 0 always sits 上家 of bot 1; the other three reverse it
    def shangjia_of_1(p: tuple[int, ...]) -> int:
        return p[(p.index(1) - 1) % 3]

    cyclic, every = seatings(3, 3), seatings(3, 6)
    assert every[:3] == cyclic == ((0, 1, 2), (1, 2, 0), (2, 0, 1))
    assert {shangjia_of_1(p) for p in cyclic} == {0}
    assert {shangjia_of_1(p) for p in every[3:]} == {2}
    assert seatings(3) == every


def test_t_quantiles() -> None:
    table = {
        1: 12.7062,
        4: 2.7764,
        5: 2.5706,
        10: 2.2281,
        12: 2.1788,
        30: 2.0423,
        100: 1.9840,
        1000: 1.9623,
    }
    for df, t in table.items():
        assert t_quantile_975(df) == pytest.approx(t, abs=2e-4)
    with pytest.raises(ValueError):
        t_quantile_975(0)


def test_ci_arithmetic_on_known_samples() -> None:
    mean, lo, hi = mean_ci95([1, 2, 3, 4, 5])  # mean 3, s = √2.5, n = 5, t(4) = 2.776445
    half = 2.776445105 * math.sqrt(2.5) / math.sqrt(5)
    assert mean == 3 and lo == pytest.approx(3 - half) and hi == pytest.approx(3 + half)
    # 100 samples of ±2 around 10: s = 2·√(100/99), t(99) ≈ 1.98422
    samples = [8.0, 12.0] * 50
    s = statistics.stdev(samples)
    assert s == pytest.approx(2 * math.sqrt(100 / 99))
    mean, lo, hi = mean_ci95(samples)
    assert mean == 10
    assert (hi - lo) / 2 == pytest.approx(1.98422 * s / 10, abs=1e-4)
    assert mean_ci95([4.0]) == (4.0, 4.0, 4.0)
    assert mean_ci95([]) == (0.0, 0.0, 0.0)


def test_bot_spec_lists() -> None:
    assert split_bot_specs("greedy,random,mcts:ms=300") == ["greedy", "random", "mcts:ms=300"]
    assert split_bot_specs("mcts:ms=300;iters=50,greedy,random") == [
        "mcts:ms=300,iters=50",
        "greedy",
        "random",
    ]
    assert split_bot_specs("mcts:ms=300,iters=50,greedy, random") == [
        "mcts:ms=300,iters=50",
        "greedy",
        "random",
    ]
    with pytest.raises(WeimaqueError):
        split_bot_specs("greedy,,random")
    assert bot_names(["random", "greedy", "random"]) == ["random", "greedy", "random#2"]
    assert deals_for_hands(600, 6) == 100 and deals_for_hands(601, 6) == 101
    assert deals_for_hands(1, 3) == 1


def test_cli_json_shape() -> None:
    args = ["arena", "--bots", "greedy,random,random", "--hands", "12", "--seed", "3", "--json"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["hands"] == 12 and data["deals"] == 2 and data["rotations"] == 6
    assert [b["name"] for b in data["bots"]] == ["greedy", "random", "random#2"]
    for b in data["bots"]:
        assert {
            "name",
            "hands",
            "points_per_hand",
            "ci95",
            "win_rate",
            "median_decision_ms",
        } <= set(b)
        assert b["hands"] == 12
        lo, hi = b["ci95"]
        assert lo <= b["points_per_hand"] <= hi
        assert 0 <= b["win_rate"] <= 1 and b["median_decision_ms"] >= 0


def test_cli_table_and_errors() -> None:
    runner = CliRunner()
    table = runner.invoke(
        app, ["arena", "-b", "random,random,greedy", "-n", "3", "--rotations", "3"]
    )
    assert table.exit_code == 0, table.output
    assert "arena: 1 deals" in table.stdout and "greedy" in table.stdout
    for bad in ("greedy,random", "greedy,random,nosuchbot"):
        result = runner.invoke(app, ["arena", "--bots", bad, "--hands", "3"])
        assert result.exit_code == 2
    result = runner.invoke(app, ["arena", "--bots", "greedy,random,random", "--rotations", "4"])
    assert result.exit_code == 2


TIMES = ("median_decision_ms", "p90_decision_ms", "median_decision_cpu_ms", "p90_decision_cpu_ms")


def _sane_times(figures: dict[str, float]) -> None:
    """Decision times (ms) present and sane: non-negative, p90 at least the median."""
    assert set(TIMES) <= set(figures)
    assert all(figures[k] >= 0 for k in TIMES), figures
    assert figures["p90_decision_ms"] >= figures["median_decision_ms"], figures
    assert figures["p90_decision_cpu_ms"] >= figures["median_decision_cpu_ms"], figures


def test_decision_times_per_bot_wall_and_cpu() -> None:
    """Every bot's median and p90 decision time, wall clock and the deciding thread's CPU time,
    in the result object, the JSON and the text table (docs/bots.md "The arena")."""
    config = ArenaConfig(("greedy", "random", "random"), 2, seed=4, game="sandingguai")
    deal = play_deal(config, 0)
    for b in range(3):
        assert len(deal.times_ms[b]) == len(deal.cpu_ms[b]) > 0
        assert min(deal.times_ms[b]) >= 0 and min(deal.cpu_ms[b]) >= 0
    result = run_arena(config)
    for stats in result.bots:
        assert stats.decisions > 0
        _sane_times({k: getattr(stats, k) for k in TIMES})
    assert result.bots[0].decisions == len(deal.times_ms[0]) + len(play_deal(config, 1).times_ms[0])

    runner = CliRunner()
    args = ["arena", "-g", "sdg", "-b", "greedy,random,random", "-n", "6", "--seed", "4"]
    data = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    for b in data["bots"]:
        assert b["decisions"] > 0
        _sane_times(b)
    text = runner.invoke(app, args, env={"COLUMNS": "160"})
    assert text.exit_code == 0, text.output
    header, *rows = text.stdout.split("decision times")[1].splitlines()
    assert "CPU: the deciding thread's" in header
    columns = ("decisions", "wall median", "wall p90", "CPU median", "CPU p90")
    assert all(c in "\n".join(rows) for c in columns)
    for name in ("greedy", "random", "random#2"):
        line = next(r for r in rows if f" {name} " in r)
        count, wall, wall90, cpu, cpu90 = (float(x) for x in line.split("│")[2:7])
        assert count > 0 and 0 <= wall <= wall90 and 0 <= cpu <= cpu90
