"""What each seat's view holds beyond the cards: 吃 claimed cards, bans, 海底, who is asked first.

Scripted hands check each kind of ban (RULES §5.2, §5.3) as the seat itself and as the others see
it; seeded random hands check that the others' bans in any view follow from public events alone.
"""

from __future__ import annotations

import json
import random
from typing import Any

import numpy as np
import pytest

from tests.test_engine_rules import (
    HAIDI_STOCK,
    WAIT_0,
    WAIT_1,
    WAIT_2,
    act,
    deal,
    face,
    options,
    pass_and_discard,
    script,
)
from weimaque.games.maque.cards import NUM_FACES, faces_str
from weimaque.games.maque.game.events import Won
from weimaque.games.maque.game.observation import OBS_SIZE, observation, observation_array, view_of
from weimaque.games.maque.game.record import hand_record, replay
from weimaque.games.maque.game.state import GameState
from weimaque.games.maque.notation import parse_cards

BANS_AT = OBS_SIZE - 7 * NUM_FACES  # ban_discard × 3, ban_chi × 3, ban_peng (observation.py)


def claim_and_peng() -> GameState:
    """Seat 0 出一: seat 2 passes its 碰 of 一, seat 1 吃s it; seat 1 出九, seat 2 碰s it.

    Seat 1 also holds the 砍 五五五; seat 2 keeps 一一 after declining the 碰.
    """
    state = deal(["一九", "二三五五五九", "一一九九"])
    act(state, 0, "出一")
    assert options(state) == {1: ["吃一二三", "过"], 2: ["碰", "过"]}
    script(state, [(2, "过"), (1, "吃一二三")])
    act(state, 1, "出九")
    assert options(state) == {2: ["碰", "过"]}
    act(state, 2, "碰")
    assert state.phase == "discard" and state.turn == 2
    return state


def cards(text: str | None) -> list[int]:
    """Faces of a card string that may be empty."""
    return parse_cards(text) if text else []


def chi_bans(state: GameState, seat: int, thrown: str) -> str:
    """The faces thrown by the seat or its 上家 plus, under holder_may_not_chi, every face the
    seat holds twice or more (RULES §4.6(3), §5.3)."""
    held = {f for f in range(NUM_FACES) if state.hands[seat][f] >= 2}
    return faces_str(sorted(set(parse_cards(thrown)) | held))


def test_chi_meld_shows_the_claimed_card_to_everyone() -> None:
    # RULES §4.6, §5.2: the claimed card of a 吃 is public; it decides the 吃-er's 出 bans.
    state = claim_and_peng()
    for viewer in (0, 1, 2, "public", "shouxing"):
        (chi,) = observation(state, viewer)["melds"][1]
        assert chi == {"kind": "chi", "cards": "一二三", "face_down": False, "claimed": "一"}
        (peng,) = observation(state, viewer)["melds"][2]
        assert "claimed" not in peng


def test_bans_own_and_public() -> None:
    state = claim_and_peng()
    # Seat 1: 出 bans 一 (吃-claimed, public) and 五 (a 砍, private); 吃 bans 一 (its 上家 seat 0
    # discarded it) and 九 (it discarded 九 itself).
    own1 = observation(state, 1)["bans"][1]
    assert own1 == {"discard": "一五", "chi": chi_bans(state, 1, "一九"), "peng": ""}
    for viewer in (0, 2, "public"):
        assert observation(state, viewer)["bans"][1] == {
            "discard": "一",
            "chi": "一九",
            "peng": None,
        }
    # Seat 2: declined the 碰 of 一 (碰-过张, private), 碰'd 九 (public 出 ban), holds 一一 (吃 ban
    # under holder_may_not_chi, private), its 上家 seat 1 discarded 九 (public 吃 ban).
    kans = faces_str(f for f in range(NUM_FACES) if state.hands[2][f] == 3)
    own2 = {
        "discard": faces_str(sorted([face("九"), *parse_cards(kans)])),
        "chi": chi_bans(state, 2, "一九"),
        "peng": "一",
    }
    assert "一" in own2["chi"] and observation(state, 2)["bans"][2] == own2
    for viewer in (0, 1, "public"):
        assert observation(state, viewer)["bans"][2] == {"discard": "九", "chi": "九", "peng": None}
    # Seat 0 discarded 一: its own 吃 ban; its 上家 (seat 2) has discarded nothing.
    assert observation(state, 0)["bans"][0]["chi"] == chi_bans(state, 0, "一")
    assert observation(state, 1)["bans"][0] == {"discard": "", "chi": "一", "peng": None}
    # The 守醒 sees every seat's complete bans (RULES §2.1).
    assert observation(state, "shouxing")["bans"][1] == own1


def test_bans_in_the_flat_array() -> None:
    state = claim_and_peng()
    arr = observation_array(state, 0)
    assert arr.shape == (OBS_SIZE,)

    def block(kind: int, rel: int) -> str:
        start = BANS_AT + (3 * kind + rel) * NUM_FACES
        return faces_str(np.flatnonzero(arr[start : start + NUM_FACES]).tolist())

    # viewer seat 0: relative 1 = seat 1 (下家), relative 2 = seat 2 (上家)
    assert (block(0, 1), block(1, 1)) == ("一", "一九")  # seat 1, public part only
    assert (block(0, 2), block(1, 2)) == ("九", "九")
    assert block(1, 0) == chi_bans(state, 0, "一")
    own2 = observation_array(state, 2)
    peng = own2[BANS_AT + 6 * NUM_FACES :]
    assert faces_str(np.flatnonzero(peng).tolist()) == "一"
    assert observation(state, 2)["bans"][2]["discard"] == faces_str(
        np.flatnonzero(own2[BANS_AT : BANS_AT + NUM_FACES]).tolist()
    )


def test_bans_agree_with_the_engine_checks() -> None:
    # Every face a seat may not 出 is one listed in its own bans, and vice versa (RULES §5.2).
    rng = random.Random(3)
    for seed in range(6):
        state = GameState.new("anxiang", seed)
        while not state.is_terminal():
            seat = state.current_player()
            if state.phase == "discard":
                listed = set(cards(observation(state, seat)["bans"][seat]["discard"]))
                held = [f for f in range(NUM_FACES) if state.hands[seat][f]]
                refused = {f for f in held if state._discard_reason(seat, f) is not None}
                assert refused == {f for f in held if f in listed}
            state.apply(seat, rng.choice(state.legal_actions(seat)))


def haidi_hand(rules: str) -> GameState:
    state = deal(["五五五", "", WAIT_2], HAIDI_STOCK, stock_end="五", rules=rules)
    pass_and_discard(state, until=lambda s: s.stock_left == 0)
    assert options(state) == {0: ["碰", "过"], 2: ["胡", "过"]}
    script(state, [(0, "过"), (2, "胡")])
    return state


@pytest.mark.parametrize(("rules", "scored"), [("anxiang", True), ("anxiang-old", False)])
def test_haidi_is_recorded_whether_or_not_the_preset_scores_it(rules: str, scored: bool) -> None:
    # RULES §3.1.7: a 胡 on the card whose draw emptied the stock is 海底.
    state = haidi_hand(rules)
    r = state.result
    assert r is not None and r.breakdown is not None and r.haidi
    assert ("haidi" in {p.key for p in r.breakdown.patterns}) == scored
    won = state.events[-1]
    assert isinstance(won, Won) and won.view(0)["haidi"] is True
    for viewer in (0, 1, 2, "public"):
        assert observation(state, viewer)["result"]["haidi"] is True
    record = hand_record(state)
    assert record["result"]["haidi"] is True
    assert replay(json.loads(json.dumps(record))).result == r


def test_an_ordinary_win_is_not_haidi() -> None:
    state = deal([WAIT_0, WAIT_1, WAIT_2], "五")
    script(state, [(0, "出十"), (1, "过"), (2, "过"), (0, "胡")])
    r = state.result
    assert r is not None and r.winner == 0 and not r.haidi
    assert observation(state, 1)["result"]["haidi"] is False
    assert hand_record(state)["result"]["haidi"] is False


def test_records_carry_melds_with_claimed_cards_and_old_records_still_replay() -> None:
    state = claim_and_peng()
    pass_and_discard(state)
    record = json.loads(json.dumps(hand_record(state)))
    chi = record["result"]["melds"][1][0]
    assert (chi["kind"], chi["cards"], chi["claimed"]) == ("chi", "一二三", "一")
    replay(record)
    old = json.loads(json.dumps(record))
    del old["result"]["melds"], old["result"]["haidi"]  # a record written before these fields
    assert replay(old).result == state.result


def test_current_player_asks_in_rules_order() -> None:
    # RULES §3, §4.7: in a window on a drawn card the drawer is asked first, then his 下家, then
    # his 上家, whatever the seat numbers.
    state = deal([WAIT_0, WAIT_1, WAIT_2], "五")
    act(state, 0, "出十")
    assert state.to_act() == (0, 1, 2)
    order = []
    for _ in range(3):
        seat = state.current_player()
        order.append(seat)
        act(state, seat, "过")
    assert order == [1, 2, 0]  # seat 1 drew 五; its 下家 is seat 2, its 上家 seat 0


def _public_bans(history: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Others' bans as any seat can rebuild them from the events it saw (RULES §5.2, §5.3)."""
    no_discard: list[set[int]] = [set(), set(), set()]
    thrown: list[set[int]] = [set(), set(), set()]
    pending: tuple[int, int] | None = None
    for ev in history:
        if pending is not None and ev["type"] != "declined_hu":
            thrown[pending[0]].add(pending[1])  # the card's window has closed
            pending = None
        if ev["type"] in ("discard", "release"):
            pending = (ev["seat"], face(ev["card"]))
        elif ev["type"] in ("peng", "chi"):
            no_discard[ev["seat"]].add(face(ev["card"]))
    out = []
    for s in range(3):
        chi = thrown[s] | thrown[(s - 1) % 3]
        out.append({"discard": no_discard[s], "chi": chi})
    return out


@pytest.mark.parametrize("rules", ["anxiang", "xiaozhuo"])
def test_views_hold_only_public_bans_of_others_over_random_hands(rules: str) -> None:
    rng = random.Random(11)
    checked = 0
    for seed in range(40):
        state = GameState.new(rules, seed, dealer=seed % 3)
        while not state.is_terminal():
            for viewer in (0, 1, 2, "public"):
                obs = observation(state, viewer)
                history = [v for e in state.events if (v := e.view(viewer)) is not None]
                derived = _public_bans(history)
                for s in range(3):
                    if viewer == s:
                        continue
                    bans = obs["bans"][s]
                    assert bans["peng"] is None
                    assert set(cards(bans["discard"])) == derived[s]["discard"]
                    # the open window's card is not yet a 吃 ban (it enters when the window closes)
                    got_chi = set(cards(bans["chi"]))
                    assert got_chi <= derived[s]["chi"]
                    assert derived[s]["chi"] - got_chi <= (
                        {face(obs["claim"]["card"])}
                        if obs["claim"] and obs["claim"]["card"]
                        else set()
                    )
                    checked += 1
            seat = state.current_player()
            state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert checked > 10_000


def test_a_discard_as_its_seat_is_shown_it_while_others_decide() -> None:
    """The answered view of a 出 (RULES §3.1.5, docs/protocol.md §2.3): over seeded random hands,
    the card leaves the seat's hand and lies in the middle with no decision; where a window opens
    on it the seat is not settled (and is shown this view meanwhile), and its hand is the one the
    engine holds."""
    from weimaque.games.maque.game.observation import answered_view, settled, view_of
    from weimaque.games.maque.game.state import GameState

    rng = random.Random(5)
    checked = held = 0
    for seed in range(30):
        state = GameState.new("anxiang", seed=seed)
        while state.result is None:
            seat = state.to_act()[0] if state.to_act() else 0
            legal = state.legal_actions(seat)
            action = rng.choice(legal)
            if action.kind == "discard":
                before = view_of(state, seat)
                shown = answered_view(before, action)
                assert action.face is not None and shown.claim is not None
                assert shown.claim.card == action.face and shown.claim.from_seat == seat
                assert shown.phase == "claim" and not shown.to_act and shown.legal_actions == ()
                assert len(shown.hand or ()) == len(before.hand or ()) - 1
                assert shown.hand_sizes[seat] == before.hand_sizes[seat] - 1
                # Nothing but the seat's own knowledge: the other seats' parts are unchanged.
                assert shown.melds == before.melds and shown.rows == before.rows
                state.apply(seat, action)
                w = state.window
                if w is not None and w.origin == "discard" and w.from_seat == seat:
                    # A window on the card itself: the seat waits, nothing else has moved.
                    assert not settled(state, seat)
                    assert view_of(state, seat).hand == shown.hand and w.card == action.face
                    held += 1
                checked += 1
                continue
            # A non-出 answer only takes the decision away.
            other = answered_view(view_of(state, seat), action)
            assert not other.to_act and other.legal_actions == ()
            state.apply(seat, action)
    assert checked > 200 and held > 0, (checked, held)


def _play_until(seed: int, steps: int) -> GameState:
    """A random hand of anxiang (the moves of ``random.Random(seed)``), ``steps`` moves in."""
    state = GameState.new("anxiang", seed, dealer=0)
    rng = random.Random(seed)
    for _ in range(steps):
        seat = state.current_player()
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    return state


def test_a_wei_window_counts_the_weid_card_once() -> None:
    # Seat 2 偎s 二 (RULES §4.3): the card lies in its meld, and the window is open on it.
    state = _play_until(427, 32)
    obs = view_of(state, 2)
    assert obs.claim is not None and obs.claim.origin == "wei" and obs.claim.card == 1
    assert obs.seen_counts()[1] == 4


@pytest.mark.parametrize("rules", ["anxiang", "xiaozhuo"])
def test_no_viewer_sees_more_than_four_copies_over_random_hands(rules: str) -> None:
    # RULES §1.1: four copies of each face; a view counts each card it shows once.
    rng = random.Random(5)
    full = 0
    for seed in range(150):
        state = GameState.new(rules, seed, dealer=seed % 3)
        while not state.is_terminal():
            for viewer in (0, 1, 2, "public"):
                obs = view_of(state, viewer)
                seen = obs.seen_counts()
                assert max(seen) <= 4, (rules, seed, viewer, obs.claim)
                full += seen.count(4)
            seat = state.current_player()
            state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert full > 1000  # views that see every copy of a face
