"""Hidden information: for each seat, dealing again what it cannot see (the game's declared
``resample`` capability) leaves its view and its array unchanged, at every step of seeded
hands of every variant (half of them played by the game's ``playout`` policy, to reach claims,
kongs and wins), while some other seat's view does change; a spectator's view does not
change whoever's hidden cards are dealt again."""

from __future__ import annotations

import random

import numpy as np
import pytest

from tests.conformance.kit import seats_of, step, variants
from weimaque.games import Game, Resampling

HANDS = 4


@pytest.mark.parametrize(("game", "variant"), variants())
def test_what_a_seat_cannot_see_does_not_change_its_view(game: Game, variant: str) -> None:
    if "resample" not in game.info.capabilities:
        pytest.skip(f"{game.info.id} declares no resample capability")
    seats = seats_of(game, variant)
    moved = checked = 0
    for seed in range(HANDS):
        rng = random.Random(seed)
        hand = game.new_hand(variant, {}, seed, seed % seats)
        assert isinstance(hand, Resampling)
        while not hand.is_terminal():
            for seat in range(seats):
                other = hand.resample(seat, rng)
                assert other.view(seat) == hand.view(seat)
                assert other.view(seat).to_json() == hand.view(seat).to_json()
                assert np.array_equal(other.observation(seat), hand.observation(seat))
                assert other.legal_actions(seat) == hand.legal_actions(seat)
                assert other.view("public").to_json() == hand.view("public").to_json()
                moved += any(
                    other.view(s).to_json() != hand.view(s).to_json()
                    for s in range(seats)
                    if s != seat
                )
                checked += 1
            step(hand, rng, game if seed % 2 else None)
    assert checked > 10 and moved > checked // 4
