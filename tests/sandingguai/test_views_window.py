"""The claim-window rule of 三丁拐's views (docs/protocol.md §2.3, docs/sandingguai.md §9) and the
spectator's and all-seeing replay's views, built by the engine (SDG §10).

A claim (出) or rob (补杠) window opens only when some seat may 胡, 碰 or 杠 the tile, so a seat
without an option, and a spectator, must never be shown that one opened: it keeps its last
delivery, with its own answers since, until the window resolves.
"""

from __future__ import annotations

import random

import pytest

from tests.sandingguai.test_state import policy
from weimaque.games.protocol import Viewer
from weimaque.games.sandingguai.actions import BUGANG, DISCARD, HU
from weimaque.games.sandingguai.game import GAME, SdgHand, SdgView
from weimaque.games.sandingguai.notation import Meld, MeldKind
from weimaque.games.sandingguai.observation import TableView, View, observe_table
from weimaque.games.sandingguai.state import CLAIMS, ROB, SELF, State

VIEWERS: tuple[Viewer, ...] = (0, 1, 2, "public")
WINDOW_PHASES = ("claims", "rob")


def choose(state: State, rng: random.Random) -> tuple[int, int]:
    """The seat to act and its action: the test policy on a turn, any option in a window (so
    that windows close with a pass, a 碰 or a 胡)."""
    seat = state.current_player()
    if state.phase in (CLAIMS, ROB):
        return seat, rng.choice(state.legal_actions(seat))
    return seat, policy(state, rng)


def window_marker(view: SdgView) -> bool:
    """Whether the view shows a claim or rob window."""
    return view.view.phase in WINDOW_PHASES or view.view.claim_tile is not None


def play(seed: int, options: dict[str, object], stats: dict[str, int]) -> None:
    """One hand, every viewer delivered as the rule says, checked at every step."""
    rng = random.Random(seed)
    hand = GAME.new_hand("sandingguai", options, seed=seed)
    assert isinstance(hand, SdgHand)
    state = hand.state
    shown: dict[Viewer, SdgView] = {
        v: hand.view(v) if hand.settled(v) else hand.opening_view(v) for v in VIEWERS
    }
    while not hand.is_terminal():
        window = state.phase in (CLAIMS, ROB)
        for v in VIEWERS:
            has_option = isinstance(v, int) and v in state.options
            assert hand.settled(v) == (not window or has_option)
            if hand.settled(v):
                continue
            stats["waiting"] += 1
            # Not settled: the view holds no window unless it is the viewer's own tile, which
            # it knows lies open to claims whether or not anyone may claim it.
            if window_marker(shown[v]):
                assert isinstance(v, int) and shown[v].view.turn == v == state.claim_from
                stats["own_tile"] += 1
        assert hand.settled("all")
        seat, action = choose(state, rng)
        opener = state.phase == SELF and (action < HU or BUGANG <= action < BUGANG + 27)
        hand.apply(seat, action)
        answered = GAME.answered(shown[seat], action)
        assert isinstance(answered, SdgView)
        if opener and state.phase in (CLAIMS, ROB):
            # The discarder's (补杠 seat's) own answer is exactly its view of the open window.
            assert answered == hand.view(seat)
            assert not hand.settled(seat)
            stats["opened"] += 1
        shown[seat] = answered
        for v in VIEWERS:
            if hand.settled(v):
                shown[v] = hand.view(v)
    for v in VIEWERS:
        assert hand.settled(v) and hand.view(v).view.end is not None


@pytest.mark.parametrize(
    ("seeds", "options"),
    [(range(0, 24), {}), (range(100, 112), {"dingque": True}), (range(200, 212), {"tiles": 72})],
)
def test_a_seat_without_an_option_is_not_shown_the_window(
    seeds: range, options: dict[str, object]
) -> None:
    stats = {"waiting": 0, "own_tile": 0, "opened": 0}
    for seed in seeds:
        play(seed, options, stats)
    assert stats["opened"] > 5 and stats["waiting"] > 10 and stats["own_tile"] > 5


def test_answered_discard_leaves_the_hand_for_the_row() -> None:
    hand = GAME.new_hand("sandingguai", {}, seed=3)
    assert isinstance(hand, SdgHand)
    seat = hand.state.turn
    before = hand.view(seat)
    assert isinstance(before.view, View)
    tile = next(t for t, n in enumerate(before.view.hand) if n)
    answered = GAME.answered(before, DISCARD + tile)
    assert isinstance(answered, SdgView)
    after = answered.view
    assert isinstance(after, View)
    assert after.hand[tile] == before.view.hand[tile] - 1
    assert after.seats[seat].discards[-1] == (tile, False)
    assert after.seats[seat].concealed == before.view.seats[seat].concealed - 1
    assert (after.phase, after.turn, after.claim_tile) == ("claims", seat, tile)
    assert not after.to_act and after.legal == () and after.drawn is None
    public = hand.view("public")
    assert GAME.answered(public, DISCARD + tile) == public


def relabel_angang(state: State, rng: random.Random) -> State | None:
    """A copy in which the kind of one face-down 暗杠 is swapped, in every place hidden from a
    spectator (hands, the wall, the 暗杠, the drawn tile), with a kind of which no tile shows:
    a position a spectator cannot tell apart. None when there is none to swap."""
    shown = [0] * 27
    for s in range(3):
        for t, _ in zip(state.discards[s], state.taken[s], strict=True):
            shown[t] += 1
        for m in state.melds[s]:
            if m.kind is not MeldKind.ANGANG:
                shown[m.tile] += 1
    kongs = [
        (s, i) for s in range(3) for i, m in enumerate(state.melds[s]) if m.kind is MeldKind.ANGANG
    ]
    if not kongs:
        return None
    s, i = rng.choice(kongs)
    k = state.melds[s][i].tile
    free = [j for j in range(27) if j != k and not shown[j]]
    free = [j for j in free if all(m.tile != j for q in range(3) for m in state.melds[q])]
    if not free:
        return None
    j = rng.choice(free)

    def swap(t: int) -> int:
        return j if t == k else k if t == j else t

    other = state.clone()
    for q in range(3):
        other.hands[q] = [other.hands[q][swap(t)] for t in range(27)]
        other.melds[q] = [Meld(m.kind, swap(m.tile), m.source) for m in other.melds[q]]
    other.wall = [swap(t) for t in other.wall]
    if other.drawn is not None:
        other.drawn = swap(other.drawn)
    assert other.melds[s][i].tile == j
    return other


@pytest.mark.parametrize(("seed", "options"), [(1, {}), (2, {"dingque": True}), (3, {})])
def test_the_spectator_view_does_not_depend_on_hidden_tiles(
    seed: int, options: dict[str, object]
) -> None:
    rng = random.Random(seed)
    relabelled = 0
    for k in range(40):
        hand = GAME.new_hand("sandingguai", options, seed=100 * seed + k)
        assert isinstance(hand, SdgHand)
        state = hand.state
        while not state.is_terminal():
            public = hand.view("public")
            doc = public.to_json()
            assert isinstance(doc, dict) and doc["viewer"] == "public"
            assert not {"hand", "hands", "drawn", "locks", "legal", "to_act"} & set(doc)
            for s in range(3):
                assert observe_table(state.resample(s, rng), "public") == public.view
            other = relabel_angang(state, rng)
            if other is not None:
                assert observe_table(other, "public") == public.view
                relabelled += 1
            seat, action = choose(state, rng)
            state.apply(action, seat)
    assert relabelled > 10


def test_the_all_seeing_view_shows_every_hand_and_kong() -> None:
    rng = random.Random(5)
    seen_angang = 0
    for seed in range(30):
        hand = GAME.new_hand("sandingguai", {}, seed=seed)
        assert isinstance(hand, SdgHand)
        state = hand.state
        while not state.is_terminal():
            view = hand.view("all").view
            assert isinstance(view, TableView) and view.hands is not None
            assert [list(h) for h in view.hands] == state.hands
            assert view.drawn == (state.drawn if state.phase == SELF else None)
            for s in range(3):
                tiles = [m.tile for m in view.seats[s].melds]
                assert tiles == [m.tile for m in state.melds[s]]
                seen_angang += sum(m.kind is MeldKind.ANGANG for m in state.melds[s])
            seat, action = choose(state, rng)
            state.apply(action, seat)
    assert seen_angang > 0
