"""The 不能吃 line a seat is shown (its own ``bans.chi``, RULES §4.6, §5.3) at a table of two
(RULES §2.5.4, both ``chi_opponent_discard`` settings) and of three, checked against the engine
over seeded random hands: every face in it is one the seat is never offered to 吃 while it is
there; a face in it that the seat holds fewer than twice stays in it to the hand's end (过张 and
one's own discards, §4.6(1)-(2)); and a face held twice or more (§4.6(3)) can leave it once the
pair is broken, which is why the page says those apart (docs/web.md "At the table")."""

from __future__ import annotations

import dataclasses
import random

import pytest

from weimaque.games.maque.cards import FACE_CHARS
from weimaque.games.maque.game.observation import view_of
from weimaque.games.maque.game.state import GameState
from weimaque.games.maque.rules import get_rules

CONFIGS = [(2, True), (2, False), (3, True)]


@pytest.mark.parametrize(("players", "chi_opponent_discard"), CONFIGS)
def test_the_chi_ban_line_holds(players: int, chi_opponent_discard: bool) -> None:
    rules = dataclasses.replace(
        get_rules("quanmingtang"), players=players, chi_opponent_discard=chi_opponent_discard
    )
    offers = lapses = 0
    for seed in range(40):
        rng = random.Random(seed)
        state = GameState.new(rules, seed=seed, dealer=seed % players)
        lasting: list[set[int]] = [set() for _ in range(players)]
        paired: list[set[int]] = [set() for _ in range(players)]
        while not state.is_terminal():
            for seat in range(players):
                line = set(view_of(state, seat).bans[seat].chi)
                assert lasting[seat] <= line, (seed, seat, lasting[seat] - line)
                lapses += len(paired[seat] - line)
                hand = state.hands[seat]
                lasting[seat] |= {f for f in line if hand[f] < 2}
                paired[seat] = {f for f in line if hand[f] >= 2}
                if any(a.kind == "chi" for a in state.legal_actions(seat)):
                    offers += 1
                    assert state.window is not None
                    assert state.window.card not in line, (
                        seed,
                        seat,
                        FACE_CHARS[state.window.card],
                    )
            seat = state.to_act()[0]
            state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert offers > 0 and lapses > 0
