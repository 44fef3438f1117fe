"""The match variants of RULES-VARIANTS: 逗溜子 timing (RULES §8.5.1, V4), caps and the end-of-match
翻倍 and 加分 (RULES §8.7, V5), and four persons with a rotating 守醒 (RULES §2.1.1, V6)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from weimaque.errors import RuleConfigError
from weimaque.games import get_game
from weimaque.games.maque import MaqueMatch
from weimaque.games.maque.bots import get_bot
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.determinize import determinize
from weimaque.games.maque.game.state import GameState, HandResult
from weimaque.games.maque.match import Match, final_adjustment, replay_match, seat_persons, settle
from weimaque.games.maque.rules import rules_with
from weimaque.games.maque.scoring import score

Q1 = "偎:十十十 手:八九十七 碰:贰贰贰 碰:柒柒柒 碰:二二二 碰:拾拾拾 胡:七 --from other"


def finish_with(match: Match, result: HandResult) -> None:
    """Deal the match's next hand and book ``result`` for it (the ledger is under test)."""
    state = match.start_hand()
    state.result = result
    state.phase = "over"
    match.finish_hand()


def total(match: Match) -> int:
    return sum(match.scores) + match.shouxing + match.pool


# ----------------------------------------------------------------------------- V4: 逗溜子 timing

V4_OPTIONS = {
    "liuzi": True,
    "liuzi_dealer": 20,
    "liuzi_other": 10,
    "deng_value": 80,
    "match_hands": 8,
}


@pytest.mark.parametrize(
    ("when", "hand1", "pool1", "hand2", "ledger"),
    [
        ("chou", [-20, -10, -10], 40, [-382, -382, 804], [-402, -392, 794]),
        ("deal", [-20, -10, -10], 40, [-392, -402, 834], [-412, -412, 824]),
        ("start_and_chou", [-40, -20, -20], 80, [-382, -382, 844], [-422, -402, 824]),
    ],
)
def test_v4_liuzi_timing(
    when: str, hand1: list[int], pool1: int, hand2: list[int], ledger: list[int]
) -> None:
    """RULES §8.5.1, the V4 table: quanmingtang, stakes 20/10/10, 1 等 = 80, dealer 0; hand 1
    臭, hand 2 (dealer 1) seat 2 wins Q1 (382, 硬息 22 = 5 等)."""
    rules = rules_with("quanmingtang", {**V4_OPTIONS, "liuzi_when": when})
    q1 = score(Q1, rules)
    assert q1.total == 382 and q1.hard_xi == 22
    match = Match.new(rules, 1)
    finish_with(match, HandResult(None, None))
    assert list(match.settlements[0].seats) == hand1 and match.pool == pool1
    assert match.dealer == 1
    finish_with(match, HandResult(2, q1))
    assert list(match.settlements[1].seats) == hand2 and match.pool == 0
    assert match.scores == ledger
    assert total(match) == 0


def test_v4_deal_timing_is_the_default() -> None:
    """RULES §8.5.1 [D]: ``"deal"`` stays the default so no existing match record changes."""
    assert rules_with("anxiang", {}).liuzi_when == "deal"
    with pytest.raises(RuleConfigError, match="liuzi_when"):
        rules_with("anxiang", {"liuzi_when": "never"})


# ----------------------------------------------------------------------------- V5: caps, 翻倍, 加分


@pytest.mark.parametrize(
    ("end", "double", "bonus", "want"),
    [
        (40, 50, 0, 80),
        (40, 50, 100, 90),
        (50, 50, 100, 60),
        (150, 50, 100, 150),
        (0, 50, 100, 0),
    ],
)
def test_v5_final_double_and_bonus(end: int, double: int, bonus: int, want: int) -> None:
    """RULES §8.7.1, the V5 vectors: ratio 2 below 50, +10 below 100; strictly below; doubling
    first; 0/0 unchanged."""
    options: dict[str, object] = {"players": 2, "final_double_below": double}
    if bonus:
        options |= {"final_bonus_below": bonus, "final_bonus": 10}
    rules = rules_with("anxiang", options)
    for leader in (0, 1):
        scores = [end, -end] if leader == 0 else [-end, end]
        adjust = final_adjustment(scores, rules)
        after = [a + b for a, b in zip(scores, adjust, strict=True)]
        assert after[leader] == want and after[1 - leader] == -want


def test_v5_final_adjustment_at_a_match_end() -> None:
    """RULES §8.7.1: applied once the match ends (after the pool's share), recorded, replayed."""
    rules = rules_with(
        "anxiang",
        {
            "players": 2,
            "match_hands": 2,
            "final_double_below": 500,
            "final_double_ratio": 3,
            "final_bonus_below": 1000,
            "final_bonus": 7,
        },
    )
    win = score("偎:一一一 偎:三三三 碰:八八八 碰:壹壹壹 吃:叁肆伍 手:四五六九 胡:九", rules)
    match = Match.new(rules, 4)
    finish_with(match, HandResult(1, win))
    assert match.scores == [-win.total, win.total]
    finish_with(match, HandResult(None, None))
    assert match.is_over()
    assert match.scores == [-(win.total * 3 + 7), win.total * 3 + 7]
    assert match.record()["final_adjustment"] == [-(win.total * 2 + 7), win.total * 2 + 7]


def test_v5_final_options_are_two_player_only() -> None:
    """RULES §8.7.1 [D]: not offered with three players (a RuleConfigError quoting it)."""
    for key, value in (("final_double_below", 50), ("final_bonus", 5), ("final_double_ratio", 3)):
        with pytest.raises(RuleConfigError, match=key):
            rules_with("anxiang", {key: value})
    with pytest.raises(RuleConfigError, match="final_double_ratio"):
        rules_with("anxiang", {"players": 2, "final_double_ratio": 5})


def test_v5_hand_cap() -> None:
    """RULES §8.7.2, V5: 3 players, quanmingtang, hand_cap 200, seat 2 wins Q1 (382): each loser
    pays 200, the winner +400; with a 守醒 he gets 50 from the winner (winner +350)."""
    rules = rules_with("quanmingtang", {"hand_cap": 200})
    q1 = score(Q1, rules)
    assert settle(HandResult(2, q1), 0, 0, rules).seats == (-200, -200, 400)
    with_shouxing = rules_with("quanmingtang", {"hand_cap": 200, "shouxing": True})
    s = settle(HandResult(2, q1), 0, 0, with_shouxing)
    assert s.seats == (-200, -200, 350) and s.shouxing == 50


def test_v5_the_liuzi_take_is_not_capped() -> None:
    """RULES §8.7.2: the 留子 take is not capped."""
    rules = rules_with("quanmingtang", {**V4_OPTIONS, "hand_cap": 100})
    q1 = score(Q1, rules)
    s = settle(HandResult(2, q1), 0, 1000, rules)
    assert s.seats == (-120, -110, 200 + 400 - 10)


# ----------------------------------------------------------------------------- V6: rotating 守醒

V6_RULES = rules_with(
    "anxiang", {"shouxing": True, "shouxing_rotation": True, "shouxing_liuju_reward": 2}
)
WIN_100 = score("偎:一一一 偎:三三三 偎:八八八 碰:壹壹壹 偎:叁叁叁 手:一二三九 胡:九", "anxiang")
WIN_60 = score("偎:一一一 偎:三三三 碰:八八八 碰:壹壹壹 吃:叁肆伍 手:四五六九 胡:九", "anxiang")


def test_v6_rotating_shouxing() -> None:
    """RULES §2.1.1, §8.2.1, §8.4.1, §8.6.1, the V6 vector: three hands, the ledger per person
    P0 −87, P1 +113, P2 +128, P3 −154 (sum 0)."""
    assert (WIN_100.total, WIN_60.total) == (100, 60)
    match = Match.new(V6_RULES, 0)
    assert match.persons() == (0, 1, 3) and match.shouxing_person() == 2
    finish_with(match, HandResult(1, WIN_100))  # P1 wins
    assert match.scores == [-100, 175, 25, -100]
    assert match.dealer == 1 and match.persons() == (1, 2, 0) and match.shouxing_person() == 3
    finish_with(match, HandResult(None, None))  # 臭
    assert match.scores == [-102, 173, 23, -94]
    assert match.dealer == 2 and match.persons() == (2, 3, 1) and match.shouxing_person() == 0
    finish_with(match, HandResult(0, WIN_60))  # the dealer P2 wins and keeps the deal
    assert match.scores == [-87, 113, 128, -154]
    assert match.dealer == 2
    assert match.ledger() == {"persons": [-87, 113, 128, -154], "shouxing": 0, "pool": 0}


def test_v6_option_needs_shouxing_and_three_players() -> None:
    with pytest.raises(RuleConfigError, match="shouxing_rotation"):
        rules_with("anxiang", {"shouxing_rotation": True})
    with pytest.raises(RuleConfigError):
        rules_with("anxiang", {"shouxing_rotation": True, "shouxing": True, "players": 2})


def test_v6_winner_deals_and_the_pool_share_among_four() -> None:
    """RULES §8.2.1: with ``winner_deals`` the winner's person deals; RULES §8.6.1: a pool left
    at the end is shared among the four, odd units from the next dealer person on."""
    rules = rules_with(
        "anxiang",
        {
            "shouxing": True,
            "shouxing_rotation": True,
            "dealer_rotation": "winner_deals",
            "liuzi": True,
            "liuzi_dealer": 3,
            "liuzi_other": 1,
            "match_hands": 2,
        },
    )
    match = Match.new(rules, 0)
    finish_with(match, HandResult(2, WIN_60))  # seat 2 = person 3 wins: person 3 deals
    assert match.dealer == 3 and seat_persons(3) == (3, 0, 2)
    finish_with(match, HandResult(None, None))  # stakes 3 + 1 + 1 each hand: pool 10
    assert match.pool == 0 and match.final_share is not None
    # 10 = 2 each + 2 odd units from the next dealer person (3's 下家 0 after the 臭) on
    assert match.final_share == (3, 3, 2, 2)
    assert total(match) == 0


def play_match(match: Match, seed: int) -> list[int | None]:
    """Play every hand of a match with the greedy bot at each seat; each hand's pool."""
    bot = get_bot("greedy")
    rng = random.Random(seed)
    pools = []
    while not match.is_over():
        state = match.start_hand()
        pools.append(state.pool)
        while not state.is_terminal():
            seat = state.current_player()
            state.apply(seat, bot.act(BotView.of(state, seat), rng))
        match.finish_hand()
    return pools


def test_v6_match_records_replay_and_the_seam_shows_the_persons() -> None:
    """RULES §8.6.1: the match record replays to the per-person ledger, and the seam's MatchPlay
    ledger shows the four persons (summing to zero with the pool)."""
    rules = rules_with("anxiang", {"shouxing": True, "shouxing_rotation": True, "match_hands": 4})
    match = Match.new(rules, 8)
    play_match(match, 8)
    assert replay_match(match.record()).ledger() == match.ledger()
    ledger = MaqueMatch(match).ledger()
    assert ledger.seats == tuple(match.scores) and len(ledger.seats) == 4
    assert ledger.total == 0
    seam = get_game("maque").new_match("anxiang", {"shouxing": True, "shouxing_rotation": True})
    hand = seam.next_hand()
    assert len(hand.to_act()) >= 1 and len(seam.ledger().seats) == 4


# ----------------------------------------------------------------------------- properties


@settings(max_examples=60, deadline=None)
@given(
    players=st.sampled_from([2, 3]),
    rotation=st.booleans(),
    when=st.sampled_from(["deal", "chou", "start_and_chou"]),
    cap=st.sampled_from([0, 50, 200]),
    outcomes=st.lists(st.integers(-1, 2), min_size=1, max_size=8),
    share=st.booleans(),
)
def test_the_ledger_sums_to_zero_with_the_pool(
    players: int, rotation: bool, when: str, cap: int, outcomes: list[int], share: bool
) -> None:
    """RULES §8.5, §8.6, §8.6.1: whatever the hands, the ledger (per seat, or per person under
    rotation) sums to zero with the 守醒 and the pool, after every hand and at the end."""
    rotation = rotation and players == 3
    options: dict[str, object] = {
        "players": players,
        "liuzi": True,
        "liuzi_dealer": 7,
        "liuzi_other": 3,
        "deng_value": 5,
        "liuzi_when": when,
        "hand_cap": cap,
        "match_hands": len(outcomes),
        "shouxing": players == 3 and (rotation or share),
        "shouxing_rotation": rotation,
        "shouxing_liuju_reward": 1 if players == 3 and (rotation or share) else 0,
    }
    if players == 2:
        options |= {"final_double_below": 300, "final_bonus_below": 500, "final_bonus": 9}
    rules = rules_with("anxiang", options)
    match = Match.new(rules, 0)
    wins = (WIN_100, WIN_60, score(Q1.replace(" --from other", ""), "anxiang"))
    for k, outcome in enumerate(outcomes):
        winner = None if outcome < 0 or outcome >= players else outcome
        finish_with(match, HandResult(winner, None if winner is None else wins[k % 3]))
        assert total(match) == 0
        assert len(match.scores) == (4 if rotation else players)
    assert match.is_over() and match.pool == 0
    assert total(match) == 0


# ----------------------------------------------------------------------------- V4: choice with 留子

CHOICE = "偎:七七七 偎:贰贰贰 吃:八九十 手:二二二三三三四四四柒 胡:柒"


def test_v4_choice_with_the_liuzi() -> None:
    """RULES §8.5.3, V4 'Choice with the 留子' (anxiang, 3 players, 1 等 = 80): §6.2 picks layout
    A (二三四 ×3: 硬息 10, total 160); with ``liuzi_choice`` and a pool of 240, B (二二二 三三三
    四四四: 硬息 20, total 70, 3 等) gives 2 × 70 + 240 = 380 > 320: B, the winner +380, pool
    0; with a pool of 100, B gives 240 < 320: A."""
    plain = rules_with("anxiang", {"liuzi": True, "deng_value": 80, "liuzi_when": "chou"})
    choice = rules_with(
        "anxiang", {"liuzi": True, "deng_value": 80, "liuzi_when": "chou", "liuzi_choice": True}
    )
    a = score(CHOICE, plain, pool=240)
    assert (a.hard_xi, a.total) == (10, 160)
    b = score(CHOICE, choice, pool=240)
    assert (b.hard_xi, b.total) == (20, 70)
    s = settle(HandResult(0, b), 0, 240, choice)
    assert s.seats == (380, -70, -70) and s.pool == -240
    assert score(CHOICE, choice, pool=100).total == 160
    assert score(CHOICE, choice).total == 160  # no pool given: §6.2 as written


def test_v4_choice_matches_record_the_pool_and_replay() -> None:
    """A match under ``liuzi_choice`` gives each hand the pool its winner could take; the hand
    records keep it, so the match replays to the same ledger."""
    rules = rules_with(
        "anxiang", {"liuzi": True, "deng_value": 3, "liuzi_choice": True, "match_hands": 4}
    )
    match = Match.new(rules, 2)
    pools = play_match(match, 2)
    assert pools[0] == 2 + 1 + 1  # the first hand's stakes (RULES §8.5.1, "deal")
    assert all(isinstance(p, int) for p in pools)
    assert all("pool" in h for h in match.record()["hands"])
    assert replay_match(match.record()).ledger() == match.ledger()


def test_v4_bots_see_the_pool_their_worlds_score_with() -> None:
    """RULES §8.5.3: the pool is public; a bot's view carries it and its sampled worlds score a
    win with it, as the engine does."""
    rules = rules_with("anxiang", {"liuzi": True, "liuzi_choice": True, "deng_value": 80})
    state = GameState.new(rules, 5, 0, pool=240)
    view = BotView.of(state, 1)
    assert view.pool == 240
    assert determinize(view, random.Random(1)).pool == 240
    assert BotView.of(GameState.new("anxiang", 5, 0, pool=240), 1).pool is None


def test_v6_a_random_first_dealer_is_one_of_the_four() -> None:
    """RULES §8.4.1: with ``first_dealer = "random"`` the first dealer is one of the four persons
    (drawn from the match seed), and the persons at the seats follow him."""
    rules = V6_RULES.with_options(first_dealer="random")
    dealers = {Match.new(rules, seed).dealer for seed in range(40)}
    assert dealers == {0, 1, 2, 3}
    match = Match.new(rules, 1)
    state = match.start_hand()
    assert state.dealer == 0 and match.persons() == seat_persons(match.dealer)


def test_v5_an_early_end_adjusts_too() -> None:
    """RULES §8.7.1: a match ended early (解散) is settled as it stands, 翻倍 and 加分 included."""
    rules = rules_with("anxiang", {"players": 2, "final_double_below": 500, "final_bonus_below": 0})
    match = Match.new(rules, 4)
    finish_with(match, HandResult(0, WIN_60))
    match.end_early()
    assert match.scores == [120, -120] and match.final_adjust == (60, -60)
