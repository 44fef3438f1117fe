"""Determinization of 三丁拐: a full :class:`~.state.State` dealt from one seat's view alone.

:class:`Knowledge` reads a seat's :class:`~.observation.View` once (SDG §10: its concealed tiles
and the tile it drew, its own 过水 locks, every seat's melds, discard row, concealed count, 报听
and lacking suit, the dealer and his streak, the wall count, the phase, the seat acting or whose
tile lies under claim, the announced chicken fates, its legal actions) and the table's public
:class:`~.rules.RuleConfig`. The tiles it has not seen are the full set less its hand, every
face-up meld, every tile left in a discard row and a 补杠 tile lying in its rob window; they are
the other seats' concealed tiles (their counts are public), the kinds of their face-down 暗杠
(four unseen copies each) and the wall (its count is public).

:meth:`Knowledge.sample` deals those tiles at random with ``rng`` and builds the state without
replaying: the 暗杠 kinds first, uniformly among the kinds of which all four copies are unseen,
then every other unseen tile shuffled among the other hands and the wall. The rest follows from
the view by the engine's own bookkeeping (SDG §2.2, §3): each seat's draws (the tiles it has
held less the deal), the wall's head and tail (one replacement per standing kong), the pending
first chicken of an open claim window (§7.4), each seat's 叫 bits, and in a window every other
seat's options as the engine would open them on the sampled hands. The sampling function never
receives the real state, so the real hidden tiles cannot leak into a sample.

What the view does not tell is set to its most common value, and the limits this gives are
these: nobody's tile was a kong's replacement (杠上花, SDG §6.4) and the tile under claim is no
热炮 tile (§6.4), the other seats hold no 过水 lock (§5.2), nobody has decided yet in the open
window but the viewer, and the deck's dealt positions (read only for 原缺 with 定缺, SDG §2.4)
hold each seat's own tiles in kind order. Every sample is consistent with the view:
``observe(sample, viewer, scores) == view`` (tests/sandingguai/test_determinize.py).
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Final

from weimaque.games.sandingguai.actions import GANG, HU, PASS, PENG
from weimaque.games.sandingguai.hands import four_bits, odd_bits, suit_keys
from weimaque.games.sandingguai.notation import Meld, MeldKind
from weimaque.games.sandingguai.observation import View
from weimaque.games.sandingguai.rules import RuleConfig
from weimaque.games.sandingguai.state import (
    ASK_ORDER,
    CLAIMS,
    DEALT,
    DINGQUE,
    NUM_SEATS,
    PHASE_NAMES,
    QUE_OPTIONS,
    ROB,
    SELF,
    State,
)
from weimaque.games.sandingguai.tiles import COPIES, NUM_KINDS, WUGU, YAOJI, sorted_deck

_PHASES: Final = {name: i for i, name in enumerate(PHASE_NAMES)}


@dataclass(frozen=True, slots=True)
class Knowledge:
    """What one seat knows of the hand, read from its view once; :meth:`sample` deals the rest."""

    rules: RuleConfig
    view: View
    phase: int
    #: Every seat's melds; another seat's face-down 暗杠 has kind -1 (to be sampled).
    melds: tuple[tuple[Meld, ...], ...]
    #: (seat, meld index) of each face-down 暗杠 whose kind the viewer has not seen.
    hidden_angang: tuple[tuple[int, int], ...]
    #: The unseen tiles, one entry per tile, in kind order.
    pool: tuple[int, ...]
    #: Each seat's tiles held so far that the view shows (concealed count, melds less the
    #: claimed tile, every discard, a 补杠 tile under rob), for its number of draws.
    held: tuple[int, int, int]
    n_kongs: int

    @staticmethod
    def of(view: View, rules: RuleConfig) -> Knowledge:
        """Read ``view`` (a seat's own view of a hand in progress) once.

        Raises ``ValueError`` for a finished hand, or for a claim, rob or 定缺 window in which
        the viewer does not decide (it is not shown such a position, docs/protocol.md §2.3)."""
        if view.phase not in _PHASES or view.phase == PHASE_NAMES[3]:
            raise ValueError(f"no hand in progress to determinize (phase {view.phase!r})")
        phase = _PHASES[view.phase]
        if phase in (CLAIMS, ROB, DINGQUE) and not view.to_act:
            raise ValueError(
                f"seat {view.viewer} is not deciding in the open {view.phase} window: "
                "a seat is shown a window only while it decides (docs/protocol.md §2.3)"
            )
        me = view.viewer
        seen = list(view.hand)
        melds: list[tuple[Meld, ...]] = []
        hidden: list[tuple[int, int]] = []
        held = [0, 0, 0]
        n_kongs = 0
        for s, seat in enumerate(view.seats):
            row: list[Meld] = []
            for i, m in enumerate(seat.melds):
                if m.kind.is_kong:
                    n_kongs += 1
                claimed = m.kind in (MeldKind.PENG, MeldKind.GANG, MeldKind.BUGANG)
                held[s] += m.kind.size - claimed
                if m.tile is None:
                    hidden.append((s, i))
                    row.append(Meld(m.kind, -1, m.source))
                else:
                    seen[m.tile] += m.kind.size
                    row.append(Meld(m.kind, m.tile, m.source))
            melds.append(tuple(row))
            for tile, taken in seat.discards:
                if not taken:
                    seen[tile] += 1
            held[s] += seat.concealed + len(seat.discards)
        if phase == ROB and view.claim_tile is not None:
            seen[view.claim_tile] += 1  # the 补杠 tile lies in the rob window (SDG §3 ROB)
            held[view.turn] += 1
        pool: list[int] = []
        full = sorted_deck(rules.tiles)
        deck_counts = [full.count(k) for k in range(NUM_KINDS)]
        for k in range(NUM_KINDS):
            left = deck_counts[k] - seen[k]
            if left < 0:
                raise ValueError(f"the view shows {seen[k]} tiles of kind {k}, more than four")
            pool += [k] * left
        want = sum(s.concealed for s in view.seats if s.seat != me)
        want += COPIES * len(hidden) + view.wall_left
        if len(pool) != want:
            raise ValueError(
                f"{len(pool)} unseen tiles, but the other hands, face-down 暗杠 and the wall "
                f"hold {want}"
            )
        return Knowledge(
            rules,
            view,
            phase,
            tuple(melds),
            tuple(hidden),
            tuple(pool),
            (held[0], held[1], held[2]),
            n_kongs,
        )

    # ------------------------------------------------------------------------------ sampling

    def deal(self, rng: random.Random) -> tuple[list[list[int]], list[int], list[int]]:
        """The unseen tiles dealt at random: each other seat's concealed counts (the viewer's
        own hand at its index), the kinds of the face-down 暗杠 in :attr:`hidden_angang` order,
        and the wall from head to tail."""
        pool = list(self.pool)
        kinds: list[int] = []
        for _ in self.hidden_angang:
            # A face-down 暗杠 is four of a kind all unseen (SDG §4.5): uniform among them.
            options = [k for k in range(NUM_KINDS) if pool.count(k) == COPIES]
            if not options:
                raise ValueError("no kind has four unseen copies for a face-down 暗杠")
            k = rng.choice(options)
            kinds.append(k)
            for _ in range(COPIES):
                pool.remove(k)
        rng.shuffle(pool)
        hands: list[list[int]] = []
        i = 0
        for seat in self.view.seats:
            if seat.seat == self.view.viewer:
                hands.append(list(self.view.hand))
                continue
            counts = [0] * NUM_KINDS
            for t in pool[i : i + seat.concealed]:
                counts[t] += 1
            hands.append(counts)
            i += seat.concealed
        return hands, kinds, pool[i:]

    def sample(self, rng: random.Random) -> State:
        """A full state consistent with the view, the unseen tiles dealt with ``rng``."""
        hands, kinds, wall_tiles = self.deal(rng)
        return self.build(hands, kinds, wall_tiles, rng)

    def build(
        self, hands: list[list[int]], kinds: list[int], wall_tiles: list[int], rng: random.Random
    ) -> State:
        """The state of one deal of the unseen tiles (:meth:`deal`); ``rng`` picks the tile
        another seat just drew when it is that seat's turn."""
        view, rules = self.view, self.rules
        me = view.viewer
        melds = [list(row) for row in self.melds]
        for (s, i), k in zip(self.hidden_angang, kinds, strict=True):
            melds[s][i] = Meld(MeldKind.ANGANG, k, None)
        st = State.__new__(State)
        st.rules = rules
        st.seed = None
        st.dealer = view.dealer
        st.streak = view.streak
        st.phase = self.phase
        # Normal draws come from the head, replacements from the tail (SDG §2.2); every kong
        # that stands has had its replacement.
        size = rules.tiles
        st.tail = size - 1 - self.n_kongs
        st.head = st.tail + 1 - view.wall_left
        wall = [0] * size
        wall[st.head : st.tail + 1] = wall_tiles
        st.hands = hands
        st.keys = [list(suit_keys(h)) for h in hands]
        st.odd = [odd_bits(h) for h in hands]
        st.fours = [four_bits(h) for h in hands]
        st.melds = melds
        st.discards = [[t for t, _ in s.discards] for s in view.seats]
        st.taken = [[taken for _, taken in s.discards] for s in view.seats]
        st.baoting = [s.baoting for s in view.seats]
        st.que = [s.que for s in view.seats]
        st.held = [[k for k in range(NUM_KINDS) if h[k]] for h in hands]
        st.draws_before = tuple(
            self.held[s] - DEALT - (s == view.dealer) for s in range(NUM_SEATS)
        )  # SDG §2.2: every tile a seat held beyond its deal was drawn
        st.locks = [set() for _ in range(NUM_SEATS)]
        st.locks[me] = set(view.locks)
        st.lock_any = [False] * NUM_SEATS
        st.lock_any[me] = view.lock_any
        st.repao_kind = [None] * NUM_SEATS
        st.from_kong = False
        st.claim_made = any(melds)
        st.claim_repao = None
        st.firsts = list(view.chickens)
        per_kind = rules.chongfeng_per_kind
        st.first_keys = {(c.tile if per_kind else 0) for c in view.chickens}
        st.pending_first = None
        st.winners = []
        st.result = None
        st.history = []
        st.events = []
        st.options = {}
        st.decisions = {}
        st._self_cache = None
        st.drawn = None
        st.after_claim = False
        st.claim_tile = -1
        st.claim_from = -1
        st.turn = view.turn
        if self.phase == SELF:
            if view.turn == me:
                st.drawn = view.drawn
                st.after_claim = view.drawn is None  # after a 碰: discard only (SDG §3)
            else:
                hand = hands[view.turn]
                st.drawn = rng.choice([k for k in range(NUM_KINDS) if hand[k]])
        elif self.phase == DINGQUE:
            # The dealer's 14th tile is the one a 自摸 at START wins with (SDG §3 START); no
            # view shows which it is before the declarations.
            hand = hands[view.dealer]
            st.drawn = rng.choice([k for k in range(NUM_KINDS) if hand[k]])
        elif self.phase in (CLAIMS, ROB):
            assert view.claim_tile is not None
            st.claim_tile, st.claim_from = view.claim_tile, view.turn
            st.turn = view.turn
            t = view.claim_tile
            fixed = t == YAOJI or (t == WUGU and rules.wugu)
            key = t if per_kind else 0
            if self.phase == CLAIMS and fixed and key not in st.first_keys:
                # SDG §7.4: the first chicken discard's fate is told when its window closes.
                st.first_keys.add(key)
                st.pending_first = (t, view.turn)
        st.deck = self._deck(hands, melds, wall_tiles)
        st.wall = wall
        st.jiao = [st._wait_bits(p) for p in range(NUM_SEATS)]
        if self.phase in (CLAIMS, ROB):
            st.options = self._window_options(st)
        elif self.phase == DINGQUE:
            st.options = {(view.dealer + i) % NUM_SEATS: QUE_OPTIONS for i in range(NUM_SEATS)}
        return st

    def _window_options(self, st: State) -> dict[int, tuple[int, ...]]:
        """The open window's options (SDG §3 CLAIMS, ROB): the viewer's as its view lists them,
        every other seat's as the engine opens them on the sampled hands."""
        view = self.view
        t, p = st.claim_tile, st.claim_from
        options: dict[int, tuple[int, ...]] = {}
        for q in ASK_ORDER[p]:
            if q == view.viewer:
                options[q] = view.legal
                continue
            hu = bool(st.jiao[q] >> t & 1) and not st._locked(q, t)
            if self.phase == ROB:
                if hu:
                    options[q] = (HU, PASS)
                continue
            hu = hu and st._has_passport(q, p, t, False)
            n = st.hands[q][t]
            peng = n >= 2 and not st.baoting[q]
            if hu or peng:
                opts = [HU] if hu else []
                if peng:
                    opts.append(PENG)
                    if n == 3 and st.tail >= st.head:
                        opts.append(GANG)
                opts.append(PASS)
                options[q] = tuple(opts)
        return options

    def _deck(
        self, hands: list[list[int]], melds: list[list[Meld]], wall: list[int]
    ) -> tuple[int, ...]:
        """A deck of this deal (SDG §2.2): the dealt positions hold each seat's own tiles
        (concealed, then melds, then discards) in kind order, then the wall; a permutation of
        the full set, read only for 原缺 (SDG §2.4)."""
        view = self.view
        own: list[list[int]] = []
        for s in range(NUM_SEATS):
            tiles = [k for k in range(NUM_KINDS) for _ in range(hands[s][k])]
            for m in melds[s]:
                tiles += [m.tile] * (m.kind.size - (m.source is not None))
            tiles += [t for t, _ in view.seats[s].discards]
            if self.phase == ROB and s == view.turn and view.claim_tile is not None:
                tiles.append(view.claim_tile)
            own.append(tiles)
        dealt = [own[s][: DEALT + (s == view.dealer)] for s in range(NUM_SEATS)]
        rest = [t for s in range(NUM_SEATS) for t in own[s][len(dealt[s]) :]]
        deck = [0] * (3 * DEALT + 1)
        queues = [list(d) for d in dealt]
        for k in range(3 * DEALT):
            deck[k] = queues[(view.dealer + k) % NUM_SEATS].pop()
        deck[3 * DEALT] = queues[view.dealer].pop()
        return (*deck, *rest, *wall)


def determinize(view: View, rules: RuleConfig, rng: random.Random) -> State:
    """One full state consistent with ``view`` (:class:`Knowledge`), dealt with ``rng``."""
    return Knowledge.of(view, rules).sample(rng)


__all__ = ["Knowledge", "determinize"]
