"""The arena at a table of two (docs/bots.md, "The arena"; RULES §2.5): 偎麻雀's two-player
variants through the seam, both seatings of every deal, zero-sum and seeded, as the engine plays
them; ``wmq arena --variant anxiang-2p`` and the ladder's line-ups of two."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from weimaque.arena import ArenaConfig, bot_rng, deal_seed, play_deal, run_arena, seatings
from weimaque.cli import app
from weimaque.errors import WeimaqueError
from weimaque.games import get_game
from weimaque.games.maque.bots import BotView, get_bot
from weimaque.games.maque.game.state import GameState
from weimaque.games.maque.rules.registry import rules_with


def _engine_deal(bots: tuple[str, str], base: str, seed: int, deal: int) -> list[tuple[int, int]]:
    """One deal played straight on the engine at ``players = 2`` (RULES §2.5): per seating, each
    bot's points."""
    config = rules_with(base, {"players": 2})
    out = []
    for rotation, seating in enumerate(seatings(2)):
        players = [get_bot(bots[seating[s]]) for s in range(2)]
        rngs = [bot_rng(seed, deal, rotation, s) for s in range(2)]
        state = GameState.new(config, deal_seed(seed, deal), dealer=0)
        assert state.rules.players == 2
        while not state.is_terminal():
            seat = state.current_player()
            state.apply(seat, players[seat].act(BotView.of(state, seat), rngs[seat]))
        returns = state.returns()
        assert len(returns) == 2
        out.append((returns[seating.index(0)], returns[seating.index(1)]))
    return out


@pytest.mark.parametrize(
    ("variant", "base"), [("anxiang-2p", "anxiang"), ("quanmingtang-2p", "quanmingtang")]
)
def test_two_player_variants_have_two_seats(variant: str, base: str) -> None:
    game = get_game("maque")
    assert game.shape(variant, {}).seats == 2
    assert game.rules(variant, {}).players == 2
    assert game.rules(variant, {}).id == base


def test_two_player_duplicate_arena_is_zero_sum_seeded_and_the_engines() -> None:
    config = ArenaConfig(("greedy", "random"), 12, rules="anxiang-2p", seed=3)
    result = run_arena(config)
    assert result.config.rules == "anxiang-2p" and result.config.rotations == 2
    assert result.hands == 24
    assert [b.seats for b in result.bots] == [(12, 12), (12, 12)]
    assert sum(b.points_per_hand for b in result.bots) == pytest.approx(0.0, abs=1e-9)
    # the same seed plays the same hands, with any number of workers
    again = run_arena(ArenaConfig(("greedy", "random"), 12, rules="anxiang-2p", seed=3, workers=2))
    assert [b.points_per_hand for b in again.bots] == [b.points_per_hand for b in result.bots]
    assert [b.win_rate for b in again.bots] == [b.win_rate for b in result.bots]
    # greedy, which takes every 胡, wins more than random over these deals
    assert result.bots[0].win_rate > result.bots[1].win_rate
    # every deal: both seatings, each zero-sum, each as the engine plays it at players = 2
    for deal in (0, 5):
        played = play_deal(config, deal)
        assert played.seats == ((0, 1), (1, 0))
        by_seating = [(played.points[0][k], played.points[1][k]) for k in range(2)]
        assert all(a + b == 0 for a, b in by_seating)
        assert by_seating == _engine_deal(("greedy", "random"), "anxiang", 3, deal)


def test_quanmingtang_two_players_with_options_through_the_seam() -> None:
    options = {"liuzi": True, "liuzi_when": "chou"}
    config = ArenaConfig(("greedy", "policy"), 4, rules="quanmingtang-2p", seed=7, options=options)
    result = run_arena(config)
    assert result.to_dict()["options"] == options and result.hands == 8
    assert result.bots[0].points_per_hand == pytest.approx(-result.bots[1].points_per_hand)


def test_two_player_line_ups_are_checked() -> None:
    with pytest.raises(WeimaqueError, match="exactly 2 bots"):
        run_arena(ArenaConfig(("greedy", "random", "random"), 1, rules="anxiang-2p"))
    with pytest.raises(WeimaqueError, match="rotations must be 2"):
        run_arena(ArenaConfig(("greedy", "random"), 1, rules="anxiang-2p", rotations=3))
    # players = 2 as an option of a preset is the same table
    plain = run_arena(ArenaConfig(("greedy", "random"), 3, seed=4, options={"players": 2}))
    named = run_arena(ArenaConfig(("greedy", "random"), 3, seed=4, rules="anxiang-2p"))
    assert [b.points_per_hand for b in plain.bots] == [b.points_per_hand for b in named.bots]


def test_cli_arena_at_two_players() -> None:
    runner = CliRunner()
    args = ["arena", "--variant", "anxiang-2p", "--bots", "greedy,random", "-n", "8", "--seed", "1"]
    result = runner.invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["rules"] == "anxiang-2p" and data["rotations"] == 2 and data["hands"] == 8
    assert [b["seats"] for b in data["bots"]] == [[4, 4], [4, 4]]
    assert data["bots"][0]["points_per_hand"] == -data["bots"][1]["points_per_hand"]
    again = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    kept = ("points_per_hand", "ci95", "win_rate", "mean_total_per_win", "chou_rate", "decisions")
    assert [{k: b[k] for k in kept} for b in again["bots"]] == [
        {k: b[k] for k in kept} for b in data["bots"]
    ]
    three = runner.invoke(app, ["arena", "--variant", "anxiang-2p", "-b", "greedy,random,random"])
    assert three.exit_code == 2 and "exactly 2 bots" in " ".join(three.stderr.split())
