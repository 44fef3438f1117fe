"""Seeded random hands with every invariant checked after every step (RULES §2-§5, §8.1)."""

from __future__ import annotations

import json
import random

import pytest

from tests.playthrough import SEED, policy_play
from weimaque.games.maque.game.invariants import check_end, check_step
from weimaque.games.maque.game.record import hand_record, replay
from weimaque.games.maque.game.state import GameState
from weimaque.games.maque.rules import PRESET_IDS, get_rules

HANDS_PER_PRESET = 190  # 11 presets × 190 > 2,000 hands


@pytest.mark.parametrize("preset", PRESET_IDS)
def test_random_hands_keep_every_invariant(preset: str) -> None:
    rules = get_rules(preset)
    wins = 0
    for k in range(HANDS_PER_PRESET):
        seed = 10_000 * PRESET_IDS.index(preset) + k
        state = GameState.new(rules, seed, dealer=k % 3)
        rng = random.Random(seed)
        assert check_step(state) == []
        while not state.is_terminal():
            policy_play(state, rng)
            problems = check_step(state)
            assert problems == [], f"seed {seed}: {problems}"
        assert check_end(state) == [], f"seed {seed}"
        wins += state.result is not None and state.result.winner is not None
    assert wins > 0  # the policy takes every 胡, so some hands are won


def test_replay_reproduces_events_and_state() -> None:
    rng = random.Random(3)
    state = GameState.new("dazhuo", 3, dealer=1)
    while not state.is_terminal():
        policy_play(state, rng)
    record = json.loads(json.dumps(hand_record(state), ensure_ascii=False))
    again = replay(record)
    assert again.events == state.events
    assert again.hands == state.hands
    assert again.melds == state.melds
    assert again.rows == state.rows
    assert hand_record(again) == record


def test_replay_of_explicit_deal_and_overrides() -> None:
    deal = GameState.new("anxiang", 11)
    rules = get_rules("xiaozhuo").with_options(enable_patterns=["zhe"], holder_may_not_chi=False)
    state = GameState(rules, [list(h) for h in deal.initial_hands], deal.stock, 0)
    rng = random.Random(11)
    while not state.is_terminal():
        policy_play(state, rng)
    record = hand_record(state)
    assert record["seed"] is None and "deal" in record
    assert record["overrides"] == {"holder_may_not_chi": False, "enable_patterns": ["zhe"]}
    assert replay(record).events == state.events


def test_replay_refuses_a_tampered_result() -> None:
    rng = random.Random(7)
    state = GameState.new("anxiang", 7)
    while not state.is_terminal():
        policy_play(state, rng)
    record = hand_record(state)
    record["result"]["total"] += 1
    with pytest.raises(ValueError, match="replay"):
        replay(record)


def test_returns_are_zero_sum() -> None:
    rng = random.Random(SEED)  # the golden hand: it ends in a win
    state = GameState.new("anxiang", SEED)
    while not state.is_terminal():
        policy_play(state, rng)
    assert sum(state.returns()) == 0
    assert max(state.returns()) == 2 * state.result.breakdown.total  # type: ignore[union-attr]


def test_copy_is_independent_and_plays_the_same() -> None:
    # Search code plays copies forward; the original must not move, and the same actions must
    # lead to the same end.
    state = GameState.new("anxiang", 7)
    rng = random.Random(7)
    for _ in range(10):
        policy_play(state, rng)
    twin = state.copy()

    def position(s: GameState) -> str:
        return repr((s.hands, s.melds, s.rows, s.thrown, s.peng_guo, s.phase, s.pos, s.window))

    before = position(state)
    replay_rng = random.Random(99)
    while not twin.is_terminal():
        policy_play(twin, replay_rng)
    assert position(state) == before
    replay_rng = random.Random(99)
    while not state.is_terminal():
        policy_play(state, replay_rng)
    assert state.returns() == twin.returns()
    assert state.events[-len(twin.events) :] == twin.events


def test_text_view_shows_own_hand_only() -> None:
    from weimaque.games.maque.cards import faces_str
    from weimaque.games.maque.game.observation import observation_text

    state = GameState.new("anxiang", 7)
    rng = random.Random(7)
    for _ in range(15):
        policy_play(state, rng)
    for seat in range(3):
        text = observation_text(state, seat)
        assert f"your hand: {faces_str(state.hand_faces(seat))}" in text
        for other in range(3):
            if other != seat and state.hand_faces(other):
                assert faces_str(state.hand_faces(other)) not in text
    public = observation_text(state, "public")
    assert "your hand" not in public and "hand 0:" not in public
    assert "hand 0:" in observation_text(state, "shouxing")
