"""The engine's fast paths agree with its rule checks (the reasons ``verify`` gives).

The hot paths (legal discards, 碰 and 吃 options of a claim window, the quick split test before a
win is scored, the seeded shuffle) are written for speed; these tests hold each equal to the
plain form of the same rule over many random positions of every preset.
"""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from weimaque.analysis.decompose import can_split, splits
from weimaque.cards import NUM_FACES, sorted_deck
from weimaque.game.actions import PASS_ID, RUN_STARTS, Action
from weimaque.game.state import GameState, deal_order, win_check
from weimaque.rules import PRESET_IDS


def test_deal_order_is_random_shuffle_of_the_sorted_deck() -> None:
    for seed in [*range(300), 2**63 - 1, 10**18 + 7]:
        deck = sorted_deck()
        random.Random(seed).shuffle(deck)
        assert deal_order(seed) == deck, seed


def _slow_options(state: GameState, seat: int) -> list[Action]:
    """A seat's options from the reason checks alone (``_discard_reason``, ``_peng_reason``,
    ``_chi_reason``; 胡 from the window's scored wins, which the win test below covers)."""
    if state.phase == "discard":
        return [
            Action.discard(f) for f in range(NUM_FACES) if state._discard_reason(seat, f) is None
        ]
    w = state.window
    assert w is not None
    if w.origin in ("deal", "wei"):
        return list(w.options.get(seat, []))
    opts = [Action("hu")] if seat in w.wins else []
    claimable = w.origin in ("draw", "discard") and seat != w.from_seat
    if claimable and state._peng_reason(seat, w.card) is None:
        opts.append(Action("peng"))
    chi_seat = w.from_seat if w.origin == "draw" else (w.from_seat + 1) % 3
    if seat == chi_seat:
        opts += [
            Action.chi(s)
            for s in RUN_STARTS
            if s <= w.card <= s + 2 and state._chi_reason(seat, w.card, s) is None
        ]
    return [*opts, Action.from_id(PASS_ID)] if opts else []


def _check_position(state: GameState) -> None:
    for seat in state.to_act():
        assert state.legal_actions(seat) == _slow_options(state, seat)
    if state.phase == "claim":  # seats with no option, or that answered already, too
        w = state.window
        assert w is not None
        for seat in range(3):
            assert w.options.get(seat, []) == _slow_options(state, seat)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(PRESET_IDS), st.integers(0, 2))
def test_fast_options_equal_the_rule_checks(seed: int, preset: str, dealer: int) -> None:
    state = GameState.new(preset, seed, dealer)
    rng = random.Random(seed)
    while not state.is_terminal():
        _check_position(state)
        seat = state.current_player()
        state.apply(seat, rng.choice(state.legal_actions(seat)))


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 40), st.integers(0, NUM_FACES - 1))
def test_fast_win_test_equals_win_check(seed: int, steps: int, card: int) -> None:
    """``_win`` (quick no-run and split tests first) answers exactly as ``win_check``."""
    state = GameState.new("anxiang", seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        seat = state.current_player()
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    for seat in range(3):
        for source in ("self", "other"):
            fast = state._win(seat, card, source, False)
            slow = None
            if not state.dead[seat]:
                melds = [m.meld() for m in state.melds[seat]]
                slow = win_check(
                    melds, state.hands[seat], card, source, False, state.rules, state.declined[seat]
                )
            assert fast == slow


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=NUM_FACES, max_size=NUM_FACES))
def test_can_split_is_whether_splits_finds_one(counts: list[int]) -> None:
    key = tuple(counts)
    assert can_split(key) == bool(splits(key))


def test_can_split_on_dealt_hands_with_one_more_card() -> None:
    for seed in range(200):
        state = GameState.new("anxiang", seed)
        for seat in range(3):
            for card in range(NUM_FACES):
                hand = list(state.hands[seat])
                if hand[card] < 4:
                    hand[card] += 1
                    assert can_split(tuple(hand)) == bool(splits(tuple(hand)))
