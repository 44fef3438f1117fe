"""The turn flow of 三丁拐 (SANDINGGUAI §3-§5, §9.1): scenarios on stacked decks, the legality
vectors of §12.2, and the invariants of §12 as properties of seeded random play."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from weimaque.errors import IllegalAction, InvalidNotation
from weimaque.games import Invariants
from weimaque.games.sandingguai.actions import ACTIONS, HU, NUM_ACTIONS, PASS, PENG, QUE, Action
from weimaque.games.sandingguai.events import Discarded, Drew
from weimaque.games.sandingguai.invariants import problems
from weimaque.games.sandingguai.notation import MeldKind, parse_tiles
from weimaque.games.sandingguai.rules import get_rules
from weimaque.games.sandingguai.state import (
    CLAIMS,
    OVER,
    ROB,
    SELF,
    State,
    stack_deck,
)


def deal(s0: str, s1: str, s2: str, head: str = "", tail: str = "", **options: object) -> State:
    """A hand with the dealer (seat 0) dealt ``s0`` and the wall stacked."""
    deck = stack_deck(
        [parse_tiles(s0), parse_tiles(s1), parse_tiles(s2)], parse_tiles(head), parse_tiles(tail)
    )
    return State(get_rules("sandingguai", **options), None, 0, 1, deck)


def act(state: State, text: str, seat: int | None = None) -> None:
    state.apply(Action.parse(text).id, seat)


def names(state: State, seat: int | None = None) -> list[str]:
    return [str(ACTIONS[a]) for a in state.legal_actions(seat)]


def test_yipao_shuangxiang_played_matches_e13() -> None:
    s = deal("2569m2469s12369p5p", "222m888m777m99m55p", "11m33m44m66p77p99p5p", head="3m")
    act(s, "出5p")
    assert s.phase == CLAIMS and s.players_to_act() == (1, 2)
    assert names(s, 1) == ["胡", "碰", "过"] and names(s, 2) == ["胡", "过"]
    assert s.apply(HU, 1) == ()  # a choice stays hidden until every seat has chosen
    act(s, "胡", 2)
    assert s.is_terminal() and s.result is not None
    assert s.result.net == (-34, 8, 26)
    assert [w.way for w in s.result.table.winners] == ["dianpao", "dianpao"]
    assert (s.result.settlement.next_dealer, s.result.settlement.next_streak) == (1, 1)


def test_multi_ron_off_first_in_turn_order_wins() -> None:
    s = deal(
        "2569m2469s12369p5p",
        "222m888m777m99m55p",
        "11m33m44m66p77p99p5p",
        head="3m",
        multi_ron=False,
    )
    act(s, "出5p")
    act(s, "胡", 1)
    act(s, "胡", 2)
    assert s.result is not None and [w.seat for w in s.result.table.winners] == [1]


def test_hu_beats_peng() -> None:
    s = deal("2569m2469s12369p5p", "222m888m777m99m55p", "11m33m44m66p77p99p5p", head="3m")
    act(s, "出5p")
    act(s, "碰", 1)
    act(s, "胡", 2)
    assert s.result is not None and [w.seat for w in s.result.table.winners] == [2]


ROB_S0 = "66p88p123s45s5m1m7m9m9s"
ROB_S1 = "345m678m123p78p99m"
ROB_S2 = "12349m3568s2459p"


def _to_bugang() -> State:
    s = deal(ROB_S0, ROB_S1, ROB_S2, head="6p9s7m6p")
    act(s, "出5m")
    assert "胡" in names(s)  # seat 1 drew its winning 6p; it may still discard it
    act(s, "出6p")
    assert s.players_to_act() == (0,) and names(s, 0) == ["碰", "过"]
    act(s, "碰", 0)
    assert names(s) == [
        f"出{t}" for t in ("1m", "7m", "9m", "1s", "2s", "3s", "4s", "5s", "9s", "8p")
    ]
    act(s, "出1m")
    act(s, "出9s")
    act(s, "出7m")
    assert s.current_player() == 0 and "补杠6p" in names(s)
    act(s, "补杠6p")
    return s


def test_bugang_is_robbed_l7() -> None:
    s = _to_bugang()
    assert s.phase == ROB and s.players_to_act() == (1,) and names(s, 1) == ["胡", "过"]
    act(s, "胡", 1)
    assert s.result is not None
    (w,) = s.result.table.winners
    assert (w.seat, w.way, w.source) == (1, "qianggang", 0)
    # SDG §3 ROB: the 补杠 never happened: seat 0 keeps a 碰 of three.
    assert [m.kind for m in s.result.table.seats[0].melds] == [MeldKind.PENG]
    assert sum(s.result.net) == 0


def test_bugang_stands_when_nobody_robs() -> None:
    s = _to_bugang()
    act(s, "过", 1)
    assert s.phase == SELF and s.turn == 0 and s.from_kong
    assert [m.kind for m in s.melds[0]] == [MeldKind.BUGANG]
    # 过水 on a 抢杠 tile (SDG §5.2): seat 1 is locked on 6p until it draws.
    assert s.locks[1] == {parse_tiles("6p")[0]}


REPAO_S0 = "5555s3m4m7m9m2s7s9s8s9p6m"
REPAO_S1 = "12m345p567p234p99p"
REPAO_S2 = "1459m2469s13469p"


def test_repao_gives_the_passport_and_burns() -> None:
    s = deal(REPAO_S0, REPAO_S1, REPAO_S2, head="1m", tail="1p")
    assert "暗杠5s" in names(s)
    act(s, "暗杠5s")
    # SDG §4.5, L7: an 暗杠 opens no window; the dealer draws a replacement from the tail.
    assert s.phase == SELF and s.turn == 0 and s.drawn == parse_tiles("1p")[0] and s.from_kong
    act(s, "出3m")
    assert names(s, 1) == ["胡", "过"]  # 平胡 with no kong: legal because 热炮 (SDG §5.1 d)
    act(s, "胡", 1)
    assert s.result is not None
    table = s.result.table
    assert table.winners[0].way == "repao" and table.repao_kong is MeldKind.ANGANG
    assert s.result.settlement.burned == (True, False, False)
    items = {(t.payer, t.payee, t.amount, t.reason) for t in s.result.settlement.transfers}
    assert (0, 1, 2, "hu") in items and (0, 1, 8, "repao_kong") in items  # ×2: the dealer


def test_plain_discard_gives_no_passport_l1() -> None:
    s = deal(REPAO_S0, REPAO_S1, REPAO_S2, head="1m")
    act(s, "出3m")
    assert s.phase == SELF and s.turn == 1  # no window: seat 1 has no passport
    with pytest.raises(IllegalAction, match="not to act"):
        s.verify(HU, 2)


def test_gangshanghua() -> None:
    s2 = deal("5555s123m456m78m99s", "1359m2468s13469p", "2469m13678s2479p", tail="9m")
    act(s2, "暗杠5s")
    assert "胡" in names(s2)
    act(s2, "胡")
    assert s2.result is not None and s2.result.table.winners[0].way == "gangshanghua"


def test_baoting_l5_and_auto_discard() -> None:
    s = deal("123m456m789m234p5p9s", "1359m2468s13469p", "2469m13678s2479p", head="1s4s7s7s")
    assert "报听9s" in names(s)
    act(s, "报听9s")
    assert s.baoting[0]
    act(s, "出1s")  # seat 1 drew 1s (wall head) and discards it
    act(s, "出4s")  # seat 2
    # Seat 0 drew 7s, cannot 胡, and the engine discarded it (SDG §4.6).
    assert s.turn == 1 and s.discards[0] == parse_tiles("9s7s")
    with pytest.raises(IllegalAction, match="报听"):
        State.verify(_at_baoting_turn(), Action.parse("出1m").id)


def _at_baoting_turn() -> State:
    s = deal("123m456m789m234p5p9s", "1359m2468s13469p", "2469m13678s2479p", head="1s4s5p")
    act(s, "报听9s")
    act(s, "出1s")
    act(s, "出4s")
    assert s.turn == 0 and names(s) == ["出5p", "胡"]
    return s


def test_baoting_not_on_second_discard_nor_after_peng() -> None:
    s = deal("123m456m789m234p5p9s", "1359m2468s13469p", "2469m13678s2479p", head="1s4s9s")
    act(s, "出5p")
    act(s, "出1s")
    act(s, "出4s")
    assert not [n for n in names(s) if n.startswith("报听")]
    with pytest.raises(IllegalAction, match=r"SDG §4\.6"):
        s.verify(Action.parse("报听9s").id)


L6_S0 = "13579m12345678s5p"
L6_S1 = "123456789m99s68p"
L6_S2 = "234p567p999p34p11p"


def test_pass_lock_l6() -> None:
    s = deal(L6_S0, L6_S1, L6_S2, head="5p5p")
    act(s, "出5p")
    act(s, "过", 2)
    act(s, "出5p")  # seat 1 drew the other 5p and discards it: seat 2 is locked (过水)
    assert s.turn == 2 and s.phase == SELF
    assert "胡" in names(s)  # ... and may 自摸 the fourth 5p


def test_pass_lock_other_face_and_off() -> None:
    s = deal(L6_S0, L6_S1, L6_S2, head="2p")
    act(s, "出5p")
    act(s, "过", 2)
    act(s, "出2p")
    assert names(s, 2) == ["胡", "过"]  # a lock on 5p is no lock on 2p
    s = deal(L6_S0, L6_S1, L6_S2, head="5p5p", pass_lock="off")
    act(s, "出5p")
    act(s, "过", 2)
    act(s, "出5p")
    assert names(s, 2) == ["胡", "过"]


def test_errors_name_the_rule() -> None:
    s = deal(L6_S0, L6_S1, L6_S2, head="5p5p")
    with pytest.raises(IllegalAction, match="holds no 1p"):
        s.verify(Action.parse("出1p").id)
    with pytest.raises(IllegalAction, match=r"SDG §4\.5"):
        s.verify(Action.parse("暗杠1m").id)
    with pytest.raises(IllegalAction, match="SDG §3 SELF"):
        s.verify(PENG)
    with pytest.raises(IllegalAction, match="out of range"):
        s.verify(NUM_ACTIONS)
    with pytest.raises(IllegalAction, match="'x'"):
        s.verify("x")  # type: ignore[arg-type]
    act(s, "出5p")
    with pytest.raises(IllegalAction, match="碰 needs two 5p"):
        s.verify(PENG, 2)


def test_stacked_deck_checks() -> None:
    with pytest.raises(IllegalAction, match="more than four"):
        stack_deck([parse_tiles("1111m1m2345678s9s"), [], []])
    with pytest.raises(IllegalAction, match="permutation"):
        State(None, None, 0, 1, [0] * 108)


# --------------------------------------------------------------------------- random play


def policy(state: State, rng: random.Random) -> int:
    """胡 when possible, claims half the time, else a discard from the seat's shortest suit:
    enough to reach wins, kongs and 报听 in a few hundred hands."""
    legal = state.legal_actions()
    if legal[0] >= QUE:  # 定缺: the suit the seat holds least of
        hand = state.hands[state.current_player()]
        return QUE + min(range(3), key=lambda s: sum(hand[9 * s : 9 * s + 9]))
    if HU in legal:
        return HU
    claims = [a for a in legal if a != PASS and a >= 27 and a != HU]
    if claims and rng.random() < 0.7:
        return rng.choice(claims)
    if PASS in legal:
        return PASS
    hand = state.hands[state.turn]
    suit_size = [sum(hand[9 * s : 9 * s + 9]) for s in range(3)]
    discards = [a for a in legal if a < 27]
    held = [a for a in discards if suit_size[a // 9]]
    short = min(suit_size[a // 9] for a in held)
    return rng.choice([a for a in held if suit_size[a // 9] == short])


def check_invariants(state: State) -> None:
    # SDG §12's invariants as the engine states them (``wmq simulate --check`` asks the same).
    assert problems(state) == [], state


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32), st.sampled_from(["sandingguai", "baike-3p", "dingque"]))
def test_random_play_invariants(seed: int, preset: str) -> None:
    rules = get_rules(dingque=True) if preset == "dingque" else get_rules(preset)
    rng = random.Random(seed)
    state = State(rules, seed, seed % 3, 1 + seed % 2)
    check_invariants(state)
    while not state.is_terminal():
        legal = state.legal_actions()
        probe = rng.randrange(NUM_ACTIONS)
        assert state.can(probe) == (probe in legal)
        state.apply(policy(state, rng))
        if not state.is_terminal():
            check_invariants(state)
    result = state.result
    assert result is not None
    assert state.tile_count() == 108
    assert sum(result.net) == 0
    assert sum(t.amount for t in result.settlement.transfers if t.amount <= 0) == 0
    assert result.table.winners or state.wall_left == 0  # ends only by 胡 or 荒庄
    assert state.legal_actions() == [] and state.current_player() < 0


def test_random_play_reaches_every_way() -> None:
    ways: set[str] = set()
    kinds: set[MeldKind] = set()
    huang = 0
    for seed in range(150):
        rng = random.Random(seed)
        state = State(None, seed)
        while not state.is_terminal():
            state.apply(policy(state, rng))
        assert state.result is not None
        ways |= {w.way for w in state.result.table.winners}
        kinds |= {m.kind for ms in state.melds for m in ms}
        huang += state.result.table.huang
    assert {"dianpao", "zimo"} <= ways
    assert kinds == set(MeldKind)
    assert huang


def test_events_hide_draws() -> None:
    s = State(None, 5)
    act(s, str(ACTIONS[s.legal_actions()[0]]))
    draws = [e for e in s.events if isinstance(e, Drew)]
    assert draws and all(
        "tile" not in (d.view(d.seat + 1 if d.seat < 2 else 0) or {}) for d in draws
    )
    assert any(isinstance(e, Discarded) for e in s.events)
    assert s.phase in (SELF, CLAIMS, OVER)
    assert OVER == 3


def test_gangshanghua_after_diangang_played_matches_e16() -> None:
    s = deal(
        "1359m2468s13469p8m", "24689m1357s579p9s", "234m567m44m45s999s", head="2p7m", tail="6s"
    )
    act(s, "出8m")
    act(s, "出9s")
    assert names(s, 2) == ["碰", "明杠", "过"]
    act(s, "明杠", 2)
    assert s.turn == 2 and s.from_kong and "胡" in names(s)
    act(s, "胡")
    assert s.result is not None
    assert s.result.table.flip == parse_tiles("7m")[0]
    assert s.result.table.winners[0].way == "gangshanghua"
    assert s.result.net == (-4, -3, 7)
    got = sorted((t.payer, t.payee, t.amount, t.reason) for t in s.result.settlement.transfers)
    assert got == [(0, 2, 4, "hu"), (1, 2, 1, "gang_dian"), (1, 2, 2, "hu")]


def test_action_notation_round_trips() -> None:
    for a in range(NUM_ACTIONS):
        assert Action.parse(str(ACTIONS[a])).id == a
        assert Action.from_id(a) == ACTIONS[a]
    assert Action.parse("discard 5p") == Action.parse("出五筒") == Action("discard", 22)
    assert Action.parse("ting 9s").kind == "ting" and Action.parse("pass").kind == "pass"
    for bad, fragment in (("胡5p", "takes no tile"), ("出", "needs a tile"), ("吃123m", "unknown")):
        with pytest.raises(InvalidNotation, match=fragment):
            Action.parse(bad)


def test_the_invariants_name_what_breaks() -> None:
    # SDG §12's invariants, as ``wmq simulate --game sandingguai --check`` asks them: a tile
    # too many, a kept 叫 out of step and an end without its result are each named.
    from weimaque.games import get_game

    game = get_game("sandingguai")
    hand = game.new_hand("sandingguai", None, 9, 0)
    assert isinstance(game, Invariants) and game.invariants(hand) == []
    state = hand.state  # type: ignore[attr-defined]
    state.hands[1][0] += 1
    found = problems(state)
    assert any("tiles on the table" in p for p in found) and any("seat 1" in p for p in found)
    state.hands[1][0] -= 1
    state.jiao[2] ^= 1
    assert problems(state) == ["seat 2's kept 叫 is not a full remake (SDG §6.1)"]
    state.jiao[2] ^= 1
    rng = random.Random(2)
    while not state.is_terminal():
        state.apply(rng.choice(state.legal_actions()))
    assert problems(state) == []
    state.result = None
    assert problems(state) == ["the hand is over without a result"]
