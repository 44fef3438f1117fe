"""Settlement of 三丁拐 hands: every worked example of SANDINGGUAI §12.3, with its items."""

from __future__ import annotations

import pytest

from weimaque.games.sandingguai.notation import parse_table
from weimaque.games.sandingguai.rules import get_rules
from weimaque.games.sandingguai.settle import chahu_transfers, chicken_values, settle

E2 = """flip:6p
s0 hand:13469m2469s3459p
s1 hand:12689m4569s2356p
s2 hand:555m777m22s99s peng:333s@1 win:2s@0"""
E9 = """flip:5m first:1s@2
s0 hand:88p123s45s peng:666p@1 angang:7777s
s1 hand:345m678m123p78p99m win:6p@0 way:qianggang
s2 hand:12349m3568s2459p discards:1s"""

# (id, table, options, NET, items as "payer>payee amount reason" where §12.3 lists them)
EXAMPLES: list[tuple[str, str, dict[str, object], tuple[int, int, int], list[str]]] = [
    (
        "E1-pinghu-dianpao-diangang-passport",
        """flip:4m
        s0 hand:13469m2469s3569p discards:7s2m
        s1 hand:234m678m23p99p gang:7777p@2 win:4p@2
        s2 hand:2368m2357s12469p""",
        {},
        (0, 2, -2),
        ["2>1 1 hu", "2>1 1 gang_dian"],
    ),
    ("E2-daduizi-dianpao-by-dealer", E2, {}, (-10, 0, 10), ["0>2 10 hu"]),
    ("E2-dealer-stake-none", E2, {"dealer_stake": "none"}, (-5, 0, 5), ["0>2 5 hu"]),
    (
        "E3-qidui-zimo",
        """flip:8m
        s0 hand:24678m2469s3459p
        s1 hand:1122m3355m6677p9p win:9p
        s2 hand:4678m34589s2345p""",
        {},
        (-22, 33, -11),
        ["0>1 22 hu", "2>1 11 hu"],
    ),
    (
        "E4-qing-longqidui-to-dealer",
        """flip:2s
        s0 hand:2222m3m44m66m77m99m win:3m@1
        s1 hand:13558m2469s3569p
        s2 hand:13568m2479s2469p""",
        {},
        (60, -60, 0),
        ["1>0 60 hu"],
    ),
    (
        "E5-qingyise-baoting-zimo",
        """flip:3m
        s0 hand:14689m2469s3569p
        s1 hand:25679m3579s2469p
        s2 hand:23p456p777p99p567p win:4p baoting""",
        {},
        (-42, -21, 63),
        ["0>2 42 hu", "1>2 21 hu"],
    ),
    (
        "E6-chickens-fanpai-chongfeng-angang",
        """flip:4m first:1s@2
        s0 hand:123p456p789p55m34m discards:1s9s
        s1 hand:11s345m678m78m angang:2222m win:9m@2
        s2 hand:1367m2479s13469p discards:1s5s""",
        {},
        (10, 10, -20),
        [
            "2>1 1 hu",
            "0>1 4 gang_an",
            "2>1 2 gang_an",
            "1>0 8 ji",
            "2>0 8 ji",
            "0>1 6 ji",
            "2>1 3 ji",
            "2>0 4 baoji",
            "2>1 2 baoji",
        ],
    ),
    (
        "E7-zerenji",
        """flip:2p first:1s@0>peng@2
        s0 hand:2357m2456s14679p
        s1 hand:444m666m999p333p2p win:2p
        s2 hand:234s567s88m99s peng:111s@0""",
        {},
        (-28, 24, 4),
        ["0>1 12 hu", "2>1 6 hu", "0>1 6 ji", "2>1 3 ji", "0>2 6 ji", "1>2 3 ji", "0>2 4 zeren"],
    ),
    (
        "E8-jinji-chongfeng-kept-baoji",
        """flip:9s first:1s@1
        s0 hand:1569m2346s34679p discards:1s
        s1 hand:234m456m789m33m67m discards:1s2p
        s2 hand:11s555s666s222m88m win:8m@0""",
        {},
        (-34, 12, 22),
        ["0>2 10 hu", "0>1 8 ji", "2>1 4 ji", "0>2 8 ji", "1>2 4 ji", "0>1 4 baoji", "0>2 4 baoji"],
    ),
    (
        "E9-qianggang",
        E9,
        {},
        (12, 6, -18),
        [
            "0>1 8 hu",
            "1>0 4 gang_an",
            "2>0 4 gang_an",
            "1>0 6 ji",
            "2>0 6 ji",
            "0>1 4 ji",
            "2>1 2 ji",
            "2>0 4 baoji",
            "2>1 2 baoji",
        ],
    ),
    ("E9-qianggang-burn-all", E9, {"qianggang_burn": "all"}, (-12, 16, -4), []),
    (
        "E10-repao",
        """flip:6m repao:bugang
        s0 hand:1459m2469s13469p
        s1 hand:12m345p567p234p99p win:3m@2 way:repao
        s2 hand:11s234s678m99m bugang:5555s""",
        {},
        (0, 3, -3),
        ["2>1 1 hu", "2>1 2 repao_kong"],
    ),
    (
        "E11-qing-daduizi-shabao",
        """flip:1m
        s0 hand:1689m2569s13669p
        s1 hand:345m345m678s99s23s baoting discards:7m
        s2 hand:222p444p555p77p99p win:7p@1""",
        {},
        (0, -25, 25),
        ["1>2 15 hu", "1>2 10 shabao"],
    ),
    (
        "E12-huang-chajiao-three-suits",
        """end:huang
        s0 hand:234s456s789s22s56s
        s1 hand:13579m2468m2469s
        s2 hand:1357m3468s12579p""",
        {},
        (80, 0, -80),
        ["1>0 20 chajiao", "2>0 20 chajiao", "2>0 40 sanse", "2>1 20 sanse"],
    ),
    (
        "E13-yipao-shuangxiang",
        """flip:3m
        s0 hand:2569m2469s12369p
        s1 hand:222m888m777m99m55p win:5p@0
        s2 hand:11m33m44m66p77p99p5p win:5p@0""",
        {},
        (-34, 8, 26),
        ["0>1 10 hu", "0>2 20 hu", "0>2 4 ji", "1>2 2 ji"],
    ),
    (
        "E14-kong-money",
        """flip:1s
        s0 hand:234m567m44m67p bugang:9999p
        s1 hand:456m789m23p11p angang:1111m win:4p
        s2 hand:2368m3478p69s gang:5555s@1""",
        {},
        (-4, 10, -6),
        [
            "0>1 4 hu",
            "2>1 2 hu",
            "1>0 2 gang_bu",
            "2>0 2 gang_bu",
            "0>1 4 gang_an",
            "2>1 2 gang_an",
        ],
    ),
    ("E15-dealer-streak", "streak:2 " + E2, {}, (-15, 0, 15), ["0>2 15 hu"]),
    (
        "E16-gangshanghua-after-diangang",
        """flip:7m
        s0 hand:1359m2468s13469p
        s1 hand:24689m1357s2579p
        s2 hand:234m567m44m45s gang:9999s@1 win:6s way:gangshanghua""",
        {},
        (-4, -3, 7),
        ["0>2 4 hu", "1>2 2 hu", "1>2 1 gang_dian"],
    ),
]


@pytest.mark.parametrize(
    ("table", "options", "net", "items"),
    [pytest.param(t, o, n, i, id=e) for e, t, o, n, i in EXAMPLES],
)
def test_worked_example(
    table: str, options: dict[str, object], net: tuple[int, int, int], items: list[str]
) -> None:
    result = settle(parse_table(table), get_rules("sandingguai", **options))
    assert result.net == net
    assert sum(result.net) == 0
    got = sorted(f"{t.payer}>{t.payee} {t.amount} {t.reason}" for t in result.transfers)
    if items:
        assert got == sorted(items)


def test_next_dealer() -> None:
    e13 = settle(parse_table(EXAMPLES[-4][1]))
    assert (e13.next_dealer, e13.next_streak) == (1, 1)  # nearest the dealer in turn order
    e4 = settle(parse_table(EXAMPLES[4][1]))
    assert (e4.next_dealer, e4.next_streak) == (0, 2)  # the dealer won: k + 1
    huang = settle(parse_table("streak:3 " + EXAMPLES[-5][1]))
    assert (huang.next_dealer, huang.next_streak) == (0, 3)  # 荒庄: the dealer keeps k
    rot = settle(parse_table(E2), get_rules(dealer_rotation="next_seat"))
    assert rot.next_dealer == 1


def test_chicken_values() -> None:
    v = chicken_values(get_rules(), 8 + 9)  # flip 9s: f = 1s, 金鸡
    assert v[9] == 2 and v[25] == 1
    both = chicken_values(get_rules(fanji="both", shuzi_ji=True), 4)  # flip 5m: 6m and 4m
    assert both[5] == 6 and both[3] == 4
    assert chicken_values(get_rules(wugu=False), None)[25] == 0


def test_chahu_referee() -> None:
    assert [(t.payer, t.payee, t.amount) for t in chahu_transfers(1)] == [(1, 0, 20), (1, 2, 20)]
