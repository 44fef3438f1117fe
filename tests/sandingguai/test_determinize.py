"""Determinization from a seat's view alone (games/sandingguai/determinize.py, docs/sandingguai.md
§12): every sample shows the seat its own view, the unseen tiles land in each hidden place as
often as chance says, and the sample is a function of the view (never of the real hidden tiles)."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from weimaque.games.sandingguai import get_rules
from weimaque.games.sandingguai.bots import GreedyBot, RandomBot
from weimaque.games.sandingguai.determinize import Knowledge, determinize
from weimaque.games.sandingguai.observation import View, observe, settled
from weimaque.games.sandingguai.rules import RuleConfig
from weimaque.games.sandingguai.state import CLAIMS, DINGQUE, ROB, State
from weimaque.games.sandingguai.tiles import NUM_KINDS

SCORES = (3, -1, -2)


def _positions(rules: RuleConfig, seeds: range, every: int) -> list[tuple[State, View]]:
    """Seeded hands (GreedyBot at seats 0 and 2, RandomBot at 1); at every ``every``-th step,
    each seat's view where a seat is shown the position (docs/protocol.md §2.3) and decides
    in a window, or sees another seat's turn."""
    out = []
    for seed in seeds:
        state = State(rules, seed, seed % 3)
        rng = random.Random(seed)
        bots = [GreedyBot(rules), RandomBot(), GreedyBot(rules)]
        step = 0
        while not state.is_terminal():
            window = state.phase in (CLAIMS, ROB, DINGQUE)
            if window or step % every == 0:
                for seat in range(3):
                    view = observe(state, seat, SCORES)
                    if settled(state, seat) and (view.to_act or not window):
                        out.append((state.clone(), view))
            seat = state.current_player()
            state.apply(bots[seat].act(observe(state, seat), rng), seat)
            step += 1
    return out


def _rob_positions() -> list[tuple[State, View]]:
    """The 补杠 rob windows GreedyBot reaches in seeded deals 20 and 53 (SDG §3 ROB)."""
    rules = get_rules("sandingguai")
    out = []
    for seed in (20, 53):
        state = State(rules, seed, 0)
        rng = random.Random(seed)
        bot = GreedyBot(rules)
        while state.phase != ROB:
            seat = state.current_player()
            state.apply(bot.act(observe(state, seat), rng), seat)
        out += [(state.clone(), observe(state, s, SCORES)) for s in state.options]
    return out


@pytest.mark.parametrize(
    ("preset", "options"),
    [
        ("sandingguai", {}),
        ("baike-3p", {}),
        ("sandingguai", {"dingque": True}),
        ("sandingguai", {"angang_public": True, "baoting_window": "dealt_hand"}),
        ("sandingguai", {"tiles": 72, "chongfeng_per_kind": True}),
    ],
)
def test_a_sample_shows_the_seat_its_own_view(preset: str, options: dict[str, object]) -> None:
    rules = get_rules(preset, **options)
    positions = _positions(rules, range(6), 5)
    if preset == "sandingguai" and not options:
        positions += _rob_positions()
    phases = Counter(view.phase for _, view in positions)
    assert phases["self"] and phases["claims"], phases
    if options.get("dingque"):
        assert phases["dingque"]
    if preset == "sandingguai" and not options:
        assert phases["rob"]
    for i, (real, view) in enumerate(positions):
        sample = determinize(view, rules, random.Random(i))
        assert observe(sample, view.viewer, SCORES) == view, (i, view.phase)
        assert sample.tile_count() == rules.tiles
        assert sorted(sample.deck) == sorted(real.deck)
        assert sample.wall_left == real.wall_left
        if view.to_act:
            assert sample.legal_actions(view.viewer) == list(view.legal)
        # The sample is a playable hand: every seat acts on to its end.
        rng = random.Random(i)
        while not sample.is_terminal():
            seat = sample.current_player()
            sample.apply(rng.choice(sample.legal_actions(seat)), seat)
        assert sum(sample.returns()) == 0


def test_unseen_tiles_land_in_each_hidden_place_as_often_as_chance_says() -> None:
    """Over many samples each unseen kind lands in each other hand and in the wall in
    proportion to the place's size (a light check: within 5 standard deviations)."""
    rules = get_rules("sandingguai")
    _, view = next(
        (s, v)
        for s, v in _positions(rules, range(1), 1)
        if v.viewer == 0 and v.to_act and v.wall_left < 50
    )
    knowledge = Knowledge.of(view, rules)
    pool = Counter(knowledge.pool)
    sizes = {1: view.seats[1].concealed, 2: view.seats[2].concealed, "wall": view.wall_left}
    total = sum(sizes.values())
    assert total == len(knowledge.pool)
    n = 1500
    landed: Counter[tuple[object, int]] = Counter()
    rng = random.Random(2024)
    for _ in range(n):
        state = knowledge.sample(rng)
        for seat in (1, 2):
            for k in range(NUM_KINDS):
                landed[seat, k] += state.hands[seat][k]
        for t in state.wall[state.head : state.tail + 1]:
            landed["wall", t] += 1
    checked = 0
    for place, size in sizes.items():
        for k, copies in pool.items():
            p = size / total
            expected = n * copies * p
            sd = (n * copies * p * (1 - p)) ** 0.5  # an upper bound: draws without replacement
            assert abs(landed[place, k] - expected) <= 5 * sd + 1, (place, k)
            checked += 1
    assert checked >= 30


def test_a_sample_is_a_function_of_the_view_alone() -> None:
    """The real hidden tiles are not recoverable: a real state and another with every tile the
    seat cannot see dealt again show the seat one view, and the same ``rng`` then gives the
    same sample of both, whatever the real hidden tiles were."""
    rules = get_rules("sandingguai")
    checked = 0
    for i, (real, view) in enumerate(_positions(rules, range(2), 7)):
        other = real.resample(view.viewer, random.Random(100 + i))
        other_view = observe(other, view.viewer, SCORES)
        if other_view != view:
            continue  # the engine's resample keeps views outside windows only
        a = determinize(view, rules, random.Random(i))
        b = determinize(other_view, rules, random.Random(i))
        assert a.hands == b.hands and a.wall == b.wall and a.melds == b.melds
        checked += 1
    assert checked > 20


def test_a_view_the_seat_is_not_shown_is_refused() -> None:
    rules = get_rules("sandingguai")
    state, _ = _rob_positions()[0]
    outsider = next(s for s in range(3) if s not in state.options)
    with pytest.raises(ValueError, match="not deciding"):
        Knowledge.of(observe(state, outsider), rules)
    state = State(rules, 3)
    while not state.is_terminal():
        seat = state.current_player()
        state.apply(state.legal_actions(seat)[0], seat)
    with pytest.raises(ValueError, match="no hand in progress"):
        Knowledge.of(observe(state, 0), rules)
