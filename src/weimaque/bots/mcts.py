"""``mcts``: determinized Monte Carlo search over the seat's information set.

Design (flat Monte Carlo over determinized worlds, with common random numbers and racing):

1. Trivial decisions answer at once: a single legal action; a 胡 offer is always taken (a winning
   hand scores now, and passing it only risks someone else's 胡, RULES §4.7, §8.3).
2. Candidates are the legal actions; discards are ranked by the default policy's hand value and
   only the best ``top`` (6) are searched (the others are almost never right and cost budget).
3. Each *world* is one determinization (:mod:`weimaque.bots.determinize`): the hidden cards dealt
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

Rollouts: the engine plays until the open claim window closes, then :class:`FastSim` plays the
same rules and policy on plain lists (about 3x faster than ``GameState.apply``; a test checks that
both give identical returns). Every seat plays the default policy (:mod:`weimaque.bots.policy`);
``eps`` (default 0) of its discards may be made random. With eps=0 the rollouts of one world
differ only by the root action, and the worlds supply the variety.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass

from weimaque.analysis.arrange import melds_xi, triple_xi
from weimaque.bots.base import BotView
from weimaque.bots.determinize import Knowledge
from weimaque.bots.greedy import GreedyBot
from weimaque.bots.policy import (
    DISCARD_ACTIONS,
    best_discard,
    claim_choice,
    discard_faces,
    discard_values,
    policy_claim,
    policy_discard,
)
from weimaque.errors import IllegalAction, WeimaqueError
from weimaque.game.actions import Action
from weimaque.game.state import NUM_SEATS, GameState, discardable, win_check
from weimaque.notation import Meld, Source

#: Steps a rollout may take before it is scored as it stands (a safety net; hands are shorter).
_MAX_STEPS = 400


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


def engine_rollout(state: GameState, rng: random.Random, epsilon: float = 0.0) -> list[int]:
    """Play the hand to its end through the engine with the default policy; the returns."""
    for _ in range(_MAX_STEPS):
        if state.phase == "over":
            break
        _policy_step(state, rng, epsilon)
    return state.returns()


def rollout(state: GameState, rng: random.Random, epsilon: float = 0.0) -> list[int]:
    """The returns of the hand played out by the default policy (``epsilon``: random discards).

    The engine plays until no claim window is open; from the next discard on, :class:`FastSim`
    plays the same rules and policy on plain lists, several times faster (it changes ``state``'s
    hands and sets without recording events).
    """
    for _ in range(_MAX_STEPS):
        if state.phase == "over":
            return state.returns()
        if state.phase == "discard":
            return FastSim(state, rng, epsilon).run(state.turn)
        _policy_step(state, rng, epsilon)
    return state.returns()


class FastSim:
    """The turn flow of RULES §3 for rollouts, every seat playing the default policy.

    It mirrors ``GameState`` (RULES §3-§5: 偎 > 胡 > 碰 > 吃, 碰-过张 and 吃 bans of §5.3, 死手 of
    §4.1, release to the 下家's 吃) on the state's own lists, and scores a win with the engine's
    scorer. Every seat takes every 胡 it is offered, so nobody declines one.
    """

    def __init__(self, state: GameState, rng: random.Random, epsilon: float) -> None:
        """Take over ``state`` (a copy the rollout may change) at a discard."""
        self.state = state
        self.rng = rng
        self.epsilon = epsilon
        self.hands = state.hands
        self.melds = [[m.meld() for m in ms] for ms in state.melds]
        self.mxi = [melds_xi(ms) for ms in state.melds]
        self.thrown = state.thrown
        self.peng_guo = state.peng_guo
        self.no_discard = state.no_discard
        self.dead = state.dead
        self.stock = state.stock
        self.pos = state.pos
        self.min_xi = state.rules.min_xi
        self.holder_rule = state.rules.holder_may_not_chi

    @staticmethod
    def _returns(winner: int, total: int) -> list[int]:
        return [2 * total if s == winner else -total for s in range(NUM_SEATS)]

    def _win(self, seat: int, card: int, source: Source, last: bool) -> int | None:
        """The total if ``seat`` wins on ``card`` (RULES §4.7), else None."""
        if self.dead[seat]:
            return None
        hand = self.hands[seat]
        if not hand[card]:
            # A card with no copy and no neighbour in hand would be a lone single (RULES §6.1).
            base = card - card % 10
            lo, hi = max(base, card - 2), min(base + 9, card + 2)
            if not any(hand[f] for f in range(lo, hi + 1)):
                return None
        st = self.state
        b = win_check(
            self.melds[seat], self.hands[seat], card, source, last, st.rules, st.declined[seat]
        )
        return None if b is None else b.total

    def _runs(self, seat: int, card: int) -> list[int]:
        """Runs ``seat`` may 吃 ``card`` into (RULES §4.6, §5.3)."""
        hand = self.hands[seat]
        if card in self.thrown[seat] or card in self.thrown[(seat - 1) % NUM_SEATS]:
            return []
        if self.holder_rule and hand[card] >= 2:
            return []
        out = []
        base = card - card % 10
        for start in (card - 2, card - 1, card):
            if base <= start <= base + 7 and all(
                hand[g] for g in (start, start + 1, start + 2) if g != card
            ):
                out.append(start)
        return out

    def _claim(self, seat: int, card: int, peng: bool, runs: list[int]) -> int | None:
        return claim_choice(
            self.hands[seat],
            len(self.melds[seat]),
            self.mxi[seat],
            self.no_discard[seat],
            card,
            peng,
            runs,
            self.min_xi,
        )

    def _meld(self, seat: int, card: int, run: int | None) -> None:
        hand = self.hands[seat]
        if run is None:
            hand[card] -= 2
            self.melds[seat].append(Meld("peng", (card, card, card)))
            self.mxi[seat] += triple_xi("peng", card)
        else:
            for g in (run, run + 1, run + 2):
                if g != card:
                    hand[g] -= 1
            self.melds[seat].append(Meld("chi", (run, run + 1, run + 2)))
        self.no_discard[seat].add(card)

    def _penger(self, card: int, seats: tuple[int, int]) -> int | None:
        """The seat among ``seats`` offered a 碰 of ``card`` (at most one holds two)."""
        for q in seats:
            if self.hands[q][card] >= 2 and card not in self.peng_guo[q]:
                return q
        return None

    def _discard(self, seat: int) -> int | None:
        """``seat`` discards; the seat that must discard next, or None and the 下家 draws."""
        hand = self.hands[seat]
        banned = self.no_discard[seat]
        faces = discardable(hand, banned)
        if not faces:  # 死手: the discard is skipped (RULES §4.1)
            self.dead[seat] = True
            return None
        if self.epsilon and self.rng.random() < self.epsilon:
            card = self.rng.choice(faces)
        else:
            card = best_discard(hand, faces, len(self.melds[seat]), self.mxi[seat], self.min_xi)[1]
        hand[card] -= 1
        x = (seat + 1) % NUM_SEATS
        penger = self._penger(card, (x, (seat - 1) % NUM_SEATS))
        runs = self._runs(x, card)
        choice = None
        if penger is not None:
            choice = self._claim(penger, card, True, runs if penger == x else [])
            if choice != -1:
                self.peng_guo[penger].add(card)  # 碰-过张 (RULES §5.3)
        if penger != x and runs:
            run = self._claim(x, card, False, runs)
        else:
            run = choice if penger == x and choice is not None and choice >= 0 else None
        self.thrown[seat].add(card)
        if choice == -1:
            assert penger is not None
            self._meld(penger, card, None)
            return penger
        if run is not None:
            self._meld(x, card, run)
            return x
        return None

    def run(self, seat: int) -> list[int]:
        """Play from ``seat``'s discard to the end of the hand; the returns (RULES §8.3)."""
        discarding: int | None = seat
        drawer = seat
        for _ in range(_MAX_STEPS):
            if discarding is not None:
                drawer = (discarding + 1) % NUM_SEATS
                discarding = self._discard(discarding)
                continue
            # a draw (RULES §3 DRAW)
            d = drawer
            if self.pos >= len(self.stock):
                return [0] * NUM_SEATS  # 臭 (RULES §8.1)
            card = self.stock[self.pos]
            self.pos += 1
            last = self.pos == len(self.stock)
            hand = self.hands[d]
            if hand[card] >= 2:  # mandatory 偎, then the drawer may 胡 (RULES §4.3)
                total = self._win(d, card, "self", last)
                if total is not None:
                    return self._returns(d, total)
                hand[card] -= 2
                self.melds[d].append(Meld("wei", (card, card, card)))
                self.mxi[d] += triple_xi("wei", card)
                discarding = d
                continue
            x = (d + 1) % NUM_SEATS
            y = (d - 1) % NUM_SEATS
            total = self._win(d, card, "self", last)
            if total is not None:
                return self._returns(d, total)
            for q in (x, y):
                total = self._win(q, card, "other", last)
                if total is not None:
                    return self._returns(q, total)
            penger = self._penger(card, (x, y))
            if penger is not None:
                if self._claim(penger, card, True, []) == -1:
                    self._meld(penger, card, None)
                    discarding = penger
                    continue
                self.peng_guo[penger].add(card)
            runs = self._runs(d, card)
            run = self._claim(d, card, False, runs) if runs else None
            if run is not None:
                self._meld(d, card, run)
                discarding = d
                continue
            # released: only the 下家 may 吃 it (RULES §3.1.3)
            runs = self._runs(x, card)
            run = self._claim(x, card, False, runs) if runs else None
            self.thrown[d].add(card)
            if run is not None:
                self._meld(x, card, run)
                discarding = x
            else:
                drawer = x
        return [0] * NUM_SEATS


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
