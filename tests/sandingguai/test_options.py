"""Every option of SANDINGGUAI §11 does what docs/sandingguai.md says: settlement options on
the worked examples of §12.3 (figures worked out by hand), engine options on stacked decks."""

from __future__ import annotations

import random

import pytest

from tests.sandingguai.test_settlement import EXAMPLES
from tests.sandingguai.test_state import act, deal, names, policy
from weimaque.errors import IllegalAction, RuleConfigError
from weimaque.games.sandingguai.actions import Action
from weimaque.games.sandingguai.match import Match
from weimaque.games.sandingguai.notation import parse_table
from weimaque.games.sandingguai.rules import get_rules
from weimaque.games.sandingguai.settle import settle
from weimaque.games.sandingguai.state import DINGQUE, SELF, State

TABLES = {e[0].split("-")[0]: e[1] for e in EXAMPLES}
E6_8P = TABLES["E6"].replace("1367m2479s13469p", "1367m2479s13468p")
E1_F2M = TABLES["E1"].replace("flip:4m", "flip:1m")
HUANG_JI = """end:huang
s0 hand:123s456s789s11s56p
s1 hand:13579m2468m2469s
s2 hand:1357m3468s12579p"""

OPTION_CASES = [
    ("zimo_bonus-0", TABLES["E3"], {"zimo_bonus": 0}, (-20, 30, -10)),
    ("gangshanghua_bonus-1", TABLES["E16"], {"gangshanghua_bonus": 1}, (-6, -4, 10)),
    ("qianggang_pay-discard", TABLES["E9"], {"qianggang_pay": "discard"}, (18, 0, -18)),
    ("repao_transfer_kong-off", TABLES["E10"], {"repao_transfer_kong": False}, (0, 1, -1)),
    ("repao_burn-off", TABLES["E10"], {"repao_burn": False}, (-8, -1, 9)),
    (
        "shabao_on_zimo",
        TABLES["E3"].replace("2345p", "2345p baoting"),
        {"shabao_on_zimo": True},
        (-22, 43, -21),
    ),
    ("shabao_on_zimo-off", TABLES["E3"].replace("2345p", "2345p baoting"), {}, (-22, 33, -11)),
    ("wugu-off", TABLES["E6"], {"wugu": False}, (6, 12, -18)),
    ("wugu_value-2", TABLES["E6"], {"wugu_value": 2}, (14, 8, -22)),
    ("fanji-down", TABLES["E6"], {"fanji": "down"}, (6, 12, -18)),
    ("fanji-off", TABLES["E6"], {"fanji": "off"}, (4, 11, -15)),
    ("shuzi_ji", TABLES["E6"], {"shuzi_ji": True}, (34, 6, -40)),
    ("jinji_multiplier-3", TABLES["E8"], {"jinji_multiplier": 3}, (-46, 18, 28)),
    ("chongfeng-off", TABLES["E6"], {"chongfeng": False}, (8, 9, -17)),
    ("mantangji-off", E1_F2M, {}, (-2, 5, -3)),
    ("mantangji", E1_F2M, {"mantangji": True}, (-4, 7, -3)),
    ("baoji_scope-discarded", E6_8P, {}, (10, 10, -20)),
    ("baoji_scope-all", E6_8P, {"baoji_scope": "all"}, (12, 11, -23)),
    ("zeren_multiplier-1", TABLES["E7"], {"zeren_multiplier": 1}, (-26, 24, 2)),
    ("baogang", TABLES["E14"], {"baogang": True}, (-4, 11, -7)),
    ("chaque-off", TABLES["E12"], {"chaque": "off"}, (40, -20, -20)),
    ("chaque_amount-10", TABLES["E12"], {"chaque_amount": 10}, (60, -10, -50)),
    ("huang_settle_ji-off", HUANG_JI, {}, (44, 18, -62)),
    ("huang_settle_ji", HUANG_JI, {"huang_settle_ji": True}, (56, 12, -68)),
    ("dealer_stake-add", TABLES["E2"], {"dealer_stake": "add"}, (-6, 0, 6)),
    ("dealer_scope-hand", TABLES["E6"], {"dealer_scope": "hand"}, (5, 9, -14)),
]


@pytest.mark.parametrize(
    ("table", "options", "net"), [pytest.param(t, o, n, id=i) for i, t, o, n in OPTION_CASES]
)
def test_settlement_option(
    table: str, options: dict[str, object], net: tuple[int, int, int]
) -> None:
    assert settle(parse_table(table), get_rules("sandingguai", **options)).net == net


def test_dingque_needs_108_tiles_and_per_tile_needs_dingque() -> None:
    with pytest.raises(RuleConfigError, match="108"):
        get_rules(dingque=True, tiles=72)
    with pytest.raises(RuleConfigError, match="per_tile"):
        get_rules(chaque="per_tile")


def test_dingque_declarations_are_hidden_then_public() -> None:
    s = deal("123m456m789m234p55p", "1359m2468s13469p", "2469m13678s2479p", dingque=True)
    assert s.phase == DINGQUE and s.players_to_act() == (0, 1, 2)
    assert names(s, 1) == ["定缺万", "定缺条", "定缺筒"]
    assert s.apply(Action.parse("定缺条").id, 0) == ()
    assert s.apply(Action.parse("定缺筒").id, 1) == ()
    events = s.apply(Action.parse("定缺万").id, 2)
    assert [(e.seat, e.view("public")["suit"]) for e in events] == [(0, "s"), (1, "p"), (2, "m")]
    assert s.phase == SELF and s.turn == 0 and s.que == [1, 2, 0]
    assert "胡" in names(s)  # the dealer's 123m456m789m234p55p holds no 条


def test_dingque_suit_in_hand_forbids_hu() -> None:
    s = deal("123m456m789m234p55p", "1359m2468s13469p", "2469m13678s2479p", dingque=True)
    for seat, word in ((0, "定缺万"), (1, "定缺万"), (2, "定缺条")):
        act(s, word, seat)
    assert "胡" not in names(s)
    with pytest.raises(IllegalAction, match="定缺"):
        s.verify(Action.parse("胡").id)


E12_QUE = TABLES["E12"].replace("56s\n", "56s que:m\n")


@pytest.mark.parametrize(
    ("table", "options", "net"),
    [
        pytest.param(
            TABLES["E12"]
            .replace("22s56s", "22s56s que:m")
            .replace("2469s", "2469s que:s")
            .replace("12579p", "12579p que:m"),
            {"dingque": True, "chaque": "per_tile", "chaque_amount": 1},
            (56, -28, -28),
            id="chaque-per-tile",
        ),
        pytest.param(
            TABLES["E12"].replace("22s56s", "22s56s que:s"),
            {"dingque": True},
            (40, 20, -60),
            id="que-suit-in-hand-is-not-jiao",
        ),
    ],
)
def test_dingque_settlement(table: str, options: dict[str, object], net: tuple[int, ...]) -> None:
    parsed = parse_table(table)
    assert parse_table(str(parsed)) == parsed
    assert settle(parsed, get_rules("sandingguai", **options)).net == net


PB_S0 = "123m456m789m234p5p9s"
PB_S1 = "123s456s78s99p567p"
PB_S2 = "2469m13678s2479p"


@pytest.mark.parametrize(("option", "offered"), [(True, True), (False, False)])
def test_passport_from_baoting_discarder(option: bool, offered: bool) -> None:
    s = deal(PB_S0, PB_S1, PB_S2, passport_from_baoting_discarder=option)
    act(s, "报听9s")
    assert ("胡" in names(s, 1)) is offered


def test_passport_none_and_kong_only() -> None:
    s = deal(PB_S0, PB_S1, PB_S2, passport="none")
    act(s, "出9s")
    assert "胡" in names(s, 1)
    s = deal(PB_S0, PB_S1, PB_S2, passport="kong_only")
    act(s, "出9s")
    assert s.phase == 0 and s.turn == 1  # no window at all


def test_pass_lock_any_face() -> None:
    s = deal(
        "13579m12345678s5p", "123456789m99s68p", "234p567p999p34p11p", head="2p", pass_lock="any"
    )
    act(s, "出5p")
    act(s, "过", 2)
    act(s, "出2p")
    assert s.turn == 2 and s.phase == 0  # locked on every face until seat 2 draws


def test_baoting_window_dealt_hand() -> None:
    s1 = "123m456m789m234p5p"
    s = deal("1359m2468s13469p9s", s1, "2469m13678s2479p", head="9s", baoting_window="dealt_hand")
    act(s, "出9s")  # the dealer's 9s: nobody claims
    assert "报听9s" in names(s)  # seat 1 discards the tile it drew: its dealt 13 are 叫
    assert "报听5p" not in names(s)


def test_tianhu_option() -> None:
    s = deal("123m456m789m234p55p", "1359m2468s13469p", "2469m13678s2479p", fan_tianhu=20)
    act(s, "胡")
    assert s.result is not None and s.result.table.winners[0].early
    won = [e for e in s.events if e.kind == "win"]
    assert won and won[0].fan == 20  # type: ignore[attr-defined]  # 平胡 0 + 天胡 20


def test_chongfeng_per_kind() -> None:
    for per_kind, count in ((False, 1), (True, 2)):
        s = deal(
            "1s8p1m3m5m7m9m2s4s6s9s2p4p6p",
            "2m4m6m8m3s5s7s8s1p3p5p7p9p",
            "1m3m5m7m9m2s4s6s9s2p4p6p3p",
            chongfeng_per_kind=per_kind,
        )
        act(s, "出1s")
        act(s, str(names(s)[0]))
        act(s, str(names(s)[0]))
        act(s, "出8p")
        assert len(s.firsts) == count


def test_two_room_deck_72_tiles() -> None:
    rules = get_rules(tiles=72)
    rng = random.Random(2)
    for seed in range(20):
        state = State(rules, seed)
        assert state.wall_left == 72 - 40
        while not state.is_terminal():
            assert state.tile_count() == 72
            assert not any(state.hands[s][k] for s in range(3) for k in range(9))
            state.apply(policy(state, rng))
        assert state.result is not None and sum(state.result.net) == 0


def test_first_dealer_random() -> None:
    dealers = {Match(get_rules(first_dealer="random"), seed).dealer for seed in range(20)}
    assert dealers == {0, 1, 2}


def test_yuanque() -> None:
    e13 = TABLES["E13"].replace("s1 hand:222m888m777m99m55p", "s1 yuanque hand:222m888m777m99m55p")
    table = parse_table(e13)
    assert table.seats[1].yuanque and parse_table(str(table)) == table
    rules = get_rules(dingque=True, yuanque=2)
    assert settle(table, rules).net == (-34, 10, 24)  # s2 (叫, dealt all suits) pays s1 2
    with pytest.raises(RuleConfigError, match="yuanque"):
        get_rules(yuanque=2)
    s = deal("13579m12345678s5p", "123456789m99s68p", "234p567p999p34p11p", dingque=True)
    for seat in range(3):
        act(s, "定缺万", seat)
    assert [seat.yuanque for seat in s.table().seats] == [False, False, True]  # s2: only 筒
