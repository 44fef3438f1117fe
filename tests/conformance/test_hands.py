"""Random hands of every registered game and variant, through the protocol alone (docs/new-game.md):
someone acts until the end, legal actions are never empty for who must act and agree with
``verify``, events are frozen and render for every viewer, the result and the ledger sum as
declared, the record replays to the same result and events, views and arrays have their shape."""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pytest

from tests.conformance.kit import (
    VIEWERS_EXTRA,
    games,
    is_frozen,
    json_round_trip,
    seats_of,
    step,
    variants,
)
from weimaque.errors import WeimaqueError
from weimaque.games import Game, legal_mask

HANDS = 24
#: The first hands of each variant are played by the game's own ``playout`` policy (where it
#: declares one), so that wins and their settlement are reached; the rest uniformly at random.
PLAYOUT_HANDS = 3
MAX_STEPS = 5000


def check_position(game: Game, hand: Any, seats: int, rng: random.Random) -> None:
    """The invariants of one position that is not over."""
    acting = hand.to_act()
    assert acting, "nobody to act before the end"
    assert len(acting) == 1 or hand.in_window()
    # The claim-window rule: a seat asked to decide may be shown the position; outside a
    # window everyone may.
    assert all(hand.settled(seat) for seat in acting)
    if not hand.in_window():
        assert all(hand.settled(v) for v in (*range(seats), "public"))
    for seat in range(seats):
        legal = hand.legal_actions(seat)
        if seat not in acting:
            assert legal == ()
            continue
        assert legal, f"seat {seat} must act with no legal action"
        assert list(legal) == sorted(set(legal))
        assert all(0 <= a < game.num_actions for a in legal)
        mask = legal_mask(game, hand, seat)
        assert mask.shape == (game.num_actions,) and list(np.flatnonzero(mask)) == list(legal)
        for a in legal:
            hand.verify(seat, a)
            action = game.action(a)
            assert action.id == a and game.parse_action(str(action)).id == a
        others = [a for a in range(game.num_actions) if a not in legal]
        for a in rng.sample(others, min(4, len(others))):
            with pytest.raises(WeimaqueError):
                hand.verify(seat, a)


def check_views(game: Game, hand: Any, seats: int) -> None:
    """Every viewer's JSON round-trips; every seat's array has the declared size and pieces."""
    for viewer in (*range(seats), *VIEWERS_EXTRA):
        doc = hand.view(viewer).to_json()
        assert isinstance(doc, dict) and json_round_trip(doc) == doc
    for seat in range(seats):
        array = hand.observation(seat)
        assert array.shape == (game.layout.size,) and array.dtype == np.float32
        pieces = game.layout.split(array)
        assert [p.name for p in game.layout.pieces] == list(pieces)
        assert all(pieces[p.name].shape == p.shape for p in game.layout.pieces)


@pytest.mark.parametrize(("game", "variant"), variants())
def test_random_hands_keep_the_protocol(game: Game, variant: str) -> None:
    seats = seats_of(game, variant)
    assert game.shape(variant) == game.schema.variant(variant).shape
    decisions = won = 0
    deals: set[str] = set()
    for seed in range(HANDS):
        rng = random.Random(seed)
        hand = game.new_hand(variant, {}, seed, seed % seats)
        # The deal is a function of (rules, seed): the fairness commitment's hook.
        assert hand.deal() == game.new_hand(variant, {}, seed, seed % seats).deal()
        deals.add(json.dumps(hand.deal(), sort_keys=True))
        steps = 0
        while not hand.is_terminal():
            assert hand.outcome() is None
            check_position(game, hand, seats, rng)
            if steps % 3 == 0:
                check_views(game, hand, seats)
            _, _, events = step(hand, rng, game if seed < PLAYOUT_HANDS else None)
            for event in events:
                assert is_frozen(event)
                for viewer in (*range(seats), *VIEWERS_EXTRA):
                    shown = event.view(viewer)
                    assert shown is None or json_round_trip(shown) == shown
            steps += 1
            assert steps < MAX_STEPS
        decisions += steps
        assert hand.to_act() == ()
        assert all(hand.legal_actions(s) == () for s in range(seats))
        check_views(game, hand, seats)
        outcome = hand.outcome()
        assert outcome is not None and len(outcome.net) == seats
        if game.info.zero_sum:
            assert sum(outcome.net) == 0
        assert set(outcome.winners) <= set(range(seats))
        won += bool(outcome.winners)
        json_round_trip(outcome.to_json())
        counts = game.counts(outcome)
        keys = [c.key for c in game.counters]
        assert len(counts) == seats and all(list(row) == keys for row in counts)
        assert sum(row["hands"] for row in counts) == seats
        # The record, through JSON text, replays to the same events and result.
        record = json_round_trip(hand.record())
        again = game.replay(record)
        assert again.is_terminal() and again.outcome() == outcome
        assert again.events() == hand.events()
        assert again.deal() == hand.deal()
        with pytest.raises(WeimaqueError):
            hand.verify(0, 0)
    assert decisions > HANDS
    assert len(deals) == HANDS
    if "playout" in game.info.capabilities:
        assert won > 0, "no hand was won: the settlement of a win went untested"


@pytest.mark.parametrize(("game", "variant"), variants())
def test_a_match_settles_as_declared(game: Game, variant: str) -> None:
    seats = seats_of(game, variant)
    match = game.new_match(variant, {}, seed=5)
    rng = random.Random(5)
    hands = 0
    seat_sums = [0] * seats
    while not match.is_over() and hands < 12:
        hand = match.next_hand()
        while not hand.is_terminal():
            step(hand, rng, game if hands < 2 else None)
        delta = match.finish(hand)
        assert len(delta) == seats
        seat_sums = [a + b for a, b in zip(seat_sums, delta, strict=True)]
        ledger = match.ledger()
        assert len(ledger.seats) == seats
        if game.info.zero_sum:
            assert ledger.total == 0
        hands += 1
    assert hands >= 1
    json_round_trip(match.ledger().to_json())


@pytest.mark.parametrize("game", games())
def test_a_clone_plays_on_alone(game: Game) -> None:
    variant = game.schema.variants[0].id
    hand = game.new_hand(variant, {}, 3)
    rng = random.Random(3)
    for _ in range(5):
        if not hand.is_terminal():
            step(hand, rng)
    copy = hand.clone()
    before = hand.view("all").to_json()
    while not copy.is_terminal():
        step(copy, rng)
    assert hand.view("all").to_json() == before
