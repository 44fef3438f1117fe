"""The 三丁拐 calculator (docs/sandingguai.md §12): every hand and table description of
SANDINGGUAI §12 gives its stated figures through ``calculate``, explained."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.sandingguai.test_hands import FAN_VECTORS
from tests.sandingguai.test_settlement import EXAMPLES
from weimaque.errors import InvalidNotation, RuleConfigError
from weimaque.games import BadRequest, Calculator, get_game

TABLES = {e[0].split("-")[0]: e[1] for e in EXAMPLES}


def calc(request: dict[str, Any]) -> dict[str, Any]:
    game = get_game("sandingguai")
    assert isinstance(game, Calculator) and "calculate" in game.info.capabilities
    answer = game.calculate(request)
    # JSON-able as it is: the answer goes over the wire unchanged.
    assert json.loads(json.dumps(answer, ensure_ascii=False)) == answer
    return answer


@pytest.mark.parametrize(
    ("text", "fan", "name"), [pytest.param(t, f, n, id=i) for i, t, f, n in FAN_VECTORS]
)
def test_fan_vectors_explained(text: str, fan: int, name: str) -> None:
    got = calc({"hand": text})
    assert got["win"] and got["fan"] == fan
    assert name in [p["name"]["zh"] for p in got["patterns"]]
    # The pattern values add up to F through the formula (SDG §6.2: the floor of 平胡 is 1).
    assert got["formula"].endswith(f"= {fan}")
    assert max(1, sum(p["fan"] for p in got["patterns"])) == fan
    # The winning hand laid out: 14 tiles (a kong counts as 3) in 4 sets + a pair, or 7 pairs.
    sets = got["sets"]
    size = sum(3 if s["meld"] else len(s["tiles"]) - 1 for s in sets)
    assert size == 14
    pairs = [s for s in sets if s["kind"] == "pair"]
    assert len(pairs) in (1, 7) and len(sets) in (5, 7)


def test_sets_follow_the_reading() -> None:
    dadui = calc({"hand": "111m222m333m555m77m"})  # V6: 清大对, all triplets
    assert sorted((s["kind"], s["tiles"]) for s in dadui["sets"]) == [
        ("kezi", "111m"),
        ("kezi", "222m"),
        ("kezi", "333m"),
        ("kezi", "555m"),
        ("pair", "77m"),
    ]
    long7 = calc({"hand": "1111m22m33p44p55p66p"})  # V4: 1111m is two pairs
    assert [s["tiles"] for s in long7["sets"]].count("11m") == 2
    assert long7["patterns"][0]["name"] == {"zh": "龙七对", "en": "seven pairs with a four"}
    melded = calc({"hand": "hand:234m678m23p99p gang:7777p@2 win:4p --from other"})
    assert [s["tiles"] for s in melded["sets"] if s["win"]] == ["234p"]
    assert melded["sets"][-1] == {
        "kind": "gang",
        "name": {"zh": "明杠", "en": "exposed kong"},
        "tiles": "7777p",
        "from": 2,
        "meld": True,
        "win": False,
    }


def test_v13_and_the_passport() -> None:
    chahu = calc({"hand": "123m456s789p11m234m"})
    assert not chahu["win"] and "叉胡" in chahu["reason"] and not chahu["may_hu"]
    assert calc({"hand": "123m456s789p11m234m", "options": {"max_suits": 3}})["fan"] == 1
    # SDG §12.2 L1: a 平胡 on a discard without a kong has no passport; E1's hand has one.
    no = calc({"hand": "hand:234m555m678m23p99p win:4p --from other"})
    assert no["win"] and no["fan"] == 1 and not no["may_hu"] and "passport" in no["verdict"]
    assert calc({"hand": "hand:234m678m23p99p gang:7777p@2 win:4p --from other"})["may_hu"]
    assert calc({"hand": "hand:234m555m678m23p99p win:4p --from self"})["may_hu"]
    # L2: a big hand needs no kong on a discard (V2 大对子 5, V5 清一色 10).
    for big in ("hand:111m555m7m peng:222p peng:333p win:7m", "hand:123m123m456m789m5m win:5m"):
        got = calc({"hand": f"{big} --from other"})
        assert got["may_hu"] and got["fan"] >= 5
    # L4: with a meld there is no 七对: these pairs win only as 111m 22m 345p 345p and the 碰.
    l4 = calc({"hand": "hand:11m22m33p44p55p peng:666p win:1m"})
    assert [p["key"] for p in l4["patterns"]] == ["pinghu"] and l4["fan"] == 1
    assert not calc({"hand": "hand:11m22m33p44p55p peng:666p win:5p"})["win"]
    # baike-3p takes the highest table value: 清七对 17.
    assert calc({"hand": "11223344556677m", "rules": "baike-3p"})["fan"] == 17


def _items(answer: dict[str, Any]) -> list[str]:
    return sorted(
        f"{t['payer']}>{t['payee']} {t['amount']} {t['reason']}" for t in answer["transfers"]
    )


@pytest.mark.parametrize(
    ("table", "options", "net", "items"),
    [pytest.param(t, o, n, i, id=e) for e, t, o, n, i in EXAMPLES],
)
def test_worked_examples_explained(
    table: str, options: dict[str, object], net: tuple[int, int, int], items: list[str]
) -> None:
    got = calc({"table": table, "options": options})
    assert got["net"] == list(net) and got["sum"] == 0
    if items:
        assert _items(got) == sorted(items)
    # The transfers sum to each seat's net, and to zero.
    seats = [0, 0, 0]
    for t in got["transfers"]:
        seats[t["payer"]] -= t["amount"]
        seats[t["payee"]] += t["amount"]
        # The dealer's stake (SDG §9.5): × (1 + k) between the dealer and another seat.
        touches = got["dealer"]["seat"] in (t["payer"], t["payee"])
        factor = got["dealer"]["factor"] if touches else 1
        if got["dealer"]["stake"] != "add":
            assert t["amount"] == t["base"] * factor
        assert t["reason_name"]["zh"] and t["reason_name"]["en"]
    assert seats == list(net)


def _chickens(answer: dict[str, Any]) -> list[tuple[str, int]]:
    return [(s["chickens"]["role"], s["chickens"]["total"]) for s in answer["seats"]]


def test_chickens_as_the_examples_count_them() -> None:
    # E6: C(s0) = 8p + 5m·2 + discarded 1s = 4, C(s1) = 1s·2 + 5m = 3, 包鸡 B(s2) = 1s + 冲锋 = 2.
    e6 = calc({"table": TABLES["E6"]})
    assert _chickens(e6) == [("collect", 4), ("collect", 3), ("baoji", 2)]
    assert e6["flip"] == {"tile": "4m", "chickens": ["5m"]}
    assert e6["firsts"] == [
        {"tile": "1s", "seat": 2, "claim": None, "claimant": None, "fate": "chongfeng", "extra": 1}
    ]
    s0 = {(ln["where"], ln["tile"]): ln["total"] for ln in e6["seats"][0]["chickens"]["lines"]}
    assert s0 == {("hand", "5m"): 2, ("hand", "8p"): 1, ("discard", "1s"): 1}
    assert [(k["reason"], k["status"], k["payers"]) for k in e6["kongs"]] == [
        ("gang_an", "paid", [0, 2])
    ]
    # E7: 责任鸡 4 = 2 × 1s, × 2 for the dealer; C(s1) = 3p·3, C(s2) = 1s·3 (the 碰).
    e7 = calc({"table": TABLES["E7"]})
    assert _chickens(e7) == [("baoji", 0), ("collect", 3), ("collect", 3)]
    assert e7["firsts"][0]["fate"] == "zeren" and e7["firsts"][0]["zeren"] == 2
    # E8: 金鸡 (flip 9s makes 1s, worth 2); s1 keeps his 冲锋鸡: 2 + 2.
    e8 = calc({"table": TABLES["E8"]})
    assert _chickens(e8) == [("baoji", 2), ("collect", 4), ("collect", 4)]
    gold = next(k for k in e8["chicken_kinds"] if k["tile"] == "1s")
    assert gold["value"] == 2 and gold["why"] == ["yaoji", "jinji"]
    # E9: C(s0) = 8p·2 + 1s = 3, C(s1) = 6m + 8p = 2, B(s2) = 2.
    assert _chickens(calc({"table": TABLES["E9"]})) == [
        ("collect", 3),
        ("collect", 2),
        ("baoji", 2),
    ]
    # E10: the 热炮 discarder is burned: his 补杠 and chickens collect nothing.
    e10 = calc({"table": TABLES["E10"]})
    assert e10["seats"][2]["burned"] and e10["seats"][2]["chickens"]["role"] == "burned"
    assert [k["status"] for k in e10["kongs"]] == ["burned"]
    # E13: C(s2) = 4m·2 = 2; both winners explained.
    e13 = calc({"table": TABLES["E13"]})
    assert _chickens(e13)[2] == ("collect", 2)
    assert [s["winner"]["fan"] for s in e13["seats"][1:]] == [5, 10]
    # E14: s2's 点杠 is not paid, he is not 叫.
    e14 = calc({"table": TABLES["E14"]})
    assert [(k["reason"], k["status"]) for k in e14["kongs"]] == [
        ("gang_bu", "paid"),
        ("gang_an", "paid"),
        ("gang_dian", "not_jiao"),
    ]


def test_huang_chajiao_explained() -> None:
    e12 = calc({"table": TABLES["E12"]})
    assert e12["end"] == "huang" and e12["flip"] is None and e12["chicken_kinds"] == []
    s0 = e12["seats"][0]
    assert s0["jiao"] and s0["jiao_value"] == 10 and {"4", "7"} <= set(s0["waits"][:-1])
    assert not e12["seats"][1]["jiao"] and not e12["seats"][2]["jiao"]
    assert e12["next_dealer"] == {"seat": 0, "streak": 1}


def test_dealer_streak_and_winner_hand() -> None:
    e15 = calc({"table": "streak:2 " + TABLES["E2"]})
    assert e15["dealer"]["factor"] == 3
    assert [(t["base"], t["amount"]) for t in e15["transfers"]] == [(5, 15)]
    winner = e15["seats"][2]["winner"]
    assert winner["fan"] == 5 and winner["from"] == 0 and winner["way"] == "dianpao"
    assert winner["patterns"][0]["key"] == "daduizi"


@pytest.mark.parametrize(
    ("request_", "error", "quote"),
    [
        ({"hand": "123m456m789m234p5x"}, InvalidNotation, "5x"),
        ({"hand": "123m456m789m"}, InvalidNotation, "123m456m789m"),
        ({"table": "flip:4m s0 hand:1m"}, InvalidNotation, "flip:4m"),
        ({"hand": "11223344556677m", "rules": "nope"}, RuleConfigError, "nope"),
        ({"hand": "11223344556677m", "options": {"zimo_bonus": "x"}}, RuleConfigError, "x"),
        ({"hand": 3}, BadRequest, "3"),
        ({"hand": "1m", "table": "1m"}, BadRequest, "hand or table"),
        ({"hand": "1m", "source": "self"}, BadRequest, "source"),
        ({}, BadRequest, "hand or table"),
    ],
)
def test_errors_quote_the_input(request_: dict[str, Any], error: type, quote: str) -> None:
    with pytest.raises(error) as exc:
        calc(request_)
    assert quote in str(exc.value)
