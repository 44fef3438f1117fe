"""The 三丁拐 bots (weimaque.games.sandingguai.bots): every choice legal, a choice that depends
on the seat's view alone (SDG §10), the 向听 count, GreedyBot's documented choices (the
duplicate-deal arena of them: tests/test_arena_games.py)."""

from __future__ import annotations

import dataclasses
import doctest
import random
from typing import Any

import pytest

from weimaque.games import Playout, get_game
from weimaque.games.sandingguai import bots as bots_module
from weimaque.games.sandingguai.actions import ANGANG, DISCARD, GANG, HU, PASS, PENG, QUE, TING
from weimaque.games.sandingguai.bots import (
    KEEP,
    SETTLED,
    Bot,
    GreedyBot,
    RandomBot,
    shanten,
)
from weimaque.games.sandingguai.game import SdgHand
from weimaque.games.sandingguai.notation import FirstChicken, parse_tile, parse_tiles
from weimaque.games.sandingguai.observation import View, observe
from weimaque.games.sandingguai.rules import RuleConfig, get_rules
from weimaque.games.sandingguai.state import State
from weimaque.games.sandingguai.tiles import counts_of

#: Rule sets the bots must play legally: the presets and the options that change what is legal.
RULE_SETS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("sandingguai", {}),
    ("baike-3p", {}),
    ("sandingguai", {"dingque": True}),
    ("sandingguai", {"tiles": 72}),
    ("sandingguai", {"max_suits": 3, "passport": "kong_only"}),
    ("sandingguai", {"baoting_window": "dealt_hand", "pass_lock": "any"}),
)


def lineup(rules: RuleConfig, mask: int) -> list[Bot]:
    """Seat s plays GreedyBot where bit s of ``mask`` is set, RandomBot otherwise."""
    return [GreedyBot(rules) if mask >> s & 1 else RandomBot() for s in range(3)]


@pytest.mark.parametrize(("preset", "options"), RULE_SETS)
def test_every_choice_is_legal(preset: str, options: dict[str, Any]) -> None:
    rules = get_rules(preset, **options)
    hands = 48  # 6 rule sets x 48 = 288 hands; each of the 8 lineups 6 times per rule set
    for k in range(hands):
        bots = lineup(rules, k % 8)
        rngs = [random.Random(1000 * k + s) for s in range(3)]
        state = State(rules, seed=k, dealer=k % 3)
        while not state.is_terminal():
            seat = state.current_player()
            view = observe(state, seat)
            action = bots[seat].act(view, rngs[seat])
            assert action in state.legal_actions(seat), (k, seat, view.to_dict(), action)
            state.apply(action, seat)
        assert state.result is not None and sum(state.result.net) == 0


@pytest.mark.parametrize("seed", [3, 4, 5, 6])
def test_choices_read_only_the_view(seed: int) -> None:
    """Re-dealing every tile the seat cannot see (other hands, the wall) leaves its view and
    each bot's choice, with the same rng state, unchanged."""
    rules = get_rules("sandingguai", dingque=seed % 2 == 0)
    greedy, rand = GreedyBot(rules), RandomBot()
    deal_rng = random.Random(seed)
    state = State(rules, seed=seed)
    decisions = 0
    while not state.is_terminal():
        seat = state.current_player()
        view = observe(state, seat)
        other = state.resample(seat, deal_rng)
        assert other.hands != state.hands or other.wall != state.wall
        other_view = observe(other, seat)
        assert other_view == view
        for bot in (greedy, rand):
            a_rng, b_rng = random.Random(decisions), random.Random(decisions)
            assert bot.act(view, a_rng) == bot.act(other_view, b_rng)
            assert a_rng.getstate() == b_rng.getstate()
        state.apply(greedy.act(view, random.Random(decisions)), seat)
        decisions += 1
    assert decisions > 20


def test_random_bot_draws_from_its_rng() -> None:
    rules = get_rules("sandingguai")
    view = observe(State(rules, seed=11), 0)
    picks = {RandomBot().act(view, random.Random(i)) for i in range(200)}
    assert picks == set(view.legal)


# ----------------------------------------------------------------------------- 向听


def sh(text: str, melds: int = 0, max_suits: int = 2, que: int = -1, meld_suits: int = 0) -> int:
    return shanten(counts_of(parse_tiles(text)), melds, max_suits, que, meld_suits)


def test_shanten_counts() -> None:
    assert sh("123m456m789m11p23p") == 0  # 叫 on 1p/4p
    assert sh("123m456m789m11p234p") == -1  # a win
    assert sh("1133557799m11p2p") == 0  # 七对, one short
    assert sh("11335577m11p2p4p6p") == 1
    assert sh("1m5m9m1s5s9s1p5p9p2m6m2s6s") == 4  # four partials in 万 and 条
    # SDG §5.3: 叫 in three suits is three tiles (the 条 set) from 叫 in two.
    assert sh("123m456m789s11p23p") == 3
    assert sh("123m456m789s11p23p", max_suits=3) == 0
    # SDG §2.4: with 万 lacking, every 万 tile must go.
    assert sh("123m456s789s11p23p", que=0) == 3
    # Melds: a 碰 of 7p leaves 10 concealed tiles needing 3 sets and a pair.
    assert sh("123m456m99p45p", melds=1, meld_suits=0b100) == 0
    # The meld's suit is fixed: with a 条 meld the 筒 tiles are the third suit.
    assert sh("123m456m99p45p", melds=1, meld_suits=0b010) == 4


# ------------------------------------------------------------------ GreedyBot's choices

RULES = get_rules("sandingguai")


def self_view(hand: str, legal: list[int] | None = None) -> View:
    """Seat 0's view on its own turn with ``hand`` (14 tiles) and, by default, every discard."""
    counts = counts_of(parse_tiles(hand))
    base = observe(State(RULES, seed=1), 0)
    if legal is None:
        legal = [DISCARD + t for t in range(27) if counts[t]]
    return dataclasses.replace(base, hand=counts, legal=tuple(sorted(legal)), drawn=None)


def claim_view(hand: str, tile: str, legal: list[int]) -> View:
    """Seat 0's view of seat 1's discard ``tile`` with ``hand`` (13 tiles)."""
    counts = counts_of(parse_tiles(hand))
    x = parse_tile(tile)
    base = observe(State(RULES, seed=1), 0)
    seats = list(base.seats)
    seats[1] = dataclasses.replace(seats[1], discards=((x, False),))
    return dataclasses.replace(
        base,
        hand=counts,
        legal=tuple(sorted(legal)),
        drawn=None,
        phase="claims",
        turn=1,
        claim_tile=x,
        seats=(seats[0], seats[1], seats[2]),
    )


def test_greedy_always_takes_a_legal_hu() -> None:
    view = self_view("123m456m789m11p234p")
    view = dataclasses.replace(view, legal=(*view.legal, HU))
    assert GreedyBot(RULES).act(view, random.Random(0)) == HU
    claim = claim_view("123m456m789m11p23p", "4p", [HU, PASS])
    assert GreedyBot(RULES).act(claim, random.Random(0)) == HU


def test_greedy_keeps_the_chicken_among_equal_discards() -> None:
    # 1s and 9s are both a third suit's tile; the 幺鸡 stays (SDG §7.6, §7.7).
    for seed in range(10):
        action = GreedyBot(RULES).act(self_view("123m456m789m55p7p1s9s"), random.Random(seed))
        assert action == DISCARD + parse_tile("9s")


def test_settled_chicken_costs_throw_the_first_chicken_among_equals() -> None:
    # A thrown chicken still counts for a seat that ends 叫 and the first counts twice (冲锋鸡,
    # SDG §7.4, §7.6): with SETTLED costs the 幺鸡 goes first; once a chicken is out, SETTLED
    # costs nothing either way and the rating of the 13 tiles left decides.
    view = self_view("123m456m789m55p7p1s9s")
    assert GreedyBot(RULES, KEEP).act(view, random.Random(0)) == DISCARD + parse_tile("9s")
    for seed in range(10):
        assert GreedyBot(RULES, SETTLED).act(view, random.Random(seed)) == DISCARD + parse_tile(
            "1s"
        )
    out = (FirstChicken(parse_tile("1s"), 1),)
    later = dataclasses.replace(view, chickens=out)
    rated = {GreedyBot(RULES, SETTLED).act(later, random.Random(seed)) for seed in range(20)}
    assert rated == {DISCARD + parse_tile("1s"), DISCARD + parse_tile("9s")}


def test_greedy_throws_what_a_baoting_opponent_threw() -> None:
    view = self_view("123m456m789m55p7p2s9s")  # 2s and 9s: equal, both a third suit's
    for safe in ("2s", "9s"):
        seats = list(view.seats)
        seats[1] = dataclasses.replace(
            seats[1], baoting=True, discards=((parse_tile(safe), False),)
        )
        against = dataclasses.replace(view, seats=(seats[0], seats[1], seats[2]))
        for seed in range(6):
            action = GreedyBot(RULES).act(against, random.Random(seed))
            assert action == DISCARD + parse_tile(safe)


def test_greedy_throws_the_third_suit() -> None:
    action = GreedyBot(RULES).act(self_view("123m456m789m11p23p6s"), random.Random(0))
    assert action == DISCARD + parse_tile("6s")


def test_greedy_declares_baoting_only_with_waits_to_come() -> None:
    hand = "123m456m789m23p55p9s"
    legal = [DISCARD + t for t in set(parse_tiles(hand))] + [TING + parse_tile("9s")]
    view = self_view(hand, legal)
    assert GreedyBot(RULES).act(view, random.Random(0)) == TING + parse_tile("9s")
    # Every 1p and 4p but one already lies in discard rows: one winning tile left.
    seats = list(view.seats)
    row = tuple((t, False) for t in parse_tiles("111p444p"))
    seats[2] = dataclasses.replace(seats[2], discards=row)
    few = dataclasses.replace(view, seats=(seats[0], seats[1], seats[2]))
    assert GreedyBot(RULES).act(few, random.Random(0)) == DISCARD + parse_tile("9s")
    # Without a 报听 bonus in the rules there is nothing to declare it for.
    plain = GreedyBot(RULES.with_options(fan_baoting=0))
    assert plain.act(view, random.Random(0)) == DISCARD + parse_tile("9s")


def test_greedy_kongs_a_set_and_declines_a_peng_that_hurts() -> None:
    gang = claim_view("123m456m777p99p45p", "7p", [PENG, GANG, PASS])
    assert GreedyBot(RULES).act(gang, random.Random(0)) == GANG
    # 明杠 of 7p would break 567p 789p 7p (叫 on 4p/7p): no kong; the 碰 (叫 on 6p/9p) is taken.
    broken = claim_view("123m456m5677789p", "7p", [PENG, GANG, PASS])
    assert GreedyBot(RULES).act(broken, random.Random(0)) == PENG
    # 碰 of 5p breaks a two-sided wait into a single wait: 过.
    peng = claim_view("123m456m789m55p67p", "5p", [PENG, PASS])
    assert GreedyBot(RULES).act(peng, random.Random(0)) == PASS
    # 碰 of 9p completes a set of a hand three tiles from 叫 and leaves it two away.
    useful = claim_view("123m456m99p1s5s9s2p4p", "9p", [PENG, PASS])
    assert GreedyBot(RULES).act(useful, random.Random(0)) == PENG


def test_greedy_kongs_its_four_when_the_hand_stays_at_jiao() -> None:
    hand = "1111m234m567m99p45p"
    legal = [DISCARD + t for t in set(parse_tiles(hand))] + [ANGANG]
    assert GreedyBot(RULES).act(self_view(hand, legal), random.Random(0)) == ANGANG
    # 1111m3m: the kong leaves 3m and 8p alone, a discard of 8p keeps 叫 (on 2m): no kong.
    hand = "1111m3m567m456p99p8p"
    legal = [DISCARD + t for t in set(parse_tiles(hand))] + [ANGANG]
    assert GreedyBot(RULES).act(self_view(hand, legal), random.Random(0)) != ANGANG


def test_greedy_lacks_the_suit_it_can_spare() -> None:
    rules = get_rules("sandingguai", dingque=True)
    state = State(rules, seed=2)
    view = observe(state, 0)
    assert all(a >= QUE for a in view.legal)
    hand = counts_of(parse_tiles("123456789m1234s5p"))
    view = dataclasses.replace(view, hand=hand)
    assert GreedyBot(rules).act(view, random.Random(0)) == QUE + 2


def test_doctests() -> None:
    outcome = doctest.testmod(bots_module)
    assert outcome.attempted > 0 and outcome.failed == 0


def test_adapter_playout_is_greedy() -> None:
    """The seam's ``playout`` policy (game.py) is GreedyBot's choice from the seat's view."""
    game = get_game("sandingguai")
    assert isinstance(game, Playout)
    hand = game.new_hand("sandingguai", {"dingque": True}, seed=9)
    assert isinstance(hand, SdgHand)
    greedy = GreedyBot(hand.state.rules)
    k = 0
    while not hand.is_terminal():
        seat = hand.to_act()[0]
        expected = greedy.act(observe(hand.state, seat), random.Random(k))
        assert game.playout(hand, seat, random.Random(k)) == expected
        hand.apply(seat, expected)
        k += 1
    assert k > 10
