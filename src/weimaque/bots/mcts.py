"""``mcts``: determinized Monte Carlo search over the seat's information set.

Design (flat Monte Carlo over determinized worlds, with common random numbers and racing):

1. Trivial decisions answer at once: a single legal action; a 胡 offer is always taken (a winning
   hand scores now, and passing it only risks someone else's 胡, RULES §4.7, §8.3).
2. Candidates are the legal actions; discards are pre-ranked by a cheap hand-shape heuristic and
   only the best few are searched (the others are almost never right and cost budget).
3. Each *world* is one determinization (:mod:`weimaque.bots.determinize`): the hidden cards dealt at
   random consistent with the seat's view. In a world every live candidate is applied to a copy of
   the state and played out to the end by the fast default policy, all candidates with the *same*
   rollout random seed, so their returns are paired and differences between candidates are far less
   noisy than the returns themselves (common random numbers).
4. Racing: after a few worlds, a candidate whose mean paired difference to the current leader is
   clearly negative (beyond ``prune_z`` standard errors) is dropped, so the remaining budget goes
   to the close calls. The budget is wall time (``ms``, default 300) and/or a rollout count
   (``iters``).
5. The choice is the candidate with the best mean return; the reward is the seat's
   ``state.returns()[seat]`` at the end of the rollout (points, RULES §8.3).

Flat search rather than a tree: the opponents' replies depend on cards we do not see, a tree over
determinized worlds would mostly re-learn the default policy, and at a few hundred rollouts per
decision flat racing spends them where they matter.

The default policy (also usable alone) takes every 胡, 碰s whenever it can (碰 is the main source of
硬息, RULES §6.4), 吃s only with two single cards, and discards the card with the least keep value:
pairs and run partners are kept, red faces slightly preferred (RULES §6.4, §7.2).
"""

from __future__ import annotations

import functools
import math
import random
import time
from dataclasses import dataclass

from weimaque.bots.base import BotView
from weimaque.bots.determinize import Knowledge
from weimaque.cards import NUM_FACES, RED_FACES
from weimaque.errors import WeimaqueError
from weimaque.game.actions import Action
from weimaque.game.state import GameState, TableMeld, Window

#: Steps a rollout may take before it is scored as it stands (a safety net; hands are shorter).
_MAX_STEPS = 400
_DISCARDS = tuple(Action.discard(f) for f in range(NUM_FACES))
_RED = tuple(f in RED_FACES for f in range(NUM_FACES))


#: Hand-shape values of the default policy: a complete group, a pair, a two-card run shape, one
#: 硬息 point, and the cost per point still missing below ``min_xi`` (RULES §4.7, §6.4).
GROUP = 1.0
PAIR = 0.6
SHAPE = 0.35
XI = 0.06
XI_SHORT = 0.08
#: Expected 硬息 of a pair that may still become a 碰 or 偎, or stay a red 麻雀 (RULES §6.4).
_PAIR_XI = (1.4, 2.0)


@functools.lru_cache(maxsize=1 << 18)
def half_value(half: tuple[int, ...]) -> tuple[float, float]:
    """Best (value, 硬息) split of one case's 10 counts into groups, pairs, shapes and singles."""
    i = next((k for k, n in enumerate(half) if n), -1)
    if i < 0:
        return (0.0, 0.0)
    c = half[i]
    red = _RED[i]
    best = (-1e9, 0.0)
    options: list[tuple[float, float, tuple[int, ...]]] = []

    def take(*idx: int) -> tuple[int, ...]:
        r = list(half)
        for k in idx:
            r[k] -= 1
        return tuple(r)

    if c >= 3:
        kan = 4.0 if red else 3.0  # a 砍 scores as a 偎 (RULES §4.4, §6.4)
        options.append((GROUP + XI * kan, kan, take(i, i, i)))
    if i <= 7 and half[i + 1] and half[i + 2]:
        options.append((GROUP, 0.0, take(i, i + 1, i + 2)))
    if c >= 2:
        pxi = _PAIR_XI[red]
        options.append((PAIR + XI * pxi, pxi, take(i, i)))
    if i <= 8 and half[i + 1]:
        options.append((SHAPE * (1.0 if 0 < i < 8 else 0.6), 0.0, take(i, i + 1)))
    if i <= 7 and half[i + 2]:
        options.append((SHAPE * 0.6, 0.0, take(i, i + 2)))
    options.append((0.0, 0.0, take(i)))
    for v, xi, rest in options:
        rv, rxi = half_value(rest)
        if v + rv > best[0]:
            best = (v + rv, xi + rxi)
    return best


def meld_xi(melds: list[TableMeld]) -> float:
    """硬息 of a seat's melds: 碰 2/3, 偎 3/4, 吃 0 (RULES §6.4)."""
    xi = 0.0
    for m in melds:
        if m.kind != "chi":
            red = _RED[m.faces[0]]
            xi += (3.0 if red else 2.0) if m.kind == "peng" else (4.0 if red else 3.0)
    return xi


def position_value(
    small: tuple[float, float], big: tuple[float, float], n_melds: int, mxi: float, min_xi: int
) -> float:
    """Value of a position from its two halves' (value, 硬息) and its melds."""
    xi = small[1] + big[1] + mxi
    return small[0] + big[0] + GROUP * n_melds + XI * mxi - XI_SHORT * max(0.0, min_xi - xi)


def discard_faces(state: GameState, seat: int) -> list[int]:
    """The faces ``seat`` may 出 now (RULES §5.2), without building error messages."""
    hand = state.hands[seat]
    banned = state.no_discard[seat]
    return [f for f in range(NUM_FACES) if hand[f] and hand[f] != 3 and f not in banned]


def discard_values(
    hand: list[int], faces: list[int], n_melds: int, mxi: float, min_xi: int
) -> list[tuple[float, int]]:
    """(value of the position left, face) for each discard among ``faces``."""
    small_t = tuple(hand[:10])
    big_t = tuple(hand[10:])
    small = half_value(small_t)
    big = half_value(big_t)
    out: list[tuple[float, int]] = []
    for f in faces:
        if f < 10:
            h = list(small_t)
            h[f] -= 1
            out.append((position_value(half_value(tuple(h)), big, n_melds, mxi, min_xi), f))
        else:
            h = list(big_t)
            h[f - 10] -= 1
            out.append((position_value(small, half_value(tuple(h)), n_melds, mxi, min_xi), f))
    return out


def best_discard(
    hand: list[int], faces: list[int], n_melds: int, mxi: float, min_xi: int
) -> tuple[float, int]:
    """The discard among ``faces`` leaving the best position, with that position's value."""
    return max(discard_values(hand, faces, n_melds, mxi, min_xi))


def policy_discard(state: GameState, seat: int) -> int:
    """The default policy's discard: the face leaving the best-valued hand."""
    melds = state.melds[seat]
    faces = discard_faces(state, seat)
    return best_discard(state.hands[seat], faces, len(melds), meld_xi(melds), state.rules.min_xi)[1]


def policy_claim(state: GameState, seat: int, options: list[Action]) -> Action:
    """The default policy's answer in a claim window: 胡, else the best-valued claim or 过."""
    w = state.window
    assert w is not None
    card = w.card
    hand = state.hands[seat]
    melds = state.melds[seat]
    mxi = meld_xi(melds)
    min_xi = state.rules.min_xi
    best = options[-1]
    best_v = position_value(
        half_value(tuple(hand[:10])), half_value(tuple(hand[10:])), len(melds), mxi, min_xi
    )
    banned = state.no_discard[seat]
    for a in options:
        if a.kind == "hu":
            return a
        h = list(hand)
        if a.kind == "peng":
            h[card] -= 2
            red = _RED[card]
            xi = mxi + (3.0 if red else 2.0)
        elif a.kind == "chi":
            assert a.face is not None
            for g in (a.face, a.face + 1, a.face + 2):
                if g != card:
                    h[g] -= 1
            xi = mxi
        else:
            continue
        faces = [
            f for f in range(NUM_FACES) if h[f] and h[f] != 3 and f not in banned and f != card
        ]
        if not faces:
            continue  # a claim that leaves no discard makes the seat 死手 (RULES §4.1)
        v, _ = best_discard(h, faces, len(melds) + 1, xi, min_xi)
        if v > best_v:
            best, best_v = a, v
    return best


def _step(state: GameState, seat: int, action: Action) -> None:
    """``state.apply`` without the legality check (rollouts only take legal actions)."""
    if state.phase == "discard":
        assert action.face is not None
        state._discard(seat, action.face)
    else:
        w = state.window
        assert w is not None
        w.responses[seat] = action
        if len(w.responses) == len(w.options):
            state._resolve()


def rollout(state: GameState, rng: random.Random, epsilon: float = 0.1) -> None:
    """Play the hand to its end with the default policy (``epsilon``: random discard rate)."""
    for _ in range(_MAX_STEPS):
        phase = state.phase
        if phase == "over":
            return
        if phase == "discard":
            seat = state.turn
            if rng.random() < epsilon:
                face = rng.choice(discard_faces(state, seat))
            else:
                face = policy_discard(state, seat)
            _step(state, seat, _DISCARDS[face])
        else:
            w = state.window
            assert w is not None
            seat = next(s for s in sorted(w.options) if s not in w.responses)
            _step(state, seat, policy_claim(state, seat, w.options[seat]))


def clone(state: GameState) -> GameState:
    """A copy of a state that rollouts may change (events and the action log start empty)."""
    st = GameState.__new__(GameState)
    st.rules = state.rules
    st.seed = state.seed
    st.dealer = state.dealer
    st.initial_hands = state.initial_hands
    st.stock = state.stock
    st.pos = state.pos
    st.hands = [list(h) for h in state.hands]
    st.melds = [list(m) for m in state.melds]
    st.rows = [list(r) for r in state.rows]
    st.thrown = [set(t) for t in state.thrown]
    st.peng_guo = [set(p) for p in state.peng_guo]
    st.no_discard = [set(n) for n in state.no_discard]
    st.dead = list(state.dead)
    st.skipped = list(state.skipped)
    st.declined = list(state.declined)
    st.phase = state.phase
    st.turn = state.turn
    w = state.window
    st.window = (
        None
        if w is None
        else Window(
            w.card,
            w.origin,
            w.from_seat,
            w.last,
            {s: list(o) for s, o in w.options.items()},
            dict(w.responses),
            dict(w.wins),
            dict(w.deal_patterns),
        )
    )
    st.events = []
    st.actions = []
    st.result = state.result
    st.scores = list(state.scores)
    return st


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
        prune_z: float = 2.0,
        epsilon: float = 0.1,
    ) -> None:
        """Budget: ``ms`` wall time per decision and/or ``iters`` rollouts (first one ends it)."""
        if ms is None and iters is None:
            raise WeimaqueError("mcts needs a budget: ms= and/or iters=")
        self.ms = ms
        self.iters = iters
        self.top = top
        self.prune_z = prune_z
        self.epsilon = epsilon
        self.last_rollouts = 0

    @classmethod
    def from_params(cls, params: dict[str, str]) -> MctsBot:
        """Build from ``mcts:ms=300,iters=200,top=6,z=2,eps=0.1`` parameters."""
        known = {"ms", "iters", "top", "z", "eps"}
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
                prune_z=float(params.get("z", 2.0)),
                epsilon=float(params.get("eps", 0.1)),
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
            state.hands[seat], discards, len(melds), meld_xi(melds), state.rules.min_xi
        )
        keep = {f for _, f in sorted(values, reverse=True)[: self.top]}
        return [a for a in legal if a.kind != "discard" or a.face in keep]

    def act(self, view: BotView, rng: random.Random) -> Action:
        """Choose an action from the seat's view alone (RULES §3-§5)."""
        self.last_rollouts = 0
        legal = view.legal
        if len(legal) == 1:
            return legal[0]
        for a in legal:
            if a.kind == "hu":
                return a  # a winning 胡 is always taken (RULES §4.7)
        deadline = None if self.ms is None else time.perf_counter() + self.ms / 1000.0
        knowledge = Knowledge.of(view)
        first = knowledge.sample(rng)
        cands = self.candidates(first, view.seat, list(legal))
        if len(cands) == 1:
            return cands[0]
        arms = [_Arm(a) for a in cands]
        seat = view.seat
        rollouts = 0
        worlds = 0
        # Every live arm has a return in every world so far (arms are dropped, never revived).
        returns: list[list[float]] = [[] for _ in arms]
        while True:
            live = [i for i, arm in enumerate(arms) if arm.alive]
            if len(live) == 1:
                break
            if self.iters is not None and rollouts + len(live) > self.iters and worlds > 0:
                break
            if deadline is not None and time.perf_counter() > deadline and worlds > 0:
                break
            world = first if worlds == 0 else knowledge.sample(rng)
            seed = rng.getrandbits(64)
            worlds += 1
            for i in live:
                st = clone(world)
                _step(st, seat, arms[i].action)
                rollout(st, random.Random(seed), self.epsilon)
                r = float(st.returns()[seat])
                arms[i].total += r
                arms[i].n += 1
                returns[i].append(r)
                rollouts += 1
            if worlds >= 4:
                self._race(arms, returns, live)
        self.last_rollouts = rollouts
        best = max((arm for arm in arms if arm.n), key=lambda arm: arm.mean, default=arms[0])
        return best.action

    def _race(self, arms: list[_Arm], returns: list[list[float]], live: list[int]) -> None:
        """Drop arms clearly worse than the leader on the worlds they shared (paired test)."""
        lead = max(live, key=lambda i: arms[i].mean)
        for i in live:
            if i == lead:
                continue
            d = [x - y for x, y in zip(returns[i], returns[lead], strict=True)]
            k = len(d)
            mean = sum(d) / k
            var = sum((x - mean) ** 2 for x in d) / (k - 1)
            se = math.sqrt(var / k)
            if mean + self.prune_z * se < 0:
                arms[i].alive = False
