"""The search bot of 三丁拐 (games/sandingguai/search.py, docs/sandingguai.md §13): legal from its
view alone, seeded, quick on trivial decisions, its race able to overrule GreedyBot, and its
spec checked. Small budgets: the strength is measured in bench/sandingguai_bots.py."""

from __future__ import annotations

import random

import pytest

from weimaque.errors import WeimaqueError
from weimaque.games.sandingguai import get_rules
from weimaque.games.sandingguai.actions import DISCARD, HU, TING
from weimaque.games.sandingguai.bots import KEEP, SETTLED, GreedyBot
from weimaque.games.sandingguai.game import GAME
from weimaque.games.sandingguai.notation import parse_tile, parse_tiles
from weimaque.games.sandingguai.observation import observe
from weimaque.games.sandingguai.search import SearchBot, paired, rollout
from weimaque.games.sandingguai.state import State, stack_deck


@pytest.mark.parametrize(
    ("preset", "options"),
    [("sandingguai", {}), ("baike-3p", {}), ("sandingguai", {"dingque": True})],
)
def test_every_choice_is_legal(preset: str, options: dict[str, object]) -> None:
    rules = get_rules(preset, **options)
    bot = SearchBot(rules, sims=12, batch=2, gap=1000)  # every near discard searched
    greedy = GreedyBot(rules)
    state = State(rules, 5, 0)
    rng = random.Random(5)
    searched = 0
    while not state.is_terminal():
        seat = state.current_player()
        view = observe(state, seat)
        if seat == 1:
            decision = bot.decide(view, rng)
            action = decision.action
            searched += decision.rollouts > 0
            assert action in state.legal_actions(seat), (view.phase, action)
        else:
            action = greedy.act(view, rng)
        state.apply(action, seat)
    assert searched > 3
    assert sum(state.returns()) == 0


def _midgame(seed: int = 9, steps: int = 12) -> State:
    rules = get_rules("sandingguai")
    state = State(rules, seed, 0)
    rng = random.Random(seed)
    greedy = GreedyBot(rules)
    for _ in range(steps):
        seat = state.current_player()
        state.apply(greedy.act(observe(state, seat), rng), seat)
    while len(state.legal_actions()) < 2:
        seat = state.current_player()
        state.apply(greedy.act(observe(state, seat), rng), seat)
    return state


def test_a_seed_gives_one_decision() -> None:
    state = _midgame()
    seat = state.current_player()
    view = observe(state, seat)
    bot = SearchBot(state.rules, sims=40, gap=1000)
    a = bot.decide(view, random.Random(3))
    b = bot.decide(view, random.Random(3))
    assert a.rollouts > 0
    assert a == b


def test_the_decision_reads_the_view_alone() -> None:
    """Dealing the tiles the seat cannot see again in the real state (the other hands, the
    wall) changes neither its view nor, for the same rng, its decision or any rollout."""
    state = _midgame(seed=11)
    seat = state.current_player()
    view = observe(state, seat)
    bot = SearchBot(state.rules, sims=12, gap=1000)
    first = bot.decide(view, random.Random(8))
    assert first.rollouts > 0
    for k in range(3):
        other = state.resample(seat, random.Random(k))
        assert other.hands != state.hands or other.wall != state.wall
        other_view = observe(other, seat)
        assert other_view == view
        assert bot.decide(other_view, random.Random(8)) == first


def test_a_legal_hu_is_taken_at_once() -> None:
    # Seat 0 (dealer) is dealt a winning 14: 自摸 at START (SDG §3).
    rules = get_rules("sandingguai")
    hands = [
        parse_tiles("123m456m789m234p55p"),
        parse_tiles("1112223334445s"),
        parse_tiles("66677788899s99p"),
    ]
    state = State(rules, deck=stack_deck(hands, dealer=0))
    view = observe(state, 0)
    assert HU in view.legal
    decision = SearchBot(rules).decide(view, random.Random(1))
    assert decision.action == HU and decision.rollouts == 0


def test_the_race_overrules_a_losing_default() -> None:
    """At the deal the dealer holds 111222333444s5s9m: throwing 9m keeps a 清一色 叫 (SDG
    §6.2: 10 番 and more); throwing 5s breaks it. Given the losing
    throw as its default, the race replaces it, its mean far below the other's."""
    rules = get_rules("sandingguai")
    hands = [
        parse_tiles("111s222s333s444s5s9m"),
        parse_tiles("1112345678999m"),
        parse_tiles("1112345678999p"),
    ]
    state = State(rules, deck=stack_deck(hands, dealer=0))
    view = observe(state, 0)
    good, bad = DISCARD + parse_tile("9m"), DISCARD + parse_tile("5s")
    bot = SearchBot(rules, sims=200, batch=4)
    decision = bot.search(view, [bad, good], bad, random.Random(4))
    assert decision.action == good
    arms = {arm.action: arm for arm in decision.arms}
    gain, se = paired(arms[good].returns, arms[bad].returns)
    assert gain > 2 * se > 0
    # Left to itself, it keeps the 叫 too.
    assert bot.act(view, random.Random(4)) in (good, TING + parse_tile("9m"))


def test_the_default_is_its_base_choice() -> None:
    """The search starts from its base's choice: the first 幺鸡 goes before an equal
    third-suit tile (SETTLED chicken costs, docs/sandingguai.md §13), and with ``chickens=0``
    the 9s goes, as GreedyBot throws it."""
    rules = get_rules("sandingguai")
    hands = [
        parse_tiles("123m456m789m55p7p1s9s"),
        parse_tiles("1112345678999p"),
        parse_tiles("2223334445556s"),
    ]
    view = observe(State(rules, deck=stack_deck(hands, dealer=0)), 0)
    settled = SearchBot(rules, sims=16).decide(view, random.Random(2))
    assert settled.default == DISCARD + parse_tile("1s")
    kept = SearchBot(rules, sims=16, chickens=0).decide(view, random.Random(2))
    assert kept.default == DISCARD + parse_tile("9s")
    assert kept.default == GreedyBot(rules).act(view, random.Random(2))


def test_rollouts_play_a_world_to_its_end() -> None:
    rules = get_rules("sandingguai")
    for seed in range(5):
        state = State(rules, seed, seed % 3)
        net = rollout(state, random.Random(seed))
        assert state.is_terminal() and sum(net) == 0 and net == state.returns()


def test_the_spec_and_its_parameters() -> None:
    info = next(b for b in GAME.bots if b.name == "search")
    assert info.slow and info.names.en == "search" and info.about.zh
    bot = GAME.bot("search:sims=8, width=2,z=2.5", "sandingguai")
    assert isinstance(bot, SearchBot)
    assert (bot.sims, bot.width, bot.z, bot.ms) == (8, 2, 2.5, 0)
    assert isinstance(GAME.bot("search", "baike-3p"), SearchBot)
    # Its base rates thrown chickens as the settlement does unless told GreedyBot's way.
    settled, kept = GAME.bot("search", "sandingguai"), GAME.bot("search:chickens=0", "sandingguai")
    assert isinstance(settled, SearchBot) and settled.base.chickens == SETTLED
    assert isinstance(kept, SearchBot) and kept.base.chickens == KEEP
    for spec, quoted in [
        ("search:sims=0", "'0'"),
        ("search:sims=many", "'many'"),
        ("search:width=1.5", "'1.5'"),
        ("search:depth=3", "'depth'"),
        ("search:ms=-5", "'-5'"),
        ("search:chickens=2", "'2'"),
    ]:
        with pytest.raises(WeimaqueError, match=quoted):
            GAME.bot(spec, "sandingguai")
    with pytest.raises(WeimaqueError, match="no parameters"):
        GAME.bot("greedy:sims=3", "sandingguai")
