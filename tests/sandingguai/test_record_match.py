"""Records replay to the same result (SANDINGGUAI §2.2); a match keeps a zero-sum ledger (§9.6)."""

from __future__ import annotations

import json
import random

import pytest

from tests.sandingguai.test_state import deal, policy
from weimaque.errors import IllegalAction, RecordError
from weimaque.games.sandingguai.actions import Action
from weimaque.games.sandingguai.match import Match, play_match
from weimaque.games.sandingguai.record import hand_record, replay
from weimaque.games.sandingguai.rules import get_rules
from weimaque.games.sandingguai.state import State


@pytest.mark.parametrize("seed", range(12))
def test_record_replays_to_the_same_result(seed: int) -> None:
    rng = random.Random(seed)
    rules = get_rules("sandingguai", wugu_value=2) if seed % 2 else get_rules("baike-3p")
    if seed % 4 == 1:
        rules = rules.with_options(dingque=True, chaque="per_tile", chaque_amount=1)
    state = State(rules, seed, seed % 3, 1 + seed % 3)
    while not state.is_terminal():
        state.apply(policy(state, rng))
    doc = json.loads(json.dumps(hand_record(state)))
    again = replay(doc)
    assert again.result == state.result
    assert again.history == state.history


def test_record_of_stacked_deck_with_baoting() -> None:
    s = deal("123m456m789m234p5p9s", "1359m2468s13469p", "2469m13678s2479p", head="1s4s7s7s")
    s.apply(next(a for a in s.legal_actions() if 27 <= a < 54))
    s.apply(Action.parse("出1s").id)
    s.apply(Action.parse("出4s").id)  # then seat 0 (报听) draws 7s and the engine discards it
    doc = hand_record(s)
    assert doc["seed"] is None and len(doc["deck"]) == 108
    assert [a for _, a in doc["actions"]] == ["报听9s", "出1s", "出4s"]
    again = replay(doc)
    assert again.history == s.history and again.discards == s.discards


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        pytest.param({"version": 9}, "version", id="version"),
        pytest.param({"rules": "nope"}, "'nope'", id="rules"),
        pytest.param({"overrides": {"fanji": 3}}, "fanji", id="override"),
        pytest.param({"dealer": 7}, "7", id="dealer"),
        pytest.param({"actions": [[0, "碰"]]}, "'\\u78b0'", id="illegal-action"),
        pytest.param({"actions": [[0, "xyz"]]}, "xyz", id="bad-notation"),
        pytest.param({"actions": ["x"]}, "'x'", id="bad-item"),
        pytest.param({"net": [1, 2, 3]}, "[1, 2, 3]", id="wrong-net"),
        pytest.param({"seed": None}, "deck", id="no-seed-no-deck"),
    ],
)
def test_bad_records_are_refused_with_a_quote(change: dict[str, object], fragment: str) -> None:
    rng = random.Random(1)
    state = State(None, 1)
    while not state.is_terminal():
        state.apply(policy(state, rng))
    doc = {**hand_record(state), **change}
    with pytest.raises(RecordError) as err:
        replay(doc)
    assert fragment in str(err.value)


def test_match_ledger_and_dealer() -> None:
    rng = random.Random(4)
    match = play_match(get_rules(match_hands=12), 4, lambda s: policy(s, rng))
    assert len(match.hands) == 12 and match.is_over()
    assert sum(match.scores) == 0
    assert match.scores == tuple(sum(h.net[s] for h in match.hands) for s in range(3))
    for prev, nxt in zip(match.hands, match.hands[1:], strict=False):
        assert (nxt.dealer, nxt.streak) == (prev.next_dealer, prev.next_streak)
    again = play_match(get_rules(match_hands=12), 4, lambda s: policy(s, random.Random(0)))
    assert [h.seed for h in again.hands] == [h.seed for h in match.hands]


def test_match_misuse() -> None:
    match = Match(get_rules(match_hands=1), 3)
    state = match.next_hand()
    with pytest.raises(IllegalAction, match="not finished"):
        match.next_hand()
    with pytest.raises(IllegalAction, match="once it is over"):
        match.finish(state)
    with pytest.raises(IllegalAction, match="'x'"):
        Match(None, "x")  # type: ignore[arg-type]
