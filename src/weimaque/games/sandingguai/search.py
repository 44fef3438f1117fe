"""A search bot of 三丁拐: flat Monte Carlo over determinized worlds, from one seat's view.

:class:`SearchBot` answers at once what needs no search: a single legal action, a legal 胡 (SDG
§6.2: every win scores at least the floor, and the hand ends at once), 定缺 (as
:class:`~.bots.GreedyBot`). Otherwise it takes its *base*'s choice as the default, a
:class:`~.bots.GreedyBot` that rates a thrown fixed chicken as the settlement does
(:data:`~.bots.SETTLED`: the hand's first chicken goes first among equals, SDG §7.4, §7.6), and a
few candidates beside it: on its own turn the ``width`` best discards by the base's rating that
it rates within ``gap`` of its own choice (each with 报听 where legal, SDG §4.6; a
clear call, nothing within ``gap``, is answered at once) and every kong (§4.5); in a claim or
rob window every option (§3); a decision with a claim, a kong or 报听 among its candidates gets
three times the budget (they are rare and change the hand most). Each *world* is a deal of the
tiles the seat has not seen (:class:`~.determinize.Knowledge`: the view alone, never the real
state); in each world every candidate still racing is taken and the hand played out by
:func:`rollout`, all candidates with the same rollout seed (common random numbers: the same
draws and the same policy choices wherever the lines do not differ), and the outcome is the
seat's points of the hand (SDG §9). With ``greedy=1`` every seat of the rollout plays
GreedyBot's own choices instead (:func:`greedy_policy`, from what that seat would see; about six
times the cost).

From the second ``batch`` of worlds on, after each batch the race drops a candidate whose
paired mean against the leader is below zero by more than ``z`` standard errors (progressive
pruning); the base's choice is never dropped. The budget is ``sims`` rollouts (deterministic
for a given ``rng``) or, with ``ms``, a wall-clock limit per decision. The answer is the base's
choice unless, after at least two batches, the best candidate beats it by more than ``z``
standard errors of the paired difference: outcomes of a hand are noisy (a few worlds' chickens
and 查叫 swing tens of points), and the rollout policy and a uniform deal of the unseen tiles
are only models of the real opponents, so the search moves off the greedy line only where
its evidence is strong.

:func:`rollout` plays every seat of a world by a fast policy (:func:`policy`) that reads only
that seat's own tiles in the world and the public table: 胡 whenever legal; the discard that
leaves the best hand value (:func:`_hand_value`: 2 per set, 1 per partial set and 1 for the
pair from cached per-suit splits, or 2 + 1 per pair for 七对, over the suits the hand may finish
in, less 1.5 per tile outside them), then isolated tiles first, fixed chickens last, a kind a
报听 seat has thrown before one it has not; a kong or a 碰 when the value does not fall; 报听
with two winning kinds or more. A rollout from the deal is about 3.5 ms, a GreedyBot hand about
50 ms; the policy alone loses some 4 points a hand to two GreedyBots (docs/sandingguai.md §13).
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from typing import Final

from weimaque.games.sandingguai.actions import (
    ANGANG,
    BUGANG,
    DISCARD,
    GANG,
    HU,
    PASS,
    PENG,
    QUE,
    TING,
)
from weimaque.games.sandingguai.bots import (
    KEEP,
    SETTLED,
    GreedyBot,
    _blocks,
    _meld_mask,
    _suit_choices,
    _Table,
    _table,
)
from weimaque.games.sandingguai.determinize import Knowledge
from weimaque.games.sandingguai.hands import KEY_STEP, suit_keys, waits
from weimaque.games.sandingguai.notation import MeldKind
from weimaque.games.sandingguai.observation import View
from weimaque.games.sandingguai.rules import RuleConfig
from weimaque.games.sandingguai.state import CLAIMS, DINGQUE, ROB, SELF, State
from weimaque.games.sandingguai.tiles import COPIES, NUM_KINDS, WUGU, YAOJI

#: The parameters of :class:`SearchBot`, their defaults and their bounds (bot specs
#: ``search:sims=200,width=4``, docs/bots.md).
PARAMS: Final[dict[str, tuple[float, float, float]]] = {
    "sims": (64, 1, 100_000),
    "ms": (0, 0, 60_000),
    "width": (2, 1, 27),
    "batch": (8, 1, 1000),
    "z": (2.5, 0.0, 10.0),
    "greedy": (0, 0, 1),
    "gap": (1.0, 0.0, 1000.0),
    "chickens": (1, 0, 1),
}


# ------------------------------------------------------------------------ rollout policy

#: Per suit key (hands.suit_keys: base 5, rank 1 lowest): the best 2 × sets + partial sets of
#: its tiles without the hand's pair, and with it (+1), from bots' block splits (SDG §6.1).
_SUIT_VALUE: dict[int, tuple[int, int]] = {}
#: Points a tile outside the suits the hand may finish in costs (SDG §5.3: it must go).
_OFF_SUIT: Final = 1.5
#: Points a discard a 报听 seat has not thrown costs (SDG §4.6, §9.2: 杀报).
_UNSAFE: Final = 1.0
#: A meld is a set: 2 points.
_MELD: Final = 2


def _suit_value(key: int) -> tuple[int, int]:
    value = _SUIT_VALUE.get(key)
    if value is None:
        counts = []
        k = key
        for _ in range(9):
            counts.append(k % 5)
            k //= 5
        f0, f1 = 0, -99
        for m, t, p in _blocks(tuple(counts)):
            v = 2 * m + t
            if p:
                f1 = max(f1, v + 1)
            elif v > f0:
                f0 = v
        value = _SUIT_VALUE[key] = (f0, f1)
    return value


def _hand_value(
    keys: list[int],
    sizes: list[int],
    choices: tuple[tuple[int, ...], ...],
    pairs: list[int] | None = None,
) -> float:
    """How near 叫 concealed tiles are (about 8 less their 向听): the best over the suit sets
    the hand may finish in of 2 per set and 1 per partial set and the pair, or with no melds
    (``pairs``: per suit) 2 and 1 per pair (七对, SDG §6.1), less :data:`_OFF_SUIT` per tile
    outside them."""
    values = [_suit_value(k) for k in keys]
    total = sum(sizes)
    best = -99.0
    for chosen in choices:
        base = 0
        bonus = 0
        inside = 0
        held = 0
        for s in chosen:
            f0, f1 = values[s]
            base += f0
            if f1 - f0 > bonus:
                bonus = f1 - f0
            inside += sizes[s]
            if pairs is not None:
                held += pairs[s]
        shape = max(base + bonus, 2 + min(held, 7) if pairs is not None else 0)
        v = shape - _OFF_SUIT * (total - inside)
        if v > best:
            best = v
    return best


def _discard(
    st: State, p: int, rng: random.Random, hand: list[int] | None = None
) -> tuple[int, float]:
    """The fast policy's discard of seat ``p`` (from ``hand``, default its own), and the
    value (:func:`_hand_value`) of the tiles it leaves."""
    if hand is None:
        hand = st.hands[p]
        keys = list(st.keys[p])
    else:
        keys = list(suit_keys(hand))
    melds = st.melds[p]
    choices = _suit_choices(st.rules.max_suits, st.que[p], _meld_mask(melds))
    sizes = [sum(hand[0:9]), sum(hand[9:18]), sum(hand[18:27])]
    pairs = None if melds else [sum(c // 2 for c in hand[9 * q : 9 * q + 9]) for q in range(3)]
    # SDG §4.6: a 报听 seat throws every draw that does not win it, so the kinds in its row
    # are the likely safe ones (as GreedyBot).
    safe: set[int] | None = None
    for q in range(3):
        if q != p and st.baoting[q]:
            row = set(st.discards[q])
            safe = row if safe is None else safe & row
    best: list[int] = []
    best_key = (-99.0, -99.0)
    for t in range(NUM_KINDS):
        c = hand[t]
        if not c:
            continue
        s = t // 9
        keys[s] -= KEY_STEP[t]
        sizes[s] -= 1
        even = pairs is not None and c % 2 == 0
        if even:
            pairs[s] -= 1  # type: ignore[index]
        v = _hand_value(keys, sizes, choices, pairs)
        if even:
            pairs[s] += 1  # type: ignore[index]
        if safe is not None and t not in safe:
            v -= _UNSAFE
        keys[s] += KEY_STEP[t]
        sizes[s] += 1
        base, r = t - t % 9, t % 9
        # Fewer same-suit neighbours within two ranks: the tile helps the hand less.
        near = sum(hand[base + q] for q in range(max(0, r - 2), min(9, r + 3))) - 1
        key = (v, -near - (4.0 if t in (YAOJI, WUGU) else 0.0))
        if key > best_key:
            best_key, best = key, [t]
        elif key == best_key:
            best.append(t)
    tile = best[0] if len(best) == 1 else rng.choice(best)
    return tile, best_key[0]


def _value(st: State, p: int, hand: list[int], melds: int, extra_mask: int = 0) -> float:
    """:func:`_hand_value` of ``hand`` with ``melds`` melds (2 each)."""
    keys = list(suit_keys(hand))
    sizes = [sum(hand[0:9]), sum(hand[9:18]), sum(hand[18:27])]
    choices = _suit_choices(st.rules.max_suits, st.que[p], _meld_mask(st.melds[p]) | extra_mask)
    pairs = None if melds else [sum(c // 2 for c in hand[9 * q : 9 * q + 9]) for q in range(3)]
    return _hand_value(keys, sizes, choices, pairs) + _MELD * melds


def policy(st: State, p: int, rng: random.Random) -> int:
    """The rollout policy's action for seat ``p`` of world ``st`` (its own tiles only)."""
    legal = st.legal_actions(p)
    if len(legal) == 1:
        return legal[0]
    if HU in legal:
        return HU
    rules = st.rules
    if st.phase == SELF:
        tile, value = _discard(st, p, rng)
        n = len(st.melds[p])
        value += _MELD * n
        for a in legal:
            if ANGANG <= a < BUGANG:
                t = a - ANGANG
                hand = list(st.hands[p])
                hand[t] -= 4
                if _value(st, p, hand, n + 1, 1 << (t // 9)) >= value:
                    return a
            elif BUGANG <= a < PENG:
                t = a - BUGANG
                hand = list(st.hands[p])
                hand[t] -= 1
                if _value(st, p, hand, n + 1) >= value:
                    return a
        if TING + tile in legal:
            # 报听 (SDG §4.6) with two winning kinds or more, as GreedyBot with its waits.
            hand = list(st.hands[p])
            hand[tile] -= 1
            if len(waits(tuple(hand), (), rules.max_suits, st.que[p])) >= 2:
                return TING + tile
        return DISCARD + tile
    if st.phase == DINGQUE:
        hand = st.hands[p]
        sizes = [sum(hand[9 * s : 9 * s + 9]) for s in range(3)]
        return QUE + sizes.index(min(sizes))
    if PENG not in legal:
        return PASS
    x = st.claim_tile
    hand = list(st.hands[p])
    n = len(st.melds[p])
    now = _value(st, p, hand, n)
    if GANG in legal:
        hand[x] -= 3
        if _value(st, p, hand, n + 1, 1 << (x // 9)) >= now:
            return GANG
        hand[x] += 3
    hand[x] -= 2
    _, after = _discard(st, p, rng, hand)
    if after + _MELD * (n + 1) > now:
        return PENG
    return PASS


def _world_table(st: State, p: int) -> _Table:
    """What seat ``p`` of world ``st`` would read from its view (bots._table), built from the
    state without a view: its hand and melds, the copies it has not seen of each kind (another
    seat's face-down 暗杠 hides its kind unless ``angang_public``, SDG §10), and the kinds every
    报听 opponent has thrown (SDG §4.6)."""
    hand = st.hands[p]
    seen = list(hand)
    public = st.rules.angang_public
    safe: frozenset[int] | None = None
    for s in range(3):
        for m in st.melds[s]:
            if s == p or public or m.kind is not MeldKind.ANGANG:
                seen[m.tile] += m.kind.size
        for tile, taken in zip(st.discards[s], st.taken[s], strict=True):
            if not taken:
                seen[tile] += 1
        if s != p and st.baoting[s]:
            row = frozenset(st.discards[s])
            safe = row if safe is None else safe & row
    melds = tuple(st.melds[p])
    return _Table(
        tuple(hand),
        melds,
        tuple(max(0, COPIES - n) for n in seen),
        st.que[p],
        any(m.kind.is_kong for m in melds),
        bool(st.firsts),
        safe,
    )


def greedy_policy(st: State, p: int, greedy: GreedyBot, rng: random.Random) -> int:
    """GreedyBot's action for seat ``p`` of world ``st``, from what that seat would see (the
    same choice as ``greedy.act(observe(st, p), rng)``, without building the view)."""
    legal = st.legal_actions(p)
    if len(legal) == 1:
        return legal[0]
    if HU in legal:
        return HU
    if st.phase == DINGQUE:
        return greedy.choose_que_on(tuple(st.hands[p]), rng)
    table = _world_table(st, p)
    if st.phase in (CLAIMS, ROB):
        return greedy.claim_on(legal, st.claim_tile, st.claim_from, table)
    return greedy.self_turn_on(legal, table, rng)


def rollout(st: State, rng: random.Random, greedy: GreedyBot | None = None) -> tuple[int, int, int]:
    """Play world ``st`` to its end, every seat by :func:`policy` (or, given ``greedy``, by
    :func:`greedy_policy`); the hand's net."""
    while st.phase != 3:  # OVER
        p = st.current_player()
        a = policy(st, p, rng) if greedy is None else greedy_policy(st, p, greedy, rng)
        st.apply(a, p)
    return st.returns()


# ---------------------------------------------------------------------------- the search


@dataclass(slots=True)
class Arm:
    """One candidate action and the seat's points in each world it was played in."""

    action: int
    returns: list[float] = field(default_factory=list)

    def mean(self) -> float:
        """Mean points so far."""
        return sum(self.returns) / len(self.returns) if self.returns else 0.0


def paired(a: list[float], b: list[float]) -> tuple[float, float]:
    """Mean and standard error of ``a - b`` over the worlds both were played in."""
    n = min(len(a), len(b))
    if n == 0:
        return 0.0, math.inf
    diffs = [a[i] - b[i] for i in range(n)]
    mean = sum(diffs) / n
    if n < 2:
        return mean, math.inf
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean, math.sqrt(var / n)


@dataclass(frozen=True, slots=True)
class Decision:
    """What one search found: the answer, the base's choice, every arm and the rollouts."""

    action: int
    default: int
    arms: tuple[Arm, ...]
    rollouts: int


class SearchBot:
    """Flat Monte Carlo with progressive pruning over its base's best candidates (module doc).

    ``sims``: rollouts per decision (deterministic for a given ``rng``); ``ms``: a wall-clock
    budget per decision instead (0: off); ``width``: discards searched beside the greedy one;
    ``batch``: worlds between prunings (the first after two); ``z``: standard errors a
    candidate must lose by to be dropped, and beat the base's choice by to replace it;
    ``gap``: how far below the base's choice (its rating's value) a discard may be rated and
    still be searched; ``greedy``: 1 to play the rollouts by :func:`greedy_policy`;
    ``chickens``: 1 to rate discards with :data:`~.bots.SETTLED` chicken costs (the default and
    the candidates then come from :attr:`base`, a GreedyBot that throws the hand's first
    chicken among equals), 0 with GreedyBot's own (:data:`~.bots.KEEP`)."""

    __slots__ = (
        "base",
        "batch",
        "gap",
        "greedy",
        "ms",
        "roll_greedy",
        "rules",
        "sims",
        "width",
        "z",
    )

    #: The budget of a claim, kong or 报听 decision, in multiples of ``sims`` (or ``ms``).
    BIG: Final = 3

    def __init__(
        self,
        rules: RuleConfig | None = None,
        sims: float = 64,
        ms: float = 0,
        width: float = 2,
        batch: float = 8,
        z: float = 2.5,
        greedy: float = 0,
        gap: float = 1.0,
        chickens: float = 1,
    ) -> None:
        self.rules = rules or RuleConfig()
        #: The model of every seat in GreedyBot rollouts (``greedy=1``).
        self.greedy = GreedyBot(self.rules)
        #: The default choice and the candidates' ratings.
        self.base = GreedyBot(self.rules, SETTLED if chickens else KEEP)
        self.sims = int(sims)
        self.ms = float(ms)
        self.width = int(width)
        self.batch = int(batch)
        self.z = float(z)
        self.roll_greedy = bool(greedy)
        self.gap = float(gap)

    def act(self, view: View, rng: random.Random) -> int:
        """The action for ``view``."""
        return self.decide(view, rng).action

    def decide(self, view: View, rng: random.Random) -> Decision:
        """The search behind :meth:`act`, with its arms."""
        legal = view.legal
        if not legal:
            raise ValueError(f"seat {view.viewer} has no legal action to choose from")
        if len(legal) == 1:
            return Decision(legal[0], legal[0], (), 0)
        if legal[0] >= QUE:
            a = self.base.choose_que(view, rng)
            return Decision(a, a, (), 0)
        if HU in legal:
            return Decision(HU, HU, (), 0)  # SDG §6.2: a legal 胡 always scores; take it
        default = self.base.act(view, rng)
        candidates = self.candidates(view, default)
        if len(candidates) == 1:
            return Decision(default, default, (), 0)
        # A claim, a kong or 报听 changes the hand's shape and its worth most (SDG §4.3-§4.6),
        # and is rare: three times the budget.
        big = view.phase != "self" or any(a >= TING for a in candidates)
        return self.search(view, candidates, default, rng, self.BIG if big else 1)

    def candidates(self, view: View, default: int) -> list[int]:
        """The base's choice first, then on the seat's turn the ``width`` best discards by
        its rating (with 报听 where legal) and every kong; in a window every option."""
        legal = view.legal
        if view.phase != "self":
            return [default, *(a for a in legal if a != default)]
        table = _table(view)
        tiles = [a - DISCARD for a in legal if DISCARD <= a < TING]
        rated = self.base._rate_discards(table.hand, table.melds, table, tiles)
        # Only the discards that leave the hand nearest 叫 are close calls (the base rates
        # the others -inf): a farther one is never searched.
        near = [t for t in rated if rated[t][1] != float("-inf")]
        order = sorted(near, key=lambda t: rated[t], reverse=True)[: self.width]
        # A discard rated ``gap`` or more below the best is a clear call: not searched.
        top = rated[order[0]][1] if order else 0.0
        order = [t for t in order if rated[t][1] >= top - self.gap]
        out = [default]
        for t in order:
            for a in (DISCARD + t, TING + t):
                if a in legal and a not in out:
                    out.append(a)
        out += [a for a in legal if ANGANG <= a < PENG and a not in out]
        return out

    def search(
        self,
        view: View,
        candidates: list[int],
        default: int,
        rng: random.Random,
        scale: int = 1,
    ) -> Decision:
        """The race of ``candidates`` over determinized worlds (module doc), with ``scale``
        times the budget."""
        knowledge = Knowledge.of(view, self.rules)
        seat = view.viewer
        arms = [Arm(a) for a in candidates]
        live = list(arms)
        seed = rng.getrandbits(64)
        limit = scale * self.ms / 1000
        deadline = time.perf_counter() + limit if self.ms > 0 else math.inf
        budget = scale * self.sims if self.ms <= 0 else 1 << 62
        used = 0
        world_no = 0
        while used < budget and len(live) > 1:
            world_rng = random.Random(seed + 2 * world_no)
            world = knowledge.sample(world_rng)
            roll_seed = seed + 2 * world_no + 1
            for arm in live:
                st = world.clone()
                st.apply(arm.action, seat)
                played = self.greedy if self.roll_greedy else None
                net = rollout(st, random.Random(roll_seed), played)
                arm.returns.append(net[seat])
            used += len(live)
            world_no += 1
            if world_no % self.batch == 0 and world_no >= 2 * self.batch:
                live = self._prune(live, default)
            if time.perf_counter() >= deadline:
                break
        return Decision(self._choose(live, default), default, tuple(arms), used)

    def _prune(self, live: list[Arm], default: int) -> list[Arm]:
        """Drop every arm but the base's whose paired mean against the leader is below zero
        by more than ``z`` standard errors (all live arms play every world)."""
        leader = max(live, key=Arm.mean)
        keep = []
        for arm in live:
            if arm is leader or arm.action == default:
                keep.append(arm)
                continue
            mean, se = paired(arm.returns, leader.returns)
            if mean + self.z * se >= 0:
                keep.append(arm)
        return keep

    def _choose(self, live: list[Arm], default: int) -> int:
        """The best live arm if, over two batches of worlds or more, it beats the base's
        choice by more than ``z`` standard errors; else the base's choice."""
        best = max(live, key=Arm.mean)
        base = next(a for a in live if a.action == default)
        if best is base or len(base.returns) < 2 * self.batch:
            return default
        mean, se = paired(best.returns, base.returns)
        return best.action if mean > self.z * se else default


def parse_params(params: dict[str, str]) -> dict[str, float]:
    """The keyword arguments of a ``search:key=value,...`` spec, checked against
    :data:`PARAMS`; ``ValueError`` quoting a bad key or value."""
    out: dict[str, float] = {}
    for key, raw in params.items():
        k = key.strip()
        if k not in PARAMS:
            raise ValueError(f"unknown parameter {k!r}; known: {', '.join(PARAMS)}")
        _, low, high = PARAMS[k]
        try:
            value = float(raw) if k in ("z", "gap") else int(raw)
        except ValueError:
            raise ValueError(f"{k} must be a number, not {raw!r}") from None
        if not low <= value <= high:
            raise ValueError(f"{k} must be {low:g}..{high:g}, not {raw!r}")
        out[k] = value
    return out


__all__ = ["PARAMS", "Arm", "Decision", "SearchBot", "paired", "parse_params", "policy", "rollout"]
