"""Worlds built from the *true* state, for the research experiments only (never a player).

``research/oracle.py`` and ``research/regret.py`` ask how much a search would gain if its sampled
worlds knew more than the seat's view: everything but the stock's order (:func:`truth`), only
which cards are in the stock and which in the opponents' hands (:func:`stock_truth`), or only
which faces each opponent waits on (:func:`wait_match`, a weight for research/chain.py's chain,
once ``mcts:infer``). Each stands in for ``weimaque.games.maque.bots.determinize.Knowledge`` (or for
``research/inference.py``'s ``seat_loglik``) inside the search, patched by the experiment that uses
it; nothing in the package, the arena or the server can build these.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from typing import Any

from weimaque.games.maque.analysis.decompose import completions
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.determinize import Knowledge
from weimaque.games.maque.bots.mcts import clone, rollout
from weimaque.games.maque.cards import NUM_FACES
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.game.state import NUM_SEATS, GameState

#: A stand-in for ``Knowledge``: ``of(view)`` gives an object with ``worlds(rng, ...)``.
KnowledgeLike = Any


def reshuffled(state: GameState, rng: random.Random) -> GameState:
    """A copy of ``state`` with the order of the stock still to be drawn shuffled."""
    st = state.copy()
    rest = st.stock[st.pos :]
    rng.shuffle(rest)
    st.stock = st.stock[: st.pos] + rest
    return st


def true_returns(
    state: GameState, seat: int, actions: list[Action], rollouts: int, rng: random.Random
) -> dict[Action, list[float]]:
    """The seat's return after each action in paired rollouts from the true state.

    Rollout ``k`` of every action plays the same reshuffled stock with the same random numbers,
    so differences between actions are paired.
    """
    returns: dict[Action, list[float]] = {a: [] for a in actions}
    for _ in range(rollouts):
        world = reshuffled(state, rng)
        seed = rng.getrandbits(64)
        for a in actions:
            st = clone(world)
            st.apply_trusted(seat, a)
            returns[a].append(float(rollout(st, random.Random(seed))[seat]))
    return returns


class _Truth:
    def __init__(self, state: GameState) -> None:
        self.state = state

    def sample(self, rng: random.Random) -> GameState:
        return reshuffled(self.state, rng)

    def worlds(self, rng: random.Random, *_: Any, **__: Any) -> Iterator[GameState]:
        while True:
            yield reshuffled(self.state, rng)


def truth(state_of: Callable[[BotView], GameState]) -> KnowledgeLike:
    """Worlds that are the true state (``state_of(view)``), only the stock's order shuffled."""

    class Truth(_Truth):
        @classmethod
        def of(cls, view: BotView) -> Truth:
            return cls(state_of(view))

    return Truth


class _StockTruth:
    def __init__(self, state: GameState, view: BotView) -> None:
        self.state = state
        self.k = Knowledge.of(view)

    def worlds(self, rng: random.Random, *_: Any, **__: Any) -> Iterator[GameState]:
        k, state = self.k, self.state
        opponents = [s for s in range(NUM_SEATS) if s != k.seat]
        wei = {
            (s, i): state.melds[s][i].faces[0]
            for s in opponents
            for i, slot in enumerate(k.melds[s])
            if slot.faces is None
        }
        held = [f for s in opponents for f in range(NUM_FACES) for _ in range(state.hands[s][f])]
        while True:
            rng.shuffle(held)
            hands = [[0] * NUM_FACES for _ in range(NUM_SEATS)]
            hands[k.seat] = list(k.hand)
            start = 0
            for s in opponents:
                for f in held[start : start + k.hand_sizes[s]]:
                    hands[s][f] += 1
                start += k.hand_sizes[s]
            stock = state.stock[state.pos :]
            rng.shuffle(stock)
            yield k.build(hands, dict(wei), stock)


def stock_truth(state_of: Callable[[BotView], GameState]) -> KnowledgeLike:
    """Worlds that know which cards are in the stock (so which are in the opponents' hands,
    together) and the face-down 偎, but deal the opponents' cards between them at random."""

    class StockTruth(_StockTruth):
        @classmethod
        def of(cls, view: BotView) -> StockTruth:
            return cls(state_of(view), view)

    return StockTruth


def wait_match(state_of: Callable[[BotView], GameState]) -> Callable[..., float]:
    """A weight for the chain of ``mcts:infer``: how far a sampled hand's waits are from the
    real hand's (the faces one more card completes, RULES §6.1)."""

    def weigh(k: Knowledge, s: int, hand: list[int], *_: Any, **__: Any) -> float:
        real = frozenset(completions(tuple(state_of(k.view).hands[s])))
        return -10.0 * len(real ^ frozenset(completions(tuple(hand))))

    return weigh
