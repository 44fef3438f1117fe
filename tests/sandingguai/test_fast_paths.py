"""The engine's fast paths hold what they stand for (SDG §2.2, §5.3, §6.1, §6.3, §2.4).

The deal is ``random.Random(seed).shuffle`` written out on ``_random.Random``; the 叫 bits a seat
keeps (``State.jiao``, from ``hands.wait_bits``) decide every 胡 of the engine, so they must be
the kinds whose addition makes a legal win, whatever the suit limit and the lacking suit, and
stay in step with the seat's tiles through random play.
"""

from __future__ import annotations

import random

import pytest

from weimaque.errors import IllegalAction
from weimaque.games.sandingguai.actions import DISCARD, HU, TING
from weimaque.games.sandingguai.hands import (
    bits_kinds,
    four_bits,
    is_legal_win,
    odd_bits,
    suit_keys,
    wait_bits,
    waits,
)
from weimaque.games.sandingguai.notation import Meld, MeldKind, format_tiles
from weimaque.games.sandingguai.rules import get_rules
from weimaque.games.sandingguai.settle import is_jiao, settle
from weimaque.games.sandingguai.state import DINGQUE, SELF, State, stack_deck
from weimaque.games.sandingguai.tiles import counts_of, shuffled_deck, sorted_deck


@pytest.mark.parametrize("num_tiles", [108, 72])
def test_shuffled_deck_is_random_shuffle_of_the_sorted_deck(num_tiles: int) -> None:
    for seed in [*range(200), -1, -(2**40), 2**63 - 1, 10**18 + 7, 2**200 + 3]:
        deck = sorted_deck(num_tiles)
        random.Random(seed).shuffle(deck)
        assert shuffled_deck(seed, num_tiles) == deck, seed


def _winning(rng: random.Random, sets: int) -> list[int] | None:
    """A random win shape: ``sets`` sets and a pair (or, for 4 sets, 七对 one time in five)
    over one to three suits; None when the draw runs past four copies."""
    suits = rng.sample(range(3), rng.choice((1, 2, 2, 3)))
    tiles: list[int] = []
    if sets == 4 and rng.random() < 0.2:
        kinds = [9 * rng.choice(suits) + rng.randrange(9) for _ in range(7)]
        tiles = [k for k in kinds for _ in range(2)]
    else:
        for _ in range(sets):
            base = 9 * rng.choice(suits)
            if rng.random() < 0.5:
                tiles += [base + rng.randrange(9)] * 3
            else:
                r = rng.randrange(7)
                tiles += [base + r, base + r + 1, base + r + 2]
        tiles += [9 * rng.choice(suits) + rng.randrange(9)] * 2
    return tiles if max(counts_of(tiles)) <= 4 else None


def _hands(rng: random.Random, n: int, size: int) -> list[list[int]]:
    """Random concealed tiles of ``size`` (3n+1): most one tile short of a win shape, the rest
    drawn at random from the deck."""
    deck = [k for k in range(27) for _ in range(4)]
    out: list[list[int]] = []
    while len(out) < n:
        if rng.random() < 0.75:
            tiles = _winning(rng, (size - 1) // 3)
            if tiles is None:
                continue
            tiles.pop(rng.randrange(len(tiles)))
            out.append(tiles)
        else:
            out.append(rng.sample(deck, size))
    return out


@pytest.mark.parametrize(("max_suits", "que"), [(2, -1), (3, -1), (2, 0), (2, 2), (3, 1)])
def test_wait_bits_are_the_legal_wins(max_suits: int, que: int) -> None:
    """Bit ``x`` of a 13-tile hand's 叫 is set exactly when the 14 tiles with ``x`` are a legal
    win (SDG §6.1, §5.3, §2.4); with a 碰 the same for 10 tiles."""
    rng = random.Random(max_suits * 10 + que)
    wins = 0
    for tiles in _hands(rng, 600, 13):
        c = list(counts_of(tiles))
        bits = wait_bits(suit_keys(c), odd_bits(c), True, (), max_suits, que)
        for x in range(27):
            with_x = c[:]
            with_x[x] += 1
            legal = with_x[x] <= 4 and is_legal_win(with_x, (), max_suits, que)
            assert bool(bits >> x & 1) == legal, (format_tiles(tiles), x)
            wins += legal
        assert waits(tuple(c), (), max_suits, que) == bits_kinds(bits)
    assert wins > 100  # the sample reaches many waits, not only hands far from one
    for tiles in _hands(rng, 300, 10):
        c = list(counts_of(tiles))
        peng = next(t for t in range(27) if t // 9 != que and c[t] == 0)
        melds = (Meld(MeldKind.PENG, peng, 1),)
        bits = wait_bits(suit_keys(c), odd_bits(c), False, melds, max_suits, que)
        for x in range(27):
            with_x = c[:]
            with_x[x] += 1
            legal = with_x[x] <= 4 and is_legal_win(with_x, melds, max_suits, que)
            assert bool(bits >> x & 1) == legal, (format_tiles(tiles), x)


def _kept_bits_agree(state: State) -> None:
    """Each seat's kept suit keys, odd kinds and fours are those of its tiles, and its kept 叫
    is :func:`waits` of its 3n+1 tiles (the drawn tile aside on its turn), up to the kinds it
    already holds four of (no fifth tile comes)."""
    for seat in range(3):
        assert state.keys[seat] == list(suit_keys(state.hands[seat]))
        assert state.odd[seat] == odd_bits(state.hands[seat])
        assert state.fours[seat] == four_bits(state.hands[seat])
        hand = list(state.hands[seat])
        own = state.phase in (SELF, DINGQUE) and seat == state.turn
        if own and state.drawn is None:
            continue  # after a 碰: 3n+2 tiles and no 叫 until the discard
        if own:
            assert state.drawn is not None
            hand[state.drawn] -= 1
        melds = state.melds[seat]
        rules = state.rules
        want = set(waits(tuple(hand), melds, rules.max_suits, state.que[seat]))
        kept = set(bits_kinds(state.jiao[seat]))
        full = {m.tile for m in melds if hand[m.tile] + m.size >= 4}
        assert kept - full == want, (seat, state)


@pytest.mark.parametrize("preset", ["sandingguai", "baike-3p", "dingque"])
def test_kept_bits_follow_random_play(preset: str) -> None:
    rules = get_rules(dingque=True) if preset == "dingque" else get_rules(preset)
    rng = random.Random(5)
    for seed in range(40):
        state = State(rules, seed, seed % 3)
        _kept_bits_agree(state)
        while not state.is_terminal():
            legal = state.legal_actions()
            claims = [a for a in legal if a >= 54]  # 胡, kongs, 碰 and 定缺 before a discard
            state.apply(rng.choice(claims if claims and rng.random() < 0.5 else legal))
            if not state.is_terminal():
                _kept_bits_agree(state)
                if rng.random() < 0.1:  # a world dealt again keeps its 叫 in step too
                    _kept_bits_agree(state.resample(rng.randrange(3), rng))


def _keeper(state: State, rng: random.Random, hu: float = 0.5) -> int:
    """A policy that reaches 叫 and keeps it: a 叫 seat 自摸s with chance ``hu``, else
    discards the tile it drew (摸打); otherwise random, claiming half the time."""
    legal = state.legal_actions()
    seat = state.current_player()
    if state.phase == SELF and state.drawn is not None and state.jiao[seat]:
        if HU in legal and rng.random() < hu:
            return HU
        if state.drawn + DISCARD in legal:
            return state.drawn + DISCARD
    claims = [a for a in legal if a >= HU]
    return rng.choice(claims if claims and rng.random() < 0.5 else legal)


def _near_win_deck(rng: random.Random, dealer: int) -> list[int]:
    """A deck that deals each seat tiles one or two tiles from a win shape (the dealer's 14:
    a win shape with one tile changed), so 报听, 叫 and 查叫 come often."""
    while True:
        hands: list[list[int]] = []
        for seat in range(3):
            tiles = _winning(rng, 4)
            if tiles is None:
                break
            tiles.pop(rng.randrange(len(tiles)))
            if seat == dealer:
                tiles.append(rng.randrange(27))
            hands.append(tiles)
        else:
            try:
                return stack_deck(hands, dealer=dealer)
            except IllegalAction:
                continue  # more than four copies of a kind over the three hands


@pytest.mark.parametrize("preset", ["sandingguai", "baike-3p", "dingque", "dealt_hand"])
def test_kept_jiao_is_a_full_remake_through_play(preset: str) -> None:
    """The kept 叫 of every seat is what ``hands.wait_bits`` makes from its tiles at every
    step (the engine skips the remake on 摸打 and where no two suits split, SDG §6.1), its
    kept held kinds are those of its tiles, and the 报听 discards are those whose 13 tiles are
    叫, every held kind asked (SDG §4.6)."""
    if preset == "dingque":
        rules = get_rules(dingque=True)
    elif preset == "dealt_hand":
        rules = get_rules(baoting_window="dealt_hand")
    else:
        rules = get_rules(preset)
    rng = random.Random(11)
    tings = 0
    for k in range(60):
        dealer = k % 3
        deck = _near_win_deck(rng, dealer) if k % 2 else None
        state = State(rules, k, dealer, deck=deck)
        while not state.is_terminal():
            for seat in range(3):
                assert state.held[seat] == [t for t in range(27) if state.hands[seat][t]]
                own = state.phase in (SELF, DINGQUE) and seat == state.turn
                if not (own and state.drawn is None):  # after a 碰: no 叫 until the discard
                    assert state.jiao[seat] == state._wait_bits(seat), (seat, state)
            if state.phase == SELF:
                p = state.turn
                legal = state.legal_actions()
                ting = [a - TING for a in legal if TING <= a < HU]
                if not state.baoting[p] and not state.after_claim and state._may_baoting(p):
                    held = [t for t in range(27) if state.hands[p][t]]
                    assert ting == [t for t in held if state._ting_ok(p, t)], state
                    tings += bool(ting)
            state.apply(_keeper(state, rng))
    assert tings > 5  # the 报听 check met hands that may declare it


@pytest.mark.parametrize("preset", ["sandingguai", "dingque", "baike-3p"])
def test_settlement_from_kept_jiao_is_that_of_the_table(preset: str) -> None:
    """A hand's settlement, made with the 叫 the engine keeps (``settle(..., known_jiao)``),
    is the one made from its table alone (SDG §9.3 查叫, §7.6): 荒庄 with 叫 seats, and wins."""
    rules = get_rules(dingque=True) if preset == "dingque" else get_rules(preset)
    rng = random.Random(7)
    jiao_ends = wins = 0
    for k in range(80):
        dealer = k % 3
        state = State(rules, k, dealer, deck=_near_win_deck(rng, dealer) if k % 4 else None)
        while not state.is_terminal():
            state.apply(_keeper(state, rng, hu=0.05))
        assert state.result is not None
        table = state.result.table
        assert state.result.settlement == settle(table, rules)
        winners = {w.seat for w in table.winners}
        for i, s in enumerate(table.seats):
            if i not in winners:  # a winner's kept bits are not of its 13 tiles: 叫 anyway
                assert state._is_jiao()[i] == is_jiao(s, rules), (i, table)
        wins += bool(winners)
        jiao_ends += table.huang and any(state._is_jiao())
    assert wins > 5 and jiao_ends > 5


def test_kept_legal_actions_belong_to_their_state() -> None:
    """The legal actions a turn keeps (``State.legal_actions``; most turns the seat's held
    kinds themselves) follow the state they were made for: a copy made while they are kept
    offers and takes the same actions after the original has played on, and a caller's list
    changes neither (SDG §3 SELF, §4.1)."""
    rng = random.Random(3)
    rules = get_rules()
    checked = 0
    for seed in range(30):
        state = State(rules, seed, seed % 3)
        while not state.is_terminal():
            seat = state.current_player()
            legal = state.legal_actions(seat)
            if state.phase == SELF:
                held = list(state.held[seat])
                copy = state.clone()
                action = rng.choice(legal)
                legal.clear()  # the caller's list is its own
                assert state.legal_actions(seat) == copy.legal_actions(seat)
                state.apply(action, seat)
                # the original played on: the copy still offers what it offered, its held
                # kinds are the ones it had, and an action outside them is refused
                assert copy.held[seat] == held
                assert copy.legal_actions(seat) == copy.clone().legal_actions(seat)
                assert set(held) <= set(copy.legal_actions(seat))
                with pytest.raises(IllegalAction):
                    copy.apply(DISCARD + next(t for t in range(27) if t not in held), seat)
                copy.apply(action, seat)
                assert copy.events == state.events and copy.hands == state.hands
                checked += 1
            else:
                state.apply(rng.choice(legal), seat)
    assert checked > 500
