"""One scripted hand per turn-flow rule (RULES §2-§5, §8.1), each from a constructed deal.

Every test builds its deal with ``deal``: the hands that matter are written in card notation, the
stock prefix (draw order) likewise, and the rest of the 80 cards is filled in so that every face has
four copies and the sizes are 20/19/19 + 22 stock. Each test then scripts the actions and checks
the exact outcome: events, melds, options, result. The last tests play seeded random hands and check
that ``legal_actions`` agrees with ``can``/``verify`` and that no seat's view leaks hidden cards.
The last tests pin engine bugs found while writing this suite, now fixed.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable
from typing import Any

import pytest

from weimaque.errors import IllegalAction
from weimaque.games.maque.cards import NUM_FACES, faces_str
from weimaque.games.maque.game.actions import NUM_ACTIONS, Action
from weimaque.games.maque.game.events import (
    Chied,
    Chou,
    DeadHand,
    Dealt,
    DeclinedHu,
    Discarded,
    Drew,
    Event,
    Penged,
    Released,
    Weied,
    Won,
)
from weimaque.games.maque.game.observation import observation, observation_array
from weimaque.games.maque.game.state import GameState, TableMeld
from weimaque.games.maque.notation import parse_cards
from weimaque.games.maque.rules import RuleConfig, get_rules
from weimaque.games.maque.scoring.scorer import score_position

HU = Action("hu")
PENG = Action("peng")
PASS = Action("pass")


# ------------------------------------------------------------------------------------- helpers


def face(text: str) -> int:
    """The face of one card in notation."""
    (f,) = parse_cards(text)
    return f


def deal(
    hands: list[str],
    stock: str = "",
    *,
    stock_end: str = "",
    dealer: int = 0,
    rules: RuleConfig | str = "anxiang",
) -> GameState:
    """A hand from partial hands and the stock's first (and last) cards, the rest filled in.

    Each hand is topped up to 20 (dealer) or 19 cards in whole blocks: all the copies left of a face
    it does not hold and that makes no run with what it holds, where one exists. So filler cards
    seldom give a seat a claim or a 偎 the test did not ask for. What is left lies in the stock,
    sorted, between ``stock`` (drawn first) and ``stock_end`` (drawn last).
    """
    held = [parse_cards(h) if h else [] for h in [*hands, "", "", ""][:3]]
    head = parse_cards(stock) if stock else []
    tail = parse_cards(stock_end) if stock_end else []
    left = [4] * NUM_FACES
    for f in [*head, *tail, *(f for h in held for f in h)]:
        left[f] -= 1
    assert min(left) >= 0, f"more than four of {faces_str(f for f in range(20) if left[f] < 0)}"

    def near(f: int, cards: list[int]) -> bool:
        return any(g // 10 == f // 10 and abs(g - f) <= 2 for g in cards)

    for seat, cards in enumerate(held):
        size = 20 if seat == dealer else 19
        assert len(cards) <= size, f"seat {seat} given {len(cards)} cards"
        while len(cards) < size:
            pick = min(
                (f for f in range(NUM_FACES) if left[f]),
                key=lambda f: (f in cards, near(f, cards), -left[f], f),
            )
            n = min(left[pick], size - len(cards))
            cards.extend([pick] * n)
            left[pick] -= n
    middle = [f for f in range(NUM_FACES) for _ in range(left[f])]
    assert len(head) + len(middle) + len(tail) == 22, "stock is not 22 cards"
    return GameState(rules, held, head + middle + tail, dealer)


def act(state: GameState, seat: int, action: Action | str) -> list[Event]:
    """Apply one action, given as an ``Action`` or in notation (``出三``, ``碰``, ``过`` …)."""
    return state.apply(seat, Action.parse(action) if isinstance(action, str) else action)


def script(state: GameState, steps: list[tuple[int, str]]) -> list[Event]:
    """Apply several actions; return all the events they caused."""
    out: list[Event] = []
    for seat, action in steps:
        out.extend(act(state, seat, action))
    return out


def options(state: GameState) -> dict[int, list[str]]:
    """Every seat that must decide, with its legal actions in notation."""
    return {s: [str(a) for a in state.legal_actions(s)] for s in state.to_act()}


def kinds(events: list[Event]) -> list[tuple[str, int, str | None]]:
    """Events as (kind, seat, card) triples, for compact comparisons."""
    out = []
    for e in events:
        card = getattr(e, "card", None)
        out.append((e.kind, e.seat, None if card is None else faces_str((card,))))
    return out


def hand_of(state: GameState, seat: int) -> str:
    """A seat's concealed hand in notation."""
    return faces_str(state.hand_faces(seat))


def meld_strs(state: GameState, seat: int) -> list[str]:
    """A seat's melds as ``kind:cards``."""
    return [f"{m.kind}:{faces_str(m.faces)}" for m in state.melds[seat]]


def pattern_keys(state: GameState) -> list[str]:
    """The 名堂 keys of the finished hand's breakdown."""
    assert state.result is not None and state.result.breakdown is not None
    return [p.key for p in state.result.breakdown.patterns]


def snapshot(state: GameState) -> dict[str, Any]:
    """Everything an illegal action must leave alone: the state's fields and every view."""
    fields = {k: copy.deepcopy(v) for k, v in vars(state).items() if k != "rules"}
    views = {v: observation(state, v) for v in (0, 1, 2, "public", "all")}
    arrays = [observation_array(state, s).tolist() for s in range(3)]
    legal = [[a.id for a in state.legal_actions(s)] for s in range(3)]
    return {"fields": fields, "views": views, "arrays": arrays, "legal": legal}


def assert_illegal(state: GameState, seat: int, action: Action | str, *needles: str) -> None:
    """``action`` raises IllegalAction naming each needle, and changes nothing."""
    if isinstance(action, str):
        action = Action.parse(action)
    before = snapshot(state)
    n_events = len(state.events)
    assert not state.can(seat, action)
    with pytest.raises(IllegalAction) as info:
        state.apply(seat, action)
    for needle in needles:
        assert needle in str(info.value), (needle, str(info.value))
    assert len(state.events) == n_events
    assert snapshot(state) == before


# Seat 2 waits on 五 (四六 + four 砍 + 捌捌 + 贰贰贰: 16 硬息 with 四五六), seat 1
# likewise (12 硬息), and the dealer, after 出十, wins on 五 with his 五五 as a triple
# (16 硬息). RULES §4.7. TIANHU: the dealer's 20 dealt cards win (xiaozhuo's 天胡).
WAIT_0 = "五五柒柒柒十十十十拾拾拾六七八七八九二二"
WAIT_1 = "四六壹壹壹叁叁叁肆肆肆陆陆陆八八捌玖拾"
WAIT_2 = "四六一一一三三三伍伍伍九九九捌捌贰贰贰"
TIANHU = ["一一一三三三伍伍伍九九九四五六七八九捌捌", "二七十壹", "肆陆柒拾"]


# --------------------------------------------------------------------------- §4.3 偎, §3 DRAW 1


def test_s4_3_forced_wei_on_draw_with_two() -> None:
    state = deal(["十", "五五", WAIT_2], "五")
    events = act(state, 0, "出十")
    assert kinds(events) == [("discard", 0, "十"), ("drew", 1, "五"), ("wei", 1, "五")]
    drew, weied = events[1], events[2]
    assert isinstance(drew, Drew) and drew.face_down
    assert isinstance(weied, Weied) and not weied.face_up
    assert state.melds[1] == [TableMeld("wei", (4, 4, 4), 4, 1, True)]
    assert state.hands[1][face("五")] == 0
    # No 胡 for seat 1 (his cards do not win), so he must 出 at once: no claim window on a 偎.
    assert state.phase == "discard" and state.to_act() == (1,)
    assert "出五" not in options(state)[1]
    assert state.rows == [[face("十")], [], []]


def test_s4_3_wei_with_three_keeps_one_which_may_be_discarded() -> None:
    state = deal(["十", "五五五", WAIT_2], "五")
    act(state, 0, "出十")
    assert meld_strs(state, 1) == ["wei:五五五"]
    assert state.hands[1][face("五")] == 1
    assert "出五" in options(state)[1]  # RULES §5.2: the card kept after a 偎 with 3
    events = act(state, 1, "出五")
    assert isinstance(events[0], Discarded) and events[0].card == face("五")
    assert state.hands[1][face("五")] == 0


def test_s4_3_forced_wei_then_hu() -> None:
    state = deal(["十", "五五壹壹壹叁叁叁肆肆肆陆陆陆八八捌玖拾", WAIT_2], "五")
    act(state, 0, "出十")
    assert kinds(state.events[-2:]) == [("drew", 1, "五"), ("wei", 1, "五")]
    # RULES §3 DRAW 1: only the drawer may 胡 right after his 偎.
    assert options(state) == {1: ["胡", "过"]}
    events = act(state, 1, "胡")
    assert len(events) == 1 and isinstance(events[0], Won)
    r = state.result
    assert r is not None and r.breakdown is not None
    assert (r.winner, r.card, r.source) == (1, face("五"), "self")
    wei = [g for g in r.breakdown.groups if g.win]
    assert [(g.kind, faces_str(g.faces), g.xi) for g in wei] == [("wei", "五五五", 3)]
    # 偎五 3 + 砍壹叁肆陆 12 + 八八 0 + 捌玖拾 0 = 15 硬息; red 1 (拾): 点胡 ×3 = 45.
    assert (r.breakdown.hard_xi, r.breakdown.total) == (15, 45)
    assert state.returns() == [-45, 90, -45]
    assert state.phase == "over" and state.to_act() == ()


def test_s4_3_wei_then_declined_hu_must_discard() -> None:
    state = deal(["十", "五五壹壹壹叁叁叁肆肆肆陆陆陆八八捌玖拾", WAIT_2], "五")
    script(state, [(0, "出十"), (1, "过")])
    assert state.phase == "discard" and state.to_act() == (1,)
    assert state.result is None
    assert state.peng_guo == [set(), set(), set()]


def test_s3_draw1_nobody_else_may_hu_or_peng_a_weied_card() -> None:
    state = deal(["十", "五五", WAIT_2], "五")
    # Seat 2 would win on a 五 drawn by another (四五六), but this 五 is 偎'd by seat 1.
    assert score_position([], tuple(state.hands[2]), face("五"), source="other").winning
    act(state, 0, "出十")
    assert state.window is None and state.to_act() == (1,)
    for seat in (0, 2):
        assert state.legal_actions(seat) == []
        assert_illegal(state, seat, "胡", "not to act")
        assert_illegal(state, seat, "碰", "not to act")


# ------------------------------------------------------------------------ §4.7, §5.1 胡 priority


@pytest.mark.parametrize(
    ("responses", "winner"),
    [
        pytest.param({1: "胡", 2: "胡", 0: "胡"}, 1, id="drawer-first"),
        pytest.param({1: "过", 2: "胡", 0: "胡"}, 2, id="then-xiajia"),
        pytest.param({1: "吃四五六", 2: "胡", 0: "碰"}, 2, id="hu-beats-peng-and-chi"),
        pytest.param({1: "过", 2: "过", 0: "胡"}, 0, id="then-shangjia"),
    ],
)
def test_s4_7_hu_priority_drawer_then_xiajia_then_shangjia(
    responses: dict[int, str], winner: int
) -> None:
    state = deal([WAIT_0, WAIT_1, WAIT_2], "五")
    act(state, 0, "出十")
    assert options(state) == {
        0: ["胡", "碰", "过"],
        1: ["胡", "吃四五六", "过"],
        2: ["胡", "过"],
    }
    # Answers are given in any order; the engine resolves by seat priority (RULES §5.1).
    for seat in (0, 2, 1):
        assert state.result is None
        act(state, seat, responses[seat])
    r = state.result
    assert r is not None and r.winner == winner
    assert r.card == face("五")
    assert r.source == ("self" if winner == 1 else "other")
    assert isinstance(state.events[-1], Won) and state.events[-1].seat == winner


def test_s3_1_6_non_drawer_hu_scores_triple_as_peng() -> None:
    state = deal([WAIT_0, WAIT_1, WAIT_2], "五")
    script(state, [(0, "出十"), (1, "过"), (2, "过"), (0, "胡")])
    r = state.result
    assert r is not None and r.breakdown is not None
    assert (r.winner, r.source) == (0, "other")
    win_groups = [(g.kind, faces_str(g.faces), g.xi) for g in r.breakdown.groups if g.win]
    assert win_groups == [("peng", "五五五", 2)]  # not a 3-息 砍 (RULES §6.4)
    # 二二 2 + 五五五 2 + 砍十柒拾 12 + two runs = 16 硬息; red 13: 红胡 10 × 4 = 40.
    assert (r.breakdown.hard_xi, r.breakdown.total) == (16, 56)
    assert "haidi" not in pattern_keys(state)


def test_s3_1_5_peng_rather_than_hu_then_drawer_draws_again() -> None:
    state = deal([WAIT_0, WAIT_1, WAIT_2], "五")
    events = script(state, [(0, "出十"), (1, "过"), (2, "过"), (0, "碰")])
    assert kinds(events)[-4:] == [
        ("declined_hu", 1, "五"),
        ("declined_hu", 2, "五"),
        ("declined_hu", 0, "五"),
        ("peng", 0, "五"),
    ]
    assert isinstance(events[-1], Penged) and events[-1].from_seat == 1
    assert state.phase == "discard" and state.to_act() == (0,)
    # RULES §3.1.4: the claimer discards, and the next draw is his 下家's: the drawer again.
    events = act(state, 0, "出二")
    assert kinds(events)[:2] == [("discard", 0, "二"), ("drew", 1, "一")]


# ------------------------------------------------------------------------- §5.1 碰 beats 吃


def test_s5_1_peng_beats_chi_on_discard() -> None:
    state = deal([WAIT_0[:-1] + "贰", WAIT_1, WAIT_2], "五")
    act(state, 0, "出贰")
    assert options(state) == {1: ["吃壹贰叁", "吃贰叁肆", "过"], 2: ["碰", "过"]}
    events = script(state, [(1, "吃壹贰叁"), (2, "碰")])
    assert kinds(events) == [("peng", 2, "贰")]
    assert meld_strs(state, 1) == [] and meld_strs(state, 2) == ["peng:贰贰贰"]
    assert state.phase == "discard" and state.to_act() == (2,)
    assert state.rows[0] == []  # a claimed discard does not stay in the row
    assert "出贰" not in options(state)[2]  # his last 贰 is a 碰'd face (RULES §5.2)


def test_s5_1_peng_beats_drawers_chi_on_draw() -> None:
    state = deal([WAIT_0, WAIT_1, WAIT_2], "五")
    events = script(state, [(0, "出十"), (1, "吃四五六"), (2, "过"), (0, "碰")])
    assert kinds(events)[-1] == ("peng", 0, "五")
    assert meld_strs(state, 1) == [] and meld_strs(state, 0) == ["peng:五五五"]


# ------------------------------------------------------------------------ §4.6 吃 sources, §3 5


def test_s4_6_chi_from_own_draw_or_shangjia_never_from_xiajia() -> None:
    # Seat 2 holds 陆捌 but seat 0, whose 柒 it would take, is its 下家. Seat 0 holds 六七 but the
    # 五 is drawn by its 下家 (seat 1). Only seat 1 (own draw) may 吃 the 五 (RULES §4.6).
    state = deal(["柒六七", "四六", "三四陆捌一一一一贰贰贰贰"], "五")
    events = act(state, 0, "出柒")
    assert kinds(events) == [("discard", 0, "柒"), ("drew", 1, "五")]
    assert options(state) == {1: ["吃四五六", "过"]}
    assert_illegal(state, 2, "吃三四五", "not to act")
    assert_illegal(state, 0, "吃五六七", "not to act")


def test_s3_step5_released_draw_then_xiajias_chi() -> None:
    state = deal(["柒六七", "四六", "三四陆捌一一一一贰贰贰贰"], "五")
    script(state, [(0, "出柒")])
    events = act(state, 1, "过")
    assert kinds(events) == [("release", 1, "五")]
    assert isinstance(events[0], Released)
    # RULES §3.1.3: no new 胡 or 碰 window, only the 下家's 吃.
    assert state.window is not None and state.window.origin == "release"
    assert options(state) == {2: ["吃三四五", "过"]}
    events = act(state, 2, "吃三四五")
    assert kinds(events) == [("chi", 2, "五")]
    assert isinstance(events[0], Chied) and (events[0].run, events[0].from_seat) == (2, 1)
    assert meld_strs(state, 2) == ["chi:三四五"]
    assert state.rows[1] == []  # claimed, so not in the drawer's row
    assert face("五") in state.thrown[1]  # but it counts as released by seat 1 (RULES §4.6(1))
    assert state.phase == "discard" and state.to_act() == (2,)


def test_s3_step5_released_draw_not_claimed_goes_to_row() -> None:
    state = deal(["柒六七", "四六", "三四陆捌一一一一贰贰贰贰"], "五")
    script(state, [(0, "出柒"), (1, "过")])
    events = act(state, 2, "过")
    assert kinds(events)[:2] == [("drew", 2, "三"), ("release", 2, "三")]
    assert state.rows[0][0] == face("柒") and state.rows[1][0] == face("五")


def test_s4_6_chi_never_from_the_drawers_xiajia_or_shangjia_in_draw_window() -> None:
    state = deal([WAIT_0, WAIT_1, WAIT_2], "五")
    act(state, 0, "出十")
    # Seat 2 (下家) and seat 0 (上家) are in the 胡 window on seat 1's draw, but may not 吃 it.
    assert_illegal(state, 2, "吃四五六", "RULES §4.6")
    assert_illegal(state, 0, "吃五六七", "RULES §4.6")


# ------------------------------------------------------------------------------------ §5.3 过张


def test_s5_3_declined_peng_is_peng_guo_for_the_rest_of_the_hand() -> None:
    state = deal(["九", "", "九九"], "九")
    act(state, 0, "出九")
    assert options(state) == {2: ["碰", "过"]}
    events = act(state, 2, "过")
    assert state.peng_guo == [set(), set(), {face("九")}]
    # The 4th 九, drawn by seat 1: seat 2 is not asked again; the card is released at once.
    assert kinds(events)[:3] == [("drew", 1, "九"), ("release", 1, "九"), ("drew", 2, "七")]
    assert state.peng_guo[2] == {face("九")}


def test_s5_3_peng_guo_blocks_peng_not_hu() -> None:
    state = deal(["五", "", "五五柒柒柒十十十拾拾拾六七八七八九二二"], "五")
    act(state, 0, "出五")
    assert options(state) == {2: ["碰", "过"]}
    events = act(state, 2, "过")
    assert state.peng_guo[2] == {face("五")}
    # The 4th 五, drawn by seat 1: seat 2 may still 胡 on it, but not 碰 it.
    assert kinds(events) == [("drew", 1, "五")]
    assert options(state) == {2: ["胡", "过"]}
    assert_illegal(state, 2, "碰", "碰-过张", "RULES §5.3")
    act(state, 2, "胡")
    assert state.result is not None and (state.result.winner, state.result.source) == (2, "other")


@pytest.mark.parametrize("first", ["出五", "出十"])
def test_s4_6_1_chi_banned_after_own_discard_of_the_face(first: str) -> None:
    state = deal(["五十四六"], "拾拾五")
    events = act(state, 0, first)
    drew = [e for e in events if isinstance(e, Drew)]
    assert [(e.seat, faces_str((e.card,))) for e in drew[:3]] == [(1, "拾"), (2, "拾"), (0, "五")]
    if first == "出五":
        # RULES §4.6(1): seat 0 discarded 五 earlier, so his own 五 is released at once.
        assert kinds(events)[5:7] == [("drew", 0, "五"), ("release", 0, "五")]
    else:
        assert kinds(events)[-1] == ("drew", 0, "五")
        assert options(state) == {0: ["吃四五六", "过"]}


@pytest.mark.parametrize(
    ("claim", "stock"),
    [pytest.param("碰", "拾五", id="claimed"), pytest.param("过", "五", id="not")],
)
def test_s5_3_chi_banned_after_shangjia_discarded_the_face(claim: str, stock: str) -> None:
    state = deal(["五", "四六", "五五"], stock)
    act(state, 0, "出五")
    assert options(state) == {1: ["吃四五六", "过"], 2: ["碰", "过"]}
    events = script(state, [(1, "过"), (2, claim)])
    if claim == "碰":
        events = act(state, 2, "出二")
    # Seat 1 draws the 4th 五 holding 四六: his 上家 discarded 五 before (RULES §5.3), so no 吃.
    i = kinds(events).index(("drew", 1, "五"))
    assert kinds(events)[i + 1] == ("release", 1, "五")


def test_s4_6_3_holder_of_two_may_not_chi() -> None:
    state = deal(["五", "五五四六"], "拾拾五")
    act(state, 0, "出五")
    assert options(state) == {1: ["碰", "过"]}
    assert_illegal(state, 1, "吃四五六", "RULES §4.6(3)")
    # Not even when his 碰 of it is 过张: the 4th 五, drawn and released by seat 0, passes him by.
    events = act(state, 1, "过")
    assert state.peng_guo[1] == {face("五")}
    i = kinds(events).index(("drew", 0, "五"))
    assert kinds(events)[i + 1 : i + 3] == [("release", 0, "五"), ("drew", 1, "三")]


def test_s4_6_3_holder_may_chi_when_option_off() -> None:
    rules = get_rules("anxiang").with_options(holder_may_not_chi=False)
    state = deal(["五", "五五四六"], "拾拾五", rules=rules)
    act(state, 0, "出五")
    assert options(state) == {1: ["碰", "吃四五六", "过"]}


# ------------------------------------------------------------------------- §5.2 discard bans


def test_s5_2_kan_banned_four_allows_one_then_banned() -> None:
    state = deal(["三三三四四四四五五五"], "五")
    assert options(state) == {0: ["出四", "出八", "出壹", "出肆"]}
    assert_illegal(state, 0, "出三", "砍", "RULES §5.2")
    assert_illegal(state, 0, "出五", "砍", "RULES §5.2")
    events = act(state, 0, "出四")  # with 4 in hand one may be discarded
    assert kinds(events) == [("discard", 0, "四"), ("drew", 1, "五")]
    assert state.hands[0][face("四")] == 3
    act(state, 0, "碰")  # seat 0 碰s seat 1's drawn 五 and must 出 again
    assert meld_strs(state, 0) == ["peng:五五五"]
    assert state.hands[0][face("五")] == 1
    assert options(state) == {0: ["出八", "出壹", "出肆"]}
    assert_illegal(state, 0, "出四", "砍", "RULES §5.2")  # 3 left of a dealt 4
    assert_illegal(state, 0, "出五", "碰'd", "RULES §5.2")  # a 碰'd face


def test_s5_2_chi_claimed_face_banned_run_hand_cards_allowed() -> None:
    state = deal(["五", "五四四六"])
    act(state, 0, "出五")
    act(state, 1, "吃四五六")
    assert meld_strs(state, 1) == ["chi:四五六"]
    assert hand_of(state, 1).count("五") == 1 and hand_of(state, 1).count("四") == 1
    assert "出四" in options(state)[1]  # a hand card of the run, still held
    assert "出五" not in options(state)[1]
    assert_illegal(state, 1, "出五", "吃'd", "RULES §5.2")


def test_s5_2_chi_of_own_draw_bans_the_face() -> None:
    state = deal(["", "五四六"], "五")
    act(state, 0, "出一")
    assert options(state) == {1: ["吃四五六", "过"]}
    act(state, 1, "吃四五六")
    assert "出五" not in options(state)[1]
    assert_illegal(state, 1, "出五", "RULES §5.2")


# ------------------------------------------------------------------------- §4.1, §3.1.8 死手


def test_s4_1_dead_hand_skips_discard_loses_hu_but_may_peng_and_chi() -> None:
    # Seat 1: five 砍 and four 拾. After 碰一 his only legal discard is one 拾.
    state = deal(["一", "一一一三三三四四四六六六八八八拾拾拾拾"], "六八壹壹五")
    script(state, [(0, "出一"), (1, "碰")])
    assert options(state) == {1: ["出拾"]}
    events = script(state, [(1, "出拾")])
    assert kinds(events) == [("discard", 1, "拾"), ("drew", 2, "六")]
    assert options(state) == {1: ["碰", "过"]}
    # A claim that leaves no legal discard is allowed: 三四八拾 are 砍, 一六 are 碰'd.
    events = act(state, 1, "碰")
    assert kinds(events) == [("peng", 1, "六"), ("dead", 1, None), ("drew", 2, "八")]
    assert isinstance(events[1], DeadHand)
    assert state.dead == [False, True, False]
    assert all(observation(state, v)["dead"] == [False, True, False] for v in (0, 1, 2))
    # He still 碰s (and is 死手 again: the skipped discard puts nothing on the table).
    assert options(state) == {1: ["碰", "过"]}
    events = act(state, 1, "碰")
    assert kinds(events)[:3] == [("peng", 1, "八"), ("dead", 1, None), ("drew", 2, "壹")]
    assert state.rows[1] == [face("拾")]
    assert sum(state.hands[1]) + 3 * len(state.melds[1]) == 19 + 2
    # He still 吃s his own draw, and then discards normally (his 三 and 四 are no longer 砍).
    assert kinds(events)[-1] == ("drew", 1, "五")
    assert options(state) == {1: ["吃三四五", "吃四五六", "过"]}
    act(state, 1, "吃三四五")
    assert options(state) == {1: ["出三", "出四"]}
    act(state, 1, "出三")
    assert state.dead[1]
    # For the rest of the hand his 胡 option never appears (RULES §4.1, §3.1.8).
    rng = random.Random(5)
    windows = 0
    while not state.is_terminal():
        assert HU not in state.legal_actions(1)
        if 1 in state.to_act() and state.phase == "claim":
            windows += 1
            with pytest.raises(IllegalAction, match=r"死手 \(RULES §4\.1\)"):
                state.verify(1, HU)
        seat = state.to_act()[0]
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert windows > 0
    assert state.result is not None and state.result.winner != 1


# ------------------------------------------------------------------------------ §8.1 臭, §3.1.7


def pass_and_discard(state: GameState, until: Callable[[GameState], bool] | None = None) -> None:
    """Play on: every seat passes every claim (胡 too) and discards its first legal card."""
    while not state.is_terminal() and not (until and until(state)):
        seat = state.to_act()[0]
        legal = state.legal_actions(seat)
        state.apply(seat, PASS if PASS in legal else legal[0])


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_s8_1_chou_when_the_stock_runs_out(seed: int) -> None:
    state = GameState.new("anxiang", seed)
    pass_and_discard(state)
    assert state.result is not None and state.result.chou
    assert (state.result.winner, state.result.breakdown) == (None, None)
    assert state.stock_left == 0
    assert sum(isinstance(e, Drew) for e in state.events) == 22
    assert isinstance(state.events[-1], Chou)
    assert state.returns() == [0, 0, 0]
    assert state.to_act() == () and state.phase == "over"


# Seat 2 (WAIT_2) waits on 五; the stock holds none of its faces and ends with the 4th 五, which
# seat 1 draws (22 draws, seats 1, 2, 0, … when nobody claims).
HAIDI_STOCK = "二二七七八八十十壹壹叁叁肆肆陆陆柒柒玖玖拾"


def haidi_deal() -> GameState:
    state = deal(["五五五", "", WAIT_2], HAIDI_STOCK, stock_end="五")
    pass_and_discard(state, until=lambda s: s.stock_left == 0)
    assert state.window is not None and state.window.last
    assert kinds(state.events[-1:]) == [("drew", 1, "五")]
    assert options(state) == {0: ["碰", "过"], 2: ["胡", "过"]}
    return state


def test_s3_1_7_haidi_win_on_the_last_stock_card() -> None:
    state = haidi_deal()
    script(state, [(0, "过"), (2, "胡")])
    r = state.result
    assert r is not None and r.breakdown is not None
    assert (r.winner, r.source, r.card) == (2, "other", face("五"))
    # 砍一三九伍 12 + 砍贰 4 + 四五六 + 捌捌 = 16 硬息; anxiang scores 海底胡 +10.
    assert "haidi" in pattern_keys(state)
    assert (r.breakdown.hard_xi, r.breakdown.total) == (16, 26)


def test_s3_1_7_declined_haidi_play_goes_on_then_chou() -> None:
    state = haidi_deal()
    events = script(state, [(0, "过"), (2, "过")])
    assert kinds(events) == [("declined_hu", 2, "五"), ("release", 1, "五")]
    # Play goes on: the 下家 may still 吃 the released last card, and must then 出.
    assert options(state) == {2: ["吃三四五", "吃四五六", "过"]}
    act(state, 2, "吃四五六")
    assert options(state) == {2: ["出捌"]}
    act(state, 2, "出捌")
    assert options(state) == {1: ["碰", "过"]}
    events = act(state, 1, "过")
    assert kinds(events) == [("chou", 0, None)]  # seat 0 would draw next: 臭 (RULES §8.1)
    assert state.result is not None and state.result.chou
    assert state.returns() == [0, 0, 0]


# --------------------------------------------------------------------- §3.1.5 declined 胡, 蛰一蛰


@pytest.mark.parametrize(
    ("rules", "patterns", "total"),
    [
        pytest.param("anxiang", [], 16, id="anxiang"),
        pytest.param(get_rules("xiaozhuo"), [], 16, id="xiaozhuo"),
        pytest.param(
            get_rules("xiaozhuo").with_options(enable_patterns=["zhe"]), ["zhe"], 26, id="zhe"
        ),
    ],
)
def test_s3_1_5_declined_hu_leaves_no_guo_zhang_and_zhe_scores(
    rules: RuleConfig | str, patterns: list[str], total: int
) -> None:
    # The dealer (WAIT_2's hand after 出二) waits on 五; seat 1 draws two 五s.
    state = deal([WAIT_2 + "二", "二七十壹", "肆陆柒拾"], "五柒柒五", rules=rules)
    act(state, 0, "出二")
    assert options(state) == {0: ["胡", "过"]}
    thrown = copy.deepcopy(state.thrown)
    events = act(state, 0, "过")
    assert isinstance(events[0], DeclinedHu)
    assert events[0].view(0) == {"type": "declined_hu", "seat": 0, "card": "五"}
    assert events[0].view(1) is None and events[0].view("public") is None
    assert kinds(events) == [("declined_hu", 0, "五"), ("release", 1, "五")]
    # No trace: no 过张 of any kind for seat 0.
    assert state.peng_guo == [set(), set(), set()]
    assert state.thrown[0] == thrown[0]
    events = act(state, 2, "过")
    assert kinds(events)[-1] == ("drew", 1, "五")
    assert options(state) == {0: ["胡", "过"]}  # the same face is offered again
    act(state, 0, "胡")
    r = state.result
    assert r is not None and r.breakdown is not None and r.winner == 0
    assert pattern_keys(state) == patterns
    assert r.breakdown.total == total


# --------------------------------------------------------------------- §7.2 deal patterns


@pytest.mark.parametrize(
    ("hands", "seat", "pattern", "points"),
    [
        pytest.param(TIANHU, 0, "tianhu", 100, id="tianhu"),
        pytest.param(
            ["", "一二三四五六七八九十壹贰叁肆伍陆柒捌玖"], 1, "wudui_deal", 50, id="wudui"
        ),
    ],
)
def test_s7_2_deal_pattern_declared_before_first_discard(
    hands: list[str], seat: int, pattern: str, points: int
) -> None:
    # anxiang has no deal patterns: the dealer simply discards (RULES §3.1.2).
    plain = deal(hands)
    assert plain.phase == "discard" and plain.window is None and plain.to_act() == (0,)
    state = deal(hands, rules="xiaozhuo")
    assert state.phase == "claim" and state.window is not None
    assert state.window.origin == "deal"
    assert options(state) == {seat: ["胡", "过"]}
    assert_illegal(state, seat, "碰")
    events = act(state, seat, "胡")
    assert len(events) == 1 and isinstance(events[0], Won) and events[0].card is None
    r = state.result
    assert r is not None and r.breakdown is not None
    assert (r.winner, r.deal_pattern, r.card) == (seat, pattern, None)
    assert {p.key: p.points for p in r.breakdown.patterns}[pattern] == points


def test_s7_2_tianhu_scores_the_dealt_cards_with_no_winning_card() -> None:
    # RULES §7.2: every triple dealt is a 砍 (3 black): 硬息 18, 乌对 ×8, 小字胡 100, 天胡 100.
    # Reading one dealt card as "won" would add a 手牵手 (五五五 + 四四, or 六六 …) nobody won.
    state = deal(["一一一三三三四四四五五五六六六八八八九九"], rules="xiaozhuo")
    assert options(state)[0] == ["胡", "过"]
    for seat in options(state):
        act(state, seat, "胡" if seat == 0 else "过")
    r = state.result
    assert r is not None and r.breakdown is not None and r.deal_pattern == "tianhu"
    assert r.breakdown.total == 344 and r.breakdown.hard_xi == 18
    assert set(pattern_keys(state)) == {"wudui", "xiaozi", "tianhu"}
    assert not any(g.win for g in r.breakdown.groups)
    assert {g.kind for g in r.breakdown.groups} == {"kan", "maque"}


def test_s7_2_jiuxiaodui_after_earlier_seats_pass() -> None:
    state = deal(["", "", "一一二二三三四四五五六六七七八八九九十"], rules="xiaozhuo")
    assert options(state) == {0: ["胡", "过"], 1: ["胡", "过"], 2: ["胡", "过"]}
    script(state, [(2, "胡"), (1, "过")])
    assert state.result is None  # the dealer, first in priority, has not answered yet
    act(state, 0, "过")
    r = state.result
    assert r is not None and r.breakdown is not None
    assert (r.winner, r.deal_pattern, r.breakdown.total) == (2, "jiuxiaodui", 50)


def test_s7_2_deal_pattern_passed_then_dealer_discards() -> None:
    state = deal(TIANHU, rules="xiaozhuo")
    act(state, 0, "过")
    assert state.phase == "discard" and state.to_act() == (0,) and state.window is None
    act(state, 0, "出四")
    assert all(e.kind != "hu" for e in state.events)


# ---------------------------------------------------------------------- illegal actions


def _start() -> GameState:
    return deal([WAIT_0, WAIT_1, WAIT_2], "五")


def _after(*steps: tuple[int, str]) -> Callable[[], GameState]:
    def build() -> GameState:
        state = _start()
        script(state, list(steps))
        return state

    return build


def _discard_gui() -> GameState:  # seat 0 出贰: seat 1 may 吃, seat 2 may 碰
    state = deal([WAIT_0[:-1] + "贰", WAIT_1, WAIT_2], "五")
    act(state, 0, "出贰")
    return state


def _wei_window() -> GameState:
    state = deal(["十", "五五壹壹壹叁叁叁肆肆肆陆陆陆八八捌玖拾", WAIT_2], "五")
    act(state, 0, "出十")
    return state


def _over() -> GameState:
    state = _wei_window()
    act(state, 1, "胡")
    return state


@pytest.mark.parametrize(
    ("build", "seat", "action", "needles"),
    [
        pytest.param(_start, 0, "出柒", ["砍", "RULES §5.2"], id="discard-kan"),
        pytest.param(_start, 0, "出一", ["holds none"], id="discard-unheld"),
        pytest.param(_start, 1, "出四", ["not to act"], id="not-your-turn"),
        pytest.param(_start, 0, "碰", ["must 出", "RULES §3"], id="peng-when-discarding"),
        pytest.param(_start, 0, "过", ["must 出", "RULES §3"], id="pass-when-discarding"),
        pytest.param(_start, 5, "出十", ["no seat"], id="no-such-seat"),
        pytest.param(_discard_gui, 2, "胡", ["discarded card", "RULES §3, §4.7"], id="hu-discard"),
        pytest.param(_discard_gui, 2, "吃壹贰叁", ["RULES §4.6"], id="chi-from-xiajia"),
        pytest.param(_discard_gui, 1, "碰", ["fewer than two", "RULES §4.5"], id="peng-one"),
        pytest.param(_discard_gui, 1, "吃四五六", ["not a run holding it"], id="chi-wrong-run"),
        pytest.param(_discard_gui, 2, "出一", ["claim on 贰 is open"], id="discard-in-window"),
        pytest.param(_after((0, "出十")), 1, "碰", ["own card", "RULES §3"], id="peng-own-draw"),
        pytest.param(_wei_window, 1, "碰", ["偎'd", "RULES §3"], id="peng-weied"),
        pytest.param(_wei_window, 1, "吃四五六", ["RULES §4.6"], id="chi-weied"),
        pytest.param(_over, 1, "出八", ["hand is over"], id="after-the-end"),
        pytest.param(
            _after((0, "出十"), (1, "过")), 1, "胡", ["not to act"], id="answered-already"
        ),
    ],
)
def test_illegal_action_names_the_rule_and_changes_nothing(
    build: Callable[[], GameState], seat: int, action: str, needles: list[str]
) -> None:
    assert_illegal(build(), seat, action, *needles)


def test_s4_7_hu_that_does_not_win_is_refused() -> None:
    state = deal(["柒六七", "四六", "三四陆捌一一一一贰贰贰贰"], "五")
    act(state, 0, "出柒")
    assert options(state) == {1: ["吃四五六", "过"]}
    assert_illegal(state, 1, "胡", "do not win", "RULES §4.7")


def test_s4_6_1_chi_after_own_discard_is_refused_with_the_rule() -> None:
    # Seat 1 deals, discards 五, and later draws the 五 he waits on: 胡 yes, 吃 no (RULES §4.6(1)).
    state = deal(["", WAIT_1 + "五", ""], "十十五", dealer=1)
    events = act(state, 1, "出五")
    assert kinds(events)[-1] == ("drew", 1, "五")
    assert options(state) == {1: ["胡", "过"]}
    assert_illegal(state, 1, "吃四五六", "discarded or released", "RULES §4.6(1)")
    assert_illegal(state, 1, "吃三四五", "holds no 三", "RULES §4.6")


# ------------------------------------------------------- legal_actions agrees with can / verify


ALL_ACTIONS = [Action.from_id(i) for i in range(NUM_ACTIONS)]


@pytest.mark.parametrize("preset", ["anxiang", "xiaozhuo"])
def test_legal_actions_agree_with_can_and_verify(preset: str) -> None:
    for seed in range(6):
        state = GameState.new(preset, seed, dealer=seed % 3)
        rng = random.Random(seed)
        while True:
            acting = state.to_act()
            for seat in range(3):
                legal = state.legal_actions(seat)
                assert len(set(legal)) == len(legal)
                if seat not in acting:
                    assert legal == []
                for action in ALL_ACTIONS:
                    ok = action in legal
                    assert state.can(seat, action) is ok, (seed, seat, str(action))
                    if ok:
                        state.verify(seat, action)
                    else:
                        with pytest.raises(IllegalAction):
                            state.verify(seat, action)
            if state.is_terminal():
                break
            assert acting and all(state.legal_actions(s) for s in acting)
            seat = acting[0]
            state.apply(seat, rng.choice(state.legal_actions(seat)))


# ----------------------------------------------------------------------- hidden information


def _check_views(state: GameState, start: int) -> None:
    """No seat's view shows another seat's hand or face-down 偎 (RULES §2.1, §4.3)."""
    face_up = state.rules.wei_face_up
    for viewer in range(3):
        obs = observation(state, viewer)
        assert "hands" not in obs
        assert obs["hand"] == hand_of(state, viewer)
        for owner in range(3):
            for meld, shown in zip(state.melds[owner], obs["melds"][owner], strict=True):
                hidden = meld.face_down and owner != viewer
                assert (shown["cards"] is None) == hidden
        array = observation_array(state, viewer)
        assert array[:NUM_FACES].tolist() == state.hands[viewer]
        for k in range(3):
            owner = (viewer + k) % 3
            visible = [m for m in state.melds[owner] if not (m.face_down and owner != viewer)]
            block = array[NUM_FACES + k * NUM_FACES : NUM_FACES + (k + 1) * NUM_FACES]
            assert block.sum() == 3 * len(visible)
            assert array[4 * NUM_FACES + k] == len(state.melds[owner]) - len(visible)
        for event in state.events[start:]:
            view = event.view(viewer)
            mine = event.seat == viewer
            if isinstance(event, Dealt):
                assert view is not None and ("cards" in view) == mine
            elif isinstance(event, Drew) and not mine:
                assert view is not None and ("card" in view) != event.face_down
            elif isinstance(event, Weied) and not mine:
                assert event.face_up == face_up
                assert view is not None and ("card" in view) == face_up
            elif isinstance(event, DeclinedHu):
                assert (view is not None) == mine


def test_seat_views_never_leak_hands_or_face_down_wei() -> None:
    weis = 0
    for seed in range(200):
        state = GameState.new("anxiang", seed, dealer=seed % 3)
        rng = random.Random(seed)
        _check_views(state, 0)
        while not state.is_terminal():
            start = len(state.events)
            seat = state.to_act()[0]
            state.apply(seat, rng.choice(state.legal_actions(seat)))
            _check_views(state, start)
        weis += sum(isinstance(e, Weied) for e in state.events)
    assert weis > 50  # the check did meet face-down 偎s


# --------------------------------------------------------------- bugs found and fixed

CLAIM_CARD = 4 * NUM_FACES + 3 + 3 * NUM_FACES + 3 + 1 + 3 + 3  # offset in observation_array


def test_s4_3_weied_face_hidden_from_others_while_drawer_decides_hu() -> None:
    state = _wei_window()
    assert state.window is not None and state.window.origin == "wei"
    assert options(state) == {1: ["胡", "过"]}
    leaks = []
    for viewer in (0, 2, "public"):
        claim = observation(state, viewer)["claim"]
        if claim is not None and claim.get("card") is not None:
            leaks.append((viewer, claim["card"]))
    for seat in (0, 2):
        if observation_array(state, seat)[CLAIM_CARD : CLAIM_CARD + NUM_FACES].any():
            leaks.append((seat, "claim_card"))
    assert leaks == []


@pytest.mark.parametrize("bad", [-1, 20])
def test_out_of_range_face_is_an_illegal_action(bad: int) -> None:
    state = deal(["拾"])
    assert state.hands[0][face("拾")] == 1
    assert_illegal(state, 0, Action.discard(bad))


def test_s7_2_passing_a_deal_pattern_names_no_card() -> None:
    state = deal(TIANHU, rules="xiaozhuo")
    events = act(state, 0, "过")
    for event in events:
        card = getattr(event, "card", None)
        assert card is None or 0 <= card < NUM_FACES, event
        assert "拾" not in str(event.view(0))


def test_s7_2_passing_a_deal_pattern_does_not_score_zhe() -> None:
    rules = get_rules("xiaozhuo").with_options(enable_patterns=["zhe"])
    state = deal(TIANHU, "四", rules=rules)
    script(state, [(0, "过"), (0, "出四")])
    assert options(state) == {0: ["胡", "过"]}  # seat 1 drew the 四 he needs
    act(state, 0, "胡")
    assert "zhe" not in pattern_keys(state)


def test_deal_window_messages_name_no_card() -> None:
    state = deal(TIANHU, rules="xiaozhuo")
    assert state.hands[0][face("拾")] == 0
    for action in ("出一", "碰", "吃一二三"):
        with pytest.raises(IllegalAction) as info:
            state.verify(0, Action.parse(action))
        assert "拾" not in str(info.value)
