"""``greedy``: a one-ply heuristic bot that sees only its :class:`BotView` (RULES §3-§7).

Every decision compares the 19-card positions it can lead to (melds + concealed hand, after the
claim and its forced discard) with one value:

* structure: the best split of the hand into groups, pairs and two-card run shapes, each part
  weighted by how likely the table still lets it complete (unseen copies, 碰/吃 bans of §5.3);
* 息: 硬息 already in melds and 砍, plus the expected 硬息 of pairs that may still become 碰 or 偎
  (§6.4), with a penalty while the estimate is below ``min_xi`` (§4.7);
* 名堂 potential: few red cards (乌胡/点胡) or many (多红) where the preset scores them (§7.2);
* 听牌: once the position waits (:func:`weimaque.games.maque.scoring.waits`), a bonus plus the total
of each
  waiting face times its unseen copies, counted from everything the seat can see;
* feeding: a small cost for discarding a face that another seat can likely 碰 or the 下家 吃.

A winning 胡 is always taken (conservative even under 蛰一蛰 presets).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from weimaque.games.maque.analysis.arrange import melds_xi, triple_xi
from weimaque.games.maque.analysis.decompose import splits
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.history import Chi, Discard, Draw, Peng, Release
from weimaque.games.maque.cards import NUM_FACES, RED_FACES, Counts
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.game.state import claim_into, discardable, table_of
from weimaque.games.maque.notation import Meld
from weimaque.games.maque.rules.config import RuleConfig
from weimaque.games.maque.scoring.waits import Wait, waits

HU: Final = Action("hu")
PASS: Final = Action("pass")

#: Value of a complete group (meld, 砍, run in hand).
GROUP: Final = 1.0
#: Value of one 硬息 point, and the extra cost per point missing below ``min_xi``.
XI: Final = 0.06
XI_SHORT: Final = 0.08
#: A pair is worth this much even if it can never grow (it may be the 麻雀).
PAIR_BASE: Final = 0.35
#: A two-card run shape with a live 吃 face, before its completion chance.
SHAPE_BASE: Final = 0.1
SHAPE_GAIN: Final = 0.55
#: 听牌: a bonus for waiting on a live face, plus this much per unseen copy per point of total.
TENPAI: Final = 2.5
TENPAI_EV: Final = 0.015
#: Cost of giving a seat a likely 碰, or the 下家 a likely 吃 (RULES §3).
FEED_PENG: Final = 0.12
FEED_CHI: Final = 0.08
#: A claim that leaves no legal discard makes the seat 死手 and unable to 胡 (RULES §4.1).
DEAD: Final = -100.0


@dataclass(frozen=True, slots=True)
class Parts:
    """The terms of a position's value: structure, 硬息 estimate and its shortfall cost, 名堂
    nudge, live waiting copies and their expected total, and the value they sum to."""

    shape: float
    xi: float
    short: float
    ming: float
    live: int
    ev: float
    value: float


@functools.lru_cache(maxsize=1 << 14)
def _cached_waits(melds: tuple[Meld, ...], hand: Counts, rules: RuleConfig) -> tuple[Wait, ...]:
    return tuple(waits(melds, hand, rules))


def _structural_wait(hand: Counts) -> bool:
    """Whether some face completes the concealed cards into groups + 麻雀 (RULES §6.1)."""
    h = list(hand)
    for f in range(NUM_FACES):
        h[f] += 1
        found = bool(splits(tuple(h)))
        h[f] -= 1
        if found:
            return True
        if h[f] >= 2:  # a self-drawn card with a pair in hand is a forced 偎
            h[f] -= 2
            found = bool(splits(tuple(h)))
            h[f] += 2
            if found:
                return True
    return False


class _Table:
    """What the seat knows, digested once per decision: unseen copies, 碰/吃 chances, bans."""

    def __init__(self, view: BotView) -> None:
        obs = view.obs
        self.view = view
        self.seat = seat = view.seat
        self.rules = view.rules
        self.hand: Counts = view.hand()
        self.melds: tuple[Meld, ...] = tuple(
            Meld(m.kind, m.faces) for m in obs.melds[seat] if m.faces is not None
        )
        self.claim_card = view.claim_card()
        self.unseen = obs.unseen_counts()
        total_unseen = max(1, sum(self.unseen))
        stock = obs.stock_left
        #: chance that one given unseen copy still comes out of the stock
        self.q = min(1.0, stock / total_unseen)
        #: the seats (RULES §2.5: two or three); with two the opponent is 下家 and 上家 both
        self.n = n = self.rules.players
        #: RULES §2.5.3(1), §2.5.4: with two seats and ``chi_opponent_discard`` off, discards are
        #: never 吃'd and only releases make a face 吃-过张
        table = table_of(self.rules)
        self.release_only = table.release_only
        thrown: list[set[int]] = [set() for _ in range(n)]
        released: list[set[int]] = [set() for _ in range(n)]
        no_discard: set[int] = set()
        face_up: set[int] = set()
        chi_taken: set[int] = set()
        xiajia = (seat + 1) % n
        for e in view.history:
            if isinstance(e, Discard | Release):
                thrown[e.seat].add(e.card)
                if isinstance(e, Release):
                    released[e.seat].add(e.card)
                face_up.add(e.card)
            elif isinstance(e, Draw):
                if e.card is not None:
                    face_up.add(e.card)
            elif isinstance(e, Peng | Chi):
                if e.seat == seat:
                    no_discard.add(e.card)  # RULES §5.2
                if isinstance(e, Chi) and e.seat == xiajia:
                    chi_taken.update(e.faces)
        self.thrown = thrown
        #: per seat, what makes a face 吃-过张 for its 下家 (RULES §5.3, §2.5.4)
        self.guo = table.guo_sets(thrown, released)
        self.no_discard = no_discard
        self.face_up = face_up
        self.xiajia_runs = chi_taken
        # A face seen face up before and not 碰'd then is 碰-过张 for us (RULES §5.3); hands never
        # grow, so holding two now means we held two then.
        self.peng_ok = [f not in face_up for f in range(NUM_FACES)]
        shangjia = (seat - 1) % n
        self.chi_ok = [
            f not in thrown[seat] and f not in self.guo[shangjia] for f in range(NUM_FACES)
        ]
        #: the share of the draws that are ours (RULES §4.7: one in three, with two seats half)
        self.own_share = 1 / n
        #: the share of the cards we may 吃: our own draws and the 上家's draws and discards
        #: (two in three); with two seats every draw, or without 吃 of discards, the draws only
        self.chi_share = 2 / 3 if n == 3 else 1.0
        self.memo: dict[Counts, tuple[float, float]] = {}
        self.hand_now: Counts = self.hand
        self.patterns = self.rules.patterns

    # ------------------------------------------------------------ parts

    def _pair(self, f: int) -> tuple[float, float]:
        """Value and expected 硬息 of a pair: it may become 碰 or 偎, or stay the 麻雀."""
        u = self.unseen[f]
        p_any = 1.0 - (1.0 - self.q) ** u if u else 0.0
        red = f in RED_FACES
        if self.peng_ok[f]:
            p_up = p_any
            xi_up = (2 * triple_xi("peng", f) + triple_xi("wei", f)) / 3
        else:
            p_up = p_any * self.own_share  # only our own draw, a forced 偎 (RULES §4.3)
            xi_up = float(triple_xi("wei", f))
        xi = p_up * xi_up + (1 - p_up) * (2.0 if red else 0.0) * 0.5
        return PAIR_BASE + p_up * (GROUP - PAIR_BASE), xi

    def _shape(self, needs: Sequence[int]) -> float:
        """Value of a two-card run shape that a 吃 of one of ``needs`` completes (RULES §4.6)."""
        live = sum(
            self.unseen[n]
            for n in needs
            if self.chi_ok[n] and not (self.rules.holder_may_not_chi and self.hand_now[n] >= 2)
        )
        if not live:
            return 0.0
        # 吃 sources are our own draws and the 上家's: about two draws in three (every draw with
        # two seats, RULES §2.5.3).
        p = 1.0 - (1.0 - self.q * self.chi_share) ** live
        return SHAPE_BASE + SHAPE_GAIN * p

    def _half(self, half: Counts, base: int) -> tuple[float, float]:
        """Best (value, 硬息) split of one case's counts into groups, pairs, shapes, singles."""
        key = (base, *half)
        hit = self.memo.get(key)
        if hit is not None:
            return hit
        i = next((k for k, n in enumerate(half) if n), -1)
        if i < 0:
            return (0.0, 0.0)
        f = base + i
        c = half[i]
        h = list(half)
        best = (-1e9, 0.0)

        def take(*idx: int) -> Counts:
            r = list(h)
            for k in idx:
                r[k] -= 1
            return tuple(r)

        options: list[tuple[float, float, Counts]] = []
        if c >= 3:
            kan = float(triple_xi("wei", f))  # a 砍 scores as a 偎 (RULES §4.4)
            options.append((GROUP + XI * kan, kan, take(i, i, i)))
        if i <= 7 and h[i + 1] and h[i + 2]:
            options.append((GROUP, 0.0, take(i, i + 1, i + 2)))
        if c >= 2:
            pv, pxi = self._pair(f)
            options.append((pv + XI * pxi, pxi, take(i, i)))
        if i <= 8 and h[i + 1]:
            needs = [base + k for k in (i - 1, i + 2) if 0 <= k <= 9]
            options.append((self._shape(needs), 0.0, take(i, i + 1)))
        if i <= 7 and h[i + 2]:
            options.append((self._shape([f + 1]), 0.0, take(i, i + 2)))
        options.append((0.0, 0.0, take(i)))
        for v, xi, rest in options:
            rv, rxi = self._half(rest, base)
            if v + rv > best[0]:
                best = (v + rv, xi + rxi)
        self.memo[key] = best
        return best

    # ------------------------------------------------------------ positions

    def value(self, melds: tuple[Meld, ...], hand: Counts) -> float:
        """Value of a 19-card position (melds + concealed hand), higher is better."""
        return self.parts(melds, hand).value

    def parts(self, melds: tuple[Meld, ...], hand: Counts) -> Parts:
        """The terms of a 19-card position's value (see :class:`Parts`)."""
        self.hand_now = hand
        self.memo = {}
        small = self._half(hand[:10], 0)
        big = self._half(hand[10:], 10)
        meld_xi = melds_xi(melds)
        xi = meld_xi + small[1] + big[1]
        shape = small[0] + big[0] + GROUP * len(melds) + XI * meld_xi
        short = XI_SHORT * max(0.0, self.rules.min_xi - xi)
        ming = self._mingtang(melds, hand)
        live = 0
        ev = 0.0
        if _structural_wait(hand):
            for w in _cached_waits(melds, hand, self.rules):
                u = self.unseen[w.face]
                if u:
                    live += u
                    # a drawn card is ours one time in three (RULES §4.7; in two with two seats)
                    own = self.own_share
                    ev += u * ((w.self_total or 0) * own + (w.other_total or 0) * (1 - own))
        tenpai = TENPAI + TENPAI_EV * ev if live else 0.0
        return Parts(shape, xi, short, ming, live, ev, shape - short + ming + tenpai)

    def _mingtang(self, melds: tuple[Meld, ...], hand: Counts) -> float:
        """A nudge towards 乌胡/点胡 or 多红 where the preset scores them (RULES §7.2)."""
        red = sum(hand[f] for f in RED_FACES) + sum(
            1 for m in melds for f in m.faces if f in RED_FACES
        )
        p = self.patterns
        if red == 0 and "wu" in p:
            return 0.6
        if red == 1 and "dian" in p:
            return 0.35
        if red >= 9 and "hong" in p:
            return 0.08 * (red - 8)
        return 0.0

    def feed(self, face: int, *, peng: bool = True) -> float:
        """Cost of showing ``face``: a seat may 碰 it, our 下家 may 吃 it (RULES §3, §5.3). A
        discard (``peng``) with two seats and ``chi_opponent_discard`` off cannot be 吃'd; a
        release always can (RULES §2.5.3)."""
        u = self.unseen[face]
        cost = 0.0
        if peng and u >= 2 and face not in self.face_up:
            cost += FEED_PENG * (u - 1) / 3
        if peng and self.release_only:
            return cost
        nxt = (self.seat + 1) % self.n
        if face not in self.thrown[nxt] and face not in self.guo[self.seat]:
            near = any(abs(face - g) <= 2 and face // 10 == g // 10 for g in self.xiajia_runs)
            cost += FEED_CHI * (1.5 if near else 1.0) * min(1.0, u / 2 + 0.25)
        return cost

    def best_discard(
        self, melds: tuple[Meld, ...], hand: Counts, banned: set[int]
    ) -> tuple[float, int | None]:
        """The best legal discard from a position with one card too many (RULES §5.2)."""
        best: tuple[float, int | None] = (DEAD, None)
        h = list(hand)
        for f in discardable(h, banned):
            h[f] -= 1
            v = self.value(melds, tuple(h)) - self.feed(f)
            h[f] += 1
            if best[1] is None or v > best[0]:
                best = (v, f)
        return best


class GreedyBot:
    """``greedy``: one-ply search over claims and discards with a hand-value heuristic."""

    name = "greedy"

    def act(self, view: BotView, rng: random.Random) -> Action:
        """Take any 胡; else the claim or discard leading to the best-valued position."""
        obvious = view.obvious()
        if obvious is not None:
            return obvious  # RULES §4.7: always take the win
        legal = view.legal
        table = _Table(view)
        if view.obs.phase == "discard":
            return self._discard(table, legal)
        return self._claim(table, legal)

    def _discard(self, table: _Table, legal: Sequence[Action]) -> Action:
        best: tuple[float, Action] | None = None
        h = list(table.hand)
        for a in legal:
            assert a.face is not None
            h[a.face] -= 1
            v = table.value(table.melds, tuple(h)) - table.feed(a.face)
            h[a.face] += 1
            if best is None or v > best[0]:
                best = (v, a)
        assert best is not None
        return best[1]

    def _claim(self, table: _Table, legal: Sequence[Action]) -> Action:
        card = table.claim_card
        if card is None:
            return PASS if PASS in legal else legal[0]
        claim = table.view.obs.claim
        assert claim is not None
        own_draw = claim.origin == "draw" and claim.from_seat == table.seat
        pass_value = table.value(table.melds, table.hand)
        if own_draw:
            pass_value -= table.feed(card, peng=False)  # released: the 下家 may 吃 it (§3.1.3)
        best = (pass_value, PASS if PASS in legal else legal[0])
        banned = {*table.no_discard, card}
        for a in legal:
            if a.kind not in ("peng", "chi"):
                continue
            hand = list(table.hand)
            meld = claim_into(hand, card, a.face)
            v, _ = table.best_discard((*table.melds, meld), tuple(hand), banned)
            if v > best[0]:
                best = (v, a)
        return best[1]
