"""What the two built-in adapters add over the engines: shapes that follow the options, options
that reach the engine's rules, counters read off each game's result, a spectator's view."""

from __future__ import annotations

import random

import pytest

from tests.conformance.kit import step
from weimaque.errors import RuleConfigError
from weimaque.games import Game, HandOutcome, TableShape, get_game
from weimaque.games.maque.rules import list_rules


def play(game: Game, variant: str, seed: int) -> HandOutcome:
    """A hand to its end, played by the game's own playout policy; its outcome."""
    hand = game.new_hand(variant, {}, seed)
    rng = random.Random(seed)
    while not hand.is_terminal():
        step(hand, rng, game)
    outcome = hand.outcome()
    assert outcome is not None
    return outcome


def test_sandingguai_table_follows_the_tiles_option() -> None:
    game = get_game("sandingguai")
    assert game.shape("sandingguai") == TableShape(3, (14, 13, 13), 68, 108)
    assert game.shape("sdg", {"tiles": 72}) == TableShape(3, (14, 13, 13), 32, 72)
    hand = game.new_hand("sandingguai", {"tiles": 72}, seed=4)
    assert len(hand.deal()["deck"]) == 72
    with pytest.raises(RuleConfigError, match="per_tile"):
        game.new_hand("sandingguai", {"chaque": "per_tile"})  # needs dingque (SDG §9.3)


def test_maque_pattern_options_reach_the_rules() -> None:
    game = get_game("maque")
    config = next(r for r in list_rules() if r.optional_patterns)
    key = next(iter(config.optional_patterns))
    hand = game.new_hand(config.id, {"enable_patterns": [key]}, seed=1)
    assert hand.record()["overrides"] == {"enable_patterns": [key]}
    active = next(iter(config.patterns))
    with pytest.raises(RuleConfigError, match=repr(active)):
        game.new_hand(config.id, {"enable_patterns": [active], "disable_patterns": ["nope"]})


@pytest.mark.parametrize(
    ("game_id", "variant", "counter"),
    [("maque", "anxiang", "zimo"), ("sandingguai", "sandingguai", "dianpao")],
)
def test_counters_follow_the_result(game_id: str, variant: str, counter: str) -> None:
    game = get_game(game_id)
    seen = 0
    for seed in range(12):
        outcome = play(game, variant, seed)
        counts = game.counts(outcome)
        assert [row["points"] for row in counts] == list(outcome.net)
        assert sum(row["wins"] for row in counts) == len(outcome.winners)
        seen += sum(row[counter] for row in counts)
    assert seen > 0


def test_sandingguai_spectator_sees_no_concealed_tile() -> None:
    game = get_game("sandingguai")
    hand = game.new_hand("sandingguai", {}, seed=2)
    public = hand.view("public").to_json()
    assert public["viewer"] == "public"
    assert not {"hand", "drawn", "locks", "legal", "to_act"} & set(public)
    assert "hand" in hand.view(0).to_json()


def test_maque_claim_window_rule_through_the_seam() -> None:
    # docs/protocol.md §2.3: a seat with no option in an open window is not settled; it keeps
    # the view it was shown, with its own answer (a 出: the card in the middle, no decision).
    game = get_game("maque")
    checked = 0
    for seed in range(40):
        hand = game.new_hand("anxiang", {}, seed)
        rng = random.Random(seed)
        while not hand.is_terminal() and checked < 5:
            acting = hand.to_act()
            if len(acting) == 1 and not hand.in_window():
                seat = acting[0]
                before = hand.view(seat)
                action = rng.choice(hand.legal_actions(seat))
                hand.apply(seat, action)
                if hand.in_window() and not hand.settled(seat):
                    shown = game.answered(before, action).to_json()
                    assert shown["phase"] == "claim" and shown["legal_actions"] == []
                    assert shown["claim"]["card"] == str(game.action(action))[1:]
                    assert not shown["to_act"]
                    checked += 1
                continue
            step(hand, rng)
    assert checked == 5
