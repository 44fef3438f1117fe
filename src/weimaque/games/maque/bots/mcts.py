"""``mcts``: determinized Monte Carlo search over the seat's information set.

Design (flat Monte Carlo over determinized worlds, with common random numbers and racing):

1. Trivial decisions answer at once: a single legal action; a 胡 offer is always taken (a winning
   hand scores now, and passing it only risks someone else's 胡, RULES §4.7, §8.3).
2. Candidates are the legal actions; discards are ranked by the default policy's hand value and
   only the best ``top`` (6) are searched (the others are almost never right and cost budget).
3. Each *world* is one determinization (:mod:`weimaque.games.maque.bots.determinize`): the hidden
cards dealt
   at random consistent with the seat's view. In a world every live candidate is applied to a copy
   of the state and played out to the end by the default policy for all three seats, every
   candidate with the *same* rollout seed, so their returns are paired and the differences between
   candidates are far less noisy than the returns themselves (common random numbers).
4. Racing: from the fourth world on, a candidate whose mean paired difference to the leader is
   below ``-z`` standard errors (``z`` = 2) is dropped, so the rest of the budget goes to the close
   calls. The budget is wall time (``ms``, default 300) and/or a rollout count (``iters``).
5. The reward is the seat's ``returns()[seat]`` at the end of the rollout (points, RULES §8.3).
   The choice is the candidate with the best mean, but greedy's own choice is kept
   unless the leader beats it by more than ``keep`` (2) paired standard errors: with a few dozen
   worlds per candidate, an unpaired argmax would mostly pick noise. A ``keep`` above ``z`` acts
   as ``keep = z``: a baseline that racing has not dropped is within ``z`` errors of the leader.

Why flat rather than a tree (IS-MCTS): the opponents' replies depend on cards we do not see, a
tree over determinized worlds would mostly re-learn the default policy below the root, and at a
few hundred rollouts per decision, racing at the root spends them where they matter.

Rollouts: the engine plays until the open claim window closes, then the engine's fast step
(:func:`weimaque.games.maque.game.playout.playout`) plays the same rules and policy without events
or windows (several times faster than ``GameState.apply``; a test checks that both give identical
returns). Every seat plays the default policy (:mod:`weimaque.games.maque.bots.policy`); ``eps``
(default 0) of its discards may be made random. With eps=0 the rollouts of one world differ only by
the root action, and the worlds supply the variety.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

from weimaque.errors import IllegalAction, WeimaqueError
from weimaque.games.maque.analysis.arrange import melds_xi
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.determinize import Knowledge
from weimaque.games.maque.bots.greedy import GreedyBot
from weimaque.games.maque.bots.policy import (
    DISCARD_ACTIONS,
    best_discard,
    claim_choice,
    discard_faces,
    discard_values,
    policy_claim,
    policy_discard,
)
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.game.playout import MAX_STEPS, playout
from weimaque.games.maque.game.state import GameState


def _policy_step(state: GameState, rng: random.Random, epsilon: float) -> None:
    if state.phase == "discard":
        seat = state.turn
        if epsilon and rng.random() < epsilon:
            face = rng.choice(discard_faces(state, seat))
        else:
            face = policy_discard(state, seat)
        state.apply_trusted(seat, DISCARD_ACTIONS[face])
    else:
        w = state.window
        assert w is not None
        seat = next(s for s in sorted(w.options) if s not in w.responses)
        state.apply_trusted(seat, policy_claim(state, seat, w.options[seat]))


def rollout(state: GameState, rng: random.Random, epsilon: float = 0.0) -> list[int]:
    """The returns of the hand played out by the default policy (``epsilon``: random discards).

    The engine plays until no claim window is open; from the next discard on, the engine's fast
    step (:func:`weimaque.games.maque.game.playout.playout`) plays the same rules and policy without
    events or windows, several times faster (it plays on ``state``'s own hands and sets).
    """
    for _ in range(MAX_STEPS):
        if state.phase == "over":
            return state.returns()
        if state.phase == "discard":
            return playout(state, state.turn, _Policy(rng, epsilon))
        _policy_step(state, rng, epsilon)
    return state.returns()


class _Policy:
    """The default policy as a playout's chooser (:mod:`weimaque.games.maque.bots.policy`)."""

    __slots__ = ("epsilon", "rng")

    def __init__(self, rng: random.Random, epsilon: float) -> None:
        self.rng = rng
        self.epsilon = epsilon

    def discard(self, state: GameState, seat: int, faces: list[int], mxi: int) -> int:
        if self.epsilon and self.rng.random() < self.epsilon:
            return self.rng.choice(faces)
        hand = state.hands[seat]
        return best_discard(hand, faces, len(state.melds[seat]), mxi, state.rules.min_xi)[1]

    def claim(
        self, state: GameState, seat: int, card: int, peng: bool, runs: list[int], mxi: int
    ) -> int | None:
        return claim_choice(
            state.hands[seat],
            len(state.melds[seat]),
            mxi,
            state.no_discard[seat],
            card,
            peng,
            runs,
            state.rules.min_xi,
        )


def clone(state: GameState) -> GameState:
    """A copy of a state that rollouts may change (events and the action log start empty)."""
    return state.copy()


@dataclass(frozen=True, slots=True)
class SearchResult:
    """One search: the choice, the baseline, and each candidate's returns world by world.

    ``returns[i][w]`` is the seat's return for ``actions[i]`` in world ``w``; an arm dropped by
    racing has a prefix of the worlds, so two arms compare on the worlds they share.
    """

    choice: Action
    default: Action
    actions: tuple[Action, ...]
    returns: tuple[tuple[float, ...], ...]
    rollouts: int
    worlds: int

    def mean(self, action: Action) -> float:
        """The mean return of ``action`` over its worlds."""
        r = self.returns[self.actions.index(action)]
        return sum(r) / len(r) if r else 0.0

    def gain(self, better: Action, worse: Action) -> tuple[float, float]:
        """Mean and standard error of ``better`` minus ``worse`` on the worlds both saw."""
        if better == worse:
            return 0.0, 0.0
        a = self.returns[self.actions.index(better)]
        b = self.returns[self.actions.index(worse)]
        k = min(len(a), len(b))
        if k == 0:
            return 0.0, math.inf
        return _paired(list(a[:k]), list(b[:k]))


@dataclass(slots=True)
class _Arm:
    action: Action
    total: float = 0.0
    n: int = 0
    alive: bool = True

    @property
    def mean(self) -> float:
        return self.total / self.n if self.n else -math.inf


class MctsBot:
    """``mcts``: flat Monte Carlo over determinized worlds with paired rollouts and racing."""

    name = "mcts"

    def __init__(
        self,
        ms: float | None = 300.0,
        iters: int | None = None,
        top: int = 6,
        z: float = 2.0,
        eps: float = 0.0,
        keep: float = 2.0,
    ) -> None:
        """Budget: ``ms`` wall time per decision and/or ``iters`` rollouts (first one ends it);
        ``top`` discards searched, racing at ``z`` standard errors, ``eps`` random rollout
        discards, greedy's choice kept unless beaten by ``keep`` standard errors (as the spec's
        parameters of the same names)."""
        if ms is None and iters is None:
            raise WeimaqueError("mcts needs a budget: ms= and/or iters=")
        self.ms = ms
        self.iters = iters
        self.top = top
        self.z = z
        self.eps = eps
        self.keep = keep
        self._greedy = GreedyBot()
        self.last_rollouts = 0

    @classmethod
    def from_params(cls, params: dict[str, str]) -> MctsBot:
        """Build from ``mcts:ms=300;iters=200;top=6;z=2;eps=0;keep=2`` (every part optional)."""
        known = {"ms", "iters", "top", "z", "eps", "keep"}
        unknown = set(params) - known
        if unknown:
            raise WeimaqueError(f"unknown mcts parameter(s) {sorted(unknown)}; known: {known}")
        try:
            iters = int(params["iters"]) if "iters" in params else None
            ms = float(params["ms"]) if "ms" in params else (None if iters else 300.0)
            return cls(
                ms=ms,
                iters=iters,
                top=int(params.get("top", 6)),
                z=float(params.get("z", 2.0)),
                eps=float(params.get("eps", 0.0)),
                keep=float(params.get("keep", 2.0)),
            )
        except ValueError as exc:
            raise WeimaqueError(f"bad mcts parameter: {exc}") from exc

    def candidates(self, state: GameState, seat: int, legal: list[Action]) -> list[Action]:
        """The actions worth searching: every claim option, the best few discards."""
        discards = [a.face for a in legal if a.kind == "discard" and a.face is not None]
        if len(discards) <= self.top:
            return legal
        melds = state.melds[seat]
        values = discard_values(
            state.hands[seat], discards, len(melds), melds_xi(melds), state.rules.min_xi
        )
        keep = {f for _, f in sorted(values, reverse=True)[: self.top]}
        return [a for a in legal if a.kind != "discard" or a.face in keep]

    def act(self, view: BotView, rng: random.Random) -> Action:
        """Choose an action from the seat's view alone (RULES §3-§5)."""
        self.last_rollouts = 0
        obvious = view.obvious()
        if obvious is not None:
            return obvious  # a winning 胡 is always taken (RULES §4.7)
        result = self.search(view, rng)
        self.last_rollouts = result.rollouts
        return result.choice

    def default_action(self, view: BotView, rng: random.Random) -> Action:
        """The baseline the search must beat: greedy's choice."""
        return self._greedy.act(view, rng)

    def search(
        self, view: BotView, rng: random.Random, include: tuple[Action, ...] = ()
    ) -> SearchResult:
        """Compare the candidates (and ``include``) on paired rollouts in sampled worlds."""
        knowledge = Knowledge.of(view)
        stream = knowledge.worlds(rng)
        first = next(stream)
        cands = self.candidates(first, view.seat, list(view.legal))
        default = self.default_action(view, rng)
        for a in include:
            if a not in view.legal:  # played blind, it would corrupt every rollout
                raise IllegalAction(f"cannot compare {a}: not a legal action for seat {view.seat}")
        for a in (default, *include):
            if a not in cands:
                cands.append(a)
        arms = [_Arm(a) for a in cands]
        seat = view.seat
        rollouts = 0
        worlds = 0
        deadline = None if self.ms is None else time.perf_counter() + self.ms / 1000.0
        # Every live arm has a return in every world so far (arms are dropped, never revived).
        returns: list[list[float]] = [[] for _ in arms]
        while len(arms) > 1:
            live = [i for i, arm in enumerate(arms) if arm.alive]
            if len(live) == 1:
                break
            if self.iters is not None and rollouts + len(live) > self.iters and worlds > 0:
                break
            if deadline is not None and time.perf_counter() > deadline and worlds > 0:
                break
            world = first if worlds == 0 else next(stream)
            seed = rng.getrandbits(64)
            worlds += 1
            for i in live:
                st = clone(world)
                st.apply_trusted(seat, arms[i].action)
                r = float(rollout(st, random.Random(seed), self.eps)[seat])
                arms[i].total += r
                arms[i].n += 1
                returns[i].append(r)
                rollouts += 1
            if worlds >= 4:
                self._race(arms, returns, live)
        choice = default
        if len(arms) > 1:
            lead = max((i for i, arm in enumerate(arms) if arm.alive), key=lambda i: arms[i].mean)
            base = cands.index(default)
            if base == lead or not arms[base].alive:
                choice = arms[lead].action
            else:
                # Keep the baseline's choice unless the search finds a clear improvement.
                mean, se = _paired(returns[lead], returns[base])
                choice = arms[lead].action if mean > self.keep * se else default
        return SearchResult(
            choice=choice,
            default=default,
            actions=tuple(cands),
            returns=tuple(tuple(r) for r in returns),
            rollouts=rollouts,
            worlds=worlds,
        )

    def _race(self, arms: list[_Arm], returns: list[list[float]], live: list[int]) -> None:
        """Drop arms clearly worse than the leader on the worlds they shared (paired test)."""
        lead = max(live, key=lambda i: arms[i].mean)
        for i in live:
            if i != lead:
                mean, se = _paired(returns[i], returns[lead])
                if mean + self.z * se < 0:
                    arms[i].alive = False


def _paired(a: list[float], b: list[float]) -> tuple[float, float]:
    """Mean and standard error of the paired differences ``a - b`` (same worlds, same seeds)."""
    d = [x - y for x, y in zip(a, b, strict=True)]
    k = len(d)
    mean = sum(d) / k
    if k < 2:
        return mean, math.inf
    var = sum((x - mean) ** 2 for x in d) / (k - 1)
    return mean, math.sqrt(var / k)
