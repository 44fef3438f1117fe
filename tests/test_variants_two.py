"""Two players (RULES §2.5, RULES-VARIANTS V1): the deal, the turn flow with two seats, 过张 under
both settings of ``chi_opponent_discard``, the settlement, and the worked vectors of V1."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from weimaque.errors import IllegalAction, RecordError, RuleConfigError
from weimaque.games import TableShape, get_game
from weimaque.games.maque import GAME as MAQUE
from weimaque.games.maque.bots import get_bot
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.determinize import Knowledge
from weimaque.games.maque.cards import faces_str, sorted_deck
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.game.events import Drew, Released
from weimaque.games.maque.game.invariants import check_end, check_step
from weimaque.games.maque.game.observation import OBS_SIZE, observation, observation_array
from weimaque.games.maque.game.record import hand_record, replay
from weimaque.games.maque.game.state import HU, PASS, PENG, GameState, HandResult
from weimaque.games.maque.match import Match, replay_match, settle
from weimaque.games.maque.notation import parse_cards
from weimaque.games.maque.rules import get_rules, list_rules, rules_with
from weimaque.games.maque.rules.config import RuleConfig
from weimaque.games.maque.scoring import score

TWO = rules_with("anxiang", {"players": 2})
TWO_41 = rules_with("anxiang", {"players": 2, "maipai": False})
TWO_OFF = rules_with("anxiang", {"players": 2, "chi_opponent_discard": False})
ALL_TWO = (TWO, TWO_41, TWO_OFF)


def cards(text: str) -> list[int]:
    return parse_cards(text) if text else []


# ----------------------------------------------------------------------------- options


def test_s2_5_options_and_their_defaults() -> None:
    """RULES §2.5, §2a: players 2..3 (3), maipai and chi_opponent_discard (true), which keep their
    defaults with three players; a 守醒 sits only at a three-player table (§2.5.8)."""
    default = RuleConfig()
    assert (default.players, default.maipai, default.chi_opponent_discard) == (3, True, True)
    with pytest.raises(RuleConfigError, match="players"):
        rules_with("anxiang", {"players": 4})
    with pytest.raises(RuleConfigError, match="maipai"):
        rules_with("anxiang", {"maipai": False})
    with pytest.raises(RuleConfigError, match="chi_opponent_discard"):
        rules_with("anxiang", {"chi_opponent_discard": False})
    with pytest.raises(RuleConfigError, match="守醒"):
        rules_with("anxiang", {"players": 2, "shouxing": True})
    # RULES-VARIANTS V1: no two-player preset; the seam's two-player variants are presets with
    # ``players = 2``.
    assert "anxiang-2p" not in {r.id for r in list_rules(app=True)}
    with pytest.raises(RuleConfigError, match="anxiang-2p"):
        get_rules("anxiang-2p")
    two = MAQUE.rules("anxiang-2p")
    assert two.players == 2 and two.patterns == get_rules("anxiang").patterns
    assert MAQUE.rules("quanmingtang-2p").patterns == get_rules("quanmingtang").patterns


# ----------------------------------------------------------------------------- V1 deal vectors


@pytest.mark.parametrize("dealer", [0, 1])
def test_v1_deal_seed_1(dealer: int) -> None:
    """RULES §2.5.2, V1 'Deal, seed 1': the dealer 20, the other 19, stock 22, 19 buried."""
    state = GameState.new(TWO, 1, dealer)
    dealer_hand = "一一一五五六七七七九九十十十壹贰伍伍柒玖"
    other_hand = "三三三四四六六八八九叁肆肆伍陆陆柒捌拾"
    assert faces_str(state.initial_hands[dealer]) == dealer_hand
    assert faces_str(state.initial_hands[1 - dealer]) == other_hand
    assert faces_str(state.stock) == "柒二三一贰八十捌七二叁五拾拾壹玖捌拾肆六贰五"
    assert faces_str(state.buried) == "二二四四八九壹壹贰叁叁肆伍陆陆柒捌玖玖"


def test_v1_deal_seed_1_with_a_41_card_stock() -> None:
    """RULES §2.5.2: ``maipai`` off, the 19 cards of the third hand follow the 22 in deal order."""
    state = GameState.new(TWO_41, 1, 0)
    assert len(state.stock) == 41 and state.buried == ()
    assert faces_str(state.stock[:22]) == "柒二三一贰八十捌七二叁五拾拾壹玖捌拾肆六贰五"
    assert faces_str(state.stock[22:]) == "壹陆二贰伍捌八肆壹九柒二叁玖叁四陆四玖"


def test_v1_deal_seed_7_and_the_three_player_deal() -> None:
    """V1: seed 7, dealer 0; the 3-player deal of the same seed gives seats 0 and 1 the same
    hands, and with seat 1 dealing the 2-player seat 0 holds the 3-player seat 2's hand."""
    state = GameState.new(TWO, 7, 0)
    assert faces_str(state.initial_hands[0]) == "一二三三四四四六六九十壹肆伍柒柒柒捌玖拾"
    assert faces_str(state.initial_hands[1]) == "一二二二五七九壹贰叁叁肆肆伍伍陆捌捌玖"
    assert faces_str(state.stock) == "柒一壹八拾陆八十五叁七陆九陆玖十六玖三四八六"
    assert faces_str(state.buried) == "一三五五七七八九十壹贰贰贰叁肆伍捌拾拾"
    three = GameState.new("anxiang", 7, 0)
    assert state.initial_hands == three.initial_hands[:2]
    two_1, three_1 = GameState.new(TWO, 7, 1), GameState.new("anxiang", 7, 1)
    assert two_1.initial_hands[0] == three_1.initial_hands[2]
    assert two_1.initial_hands[1] == three_1.initial_hands[1]


def test_s2_5_2_the_three_player_deal_is_unchanged() -> None:
    """RULES §2.2: three players deal as always (no buried pile, 22 stock)."""
    state = GameState.new("anxiang", 7, 2)
    assert state.n == 3 and state.buried == () and len(state.stock) == 22
    assert [len(h) for h in state.initial_hands] == [19, 19, 20]


# ----------------------------------------------------------------------------- stacked deals


def _runs_with(x: int) -> list[tuple[int, int, int]]:
    """Each run holding face ``x`` (one case, RULES §1.2)."""
    return [(r, r + 1, r + 2) for r in range(x - 2, x + 1) if r >= 0 and r // 10 == (r + 2) // 10]


def _harmless(held: Counter[int], f: int, moving: set[int], most: int) -> bool:
    """Whether a fill card ``f`` may join a hand holding ``held``: no card the scenario moves
    (its named cards) could then be 碰'd, 偎'd or 吃'd by means of the fill card, and the fill
    makes no run (and no triple while pairs will do), so it makes no win the scenario does not
    name."""
    if f in moving or held[f] >= most:
        return False
    if any(all(held[g] for g in run if g != f) for run in _runs_with(f)):
        return False
    for x in moving:
        for run in _runs_with(x):
            if f in run and any(held[g] for g in run if g not in (x, f)):
                return False
    return True


def stacked(
    rules: RuleConfig, seat0: str, seat1: str, stock_head: str, dealer: int = 0
) -> GameState:
    """A deal with the named cards placed (V1 'Play scenarios'): seat 0's and seat 1's named
    cards, the stock starting with ``stock_head``; the rest filled, the hands with cards that
    give no claim on a named card (:func:`_harmless`), the stock and the buried pile with what is
    left."""
    named0, named1, head = cards(seat0), cards(seat1), cards(stock_head)
    left = Counter(sorted_deck())
    left.subtract(Counter(named0 + named1 + head))
    assert min(left.values()) >= 0
    moving = set(named0 + named1 + head)
    pool = sorted(left.elements())
    sizes = [20 if s == dealer else 19 for s in (0, 1)]
    hands = [list(named0), list(named1)]
    for s in (0, 1):
        held: Counter[int] = Counter(hands[s])
        for most in (2, 3):
            i = 0
            while len(hands[s]) < sizes[s] and i < len(pool):
                f = pool[i]
                if _harmless(held, f, moving, most):
                    hands[s].append(f)
                    held[f] += 1
                    pool.pop(i)
                else:
                    i += 1
        assert len(hands[s]) == sizes[s], "no fill fits the scenario"
    stock_size = 22 if rules.maipai else 41
    stock = head + pool[: stock_size - len(head)]
    buried = pool[stock_size - len(head) :]
    return GameState(rules, hands, stock, dealer, None, buried)


def pending(state: GameState) -> dict[int, list[Action]]:
    """Each seat still to decide with its options, in asking order (V1's 'pending')."""
    if state.phase == "discard":
        return {state.turn: state.legal_actions(state.turn)}
    w = state.window
    assert w is not None
    return {s: list(o) for s, o in w.options.items() if s not in w.responses}


CHI_SI = Action.chi(cards("四")[0])


def discard(state: GameState, seat: int, face: str) -> None:
    state.apply(seat, Action.discard(cards(face)[0]))


# ----------------------------------------------------------------------------- V1 scenarios


def test_v1_s2_1_chi_of_a_discard_on() -> None:
    """RULES §2.5.3(1): the opponent may 吃 a discard when ``chi_opponent_discard`` is on."""
    state = stacked(TWO, "五", "四六玖玖", "玖")
    discard(state, 0, "五")
    assert pending(state) == {1: [CHI_SI, PASS]}


def test_v1_s2_1_chi_of_a_discard_off() -> None:
    """RULES §2.5.3(1): off, nobody is offered the discard; seat 1 draws 玖, 偎s and discards."""
    state = stacked(TWO_OFF, "五", "四六玖玖", "玖")
    discard(state, 0, "五")
    assert state.phase == "discard" and state.turn == 1
    assert [m.kind for m in state.melds[1]] == ["wei"]


def test_s2_5_3_a_discard_window_offers_no_chi_when_off() -> None:
    """RULES §2.5.3(1): where the opponent may 碰 a discard, off, he may not 吃 it (the engine
    says so, quoting the rule); on, both are offered (``holder_may_not_chi`` off here)."""
    opts: dict[str, object] = {"players": 2, "holder_may_not_chi": False}
    on = stacked(rules_with("anxiang", opts), "五", "四五五六", "玖")
    discard(on, 0, "五")
    assert pending(on) == {1: [PENG, CHI_SI, PASS]}
    off = stacked(
        rules_with("anxiang", {**opts, "chi_opponent_discard": False}), "五", "四五五六", "玖"
    )
    discard(off, 0, "五")
    assert pending(off) == {1: [PENG, PASS]}
    with pytest.raises(IllegalAction, match=r"RULES §2\.5\.3"):
        off.apply(1, CHI_SI)


@pytest.mark.parametrize("rules", [TWO, TWO_OFF], ids=["on", "off"])
def test_v1_s2_2_chi_of_a_release_both_settings(rules: RuleConfig) -> None:
    """RULES §2.5.3(2): a released draw may be 吃'd whatever ``chi_opponent_discard`` says."""
    state = stacked(rules, "九四六", "", "五")
    discard(state, 0, "九")
    assert Released(1, cards("五")[0]) in state.events
    assert pending(state) == {0: [CHI_SI, PASS]}


def test_v1_s2_3_guozhang_on() -> None:
    """RULES §2.5.4(2), on: the opponent's earlier discard of 五 makes it 吃-过张 for seat 1."""
    state = stacked(TWO, "五", "四六玖玖", "壹五玖")
    discard(state, 0, "五")
    assert pending(state) == {1: [CHI_SI, PASS]}
    state.apply(1, PASS)
    # 壹 released by seat 1; seat 0 draws 五 (no 吃 of a face he discarded, §4.6(1)), releases it
    assert Released(0, cards("五")[0]) in state.events
    assert state.phase == "discard" and state.turn == 1  # seat 1 drew 玖 and 偎'd it
    assert [m.kind for m in state.melds[1]] == ["wei"]


def test_v1_s2_3_guozhang_off() -> None:
    """RULES §2.5.4(2), off: only the opponent's releases count, so the released 五 may be 吃'd."""
    state = stacked(TWO_OFF, "五", "四六玖玖", "壹五玖")
    discard(state, 0, "五")
    assert Released(1, cards("壹")[0]) in state.events
    assert Released(0, cards("五")[0]) in state.events
    assert pending(state) == {1: [CHI_SI, PASS]}


WIN_SEAT1 = "二二二七七七一一一壹贰叁叁肆伍捌玖拾五"
WIN_SEAT0 = "柒柒柒拾拾拾壹壹壹一二三八九十肆伍陆五九"


def test_v1_s2_4_hu_order_drawer_first() -> None:
    """RULES §2.5.3(2): the drawer, then the opponent; either win scores 31 (anxiang)."""
    state = stacked(TWO, WIN_SEAT0, WIN_SEAT1, "五")
    discard(state, 0, "九")
    assert pending(state) == {1: [HU, PASS], 0: [HU, PASS]}
    assert state.current_player() == 1
    state.apply(1, PASS)
    assert pending(state) == {0: [HU, PASS]}
    state.apply(0, HU)
    assert state.result is not None and state.result.winner == 0
    assert state.result.source == "other"
    assert state.result.breakdown is not None and state.result.breakdown.total == 31
    assert state.returns() == [31, -31]  # the one loser pays (RULES §2.5.8)


def test_v1_s2_4_the_drawer_wins() -> None:
    state = stacked(TWO, WIN_SEAT0, WIN_SEAT1, "五")
    discard(state, 0, "九")
    state.apply(1, HU)
    state.apply(0, PASS)
    assert state.result is not None and state.result.winner == 1
    assert state.result.source == "self"
    assert state.result.breakdown is not None and state.result.breakdown.total == 31


def test_v1_s2_4_below_qihu_15_nobody_is_offered() -> None:
    """RULES §2.5.5: with min_xi 15 neither 11-息 win is offered and the 五 is released."""
    rules = rules_with("anxiang", {"players": 2, "min_xi": 15})
    state = stacked(rules, WIN_SEAT0, WIN_SEAT1, "五")
    discard(state, 0, "九")
    assert Released(1, cards("五")[0]) in state.events
    assert state.result is None


def test_v1_s2_5_the_drawer_draws_again() -> None:
    """RULES §2.5.3(3): seat 0 碰s seat 1's draw and discards; nobody claims; seat 1 draws."""
    state = stacked(TWO, "九三三", "", "三玖")
    discard(state, 0, "九")
    assert pending(state) == {0: [PENG, PASS]}
    state.apply(0, PENG)
    assert state.phase == "discard" and state.turn == 0
    hand = state.hand_faces(0)
    face = next(f for f in hand if state.can(0, Action.discard(f)) and f not in cards("三九玖"))
    state.apply(0, Action.discard(face))
    for seat in state.to_act() if state.window is not None else ():
        state.apply(seat, PASS)  # nobody claims
    assert Drew(1, cards("玖")[0], False, 20) in state.events


@pytest.mark.parametrize(("rules", "draws"), [(TWO, 22), (TWO_41, 41)], ids=["22", "41"])
def test_v1_s2_6_stock_length(rules: RuleConfig, draws: int) -> None:
    """RULES §2.5.3(5): 22 draws then 臭 with 埋牌, 41 without; the buried cards are never drawn."""
    for seed in range(4):
        state = GameState.new(rules, seed, seed % 2)
        while not state.is_terminal():
            seat = state.to_act()[0]
            legal = state.legal_actions(seat)
            state.apply(seat, PASS if PASS in legal else legal[0])
        assert state.result is not None and state.result.chou
        assert sum(isinstance(e, Drew) for e in state.events) == draws


# ----------------------------------------------------------------------------- V1 settlement

WIN_242 = "偎:十十十 手:八九十七 碰:贰贰贰 碰:柒柒柒 碰:二二二 碰:拾拾拾 胡:七 --from other"


def finish_with(match: Match, result: HandResult) -> None:
    """Deal the match's next hand and book ``result`` for it (the ledger is under test)."""
    state = match.start_hand()
    state.result = result
    state.phase = "over"
    match.finish_hand()


def test_v1_settlement_two_players() -> None:
    """RULES §2.5.8, V1 'Settlement': the one loser pays 242; with 逗溜子 20/10 on 臭 (V4), hand
    1 臭, hand 2 seat 1 wins: the ledger −262 / +262, pool 0."""
    b = score(WIN_242, "anxiang")
    assert b.total == 242 and b.hard_xi == 22
    s = settle(HandResult(1, b), dealer=0, pool=0, rules=TWO)
    assert s.seats == (-242, 242) and s.next_dealer == 1
    rules = rules_with(
        "anxiang",
        {
            "players": 2,
            "liuzi": True,
            "liuzi_dealer": 20,
            "liuzi_other": 10,
            "deng_value": 80,
            "liuzi_when": "chou",
            "match_hands": 2,
        },
    )
    match = Match.new(rules, 3)
    finish_with(match, HandResult(None, None))
    assert match.scores == [-20, -10] and match.pool == 30 and match.dealer == 1
    finish_with(match, HandResult(1, b))
    assert match.settlements[-1].seats == (-242, 272)
    assert match.ledger() == {"seats": [-262, 262], "shouxing": 0, "pool": 0}


def test_s2_5_8_an_odd_pool_unit_goes_to_the_next_dealer() -> None:
    """RULES §2.5.8, §8.5.4: the end share divides by 2, an odd unit to the next dealer."""
    rules = rules_with(
        "anxiang",
        {"players": 2, "liuzi": True, "liuzi_dealer": 2, "liuzi_other": 1, "match_hands": 1},
    )
    match = Match.new(rules, 3)
    finish_with(match, HandResult(None, None))  # stakes 2 + 1 = 3; 臭: seat 1 deals next
    assert match.final_share == (1, 2)
    assert sum(match.scores) + match.pool == 0


# ----------------------------------------------------------------------------- play, records, views


def play(state: GameState, rng: random.Random, check: bool = True) -> None:
    while not state.is_terminal():
        if check:
            assert check_step(state) == []
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**63 - 1),
    dealer=st.integers(0, 1),
    which=st.integers(0, 2),
    rng_seed=st.integers(0, 2**32),
)
def test_two_player_hands_keep_the_invariants(
    seed: int, dealer: int, which: int, rng_seed: int
) -> None:
    """RULES §2.5.9: between turns each seat holds 19 (hand + melds, +1 per 死手 skip); the 80
    cards are hands + melds + rows + table card + stock + buried; windows keyed in asking order
    (the opponent asked once); the record replays; the views hide the buried cards."""
    rules = ALL_TWO[which]
    state = GameState.new(rules, seed, dealer)
    assert len(state.buried) == (19 if rules.maipai else 0)
    assert len(state.stock) == (22 if rules.maipai else 41)
    rng = random.Random(rng_seed)
    while not state.is_terminal():
        assert check_step(state) == []
        w = state.window
        if w is not None:
            assert len(w.options) <= 2
            if w.origin in ("discard", "release"):
                assert set(w.options) == {1 - w.from_seat}  # only the opponent is asked
        for viewer in (0, 1, "public"):
            doc = observation(state, viewer)
            assert "buried" not in str(doc.keys())
            assert len(doc["hand_sizes"]) == 2
        seat = rng.choice(state.to_act())
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    assert check_end(state) == []
    assert sum(state.returns()) == 0


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), rng_seed=st.integers(0, 2**32))
def test_guozhang_under_both_settings(seed: int, rng_seed: int) -> None:
    """RULES §2.5.4: every 吃 offered follows the rule of its setting: never a face the seat threw;
    never a face the opponent threw before (on) or released before (off); off, never a discard."""
    for rules in (TWO, TWO_OFF):
        state = GameState.new(rules, seed, seed % 2)
        rng = random.Random(rng_seed)
        while not state.is_terminal():
            w = state.window
            if w is not None:
                for seat, opts in w.options.items():
                    if any(a.kind == "chi" for a in opts):
                        opp = 1 - seat
                        assert w.card not in state.thrown[seat]
                        earlier = (
                            state.thrown[opp] if rules.chi_opponent_discard else state.released[opp]
                        )
                        assert w.card not in earlier
                        if not rules.chi_opponent_discard:
                            assert w.origin != "discard"
            seat = rng.choice(state.to_act())
            state.apply(seat, rng.choice(state.legal_actions(seat)))


def test_two_player_records_say_their_players_and_replay() -> None:
    """A record says its player count (absent: three, every record before); an explicit deal keeps
    the buried cards; a record whose count contradicts its rules is refused, quoted."""
    state = GameState.new(TWO, 11, 1)
    play(state, random.Random(2))
    record = hand_record(state)
    assert record["players"] == 2 and record["overrides"] == {"players": 2}
    assert replay(record).events == state.events
    three = GameState.new("anxiang", 11, 1)
    assert "players" not in hand_record(three)
    explicit = stacked(TWO, "五", "四六玖玖", "玖")
    play(explicit, random.Random(3))
    doc = hand_record(explicit)
    assert len(parse_cards(doc["deal"]["buried"])) == 19
    assert replay(doc).events == explicit.events
    bad = dict(record, players=3)
    with pytest.raises(RecordError, match="players"):
        replay(bad)
    with pytest.raises(RecordError, match="players must be 2 or 3"):
        replay(dict(record, players=5))


def test_two_player_match_records_replay() -> None:
    rules = rules_with("anxiang", {"players": 2, "match_hands": 3, "liuzi": True})
    match = Match.new(rules, 9)
    rng = random.Random(9)
    while not match.is_over():
        state = match.start_hand()
        play(state, rng, check=False)
        match.finish_hand()
    doc = match.record()
    assert len(doc["ledger"]["seats"]) == 2
    assert sum(doc["ledger"]["seats"]) + doc["ledger"]["shouxing"] + doc["ledger"]["pool"] == 0
    assert replay_match(doc).ledger() == match.ledger()


def test_observation_array_keeps_one_layout() -> None:
    """The flat array has one size for every table; with two seats the third block is empty and
    the stock counts against the deal's stock (22 or 41)."""
    for rules in (TWO, TWO_41):
        state = GameState.new(rules, 5, 0)
        array = observation_array(state, 1)
        assert array.shape == (OBS_SIZE,)
        assert array[20 + 3 * 20 + 2] == 0  # wei_hidden of relative seat 2
        stock_at = 20 + 3 * 20 + 3 + 3 * 20 + 3
        assert array[stock_at] == 1.0


# ----------------------------------------------------------------------------- bots


@pytest.mark.parametrize("rules", ALL_TWO, ids=["maipai", "stock41", "no-chi-discard"])
def test_bots_play_two_players(rules: RuleConfig) -> None:
    """random, greedy and mcts play two-player hands without error (legal actions only)."""
    bots = {
        "random": get_bot("random"),
        "greedy": get_bot("greedy"),
        "mcts": get_bot("mcts:iters=20"),
    }
    for k, pair in enumerate((("greedy", "random"), ("mcts", "greedy"))):
        state = GameState.new(rules, 40 + k, k % 2)
        rng = random.Random(k)
        while not state.is_terminal():
            seat = state.current_player()
            action = bots[pair[seat]].act(BotView.of(state, seat), rng)
            assert action in state.legal_actions(seat)
            state.apply(seat, action)


def test_greedy_beats_random_at_two_players() -> None:
    """A quick check that greedy's play is sound at two seats: over 40 deals, each dealt twice with
    the bots swapped, greedy ends ahead of random."""
    greedy, rand = get_bot("greedy"), get_bot("random")
    points = 0
    for deal in range(40):
        for greedy_seat in (0, 1):
            state = GameState.new(TWO, 1000 + deal, deal % 2)
            rng = random.Random(deal * 2 + greedy_seat)
            while not state.is_terminal():
                seat = state.current_player()
                bot = greedy if seat == greedy_seat else rand
                state.apply(seat, bot.act(BotView.of(state, seat), rng))
            points += state.returns()[greedy_seat]
    assert points > 0


def test_the_seam_shape_follows_the_rules() -> None:
    """The seam (docs/new-game.md): ``shape`` gives two seats for a two-player rule set, the deal
    sizes and the stock from the rules; the two-player presets are variants of two seats."""
    game = get_game("maque")
    assert game.shape("anxiang") == TableShape(3, (20, 19, 19), 22, 80)
    assert game.shape("anxiang", {"players": 2}) == TableShape(2, (20, 19), 22, 80)
    assert game.shape("anxiang", {"players": 2, "maipai": False}) == TableShape(2, (20, 19), 41, 80)
    assert game.schema.variant("anxiang-2p").shape.seats == 2
    assert game.schema.variant("quanmingtang-2p").shape == TableShape(2, (20, 19), 22, 80)
    hand = game.new_hand("anxiang-2p", {"maipai": False}, seed=3, dealer=1)
    assert [len(parse_cards(h)) for h in hand.deal()["hands"]] == [19, 20]
    assert len(parse_cards(hand.deal()["stock"])) == 41
    assert len(game.layout.pieces) and hand.observation(0).shape == (game.layout.size,)


def test_greedy_knows_the_two_player_claim_order() -> None:
    """Greedy's cost of showing a card (RULES §2.5.3): with ``chi_opponent_discard`` off a
    discard feeds no 吃, a release still does; with two seats every draw is a 吃 source."""
    from weimaque.games.maque.bots.greedy import _Table

    on = _Table(BotView.of(GameState.new(TWO, 21, 0), 0))
    off = _Table(BotView.of(GameState.new(TWO_OFF, 21, 0), 0))
    three = _Table(BotView.of(GameState.new("anxiang", 21, 0), 0))
    assert on.chi_share == 1.0 and three.chi_share == 2 / 3
    assert on.own_share == 1 / 2 and three.own_share == 1 / 3
    fed = [f for f in range(20) if on.feed(f, peng=False) > 0]
    assert fed
    for f in fed:
        assert off.feed(f) < on.feed(f)  # a discard: no 吃 when off
        assert off.feed(f, peng=False) == on.feed(f, peng=False)  # a release: 吃 either way


def test_s2_5_7_deal_patterns_ask_the_dealer_then_the_other() -> None:
    """RULES §2.5.7: where a preset has deal patterns they are asked of the dealer, then the
    other seat (seed 953 deals a 红炸弹 to seat 0 and a 全黑 to seat 1 under quanmingtang-2p)."""
    state = GameState.new(rules_with("quanmingtang", {"players": 2}), 953, 0)
    w = state.window
    assert w is not None and w.origin == "deal"
    assert list(w.options) == [0, 1] and state.current_player() == 0
    assert w.deal_patterns == {0: "hongzhadan", 1: "quanhei"}
    state.apply(0, PASS)
    state.apply(1, HU)
    assert state.result is not None and state.result.deal_pattern == "quanhei"
    assert state.returns()[1] == state.result.breakdown.total  # type: ignore[union-attr]


@pytest.mark.parametrize("rules", ALL_TWO, ids=["maipai", "stock41", "no-chi-discard"])
def test_two_player_determinizations_keep_the_seats_view(rules: RuleConfig) -> None:
    """The search bots' sampled worlds (``weimaque.games.maque.bots.determinize``) at two seats:
    every invariant holds (the buried pile dealt among the unseen cards, RULES §2.5.9), the seat's
    view
    and legal actions are the same, and the engine's checks give the seat's own options."""
    checked = 0
    for seed in range(6):
        state = GameState.new(rules, seed, seed % 2)
        rng = random.Random(seed)
        while not state.is_terminal():
            seat = state.current_player()
            knowledge = Knowledge.of(BotView.of(state, seat))
            world = knowledge.sample(rng)
            assert check_step(world) == []
            assert not knowledge.mismatch
            assert observation(world, seat) == observation(state, seat)
            assert world.legal_actions(seat) == state.legal_actions(seat)
            checked += 1
            legal = state.legal_actions(seat)
            state.apply(seat, next((a for a in legal if a.kind == "hu"), rng.choice(legal)))
    assert checked > 100


def test_a_hand_keeps_to_the_shared_key_attributes() -> None:
    """Seat counts live in one ``Table`` so that every hand, its copies and the search's worlds
    keep at most ``MAX_STATE_ATTRIBUTES`` attributes (more and every attribute read is slower)."""
    from weimaque.games.maque.game.state import MAX_STATE_ATTRIBUTES

    for rules in (get_rules("anxiang"), TWO_OFF):
        state = GameState.new(rules, 3, 0)
        play(state, random.Random(3))
        world = Knowledge.of(BotView.of(GameState.new(rules, 4, 1), 1)).sample(random.Random(1))
        for each in (state, state.copy(), world):
            assert len(vars(each)) <= MAX_STATE_ATTRIBUTES
        assert set(vars(state)) == set(vars(state.copy())) == set(vars(world))
