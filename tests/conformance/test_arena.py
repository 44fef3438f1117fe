"""Every registered game plays in the arena through the protocol alone (docs/bots.md, "The
arena"): a short duplicate arena of its own bots on its first preset, every seating of the
line-up played, the points summing as the game declares, the same figures for the same seed."""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from weimaque.arena import ArenaConfig, play_deal, run_arena
from weimaque.games import Game

from .kit import games

DEALS = 2


def line_up(game: Game, seats: int) -> tuple[str, ...]:
    """The game's quick bots round the table: its default bot in seat 0, then the others. The
    bots a game marks slow (``BotInfo.slow``: its search bots) have their own tests and bench;
    a few deals of them in every seating are too slow here."""
    quick = [b.name for b in game.bots if not b.slow]
    return tuple(quick[k % len(quick)] for k in range(seats))


def _figures(result: dict[str, Any]) -> dict[str, Any]:
    """An arena's JSON without what depends on the clock."""
    out = {k: v for k, v in result.items() if k != "seconds"}
    out["bots"] = [{k: v for k, v in b.items() if not k.endswith("_ms")} for b in result["bots"]]
    return out


@pytest.mark.parametrize("game", games())
def test_a_duplicate_arena_plays_every_seating_and_sums_as_declared(game: Game) -> None:
    variant = game.schema.variants[0].id
    seats = game.shape(variant).seats
    bots = line_up(game, seats)
    config = ArenaConfig(bots, DEALS, rules=variant, seed=4, game=game.info.id)
    every = sorted(itertools.permutations(range(seats)))

    deals = [play_deal(config, d) for d in range(DEALS)]
    for d in deals:
        assert sorted(d.seats) == every, "each deal is played in every seating, once"
        assert all(len(p) == len(every) for p in d.points)
        for k in range(len(every)):
            hand = [d.points[b][k] for b in range(seats)]  # by bot
            if game.info.zero_sum:
                assert sum(hand) == 0, (d.deal, k, hand)
            winners = d.winners[k]
            assert len(set(winners)) == len(winners) and set(winners) <= set(range(seats))

    result = run_arena(config)
    assert result.config.rotations == len(every) and result.config.rules == variant
    assert result.hands == DEALS * len(every)
    share = DEALS * len(every) // seats
    for b, stats in enumerate(result.bots):
        assert stats.spec == bots[b] and stats.hands == result.hands
        assert stats.seats == (share,) * seats, "every bot sits in every seat equally often"
        assert stats.ci95[0] <= stats.points_per_hand <= stats.ci95[1]
        assert stats.decisions > 0
    if game.info.zero_sum:
        assert sum(s.points_per_hand for s in result.bots) == pytest.approx(0.0, abs=1e-9)

    again = run_arena(config)
    assert _figures(again.to_dict()) == _figures(result.to_dict()), "the same seed, the same"
    assert [play_deal(config, d).points for d in range(DEALS)] == [d.points for d in deals]
