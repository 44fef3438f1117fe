"""Matches: rotation, payments, 守醒, 留子 and the ledger (RULES §8)."""

from __future__ import annotations

import json
import random

import pytest

from tests.playthrough import policy_play
from weimaque.games.maque.game.state import HandResult
from weimaque.games.maque.match import Match, replay_match, settle
from weimaque.games.maque.rules import get_rules
from weimaque.games.maque.scoring import score

WIN_19 = score(
    "偎:十十十 吃:八九十 碰:贰贰贰 碰:柒柒柒 碰:二二二 碰:拾拾拾 手:七 胡:七", "xiaomingtang"
)  # 硬息 22, total 172 (RULES §9)


def test_s8_2_dealer_keeps_the_deal_when_he_wins() -> None:
    rules = get_rules("anxiang")
    s = settle(HandResult(1, WIN_19), dealer=1, pool=0, rules=rules)
    assert s.next_dealer == 1
    s = settle(HandResult(2, WIN_19), dealer=1, pool=0, rules=rules)
    assert s.next_dealer == 2  # another winner: the dealer's 下家 deals
    s = settle(HandResult(None, None), dealer=2, pool=0, rules=rules)
    assert s.next_dealer == 0  # 臭: the dealer's 下家 deals


def test_s8_2_winner_deals_option() -> None:
    rules = get_rules("anxiang").with_options(dealer_rotation="winner_deals")
    assert settle(HandResult(0, WIN_19), dealer=1, pool=0, rules=rules).next_dealer == 0
    assert settle(HandResult(None, None), dealer=1, pool=0, rules=rules).next_dealer == 2


def test_s8_3_each_loser_pays_the_total() -> None:
    s = settle(HandResult(0, WIN_19), dealer=0, pool=0, rules=get_rules("xiaomingtang"))
    assert s.seats == (344, -172, -172)
    assert s.shouxing == 0 and s.pool == 0


def test_s8_4_shouxing_share_is_a_quarter_paid_by_the_winner() -> None:
    rules = get_rules("xiaomingtang").with_options(shouxing=True)
    s = settle(HandResult(0, WIN_19), dealer=0, pool=0, rules=rules)
    assert s.shouxing == 172 // 4 == 43
    assert s.seats == (344 - 43, -172, -172)
    rules = rules.with_options(shouxing_liuju_reward=2)
    s = settle(HandResult(None, None), dealer=0, pool=0, rules=rules)
    assert s.seats == (-2, -2, -2) and s.shouxing == 6


@pytest.mark.parametrize(("hard", "deng"), [(17, 0), (18, 1), (19, 2), (25, 8)])
def test_s8_5_liuzi_deng_from_hard_xi(hard: int, deng: int) -> None:
    # RULES §9: 硬息 17 → 0 等, 18 → 1, 19 → 2, 25 → 8.
    from dataclasses import replace

    rules = get_rules("anxiang").with_options(liuzi=True)
    win = replace(WIN_19, hard_xi=hard)
    s = settle(HandResult(0, win), dealer=0, pool=100, rules=rules)
    stakes = (-2, -1, -1)
    assert s.seats[0] == stakes[0] + 2 * win.total + deng
    assert s.pool == 4 - deng


def test_s8_5_liuzi_payout_is_capped_by_the_pool() -> None:
    from dataclasses import replace

    rules = get_rules("anxiang").with_options(liuzi=True, deng_value=10)
    win = replace(WIN_19, hard_xi=25)  # 8 等 × 10 = 80, but the pool holds 3 + 4
    s = settle(HandResult(1, win), dealer=0, pool=3, rules=rules)
    assert s.pool == 4 - 7  # everything in the pool is taken, no more
    assert s.seats[1] == -1 + 2 * win.total + 7


def play_match(rules_id: str, seed: int, **options: object) -> Match:
    rules = get_rules(rules_id).with_options(**options)
    match = Match.new(rules, seed)
    rng = random.Random(seed)
    while not match.is_over():
        state = match.start_hand()
        while not state.is_terminal():
            policy_play(state, rng)
        match.finish_hand()
    return match


def test_match_ledger_sums_to_zero_and_replays() -> None:
    match = play_match("anxiang", 4, liuzi=True, shouxing=True, match_hands=12)
    ledger = match.ledger()
    assert sum(ledger["seats"]) + ledger["shouxing"] + ledger["pool"] == 0
    assert ledger["pool"] == 0  # shared out at the end (RULES §8.5)
    assert len(match.hands) == 12
    record = json.loads(json.dumps(match.record(), ensure_ascii=False))
    again = replay_match(record)
    assert again.ledger() == ledger
    for hand, s in zip(match.hands, match.settlements, strict=True):
        assert hand["settlement"] == s.to_dict()


def test_match_dealers_follow_rotation() -> None:
    match = play_match("anxiang", 9, match_hands=10)
    for prev, nxt in zip(match.hands, match.hands[1:], strict=False):
        assert nxt["dealer"] == prev["settlement"]["next_dealer"]


def test_match_ends_at_score_target() -> None:
    match = play_match("chaoji", 2, match_hands=60, score_target=1)
    # The first win ends it: someone reached the target before the 60 hands were played.
    assert max(match.scores) >= 1
    assert len(match.hands) < 60
    assert all(max(0, *h["settlement"]["seats"]) == 0 for h in match.hands[:-1])


def test_cannot_start_a_hand_after_the_match() -> None:
    match = play_match("anxiang", 1, match_hands=1)
    with pytest.raises(ValueError, match="over"):
        match.start_hand()


def test_views_carry_the_match_scores() -> None:
    from weimaque.games.maque.game.observation import observation

    match = play_match("anxiang", 4, match_hands=3)
    match.rules = match.rules.with_options(match_hands=4)
    state = match.start_hand()
    assert observation(state, 0)["scores"] == match.scores


def test_ending_early_drops_the_hand_in_progress_and_shares_the_pool() -> None:
    # 解散: the finished hands stand, the hand being played is not scored, and what the 留子
    # pool still holds is shared as at a normal end (RULES §8.5, §8.6).
    rules = get_rules("anxiang").with_options(liuzi=True, match_hands=8)
    match = Match.new(rules, 5)
    rng = random.Random(5)
    for _ in range(2):
        state = match.start_hand()
        while not state.is_terminal():
            policy_play(state, rng)
        match.finish_hand()
    before = list(match.scores)
    pool, dealer = match.pool, match.dealer
    assert pool % 3 != 0  # some units do not divide: they go from the dealer on
    match.start_hand()
    match.end_early()
    assert match.is_over() and match.current is None and len(match.hands) == 2
    assert match.pool == 0
    base, odd = divmod(pool, 3)
    share = [base + (1 if (s - dealer) % 3 < odd else 0) for s in range(3)]
    assert match.final_share == tuple(share)
    assert match.scores == [b + s for b, s in zip(before, share, strict=True)]
    ledger = match.ledger()
    assert sum(ledger["seats"]) + ledger["shouxing"] + ledger["pool"] == 0
    # The record says so, and replays to the same ledger.
    record = json.loads(json.dumps(match.record(), ensure_ascii=False))
    assert record["ended_early"] is True
    assert replay_match(record).ledger() == ledger
    with pytest.raises(ValueError, match="over"):
        match.end_early()
    with pytest.raises(ValueError, match="over"):
        match.start_hand()
