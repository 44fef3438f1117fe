"""The engine under the app tiers (RULES §7.4): the facts of a win the cards do not show
(§7.4.4: a 自吃 meld, a dealt 坎 of the winning face, the faces on which a 胡 was declined)
reach the score, and the deal window declares the deal 名堂 of §7.4.1 (§7.4.2 item 9).

Scripted hands show each fact; a property over random hands of each app preset checks that
every win scores exactly as the calculator does for the same cards and facts, the facts read
from the hand's events.
"""

from __future__ import annotations

import random

import pytest

from tests.test_engine_rules import deal, face, kinds, pattern_keys, script
from weimaque import score
from weimaque.games.maque.cards import counts_of
from weimaque.games.maque.game.events import Chied, Dealt, DeclinedHu, Penged, Weied, Won
from weimaque.games.maque.game.state import GameState, TableMeld
from weimaque.games.maque.notation import HandDescription, Meld, parse_cards
from weimaque.games.maque.rules import get_rules
from weimaque.games.maque.scoring.scorer import score_deal, score_position

APP_PRESETS = ("quanmingtang", "zuanshi", "zhizun")


def cards(text: str) -> list[int]:
    return parse_cards(text)


def meld(kind: str, text: str, card: str, from_seat: int) -> TableMeld:
    faces = cards(text)
    return TableMeld(kind, (faces[0], faces[1], faces[2]), face(card), from_seat)  # type: ignore[arg-type]


def test_zichi_meld_rules_out_quanqiuren() -> None:
    """RULES §7.4.1 全求人 / 美女踩单车: a 吃 of one's own draw made in play is a 自吃 meld."""
    rules = get_rules("zuanshi")
    st = GameState.position(
        rules,
        dealer=0,
        hands=[list(counts_of(cards("一六"))), list(counts_of(cards("三四九柒"))), [0] * 20],
        stock=cards("五柒"),
        melds=[
            [],
            [
                meld("peng", "贰贰贰", "贰", 0),
                meld("peng", "拾拾拾", "拾", 2),
                meld("peng", "伍伍伍", "伍", 0),
                meld("chi", "七八九", "七", 0),
                meld("chi", "壹贰叁", "壹", 0),
            ],
            [],
        ],
        rows=[[], [], []],
        thrown=[set(), set(), set()],
        no_discard=[set(), set(), set()],
        peng_guo=[set(), set(), set()],
        dead=[False] * 3,
        skipped=[0] * 3,
        declined=[False] * 3,
        scores=[0] * 3,
        turn=0,
    )
    st.hands[2][face("六")] = 2
    events = script(st, [(0, "出一"), (1, "吃三四五"), (1, "出九")])
    assert ("chi", 1, "五") in kinds(events)
    assert st.melds[1][-1].from_seat == 1  # his own draw
    assert st.legal_actions(1)[0].kind == "hu"
    script(st, [(1, "胡")])
    assert st.result is not None and st.result.breakdown is not None
    keys = pattern_keys(st)
    assert "quanqiuren" not in keys and "meinv" not in keys
    melds = [m.meld() for m in st.melds[1]]
    hand = counts_of(cards("柒"))
    kwargs = {"source": "other", "last": True, "rules": rules}
    assert st.result.breakdown == score_position(melds, hand, face("柒"), zichi=True, **kwargs)  # type: ignore[arg-type]
    # the same cards without the 自吃: 全求人 and 美女踩单车 score
    plain = score_position(melds, hand, face("柒"), **kwargs)  # type: ignore[arg-type]
    assert {"quanqiuren", "meinv"} <= {p.key for p in plain.patterns}


def test_dealt_kan_scores_yuanyuanding() -> None:
    """RULES §7.4.1 圆圆丁: won on another's draw of W into the 麻雀, three of W dealt."""
    st = deal(["九", "", "四四四二三五六壹壹壹贰贰贰叁叁叁伍伍伍"], "四", rules="zuanshi")
    script(st, [(s, "过") for s in sorted(st.window.options if st.window else {})])
    script(st, [(0, "出九")])
    assert st.window is not None and 2 in st.window.options
    script(st, [(s, "过") for s in st.window.options if s != 2] + [(2, "胡")])
    assert st.result is not None and st.result.winner == 2
    assert "yuanyuanding" in pattern_keys(st)
    assert st.result.breakdown is not None
    desc = "手:四四四二三五六壹壹壹贰贰贰叁叁叁伍伍伍 胡:四"
    assert st.result.breakdown == score(desc, "zuanshi", "other", dealt_kan=True)
    assert "yuanyuanding" not in {p.key for p in score(desc, "zuanshi", "other").patterns}


def test_declined_face_scores_zhezhe() -> None:
    """RULES §7.4.1 啫啫胡: a 胡 declined on 四, then won on 四 later in the hand."""
    st = deal(["", "", "壹壹壹贰贰贰叁叁叁伍伍伍陆陆陆捌捌捌四"], "四四", rules="zuanshi")
    script(st, [(s, "过") for s in sorted(st.window.options if st.window else {})])
    script(st, [(0, "出八")])
    events = script(st, [(2, "过"), (1, "过")])
    assert ("declined_hu", 2, "四") in kinds(events)
    assert st.declined_faces[2] == 1 << face("四")
    script(st, [(2, "胡")])
    assert st.result is not None and st.result.winner == 2
    assert "zhezhe" in pattern_keys(st)
    desc = "手:壹壹壹贰贰贰叁叁叁伍伍伍陆陆陆捌捌捌四 胡:四"
    assert st.result.breakdown == score(desc, "zuanshi", "self", declined="四")
    assert "zhezhe" not in {p.key for p in score(desc, "zuanshi", "self").patterns}


def test_deal_window_declares_a_deal_mingtang() -> None:
    """RULES §7.4.2 item 9: a non-dealer dealt no red card may declare 全黑 before the first
    discard; the win is ``score_deal`` of his cards. The seed presets score no 全黑."""
    hand = "一一三三四四五五六六八九壹叁肆伍陆捌玖"
    for preset, offered in (("zuanshi", True), ("xiaomingtang", False)):
        st = deal(["", hand], rules=preset)
        options = st.window.options if st.window is not None else {}
        assert (1 in options) is offered, preset
    st = deal(["", hand], rules="zuanshi")
    assert st.window is not None
    expected = score_deal(counts_of(cards(hand)), rules="zuanshi")
    assert expected.winning and st.window.wins[1] == expected
    assert st.window.deal_patterns == {**(st.window.deal_patterns or {}), 1: "quanhei"}
    events = script(st, [(s, "胡" if s == 1 else "过") for s in st.window.options])
    won = [e for e in events if isinstance(e, Won)]
    assert won and won[0].seat == 1 and won[0].pattern == "quanhei"
    assert st.result is not None and st.result.breakdown == expected


def winner_description(st: GameState) -> tuple[HandDescription, str]:
    """The winner's cards and the facts of RULES §7.4.4, read from the hand's events alone."""
    res = st.result
    assert res is not None and res.winner is not None
    seat = res.winner
    won = next(e for e in st.events if isinstance(e, Won))
    melds: list[Meld] = []
    declined: set[int] = set()
    dealt: tuple[int, ...] = ()
    for e in st.events:
        if isinstance(e, Dealt) and e.seat == seat:
            dealt = e.cards
        elif isinstance(e, DeclinedHu) and e.seat == seat:
            declined.add(e.card)
        elif e.seat != seat:
            continue
        elif isinstance(e, Penged):
            melds.append(Meld("peng", (e.card, e.card, e.card)))
        elif isinstance(e, Weied):
            melds.append(Meld("wei", (e.card, e.card, e.card)))
        elif isinstance(e, Chied):
            run = (e.run, e.run + 1, e.run + 2)
            melds.append(Meld("chi", run, own=e.from_seat == seat))
    hand = list(won.hand)
    assert won.card is not None
    if res.origin == "wei":  # won on the hand before the forced 偎 (RULES §4.3, §6.1)
        melds.pop()
        hand += [won.card, won.card]
    desc = HandDescription(
        tuple(melds),
        tuple(sorted(hand)),
        won.card,
        dealt_kan=dealt.count(won.card) >= 3,
        declined=tuple(sorted(declined)),
    )
    return desc, won.source


def play(st: GameState, rng: random.Random) -> None:
    """Random legal play that claims (碰, 吃) nine times in ten, for more melds and so more
    wins; a 胡 is taken two times in three, so some are declined."""
    while not st.is_terminal():
        seat = st.current_player()
        legal = st.legal_actions(seat)
        if legal[0].kind == "hu":
            action = legal[0] if rng.random() < 0.67 else legal[-1]
        else:
            claims = [a for a in legal if a.kind in ("peng", "chi")]
            action = rng.choice(claims if claims and rng.random() < 0.9 else legal)
        st.apply(seat, action)


@pytest.mark.parametrize("preset", APP_PRESETS)
def test_every_win_scores_as_the_calculator(preset: str) -> None:
    """Property: each win of random hands equals ``weimaque.score`` of the winner's cards with
    the facts read from the events (a deal 名堂: ``score_deal`` of the dealt cards)."""
    rng = random.Random(preset)
    wins = zichi = declined = deal_wins = 0
    for seed in range(1500):
        st = GameState.new(preset, seed=seed, dealer=seed % 3)
        play(st, rng)
        res = st.result
        if res is None or res.winner is None:
            continue
        assert res.breakdown is not None
        wins += 1
        if res.origin == "deal":
            deal_wins += 1
            dealt = st.initial_hands[res.winner]
            assert res.breakdown == score_deal(counts_of(dealt), rules=preset)
            continue
        desc, source = winner_description(st)
        zichi += any(m.own for m in desc.melds)
        declined += bool(desc.declined)
        expected = score(str(desc), preset, source, last=res.haidi)
        assert res.breakdown == expected, (seed, str(desc))
    # the sample holds each kind of fact, so the property is not vacuous
    assert wins - deal_wins > 100 and zichi and declined and deal_wins, (
        wins,
        zichi,
        declined,
        deal_wins,
    )
