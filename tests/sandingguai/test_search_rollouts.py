"""The search bot's rollouts and budget (games/sandingguai/search.py, docs/sandingguai.md §13):
the rollout plays every seat as GreedyBot would from that seat's own view, and a clear call
(no discard rated within ``gap`` of GreedyBot's) is answered without a rollout."""

from __future__ import annotations

import random

import pytest

from weimaque.games.sandingguai import get_rules
from weimaque.games.sandingguai.bots import GreedyBot
from weimaque.games.sandingguai.game import GAME
from weimaque.games.sandingguai.observation import observe
from weimaque.games.sandingguai.search import SearchBot, greedy_policy, rollout
from weimaque.games.sandingguai.state import State


@pytest.mark.parametrize(
    ("preset", "options"),
    [
        ("sandingguai", {}),
        ("baike-3p", {}),
        ("sandingguai", {"dingque": True}),
        ("sandingguai", {"angang_public": True}),
    ],
)
def test_the_rollout_plays_as_greedy_bot(preset: str, options: dict[str, object]) -> None:
    """At every step of seeded hands, the world's greedy policy (no view built) takes the
    action GreedyBot takes from the seat's view, for the same rng."""
    rules = get_rules(preset, **options)
    greedy = GreedyBot(rules)
    steps = 0
    for seed in range(4):
        state = State(rules, seed, seed % 3)
        rng = random.Random(seed)
        while not state.is_terminal():
            for seat in state.players_to_act():
                k = rng.getrandbits(32)
                from_view = greedy.act(observe(state, seat), random.Random(k))
                assert greedy_policy(state, seat, greedy, random.Random(k)) == from_view
                steps += 1
            seat = state.current_player()
            state.apply(greedy.act(observe(state, seat), rng), seat)
    assert steps > 100


def test_a_greedy_rollout_plays_the_hand_to_its_end() -> None:
    rules = get_rules("sandingguai")
    greedy = GreedyBot(rules)
    for seed in range(3):
        state = State(rules, seed, seed % 3)
        net = rollout(state, random.Random(seed), greedy)
        assert state.is_terminal() and sum(net) == 0 and net == state.returns()


def test_a_clear_call_is_not_searched() -> None:
    """Over seeded hands, every discard whose runner-up is rated ``gap`` or more below
    GreedyBot's choice is answered at once with that choice; with a wide gap the same
    positions are raced."""
    rules = get_rules("sandingguai")
    bot = SearchBot(rules, sims=4)
    wide = SearchBot(rules, sims=4, gap=1000)
    greedy = GreedyBot(rules)
    clear = 0
    for seed in range(3):
        state = State(rules, seed, 0)
        rng = random.Random(seed)
        while not state.is_terminal():
            seat = state.current_player()
            view = observe(state, seat)
            action = greedy.act(view, rng)
            if seat == 0 and view.phase == "self" and len(view.legal) > 1:
                narrow = bot.candidates(view, action)
                if len(narrow) == 1 and len(wide.candidates(view, action)) > 1:
                    clear += 1
                    decision = bot.decide(view, random.Random(seed))
                    assert decision.rollouts == 0
                    assert decision.action == greedy.act(view, random.Random(seed))
            state.apply(action, seat)
    assert clear > 0


def test_the_spec_takes_gap_and_greedy() -> None:
    bot = GAME.bot("search:gap=2.5,greedy=1", "sandingguai")
    assert isinstance(bot, SearchBot)
    assert (bot.gap, bot.roll_greedy) == (2.5, True)
    default = GAME.bot("search", "sandingguai")
    assert isinstance(default, SearchBot)
    assert (default.sims, default.gap, default.z, default.roll_greedy) == (64, 1.0, 2.5, False)
