"""The arena over the game seam (docs/bots.md, "The arena"): seatings from the seat count, 偎麻雀
played through the seam exactly as by its engine, 三丁拐 and the toy game by id, ``wmq arena
--game/--variant/--options`` and its errors."""

from __future__ import annotations

import itertools
import json
import math
import random
from collections import Counter
from collections.abc import Mapping
from typing import Any

import pytest
from typer.testing import CliRunner

from tests import toygame
from weimaque.arena import ArenaConfig, bot_rng, deal_seed, play_deal, run_arena, seatings
from weimaque.cli import app
from weimaque.errors import WeimaqueError
from weimaque.games import GameInfo, Names, register, unregister
from weimaque.games.maque.bots import BotView, get_bot
from weimaque.games.maque.game.state import GameState
from weimaque.games.maque.rules.registry import rules_with


@pytest.mark.parametrize("seats", [1, 2, 3, 4])
def test_seatings_come_in_cyclic_classes_of_every_permutation(seats: int) -> None:
    every = seatings(seats)
    assert len(every) == len(set(every)) == math.factorial(seats)
    assert set(every) == set(itertools.permutations(range(seats)))
    assert every[0] == tuple(range(seats))
    for k in range(seats, len(every) + 1, seats):
        assert seatings(seats, k) == every[:k]
        # a whole number of classes: every bot in every seat equally often
        for seat in range(seats):
            assert Counter(p[seat] for p in every[:k]) == {b: k // seats for b in range(seats)}
    if seats >= 3:  # the second class reverses the turn order: bot 1 sits after bot 2
        assert every[seats] == (0, *range(seats - 1, 0, -1))
    for bad in (seats + 1, -seats, math.factorial(seats) + seats):  # no whole number of classes
        with pytest.raises(WeimaqueError, match=f"not {bad}"):
            seatings(seats, bad)


def _engine_deal(bots: tuple[str, ...], rules: str, options: dict[str, object], seed: int) -> list:
    """Deal 0 of an arena played straight on 偎麻雀's engine (``GameState``,
    ``weimaque.games.maque.bots``, RULES §3's asking order), as the arena played before it spoke the
    seam: per seating, each
    bot's points."""
    config = rules_with(rules, options)
    hand_seed = deal_seed(seed, 0)
    out = []
    for rotation, seating in enumerate(seatings(3)):
        players = [get_bot(bots[seating[s]]) for s in range(3)]
        rngs = [bot_rng(seed, 0, rotation, s) for s in range(3)]
        state = GameState.new(config, hand_seed, dealer=0)
        while not state.is_terminal():
            seat = state.current_player()
            state.apply(seat, players[seat].act(BotView.of(state, seat), rngs[seat]))
        returns = state.returns()
        out.append(tuple(returns[seating.index(b)] for b in range(3)))
    return out


@pytest.mark.parametrize(
    ("rules", "options", "seed"),
    [("anxiang", {}, 1), ("xiaozhuo", {"min_xi": 10}, 5), ("laomingtang", {}, 9)],
)
def test_maque_through_the_seam_plays_as_its_engine(
    rules: str, options: dict[str, object], seed: int
) -> None:
    bots = ("greedy", "random", "policy")
    deal = play_deal(ArenaConfig(bots, 1, rules=rules, seed=seed, options=options), 0)
    by_seating = [tuple(deal.points[b][k] for b in range(3)) for k in range(6)]
    assert by_seating == _engine_deal(bots, rules, options, seed)


def test_sandingguai_duplicate_arena_is_zero_sum_and_seeded() -> None:
    config = ArenaConfig(("greedy", "random", "random"), 4, seed=5, game="sdg", rotations=3)
    result = run_arena(config)
    assert result.config.game == "sandingguai" and result.config.rules == "sandingguai"
    assert result.hands == 12 and all(b.seats == (4, 4, 4) for b in result.bots)
    assert sum(b.points_per_hand for b in result.bots) == pytest.approx(0.0, abs=1e-9)
    again = run_arena(config)
    assert [b.points_per_hand for b in again.bots] == [b.points_per_hand for b in result.bots]
    baike = run_arena(ArenaConfig(("greedy", "random", "random"), 2, rules="baike-3p", game="sdg"))
    assert baike.config.rules == "baike-3p" and baike.hands == 12


def test_the_toy_game_plays_with_two_seats() -> None:
    register(toygame.GAME, replace=True)
    config = ArenaConfig(("high", "random"), 5, seed=2, game="grab", options={"cards_each": 4})
    result = run_arena(config)
    assert result.config.rotations == 2 and result.hands == 10
    assert result.to_dict()["options"] == {"cards_each": 4}
    assert [b.seats for b in result.bots] == [(5, 5), (5, 5)]
    assert result.bots[0].points_per_hand == pytest.approx(-result.bots[1].points_per_hand)


def test_bad_line_ups_and_options_are_refused_with_a_quote() -> None:
    with pytest.raises(WeimaqueError, match="exactly 3 bots"):
        run_arena(ArenaConfig(("greedy", "random"), 1, game="sandingguai"))
    with pytest.raises(WeimaqueError, match="'mcts'"):
        run_arena(ArenaConfig(("greedy", "random", "mcts"), 1, game="sandingguai"))
    with pytest.raises(WeimaqueError, match="'nosuch'"):
        run_arena(ArenaConfig(("greedy", "random", "random"), 1, game="nosuch"))
    with pytest.raises(WeimaqueError, match="'bogus'"):
        run_arena(ArenaConfig(("greedy", "random", "random"), 1, options={"bogus": 1}))
    with pytest.raises(WeimaqueError, match="rotations must be 3 or 6"):
        run_arena(ArenaConfig(("greedy", "random", "random"), 1, rotations=4))


class _Cheat:
    """A bot answering an action id its seat may not take."""

    def act(self, view: object, rng: random.Random) -> int:
        return 10**6


class _CheatingToy(toygame.Toy):
    """The toy game, offering one more bot: ``cheat``."""

    info = GameInfo("cheat-grab", Names("作弊抢牌", "grab with a cheat"))

    def bot(self, spec: str, variant: str, options: Mapping[str, object] | None = None) -> Any:
        return _Cheat() if spec == "cheat" else super().bot(spec, variant, options)


def test_an_illegal_choice_names_the_bot_and_the_deal() -> None:
    register(_CheatingToy())
    try:
        with pytest.raises(WeimaqueError, match=r"bot 'cheat' chose illegal 1000000 .*deal 0"):
            run_arena(ArenaConfig(("random", "cheat"), 1, game="cheat-grab"))
    finally:
        unregister("cheat-grab")


def test_cli_plays_any_game() -> None:
    runner = CliRunner()
    args = ["arena", "--game", "sandingguai", "--bots", "greedy,random,random", "-n", "6"]
    result = runner.invoke(app, [*args, "--seed", "2", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["game"] == "sandingguai" and data["rules"] == "sandingguai"
    assert data["rotations"] == 6 and data["hands"] == 6 and data["options"] == {}
    assert [b["name"] for b in data["bots"]] == ["greedy", "random", "random#2"]
    options = ["--variant", "sandingguai", "--options", '{"tiles": 72}', "--rotations", "3"]
    table = runner.invoke(app, [*args, *options])
    assert table.exit_code == 0, table.output
    assert "game sandingguai, rules sandingguai" in table.stdout and "72" in table.stdout
    maque = runner.invoke(app, ["arena", "-b", "greedy,random,random", "-n", "6", "--json"])
    assert json.loads(maque.stdout)["rules"] == "anxiang"
    for bad, quoted in (
        (["--game", "nosuch"], "'nosuch'"),
        (["--game", "sdg", "--bots", "greedy,random"], "exactly 3 bots"),
        (["--options", "[1]"], "'[1]'"),
        (["--options", "{"], "'{'"),
        (["--options", '{"min_xi": "ten"}'], "'ten'"),
        (["--variant", "nosuch"], "'nosuch'"),
    ):
        base = ["arena", "--bots", "greedy,random,random", "-n", "3"]
        result = runner.invoke(app, [*base, *bad])
        assert result.exit_code == 2, (bad, result.output)
        assert quoted in " ".join(result.stderr.split()), (bad, result.stderr)
