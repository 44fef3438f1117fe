"""Bots of 三丁拐 that see only one seat's :class:`~.observation.View` (SDG §10).

A bot is anything with ``act(view, rng) -> action id``: the view is all it reads (the rules
are public and given when it is made), ``rng`` is the only randomness it uses, so a bot's
choice is a function of (view, rng state) and re-dealing what the seat cannot see changes
nothing.

- :class:`RandomBot`: a uniformly random legal action.
- :class:`GreedyBot`: one-ply greedy on the distance from 叫 (a 向听 count over 4 sets + pair
  and 七对 within the suit limit), the winning tiles it has not seen, the passport, 报听 and
  the chickens' value; each choice is documented on its method with the SDG sections it uses.

The arena (:mod:`weimaque.arena`, ``wmq arena --game sandingguai``) plays them on duplicate
deals through the game seam; ``bench/sandingguai_bots.py`` measures GreedyBot there.

>>> from weimaque.games.sandingguai import State, get_rules, observe
>>> import random
>>> rules = get_rules("sandingguai")
>>> state = State(rules, seed=7)
>>> action = GreedyBot(rules).act(observe(state, 0), random.Random(1))
>>> action in state.legal_actions(0)
True
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Protocol

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
from weimaque.games.sandingguai.hands import WinContext, score, waits
from weimaque.games.sandingguai.notation import Meld, MeldKind
from weimaque.games.sandingguai.observation import View
from weimaque.games.sandingguai.rules import RuleConfig
from weimaque.games.sandingguai.tiles import COPIES, NUM_KINDS, WUGU, YAOJI, Counts


class Bot(Protocol):
    """A player of 三丁拐 from one seat's view."""

    def act(self, view: View, rng: random.Random) -> int:
        """A legal action id of ``view.viewer`` (``view.legal`` is not empty)."""
        ...


class RandomBot:
    """A uniformly random legal action, drawn from the ``rng`` it is given."""

    __slots__ = ()

    def act(self, view: View, rng: random.Random) -> int:
        """One of ``view.legal``, uniformly."""
        if not view.legal:
            raise ValueError(f"seat {view.viewer} has no legal action to choose from")
        return rng.choice(view.legal)


# ------------------------------------------------------------------------- distance from 叫

#: The suits of the hand's kinds, as index ranges.
_SUIT_RANGES: Final = ((0, 9), (9, 18), (18, 27))


@functools.lru_cache(maxsize=1 << 16)
def _blocks(counts: tuple[int, ...]) -> frozenset[tuple[int, int, int]]:
    """Every way one suit's counts split into (sets, partial sets, pair) blocks: sets are
    刻子/顺子 (SDG §6.1), partials a pair, two neighbours or a gapped two, ``pair`` 1 when a
    pair is kept as the hand's pair; unused tiles are left out."""
    i = next((r for r in range(9) if counts[r]), 9)
    if i == 9:
        return frozenset({(0, 0, 0)})
    out: set[tuple[int, int, int]] = set()

    def take(removed: Sequence[int], dm: int, dt: int, dp: int) -> None:
        rest = list(counts)
        for r in removed:
            rest[r] -= 1
        for m, t, p in _blocks(tuple(rest)):
            if p + dp <= 1:
                out.add((m + dm, t + dt, p + dp))

    c = counts
    if c[i] >= 3:
        take((i, i, i), 1, 0, 0)
    if i <= 6 and c[i + 1] and c[i + 2]:
        take((i, i + 1, i + 2), 1, 0, 0)
    if c[i] >= 2:
        take((i, i), 0, 0, 1)
        take((i, i), 0, 1, 0)
    if i <= 7 and c[i + 1]:
        take((i, i + 1), 0, 1, 0)
    if i <= 6 and c[i + 2]:
        take((i, i + 2), 0, 1, 0)
    take((i,), 0, 0, 0)
    return frozenset(out)


@functools.lru_cache(maxsize=1 << 16)
def _entries(counts: tuple[int, ...]) -> tuple[tuple[int, int, int], ...]:
    """:func:`_blocks` less every split another beats on sets, partials and pair at once."""
    best: dict[tuple[int, int], int] = {}
    for m, t, p in _blocks(counts):
        m = min(m, 4)
        if best.get((p, m), -1) < t:
            best[(p, m)] = t
    items = [(p, m, t) for (p, m), t in best.items()]
    return tuple(
        e
        for e in items
        if not any(o != e and o[0] >= e[0] and o[1] >= e[1] and o[2] >= e[2] for o in items)
    )


def _standard_shanten(suit_entries: Sequence[tuple[tuple[int, int, int], ...]], need: int) -> int:
    """向听 of the 4 sets + pair form from the chosen suits' splits: 2 per missing set, less
    one per partial set (at most one per missing set), less one for a pair (SDG §6.1)."""
    combos: list[tuple[int, int, int]] = [(0, 0, 0)]
    for entries in suit_entries:
        combos = [(p + q, m + n, t + u) for p, m, t in combos for q, n, u in entries if p + q <= 1]
    best = 99
    for p, m, t in combos:
        missing = need - min(m, need)
        value = 2 * missing - min(t, missing) - p
        if value < best:
            best = value
    return best


@functools.lru_cache(maxsize=1 << 18)
def shanten(counts: Counts, melds: int, max_suits: int, que: int = -1, meld_suits: int = 0) -> int:
    """向听 (tiles away from 叫) of concealed ``counts`` (3n+1 tiles; 3n+2: -1 is a win) with
    ``melds`` melds of the suits in mask ``meld_suits``: the least over 4 sets + pair and 七对
    (no melds, four of a kind = two pairs) of each choice of at most ``max_suits`` suits that
    holds the melds' suits and not the lacking suit ``que`` (SDG §5.3, §6.1, §2.4). A tile
    outside the chosen suits must be replaced, so the count is at least their number (less
    one with 3n+2 tiles: one may be discarded)."""
    suits = (counts[0:9], counts[9:18], counts[18:27])
    sizes = [sum(c) for c in suits]
    total = sum(sizes)
    extra = 1 if total % 3 == 2 else 0
    entries = [_entries(c) if n else ((0, 0, 0),) for c, n in zip(suits, sizes, strict=True)]
    pairs = [sum(n // 2 for n in c) for c in suits] if not melds else [0, 0, 0]
    best = 99
    for chosen in _suit_choices(max_suits, que, meld_suits):
        floor = total - sum(sizes[s] for s in chosen) - extra
        value = max(_standard_shanten([entries[s] for s in chosen], 4 - melds), floor)
        if not melds:
            held = sum(pairs[s] for s in chosen)
            value = min(value, max(6 - min(held, 7), floor))
        if value < best:
            best = value
    return best


@functools.lru_cache(maxsize=64)
def _suit_choices(max_suits: int, que: int, meld_suits: int) -> tuple[tuple[int, ...], ...]:
    """The suit sets a hand may still finish in: ``max_suits`` of them (SDG §5.3), holding the
    melds' suits, without the lacking suit (SDG §2.4)."""
    allowed = [s for s in range(3) if s != que]
    if len(allowed) <= max_suits:
        combos: list[tuple[int, ...]] = [tuple(allowed)]
    else:
        combos = [
            tuple(s for s in allowed if s != drop) for drop in allowed
        ]  # max_suits = 2 of 3 allowed suits
    out = tuple(c for c in combos if all(meld_suits >> s & 1 == 0 or s in c for s in range(3)))
    return out or ((),)


# ----------------------------------------------------------------------------- greedy bot


@dataclass(frozen=True, slots=True)
class _Table:
    """What the viewer knows of its own hand and the table (SDG §10)."""

    hand: Counts
    melds: tuple[Meld, ...]
    unseen: tuple[int, ...]
    que: int
    has_kong: bool
    first_chicken_out: bool
    #: The kinds every 报听 opponent has discarded (None: no opponent is 报听).
    baoting_safe: frozenset[int] | None


def _table(view: View) -> _Table:
    """Own tiles and melds, and per kind the copies the viewer has not seen: 4 less its own
    hand, every face-up meld and every tile that stayed in a discard row (a face-down 暗杠 of
    another seat hides its kind and is not counted)."""
    seen = list(view.hand)
    own: list[Meld] = []
    safe: frozenset[int] | None = None
    for seat in view.seats:
        for m in seat.melds:
            if m.tile is not None:
                seen[m.tile] += m.kind.size
                if seat.seat == view.viewer:
                    own.append(Meld(m.kind, m.tile, m.source))
        for tile, taken in seat.discards:
            if not taken:
                seen[tile] += 1
        if seat.seat != view.viewer and seat.baoting:
            # SDG §4.6: a 报听 hand is locked and throws every draw that did not win it, so
            # the kinds in its row are the likely safe ones.
            row = frozenset(t for t, _ in seat.discards)
            safe = row if safe is None else safe & row
    unseen = tuple(max(0, COPIES - n) for n in seen)
    return _Table(
        view.hand,
        tuple(own),
        unseen,
        view.seats[view.viewer].que,
        any(m.kind.is_kong for m in own),
        bool(view.chickens),
        safe,
    )


@dataclass(frozen=True, slots=True)
class ChickenCosts:
    """What throwing a fixed chicken costs a discard's rating (SDG §7.4-§7.7), per chicken
    value, in the rating's units (unseen useful tiles): ``row`` for any fixed chicken, plus
    ``first_claimable`` for the hand's first chicken discard while two or more copies are
    unseen (someone may 碰 it: 责任鸡), or ``first`` with fewer (it stays: 冲锋鸡).

    :data:`KEEP` is GreedyBot's: chickens go last among equals. :data:`SETTLED` values them by
    what the settlement does with a thrown chicken: it still counts for its thrower if he ends
    叫 (§7.6), and the first one counts twice (冲锋鸡, §7.4), so among equals it goes first."""

    row: float
    first_claimable: float
    first: float


#: GreedyBot's chicken costs: keep them (a thrown one costs 包鸡 if the seat ends not 叫).
KEEP: Final = ChickenCosts(row=1.5, first_claimable=3.0, first=1.0)
#: The search bot's: throw the hand's first chicken among equals (docs/sandingguai.md §13).
SETTLED: Final = ChickenCosts(row=0.0, first_claimable=-3.0, first=-3.0)


def _meld_mask(melds: Sequence[Meld]) -> int:
    mask = 0
    for m in melds:
        mask |= 1 << (m.tile // 9)
    return mask


class GreedyBot:
    """One-ply greedy play from one seat's view (SDG §3-§7).

    Every discard (and each 碰/杠 considered) is judged by the 13 tiles it leaves: first the
    向听 (:func:`shanten`: distance from 叫, within the two-suit limit of SDG §5.3 and the
    lacking suit of §2.4), then the copies left unseen of the tiles that bring the hand
    nearer (at 叫: of its waits, SDG §6.3), weighed by the passport (§5.1: a wait that
    cannot be won on a discard counts for less), then the chickens' value (§7). Ties are
    broken with ``rng``. ``chickens``: what throwing a fixed chicken costs (:data:`KEEP`).
    """

    __slots__ = ("chickens", "rules")

    #: A wait that only 自摸 can win (no passport, SDG §5.1) counts this much of a full one.
    ZIMO_ONLY: Final = 0.4
    #: 报听 needs at least this many unseen winning tiles (SDG §4.6: the hand is locked).
    BAOTING_MIN_WAITS: Final = 4

    def __init__(self, rules: RuleConfig | None = None, chickens: ChickenCosts = KEEP) -> None:
        self.rules = rules or RuleConfig()
        self.chickens = chickens

    # -------------------------------------------------------------------------- decisions

    def act(self, view: View, rng: random.Random) -> int:
        """The action for ``view``: 定缺, 胡 whenever legal, a claim or 过, or the best of
        kong, 报听 and discard."""
        legal = view.legal
        if not legal:
            raise ValueError(f"seat {view.viewer} has no legal action to choose from")
        if len(legal) == 1:
            return legal[0]
        if legal[0] >= QUE:
            return self.choose_que(view, rng)
        if HU in legal:
            return HU  # SDG §6.2: a legal 胡 always scores at least the floor; take it.
        table = _table(view)
        if view.phase in ("claims", "rob"):
            return self.claim(view, table)
        return self.self_turn(view, table, rng)

    def choose_que(self, view: View, rng: random.Random) -> int:
        """定缺 (SDG §2.4): the suit whose loss leaves the hand nearest 叫, then the one held
        least (its tiles are all to be thrown), at random among equals."""
        return self.choose_que_on(view.hand, rng)

    def choose_que_on(self, hand: Counts, rng: random.Random) -> int:
        """:meth:`choose_que` for concealed ``hand`` (the search's rollouts call it on a world's
        state, docs/sandingguai.md §13)."""
        keyed = []
        for suit in range(3):
            held = sum(hand[9 * suit : 9 * suit + 9])
            dist = shanten(hand, 0, self.rules.max_suits, suit)
            keyed.append(((dist, held), QUE + suit))
        best = min(k for k, _ in keyed)
        return rng.choice([a for k, a in keyed if k == best])

    def claim(self, view: View, table: _Table) -> int:
        """碰 / 明杠 or 过 on another seat's discard (SDG §3 CLAIMS, §4.3, §4.4).

        明杠 when the hand without the triplet is no farther from 叫: the kong is a passport
        (§5.1 a) and scores (§8). 碰 when the best discard after it leaves the hand nearer 叫,
        or as near with at least as many useful tiles (the meld gives up 七对 and 报听, §4.6).
        Claiming the hand's first chicken discard makes its discarder pay 责任鸡 (§7.5), so an
        even claim of it is taken."""
        return self.claim_on(view.legal, view.claim_tile, view.turn, table)

    def claim_on(self, legal: Sequence[int], x: int | None, turn: int, table: _Table) -> int:
        """:meth:`claim` on the window's ``legal`` actions, tile ``x`` discarded by seat
        ``turn`` (the search's rollouts call it on a world's state, docs/sandingguai.md §13)."""
        if x is None:
            return PASS
        before = self._rating(table.hand, table.melds, table)
        if GANG in legal:
            hand = list(table.hand)
            hand[x] -= 3
            melds = (*table.melds, Meld(MeldKind.GANG, x, turn))
            if self._rating(tuple(hand), melds, table)[0] >= before[0]:
                return GANG
        if PENG in legal:
            hand = list(table.hand)
            hand[x] -= 2
            melds = (*table.melds, Meld(MeldKind.PENG, x, turn))
            after = max(
                self._rate_discards(
                    tuple(hand), melds, table, [t for t in range(NUM_KINDS) if hand[t]]
                ).values()
            )
            chicken = x in self._fixed_chickens() and not table.first_chicken_out
            if after > before or (after[0] == before[0] and (chicken or after[1] >= before[1])):
                return PENG
        return PASS

    def self_turn(self, view: View, table: _Table, rng: random.Random) -> int:
        """The seat's own turn (SDG §3 SELF): a kong when it keeps the hand as near 叫 (暗杠,
        补杠: §4.5, a passport §5.1 a, kong money §8), else the best discard, declared 报听
        when it leaves 叫 and the waits are worth the lock (§4.6)."""
        return self.self_turn_on(view.legal, table, rng)

    def self_turn_on(self, legal: Sequence[int], table: _Table, rng: random.Random) -> int:
        """:meth:`self_turn` on the seat's ``legal`` actions (the search's rollouts call it on
        a world's state, docs/sandingguai.md §13)."""
        discards = [a - DISCARD for a in legal if DISCARD <= a < TING]
        rated = self._rate_discards(table.hand, table.melds, table, discards)
        best = max(rated.values())
        for a in legal:
            if ANGANG <= a < BUGANG:
                t = a - ANGANG
                hand = list(table.hand)
                hand[t] -= 4
                melds = (*table.melds, Meld(MeldKind.ANGANG, t))
                if self._rating(tuple(hand), melds, table)[0] >= best[0]:
                    return a
            elif BUGANG <= a < PENG:
                t = a - BUGANG
                # The fourth tile of a 碰: the kong adds a passport; a rob needs a 胡 on it.
                if rated.get(t, best)[0] >= best[0]:
                    return a
        choices = [t for t, r in rated.items() if r == best]
        tile = rng.choice(choices)
        if TING + tile in legal and self._worth_baoting(table, tile):
            return TING + tile
        return DISCARD + tile

    # ------------------------------------------------------------------------- evaluation

    def _fixed_chickens(self) -> tuple[int, ...]:
        """The fixed chickens of the rules: 幺鸡, and 八筒 with ``wugu`` (SDG §7.1)."""
        return (YAOJI, WUGU) if self.rules.wugu else (YAOJI,)

    def _rate_discards(
        self, hand: Counts, melds: tuple[Meld, ...], table: _Table, tiles: Sequence[int]
    ) -> dict[int, tuple[int, float]]:
        """Each discard's rating (:meth:`_discard_rating`); only those leaving the hand
        nearest 叫 are valued, the others keep their distance with value -inf."""
        rules = self.rules
        mask = _meld_mask(melds)
        dists = {
            t: shanten(_minus(hand, t), len(melds), rules.max_suits, table.que, mask) for t in tiles
        }
        nearest = min(dists.values())
        return {
            t: self._discard_rating(hand, melds, table, t) if d == nearest else (-d, float("-inf"))
            for t, d in dists.items()
        }

    def _discard_rating(
        self, hand: Counts, melds: tuple[Meld, ...], table: _Table, tile: int
    ) -> tuple[int, float]:
        """The 13 tiles left by discarding ``tile``, rated, less the cost of throwing it: a
        fixed chicken in the discard row costs its value if the seat ends not 叫 (包鸡, SDG
        §7.7), and the hand's first chicken discard may be claimed (责任鸡: 2× to the
        claimant, §7.5) or doubles that cost (冲锋鸡, §7.4), so with :data:`KEEP` costs
        chickens go last among equals (:attr:`chickens`: :data:`SETTLED` weighs what a thrown
        chicken still counts instead). With a 报听 opponent (§4.6: a win on him costs +10 番) a
        kind he has not thrown also goes later."""
        dist, value = self._rating(_minus(hand, tile), melds, table)
        if tile in self._fixed_chickens():
            v = self.rules.wugu_value if tile == WUGU else 1
            costs = self.chickens
            value -= costs.row * v
            if not table.first_chicken_out and self.rules.chongfeng:
                # Two or more unseen copies: someone may 碰 it (责任鸡), else it is 冲锋鸡.
                value -= (costs.first_claimable if table.unseen[tile] >= 2 else costs.first) * v
        if table.baoting_safe is not None and tile not in table.baoting_safe:
            value -= 2.0
        return dist, value

    def _rating(self, hand: Counts, melds: tuple[Meld, ...], table: _Table) -> tuple[int, float]:
        """(-向听, value) of 13-equivalent tiles: value is the unseen copies of the kinds that
        bring the hand nearer 叫 (SDG §6.3 waits when at 叫, each weighed by the 番 it would
        score and whether a discard may be won on, §5.1), plus a lean to 清一色 (§6.2)."""
        rules = self.rules
        meld_suits = _meld_mask(melds)
        dist = shanten(hand, len(melds), rules.max_suits, table.que, meld_suits)
        unseen = table.unseen
        value = 0.0
        if dist == 0:
            has_kong = any(m.kind.is_kong for m in melds)
            for t in waits(hand, melds, rules.max_suits, table.que):
                left = unseen[t]
                if left <= 0:
                    continue
                full = list(hand)
                full[t] += 1
                fan = score(WinContext(tuple(full), melds, t, "other"), rules).fan_before_baoting
                ron = (
                    rules.passport == "none"
                    or has_kong
                    or (rules.passport == "kong_or_big" and fan > rules.fan_pinghu)
                )
                value += left * (1.0 if ron else self.ZIMO_ONLY) * (1 + fan / 10)
        else:
            for t in _near(hand):
                if not unseen[t]:
                    continue
                full = list(hand)
                full[t] += 1
                if shanten(tuple(full), len(melds), rules.max_suits, table.que, meld_suits) < dist:
                    value += unseen[t]
        # A lean to one suit (清一色 adds 10 番): the share of the largest suit.
        sizes = [sum(hand[9 * s : 9 * s + 9]) for s in range(3)]
        for m in melds:
            sizes[m.tile // 9] += 3
        value += 0.5 * max(sizes) / max(1, sum(sizes))
        return -dist, value

    def _worth_baoting(self, table: _Table, tile: int) -> bool:
        """报听 (SDG §4.6) when the 13 tiles left are 叫 with at least
        :attr:`BAOTING_MIN_WAITS` winning tiles unseen: +10 番 and a passport (§5.1 c, §6.2)
        are worth the lock and the 杀报 risk (§9.2) only with waits likely to come."""
        if self.rules.fan_baoting <= 0:
            return False
        hand = _minus(table.hand, tile)
        ws = waits(hand, (), self.rules.max_suits, table.que)
        return sum(table.unseen[t] for t in ws) >= self.BAOTING_MIN_WAITS


def _minus(hand: Sequence[int], tile: int) -> Counts:
    out = list(hand)
    out[tile] -= 1
    return tuple(out)


@functools.lru_cache(maxsize=1 << 14)
def _near(hand: Counts) -> tuple[int, ...]:
    """Kinds within two ranks of a held tile of the same suit: the only draws that can bring
    a hand nearer 叫."""
    out = []
    for t in range(NUM_KINDS):
        r, base = t % 9, t - t % 9
        if any(hand[base + q] for q in range(max(0, r - 2), min(9, r + 3))):
            out.append(t)
    return tuple(out)


__all__ = [
    "KEEP",
    "SETTLED",
    "Bot",
    "ChickenCosts",
    "GreedyBot",
    "RandomBot",
    "shanten",
]
