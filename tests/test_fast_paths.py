"""The engine's rule predicates and fast paths agree with the rules stated plainly here.

The predicates (``discardable``, ``may_peng``, ``chi_runs``: RULES §4.5, §4.6, §5.2, §5.3), the
claim window built from them, the quick split test before a win is scored and the seeded shuffle
are written for speed; these tests hold each equal to a plain statement of the same rule, and
every refusal to a reason ``verify`` gives, over many random positions of every preset.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from weimaque.errors import IllegalAction
from weimaque.games.maque.analysis.decompose import can_split, splits, winning_faces
from weimaque.games.maque.cards import NUM_FACES, sorted_deck
from weimaque.games.maque.game.actions import PASS_ID, RUN_STARTS, Action
from weimaque.games.maque.game.events import Chied, Discarded, Drew, Penged, Released, Weied
from weimaque.games.maque.game.state import (
    GameState,
    TableMeld,
    deal_order,
    discardable,
    may_discard,
    may_discard_any,
    win_check,
)
from weimaque.games.maque.rules import PRESET_IDS


def test_deal_order_is_random_shuffle_of_the_sorted_deck() -> None:
    for seed in [*range(300), -1, -(2**40), 2**63 - 1, 10**18 + 7, 2**200 + 3]:
        deck = sorted_deck()
        random.Random(seed).shuffle(deck)
        assert deal_order(seed) == deck, seed


def _slow_options(state: GameState, seat: int) -> list[Action]:
    """A seat's options from the rules as RULES states them (胡 from the window's scored wins,
    which the win test below covers); each option refused has its reason."""
    hand = state.hands[seat]
    if state.phase == "discard":
        out = []
        for f in range(NUM_FACES):
            # §5.2: held, a 砍 of three stays, nothing once 碰'd or 吃'd
            if hand[f] in (1, 2, 4) and f not in state.no_discard[seat]:
                out.append(Action.discard(f))
                assert state._discard_reason(seat, f) is None
            else:
                assert state._discard_reason(seat, f) is not None
        return out
    w = state.window
    assert w is not None
    if w.origin in ("deal", "wei"):
        return list(w.options.get(seat, []))
    card = w.card
    opts = [Action("hu")] if seat in w.wins else []
    claimable = w.origin in ("draw", "discard") and seat != w.from_seat
    # §4.5 two in hand, §5.3 碰-过张
    if claimable and hand[card] >= 2 and card not in state.peng_guo[seat]:
        opts.append(Action("peng"))
        assert state._peng_reason(seat, card) is None
    elif claimable:
        assert state._peng_reason(seat, card) is not None
    chi_seat = w.from_seat if w.origin == "draw" else (w.from_seat + 1) % 3
    if seat == chi_seat:
        for s in RUN_STARTS:
            if not s <= card <= s + 2:
                continue
            others_held = all(hand[g] for g in (s, s + 1, s + 2) if g != card)
            # §4.6(1) not a card it threw, §5.3 吃-过张 of the 上家's, §4.6(3) the holder rule
            barred = card in state.thrown[seat] or card in state.thrown[(seat - 1) % 3]
            held_two = state.rules.holder_may_not_chi and hand[card] >= 2
            if others_held and not barred and not held_two:
                opts.append(Action.chi(s))
                assert state._chi_reason(seat, card, s) is None
            else:
                assert state._chi_reason(seat, card, s) is not None
    return [*opts, Action.from_id(PASS_ID)] if opts else []


def _check_position(state: GameState) -> None:
    for seat in state.to_act():
        assert state.legal_actions(seat) == _slow_options(state, seat)
    if state.phase == "claim":  # seats with no option, or that answered already, too
        w = state.window
        assert w is not None
        for seat in range(3):
            assert w.options.get(seat, []) == _slow_options(state, seat)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32), st.sampled_from(PRESET_IDS), st.integers(0, 2))
def test_fast_options_equal_the_rule_checks(seed: int, preset: str, dealer: int) -> None:
    state = GameState.new(preset, seed, dealer)
    rng = random.Random(seed)
    while not state.is_terminal():
        _check_position(state)
        seat = state.current_player()
        state.apply(seat, rng.choice(state.legal_actions(seat)))


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**32), st.integers(0, 40), st.integers(0, NUM_FACES - 1))
def test_fast_win_test_equals_win_check(seed: int, steps: int, card: int) -> None:
    """``win_on`` (quick no-run and split tests first) answers exactly as ``win_check``."""
    state = GameState.new("anxiang", seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        seat = state.current_player()
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    for seat in range(3):
        for source in ("self", "other"):
            fast = state.win_on(seat, card, source, False)
            slow = None
            if not state.dead[seat]:
                melds = [m.meld() for m in state.melds[seat]]
                slow = win_check(
                    melds, state.hands[seat], card, source, False, state.rules, state.declined[seat]
                )
            assert fast == slow


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.integers(0, 4), min_size=NUM_FACES, max_size=NUM_FACES))
def test_can_split_is_whether_splits_finds_one(counts: list[int]) -> None:
    key = tuple(counts)
    assert can_split(key) == bool(splits(key))


def test_can_split_on_dealt_hands_with_one_more_card() -> None:
    for seed in range(200):
        state = GameState.new("anxiang", seed)
        for seat in range(3):
            for card in range(NUM_FACES):
                hand = list(state.hands[seat])
                if hand[card] < 4:
                    hand[card] += 1
                    assert can_split(tuple(hand)) == bool(splits(tuple(hand)))


@given(
    st.lists(st.integers(0, 4), min_size=NUM_FACES, max_size=NUM_FACES),
    st.frozensets(st.integers(0, NUM_FACES - 1), max_size=6),
)
@example([3] * 6 + [0] * 14, frozenset())  # only 砍s: 死手 (RULES §4.1)
@example([0] * 17 + [1, 2, 0], frozenset({17, 18}))  # every held face banned
def test_discardable_and_may_discard_state_the_discard_rule(
    counts: list[int], banned: frozenset[int]
) -> None:
    # RULES §5.2, plainly: a held face, not a 砍 of three, not 碰'd or 吃'd by the seat.
    plain = [f for f in range(NUM_FACES) if counts[f] > 0 and counts[f] != 3 and f not in banned]
    assert discardable(counts, banned) == plain
    assert [f for f in range(NUM_FACES) if may_discard(counts, f, banned)] == plain
    assert may_discard_any(counts, banned) == bool(plain)


def test_a_seeded_deal_equals_the_same_cards_dealt_by_hand() -> None:
    """``new`` skips the deal check (a shuffled deck is a whole deal); the checked constructor
    given the same hands and stock starts the very same hand (RULES §2.2)."""
    for seed in range(40):
        a = GameState.new("anxiang", seed, dealer=seed % 3)
        b = GameState("anxiang", [list(h) for h in a.initial_hands], a.stock, seed % 3, seed)
        assert (a.hands, a.stock, a.phase, a.turn, a.events) == (
            b.hands,
            b.stock,
            b.phase,
            b.turn,
            b.events,
        )
        assert a.legal_actions(a.turn) == b.legal_actions(b.turn)


def test_a_deal_that_is_not_the_whole_deck_is_refused_by_name() -> None:
    """Faces that are no card, a fifth of a face or a short hand: refused before any count is
    kept, with the hand sizes quoted (RULES §2.2)."""
    a = GameState.new("anxiang", 7)
    hands = [list(h) for h in a.initial_hands]
    for bad in (
        [[*hands[0][:-1], 25], hands[1], hands[2]],  # no such face
        [[*hands[0][:-1], -1], hands[1], hands[2]],  # a negative index would count face 19
        [hands[0], [*hands[1][:-1], hands[0][0]], hands[2]],  # a fifth of a face
        [hands[0], hands[1][:-1], hands[2]],  # a short hand
        [hands[0], hands[1]],  # two seats
    ):
        with pytest.raises(IllegalAction, match=r"not a valid deal: hand sizes \["):
            GameState("anxiang", bad, a.stock, 0)


def test_the_engine_follows_a_hand_changed_from_outside() -> None:
    """Each seat's winning faces are kept while its hand stays the same, and the discard options
    are read from the hand and bans: a hand or a ban changed in place from outside (a test, a
    search that edits a copy) is read afresh (RULES §4.7, §5.2)."""
    rng = random.Random(3)
    checked = 0
    for seed in range(60):
        state = GameState.new("anxiang", seed, dealer=seed % 3)
        while not state.is_terminal():
            seat = state.current_player()
            if state.phase == "discard" and rng.random() < 0.3:
                hand = state.hands[seat]
                other = (seat + 1) % 3
                give = next(f for f in range(NUM_FACES) if hand[f])
                take = next(f for f in range(NUM_FACES) if state.hands[other][f])
                # swap one card with the next seat, in place
                hand[give] -= 1
                hand[take] += 1
                state.hands[other][take] -= 1
                state.hands[other][give] += 1
                banned = state.no_discard[seat]
                expect = [Action.discard(f) for f in discardable(hand, banned)]
                assert state.legal_actions(seat) == expect
                # a ban added from outside, on a face the hand may still 出
                extra = expect[0].face
                assert extra is not None
                banned.add(extra)
                assert state.legal_actions(seat) == expect[1:]
                banned.discard(extra)
                for s in (seat, other):
                    assert state._waits(s) == winning_faces(tuple(state.hands[s]))
                checked += 1
            state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert checked > 100


@pytest.mark.parametrize("preset", PRESET_IDS)
def test_the_shared_melds_and_events_are_the_ones_the_play_describes(preset: str) -> None:
    """Each 碰, 吃 and 偎 puts on the table, and in the events, one of the melds and events made
    once at import. Followed here from the events alone: a 碰 or 吃 takes the card last put on
    offer (出, released, or drawn face up) from the seat that offered it, a 吃 makes the run its
    seat answered, a 偎 follows the draw of its card, face down unless 明偎 (RULES §4.3-§4.6);
    the melds so built are the table's, in order."""
    rng = random.Random(7)
    seen: set[str] = set()
    for seed in range(150):
        state = GameState.new(preset, seed, dealer=seed % 3)
        face_up = state.rules.wei_face_up
        expected: list[list[TableMeld]] = [[], [], []]
        offer: tuple[int, int] | None = None  # (seat, card) of the card last put on offer
        previous: object = None
        chi_answer: dict[int, int] = {}
        while not state.is_terminal():
            seat = state.current_player()
            action = rng.choice(state.legal_actions(seat))
            if action.kind == "chi":
                assert action.face is not None
                chi_answer[seat] = action.face
            for e in state.apply(seat, action):
                if isinstance(e, (Discarded, Released)) or (
                    isinstance(e, Drew) and not e.face_down
                ):
                    offer = (e.seat, e.card)
                elif isinstance(e, Weied):
                    assert isinstance(previous, Drew)
                    assert (previous.seat, previous.card) == (e.seat, e.card)
                    assert previous.face_down == (not face_up) and e.face_up == face_up
                    c = e.card
                    expected[e.seat].append(TableMeld("wei", (c, c, c), c, e.seat, not face_up))
                elif isinstance(e, Penged):
                    assert offer == (e.from_seat, e.card)
                    c = e.card
                    expected[e.seat].append(TableMeld("peng", (c, c, c), c, e.from_seat))
                elif isinstance(e, Chied):
                    assert offer == (e.from_seat, e.card)
                    r = chi_answer[e.seat]
                    assert e.run == r
                    run = (r, r + 1, r + 2)
                    expected[e.seat].append(TableMeld("chi", run, e.card, e.from_seat))
                previous = e
        assert state.melds == expected, seed
        seen.update(m.kind for row in state.melds for m in row)
    assert seen == {"wei", "peng", "chi"}, seen


def test_a_position_holds_no_more_stock_than_a_deal_leaves() -> None:
    """A position's stock is at most the 22 cards a deal leaves (RULES §2.2): the engine's
    shared draw events are made for those."""
    state = GameState.new("anxiang", 3)
    parts = {
        "dealer": 0,
        "hands": [list(h) for h in state.hands],
        "melds": [[], [], []],
        "rows": [[], [], []],
        "thrown": [set(), set(), set()],
        "no_discard": [set(), set(), set()],
        "peng_guo": [set(), set(), set()],
        "dead": [False] * 3,
        "skipped": [0] * 3,
        "declined": [False] * 3,
        "scores": [0] * 3,
        "turn": 0,
    }
    GameState.position(state.rules, stock=list(state.stock), **parts)  # type: ignore[arg-type]
    with pytest.raises(IllegalAction, match="a stock of 23 cards"):
        GameState.position(state.rules, stock=[*state.stock, 0], **parts)  # type: ignore[arg-type]
