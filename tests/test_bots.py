"""Bots: only legal actions over many seeded hands, and inputs built from the seat's view only."""

from __future__ import annotations

import random

import pytest

from weimaque.games.maque.bots import REGISTRY, BotView, get_bot, history
from weimaque.games.maque.bots.history import Deal, Wei
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
from weimaque.games.maque.game.invariants import check_end
from weimaque.games.maque.game.observation import observation
from weimaque.games.maque.game.state import GameState
from weimaque.games.maque.rules import PRESET_IDS, get_rules
from weimaque.games.maque.rules.registry import rules_with

#: (spec, hands): ≥200 seeded hands for the fast bots, a few for search bots on a tiny budget.
SPECS = [("random", 200), ("greedy", 200), ("policy", 200), ("net", 40)] + (
    [("mcts:iters=20", 6)] if "mcts" in REGISTRY else []
)


def _rules(k: int) -> object:
    """Cycle through every preset, plus 明偎 and the 吃 holder rule off (RULES §4.3, §4.6)."""
    if k % 13 == 11:
        return rules_with("anxiang", {"wei_face_up": True})
    if k % 13 == 12:
        return rules_with("xiaozhuo", {"holder_may_not_chi": False})
    return get_rules(PRESET_IDS[k % len(PRESET_IDS)])


@pytest.mark.parametrize(("spec", "hands"), SPECS)
def test_bot_only_chooses_legal_actions(spec: str, hands: int) -> None:
    decisions = 0
    for k in range(hands):
        seed = 70_000 + k
        # The bot under test sits in one seat, rotating (every 4th hand in all three); random
        # fills the rest.
        seats = [spec if (s + k) % 3 == 0 or k % 4 == 0 else "random" for s in range(3)]
        bots = [get_bot(s) for s in seats]
        rngs = [random.Random(f"{seed}:{s}") for s in range(3)]
        state = GameState.new(_rules(k), seed, dealer=k % 3)  # type: ignore[arg-type]
        while not state.is_terminal():
            seat = state.current_player()
            view = BotView.of(state, seat)
            action = bots[seat].act(view, rngs[seat])
            assert action in view.legal, f"{spec} seed {seed} seat {seat}: {action}"
            state.apply(seat, action)
            decisions += 1
        assert check_end(state) == [], f"seed {seed}"
    assert decisions > hands * 5


def test_every_registered_bot_is_covered() -> None:
    covered = {spec.partition(":")[0] for spec, _ in SPECS}
    assert set(REGISTRY) <= covered | {"mcts"}


def _play(state: GameState, steps: int, rng: random.Random) -> None:
    bot = get_bot("greedy")
    for _ in range(steps):
        if state.is_terminal():
            return
        seat = state.current_player()
        state.apply(seat, bot.act(BotView.of(state, seat), rng))


def test_bot_view_is_the_seat_observation() -> None:
    state = GameState.new("anxiang", 11)
    _play(state, 25, random.Random(1))
    for seat in range(3):
        view = BotView.of(state, seat)
        assert view.obs.to_json() == observation(state, seat)
        assert view.obs.hands is None and "hands" not in view.obs.to_json()
        assert view.legal == tuple(state.legal_actions(seat))
        assert view.hand() == tuple(state.hands[seat])
        for event in view.events:
            if event["type"] == "dealt" and event["seat"] != seat:
                assert "cards" not in event
            if event["type"] in ("wei", "drew") and event["seat"] != seat:
                # another seat's 偎 stays face down (RULES §4.3)
                assert "card" not in event or event["type"] == "drew"
        # the typed history the bots read is the same events, parsed once
        assert len(view.history) == len(view.events)
        for record, event in zip(view.history, view.events, strict=True):
            assert record.kind == event["type"] and record.seat == event["seat"]
            if isinstance(record, Deal) and record.seat != seat:
                assert record.cards is None
            if isinstance(record, Wei) and record.seat != seat:
                assert record.card is None  # RULES §4.3
        for other in range(3):
            if other != seat:
                for meld in view.obs.melds[other]:
                    if meld.face_down:
                        assert meld.faces is None


def _seen(event: Event, seat: int) -> history.Seen | None:
    """What ``seat`` may know of an engine event as a typed record: an independent statement
    of who sees what (RULES §2.2 dealt hands, §4.3 face-down 偎, §3.1.5 a declined 胡)."""
    own = event.seat == seat
    if isinstance(event, Dealt):
        cards = tuple(sorted(event.cards)) if own else None
        return history.Deal(event.seat, event.dealer, len(event.cards), cards)
    if isinstance(event, Drew):
        card = event.card if own or not event.face_down else None
        return history.Draw(event.seat, card, event.stock_left)
    if isinstance(event, Weied):
        return history.Wei(event.seat, event.card if own or event.face_up else None)
    if isinstance(event, Discarded):
        return history.Discard(event.seat, event.card)
    if isinstance(event, Released):
        return history.Release(event.seat, event.card)
    if isinstance(event, Penged):
        return history.Peng(event.seat, event.card, event.from_seat)
    if isinstance(event, Chied):
        return history.Chi(event.seat, event.card, event.run, event.from_seat)
    if isinstance(event, DeadHand):
        return history.Dead(event.seat)
    if isinstance(event, DeclinedHu):
        return history.DeclinedHu(event.seat, event.card) if own else None
    if isinstance(event, Won):
        return history.Win(event.seat, event.card)
    assert isinstance(event, Chou)
    return history.Chou(event.seat)


@pytest.mark.parametrize("options", [{}, {"wei_face_up": True}, {"players": 2}])
def test_typed_history_is_what_the_seat_saw(options: dict[str, object]) -> None:
    """``BotView.history`` holds one record per event the seat sees, each card it may see and
    no other; it is parsed from the same rendering programs are sent (``BotView.events``)."""
    kinds: set[str] = set()
    for seed in range(30):
        state = GameState.new(rules_with("anxiang", options), seed)
        rng = random.Random(seed)
        while True:
            for seat in range(state.n):
                view = BotView.of(state, seat)
                seen = [r for e in state.events if (r := _seen(e, seat)) is not None]
                assert list(view.history) == seen
                assert [r.kind for r in view.history] == [e["type"] for e in view.events]
                kinds.update(r.kind for r in view.history)
            if state.is_terminal():
                break
            seat = state.current_player()
            legal = state.legal_actions(seat)
            # 胡 declined now and then, so that its record is seen too (RULES §3.1.5)
            hu = next((a for a in legal if a.kind == "hu"), None)
            state.apply(seat, hu if hu is not None and rng.random() < 0.7 else rng.choice(legal))
    assert {"dealt", "drew", "wei", "discard", "release", "peng", "chi", "chou"} <= kinds


def _swap_hidden(seed: int) -> tuple[GameState, GameState]:
    """Two deals equal for seat 0: seats 1 and 2 trade a card, the stock's tail is reversed."""
    a = GameState.new("anxiang", seed)
    hands = [a.hand_faces(s) for s in range(3)]
    one = next(f for f in hands[1] if f not in hands[2])
    two = next(f for f in hands[2] if f not in hands[1])
    hands[1][hands[1].index(one)] = two
    hands[2][hands[2].index(two)] = one
    stock = a.stock[:10] + a.stock[10:][::-1]
    return a, GameState("anxiang", hands, stock, dealer=0)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_hidden_cards_do_not_change_what_a_seat_sees_or_does(seed: int) -> None:
    a, b = _swap_hidden(seed)
    for spec in ("greedy", "random"):
        va, vb = BotView.of(a, 0), BotView.of(b, 0)
        assert va == vb
        assert get_bot(spec).act(va, random.Random(5)) == get_bot(spec).act(vb, random.Random(5))


def test_hidden_stock_order_never_reaches_a_view() -> None:
    # Same hands, stock equal up to card 10: every seat's view agrees until that card is drawn.
    a = GameState.new("anxiang", 8)
    b = GameState("anxiang", [a.hand_faces(s) for s in range(3)], a.stock[:10] + a.stock[10:][::-1])
    bot, rng = get_bot("greedy"), random.Random(2)
    while not a.is_terminal() and a.pos < 10:
        for seat in range(3):
            assert BotView.of(a, seat) == BotView.of(b, seat)
        seat = a.current_player()
        action = bot.act(BotView.of(a, seat), rng)
        a.apply(seat, action)
        b.apply(seat, action)


@pytest.mark.parametrize("spec", ["greedy", "policy", "net", "mcts:iters=8"])
def test_thinking_bots_take_every_winning_hu_and_every_forced_move(spec: str) -> None:
    """``BotView.obvious``: the only legal action, or a 胡 (RULES §4.7), taken without thought.

    The hands are played by greedy; the bot under test is asked at every obvious decision."""
    bot, greedy = get_bot(spec), get_bot("greedy")
    wins = forced = 0
    for seed in range(20):
        state = GameState.new("anxiang", seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            seat = state.current_player()
            view = BotView.of(state, seat)
            obvious = view.obvious()
            if any(a.kind == "hu" for a in view.legal):
                assert obvious is not None and obvious.kind == "hu"
                wins += 1
            elif len(view.legal) == 1:
                assert obvious == view.legal[0]
                forced += 1
            else:
                assert obvious is None
            if obvious is not None:
                assert bot.act(view, random.Random(seed)) == obvious
            state.apply(seat, greedy.act(view, rng))
    assert wins > 0 and forced > 0
