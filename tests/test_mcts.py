"""The ``mcts`` bot: determinizations are valid and blind to hidden cards; its choices are legal."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from weimaque.errors import WeimaqueError
from weimaque.games.maque.bots import get_bot
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.determinize import Knowledge, determinize
from weimaque.games.maque.bots.mcts import MctsBot, clone, rollout
from weimaque.games.maque.bots.policy import DISCARD_ACTIONS, policy_claim, policy_discard
from weimaque.games.maque.game.invariants import check_step
from weimaque.games.maque.game.observation import observation
from weimaque.games.maque.game.playout import MAX_STEPS
from weimaque.games.maque.game.state import NUM_SEATS, GameState
from weimaque.games.maque.rules import get_rules, rules_with


def _random_step(state: GameState, rng: random.Random) -> None:
    """Take a 胡 whenever offered, else a uniformly random legal action."""
    seat = state.current_player()
    legal = state.legal_actions(seat)
    state.apply(seat, next((a for a in legal if a.kind == "hu"), None) or rng.choice(legal))


@pytest.mark.parametrize(
    "rules",
    [
        get_rules("anxiang"),
        get_rules("dazhuo"),
        rules_with("anxiang", {"wei_face_up": True}),
        get_rules("zuanshi"),  # the facts of RULES §7.4.4 in the sampled worlds
    ],
    ids=["anxiang", "dazhuo", "wei_face_up", "zuanshi"],
)
def test_determinizations_are_valid_and_keep_the_seats_view(rules: object) -> None:
    checked = 0
    for seed in range(12):
        state = GameState.new(rules, seed, dealer=seed % 3)  # type: ignore[arg-type]
        rng = random.Random(seed)
        while not state.is_terminal():
            seat = state.current_player()
            view = BotView.of(state, seat)
            knowledge = Knowledge.of(view)
            det = knowledge.sample(rng)
            assert check_step(det) == [], f"seed {seed}: {check_step(det)}"
            assert not knowledge.mismatch  # the engine's own checks give the seat's options
            assert observation(det, seat) == observation(state, seat)
            assert det.legal_actions(seat) == state.legal_actions(seat)
            checked += 1
            if checked % 25 == 0:  # the determinized world plays on under every invariant
                while not det.is_terminal():
                    _random_step(det, rng)
                    assert check_step(det) == []
            _random_step(state, rng)
    assert checked > 300


def test_determinizations_differ_only_in_hidden_cards() -> None:
    state = GameState.new("anxiang", 4)
    rng = random.Random(4)
    for _ in range(25):
        _random_step(state, rng)
    seat = state.current_player()
    view = BotView.of(state, seat)
    worlds = [determinize(view, random.Random(k)) for k in range(5)]
    assert all(w.hands[seat] == state.hands[seat] for w in worlds)
    assert all(w.rows == state.rows for w in worlds)
    assert all(w.stock_left == state.stock_left for w in worlds)
    # the hidden cards are dealt afresh each time
    assert len({tuple(map(tuple, w.hands)) + tuple(w.stock) for w in worlds}) > 1


def _rehide(state: GameState, rng: random.Random) -> GameState:
    """The same state with the opponents' concealed cards and the stock dealt anew."""
    other = clone(state)
    other.events = list(state.events)  # the public record is the same
    seat = state.current_player()
    opponents = [s for s in range(NUM_SEATS) if s != seat]
    pool = [f for s in opponents for f in other.hand_faces(s)] + other.stock[other.pos :]
    rng.shuffle(pool)
    for s in opponents:
        size = sum(other.hands[s])
        other.hands[s] = [0] * len(other.hands[s])
        for f in pool[:size]:
            other.hands[s][f] += 1
        pool = pool[size:]
    other.stock = other.stock[: other.pos] + pool
    return other


def test_the_choice_never_depends_on_hidden_cards() -> None:
    compared = 0
    for seed in range(6):
        state = GameState.new("anxiang", seed, dealer=seed % 3)
        rng = random.Random(seed)
        while not state.is_terminal() and compared < 10 * (seed + 1):
            seat = state.current_player()
            if state.phase == "discard" and len(state.legal_actions(seat)) > 1:
                other = _rehide(state, random.Random(seed))
                assert other.hands != state.hands or other.stock != state.stock
                view = BotView.of(state, seat)
                assert BotView.of(other, seat) == view
                bot = MctsBot(ms=None, iters=24)
                a = bot.act(view, random.Random(1))
                b = bot.act(BotView.of(other, seat), random.Random(1))
                assert a == b
                compared += 1
            _random_step(state, rng)
    assert compared >= 10


def _decisions(
    first_seed: int, hands: int
) -> Iterator[tuple[GameState, int, BotView, random.Random]]:
    """Every decision of ``hands`` seeded hands: (state, seat to act, its view, the hand's RNG).

    The caller applies an action to ``state`` before asking for the next one."""
    for seed in range(hands):
        state = GameState.new("anxiang", first_seed + seed, dealer=seed % 3)
        rng = random.Random(seed)
        while not state.is_terminal():
            seat = state.current_player()
            yield state, seat, BotView.of(state, seat), rng


def test_mcts_plays_only_legal_actions() -> None:
    bot = get_bot("mcts:iters=16")
    for state, seat, view, rng in _decisions(100, 5):
        action = bot.act(view, rng)
        assert action in view.legal
        state.apply(seat, action)
        assert check_step(state) == []


def test_mcts_takes_every_win_and_is_deterministic_for_a_seed() -> None:
    offers = 0
    bot = MctsBot(ms=None, iters=12)
    for seed in range(40):
        state = GameState.new("anxiang", seed, dealer=seed % 3)
        rng = random.Random(seed)
        while not state.is_terminal():
            seat = state.current_player()
            view = BotView.of(state, seat)
            if any(a.kind == "hu" for a in view.legal):
                assert bot.act(view, random.Random(0)).kind == "hu"  # RULES §4.7
                offers += 1
            _random_step(state, rng)
        if offers >= 3:
            break
    assert offers >= 1
    state = GameState.new("anxiang", 9)
    view = BotView.of(state, state.current_player())
    assert bot.act(view, random.Random(3)) == bot.act(view, random.Random(3))


def engine_rollout(state: GameState) -> list[int]:
    """The returns of the hand played to its end by the default policy through the engine's own
    ``apply_trusted``, every claim window opened and answered (no fast step)."""
    for _ in range(MAX_STEPS):
        if state.phase == "over":
            break
        if state.phase == "discard":
            seat = state.turn
            state.apply_trusted(seat, DISCARD_ACTIONS[policy_discard(state, seat)])
        else:
            w = state.window
            assert w is not None
            seat = next(s for s in sorted(w.options) if s not in w.responses)
            state.apply_trusted(seat, policy_claim(state, seat, w.options[seat]))
    return state.returns()


def test_fast_rollouts_play_exactly_like_the_engine() -> None:
    """The engine's fast step (game.playout) plays as GameState.apply: the same policy from the
    same world gives the same returns."""
    compared = 0
    for seed in range(10):
        state = GameState.new("anxiang", 200 + seed, dealer=seed % 3)
        rng = random.Random(seed)
        while not state.is_terminal():
            view = BotView.of(state, state.current_player())
            world = determinize(view, rng)
            before = observation(world, "all")
            by_engine = engine_rollout(clone(world))
            assert rollout(clone(world), random.Random(0)) == by_engine
            assert sum(by_engine) == 0  # RULES §8.3: the losers pay the winner
            assert observation(world, "all") == before  # rollouts work on copies
            compared += 1
            _random_step(state, rng)
    assert compared > 200


def test_budget_parameters() -> None:
    bot = MctsBot.from_params({})
    assert bot.ms == 300.0 and bot.iters is None and bot.keep == 2.0  # its best measured
    bot = MctsBot.from_params({"iters": "50"})
    assert bot.ms is None and bot.iters == 50
    bot = MctsBot.from_params({"ms": "20", "iters": "50"})
    assert bot.ms == 20.0 and bot.iters == 50
    # parameters separated by commas or semicolons (the form used inside a list of bots)
    for spec in ("mcts:iters=300;keep=2", "mcts:iters=300,keep=2"):
        semi = get_bot(spec)
        assert isinstance(semi, MctsBot) and semi.iters == 300 and semi.keep == 2.0
    with pytest.raises(WeimaqueError):
        get_bot("mcts:depth=3")
    for gone in ("only=claims", "infer=5", "beta=4", "base=policy"):  # measured, and dropped
        with pytest.raises(WeimaqueError, match="unknown mcts parameter"):
            get_bot(f"mcts:{gone}")
    with pytest.raises(WeimaqueError):
        get_bot("mcts:ms=fast")
    # a wall-time budget stops the search (timing itself is measured in bench/bots.py)
    quick = MctsBot(ms=1.0)
    state = GameState.new("anxiang", 2)
    view = BotView.of(state, state.current_player())
    assert quick.act(view, random.Random(0)) in view.legal
    assert quick.last_rollouts >= 1
