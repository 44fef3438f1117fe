"""The state of one 三丁拐 hand and its whole turn flow (SDG §2-§5, §9.1).

A hand is fully described by (rules, seed, dealer, streak, actions): the deal comes from
``random.Random(seed)`` (SDG §2.2), every later step from the actions. The engine has no I/O.
OpenSpiel-like: :meth:`State.current_player` says who must decide now,
:meth:`State.legal_actions` lists small-int actions (:mod:`.actions`), :meth:`State.verify`
raises ``IllegalAction`` naming the rule, :meth:`State.apply` returns frozen events, and at the
end :attr:`State.result` holds the table description and its settlement.

A claim window (SDG §3 CLAIMS and ROB) asks every seat with an option, in turn order from the
discarder's 下家; nobody's choice is shown before all have chosen, then 胡 beats 碰/明杠.
"""

from __future__ import annotations

import random
from bisect import insort
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import compress
from operator import not_
from typing import Final

from weimaque.errors import IllegalAction, quoted
from weimaque.games.sandingguai.actions import (
    ACTIONS,
    ANGANG,
    BUGANG,
    DISCARD,
    GANG,
    HU,
    NUM_ACTIONS,
    PASS,
    PENG,
    QUE,
    TING,
)
from weimaque.games.sandingguai.events import (
    Angang,
    BugangDeclared,
    BugangStood,
    ChickenNoted,
    Claimed,
    Dealt,
    Discarded,
    Drew,
    Event,
    HandEnded,
    QueDeclared,
    Won,
)
from weimaque.games.sandingguai.hands import (
    KEY_STEP,
    SPLIT_KEYS,
    SUIT_CLASS,
    WinContext,
    bits_kinds,
    four_bits,
    odd_bits,
    passport,
    score,
    suit_keys,
    wait_bits,
)
from weimaque.games.sandingguai.notation import (
    FirstChicken,
    Meld,
    MeldKind,
    SeatDescription,
    TableDescription,
    Winner,
    WinWay,
    format_counts,
    tile_name,
)
from weimaque.games.sandingguai.rules import RuleConfig
from weimaque.games.sandingguai.settle import Settlement, settle, win_context
from weimaque.games.sandingguai.tiles import (
    COPIES,
    KIND_BIT,
    NUM_KINDS,
    WUGU,
    YAOJI,
    shuffled_deck,
    sorted_deck,
    tiles_of,
)

NUM_SEATS: Final = 3
DEALT: Final = 13
#: The most tiles the wall holds (108 - 40, SDG §2.2).
WALL: Final = 108 - 3 * DEALT - 1
#: Phases: a seat's own turn, the claim window on a discard, the rob window on a 补杠, the end.
SELF, CLAIMS, ROB, OVER, DINGQUE = 0, 1, 2, 3, 4
PHASE_NAMES: Final = ("self", "claims", "rob", "over", "dingque")
#: The three 定缺 declarations (SDG §2.4).
QUE_OPTIONS: Final = (QUE, QUE + 1, QUE + 2)
TERMINAL: Final = -4  # OpenSpiel's kTerminalPlayerId
#: The three seats in the order a window on a tile from seat ``s`` asks them (SDG §3, §9.1).
ASK_ORDER: Final = tuple(((s + 1) % 3, (s + 2) % 3) for s in range(NUM_SEATS))


#: The action id of discarding each kind, and the kinds (``compress`` picks the held ones).
DISCARD_IDS: Final = tuple(DISCARD + t for t in range(NUM_KINDS))
KINDS: Final = tuple(range(NUM_KINDS))
# A seat's held kinds (``State.held``) are its discard ids as they stand.
assert DISCARD_IDS == KINDS
PENG_KIND: Final = MeldKind.PENG
#: Shared immutable events of every turn, made once: a plain 出 per seat and kind, a draw per
#: seat, kind, kind of draw and wall count.
DISCARDED: Final = tuple(tuple(Discarded(s, t) for t in range(NUM_KINDS)) for s in range(3))
DREW: Final = tuple(
    tuple(
        tuple(tuple(Drew(s, t, r, left) for left in range(WALL + 1)) for r in (False, True))
        for t in range(NUM_KINDS)
    )
    for s in range(3)
)

#: Every decision as the (seat, action id) pair ``State.history`` keeps, made once: a hand keeps
#: some 80 of them, and shared pairs are neither allocated nor freed by each hand.
DECISIONS: Final = tuple(tuple((s, a) for a in range(NUM_ACTIONS)) for s in range(NUM_SEATS))


def xiajia(seat: int) -> int:
    """下家: the next seat in turn order (SDG §2.1)."""
    return (seat + 1) % NUM_SEATS


@dataclass(frozen=True, slots=True)
class HandResult:
    """The end of a hand: the table as SDG §1.5 describes it and its settlement (SDG §9)."""

    table: TableDescription
    settlement: Settlement

    @property
    def net(self) -> tuple[int, int, int]:
        """Each seat's points from this hand."""
        return self.settlement.net


class State:
    """One hand of 三丁拐 in progress (SDG §3)."""

    __slots__ = (
        "_self_cache",
        "after_claim",
        "baoting",
        "claim_from",
        "claim_made",
        "claim_repao",
        "claim_tile",
        "dealer",
        "decisions",
        "deck",
        "discards",
        "drawn",
        "draws_before",
        "events",
        "first_keys",
        "firsts",
        "fours",
        "from_kong",
        "hands",
        "head",
        "held",
        "history",
        "jiao",
        "keys",
        "lock_any",
        "locks",
        "melds",
        "odd",
        "options",
        "pending_first",
        "phase",
        "que",
        "repao_kind",
        "result",
        "rules",
        "seed",
        "streak",
        "tail",
        "taken",
        "turn",
        "wall",
        "winners",
    )

    def __init__(
        self,
        rules: RuleConfig | None = None,
        seed: int | None = 0,
        dealer: int = 0,
        streak: int = 1,
        deck: Sequence[int] | None = None,
    ) -> None:
        rules = rules or RuleConfig()
        if dealer not in (0, 1, 2):
            raise IllegalAction(f"dealer must be seat 0, 1 or 2, not {quoted(dealer)}")
        if isinstance(streak, bool) or not isinstance(streak, int) or not 1 <= streak <= 10_000:
            raise IllegalAction(f"dealer streak must be 1..10000, not {quoted(streak)}")
        self.rules = rules
        self.seed: int | None = seed
        self.dealer = dealer
        self.streak = streak
        # SDG §2.2: shuffle the sorted deck; 39 dealt round the table from the dealer, the
        # 40th to the dealer; the rest is the wall (head: draws, tail: kong replacements).
        if deck is None:
            if isinstance(seed, bool) or not isinstance(seed, int):
                raise IllegalAction(f"seed must be an int, not {quoted(seed)}")
            shuffled = shuffled_deck(seed, rules.tiles)
        else:
            # A stacked deck (tests, puzzles): a permutation of the sorted deck.
            shuffled = list(deck)
            if sorted(shuffled) != sorted_deck(rules.tiles):
                raise IllegalAction(f"not a permutation of the {rules.tiles} tiles: {quoted(deck)}")
            self.seed = None
        deck = shuffled
        self.deck: tuple[int, ...] = tuple(deck)
        self.wall = deck
        self.head = 3 * DEALT + 1
        self.tail = len(deck) - 1
        # The per-seat values below are written out for the three seats (NUM_SEATS): a list
        # comprehension costs a function call each, and every random hand starts here.
        dealt = (self._dealt_tiles(0), self._dealt_tiles(1), self._dealt_tiles(2))
        self.hands: list[list[int]] = [[0] * NUM_KINDS, [0] * NUM_KINDS, [0] * NUM_KINDS]
        #: Per seat the base-5 key of each suit of its concealed tiles (hands.suit_keys), the
        #: kinds it holds an odd number of (hands.odd_bits) and those it holds four of (暗杠),
        #: as bits, kept in step with ``hands``.
        self.odd = [0] * NUM_SEATS
        for s in range(NUM_SEATS):
            hand = self.hands[s]
            odd = 0
            for t in dealt[s]:
                hand[t] += 1
                odd ^= KIND_BIT[t]  # each tile flips its kind's bit: odd_bits of the dealt hand
            self.odd[s] = odd
        h0, h1, h2 = self.hands
        self.keys: list[list[int]] = [list(suit_keys(h0)), list(suit_keys(h1)), list(suit_keys(h2))]
        self.fours = [four_bits(h0), four_bits(h1), four_bits(h2)]
        #: Per seat the kinds it holds, in kind order: its discard ids (SDG §4.1).
        self.held = [
            list(compress(KINDS, h0)),
            list(compress(KINDS, h1)),
            list(compress(KINDS, h2)),
        ]
        self.melds: list[list[Meld]] = [[], [], []]
        self.discards: list[list[int]] = [[], [], []]
        self.taken: list[list[bool]] = [[], [], []]
        self.baoting = [False] * NUM_SEATS
        self.locks: list[set[int]] = [set(), set(), set()]
        self.lock_any = [False] * NUM_SEATS
        self.repao_kind: list[MeldKind | None] = [None] * NUM_SEATS
        self.phase = SELF
        self.turn = dealer
        # The tile that wins a 自摸: the one just drawn (the dealer's 14th dealt tile at START).
        self.drawn: int | None = deck[3 * DEALT]
        self.from_kong = False
        self.after_claim = False
        self.claim_made = False
        self.claim_tile = -1
        self.claim_from = -1
        self.claim_repao: MeldKind | None = None
        self.options: dict[int, tuple[int, ...]] = {}
        self.decisions: dict[int, int] = {}
        self.firsts: list[FirstChicken] = []
        self.first_keys: set[int] = set()
        self.pending_first: tuple[int, int] | None = None
        self.winners: list[Winner] = []
        self.result: HandResult | None = None
        #: The decisions taken, as (seat, action id); automatic steps are not decisions.
        self.history: list[tuple[int, int]] = []
        self.events: list[Event] = [
            Dealt(0, dealt[0], dealer),
            Dealt(1, dealt[1], dealer),
            Dealt(2, dealt[2], dealer),
        ]
        #: Per seat the draws made before ``events`` begins: none for a dealt hand; a position
        #: built from a seat's view (determinize.py) has no events and counts them here.
        self.draws_before: tuple[int, ...] = (0, 0, 0)
        #: The current player's legal actions in its own turn, until the state changes
        #: (legal_actions hands out copies; most turns it is the seat's ``held`` list itself,
        #: which only ``apply`` changes, dropping this first).
        self._self_cache: list[int] | None = None
        #: Each seat's declared lacking suit (定缺, SDG §2.4), -1 before or without it.
        self.que = [-1] * NUM_SEATS
        #: Each seat's 叫 (hands.wait_bits) of its 3n+1 concealed tiles, the drawn tile aside
        #: on its turn: every 胡 check is a bit test. Made again when those tiles or the suit
        #: rules on them change (a discard, a kong, 定缺).
        self.jiao = [self._wait_bits(0), self._wait_bits(1), self._wait_bits(2)]
        if rules.dingque:
            # Every seat declares, the dealer first; nobody's choice shows before all chose.
            self.phase = DINGQUE
            self.options = {(dealer + i) % NUM_SEATS: QUE_OPTIONS for i in range(NUM_SEATS)}
        # No automatic step (``_advance``) can follow the deal: nobody is 报听 yet (SDG §4.6).

    def _dealt_tiles(self, seat: int) -> tuple[int, ...]:
        """The tiles dealt to ``seat``: every third of the first 39 from the dealer, and the
        40th to the dealer (SDG §2.2)."""
        tiles = list(self.deck[(seat - self.dealer) % NUM_SEATS : 3 * DEALT : NUM_SEATS])
        if seat == self.dealer:
            tiles.append(self.deck[3 * DEALT])
        tiles.sort()
        return tuple(tiles)

    def _wait_bits(self, p: int) -> int:
        """叫 of seat ``p``'s 3n+1 concealed tiles (the drawn tile aside on its own turn)."""
        keys, odd = self.keys[p], self.odd[p]
        if self.phase in (SELF, DINGQUE) and self.turn == p and self.drawn is not None:
            t = self.drawn
            keys = list(keys)
            keys[t // 9] -= KEY_STEP[t]
            odd ^= KIND_BIT[t]
        melds = self.melds[p]
        return wait_bits(keys, odd, not melds, melds, self.rules.max_suits, self.que[p])

    # ----------------------------------------------------------------- who acts, what is legal

    @property
    def n_discards(self) -> list[int]:
        """Per seat the tiles it has discarded (its row, claimed ones included)."""
        return [len(row) for row in self.discards]

    @property
    def n_draws(self) -> list[int]:
        """Per seat the tiles it has drawn, replacements included (SDG §3 DRAW)."""
        out = list(self.draws_before)
        for e in self.events:
            if type(e) is Drew:
                out[e.seat] += 1
        return out

    @property
    def wall_left(self) -> int:
        """Tiles left in the wall."""
        return self.tail - self.head + 1

    def is_terminal(self) -> bool:
        """Whether the hand is over (胡 or 荒庄)."""
        return self.phase == OVER

    def current_player(self) -> int:
        """The seat that must decide now (in a window: the first undecided, in asking order);
        ``TERMINAL`` once the hand is over."""
        if self.phase == SELF:
            return self.turn
        if self.phase == OVER:
            return TERMINAL
        for seat in self.options:
            if seat not in self.decisions:
                return seat
        raise AssertionError("a window with every seat decided is resolved at once")

    def players_to_act(self) -> tuple[int, ...]:
        """Every seat that still has to decide (a window asks them all)."""
        if self.phase == SELF:
            return (self.turn,)
        if self.phase == OVER:
            return ()
        return tuple(s for s in self.options if s not in self.decisions)

    def legal_actions(self, seat: int | None = None) -> list[int]:
        """The legal action ids of ``seat`` (default: the current player), sorted.

        In its own turn (SDG §3 SELF): 自摸, 暗杠, 补杠, 出 (with or without 报听), in id order,
        made once and kept until the state changes (``apply`` reads the kept list; callers get
        copies). Where they are the discards alone (most turns), the kept list is the seat's
        held kinds themselves (``held``), not a copy: only ``apply`` changes them, and it drops
        the kept list first; ``clone`` copies it. They are made here rather than in a method of
        their own: random play asks at every turn, and the call would cost more than some of
        the checks."""
        if seat is None:
            seat = self.current_player()
        if self.phase != SELF:
            if self.phase == OVER or seat not in self.options or seat in self.decisions:
                return []
            return list(self.options[seat])
        p = self.turn
        if seat != p:
            return []
        acts = self._self_cache
        if acts is not None:
            return acts.copy()
        if self.after_claim:
            # SDG §3: after a 碰 the claimant may only discard.
            acts = self.held[p]
        elif self.baoting[p]:
            # SDG §4.6: locked hand: 自摸 or discard the tile just drawn.
            assert self.drawn is not None
            acts = [DISCARD + self.drawn, HU] if self._can_zimo(p) else [DISCARD + self.drawn]
        else:
            # the held kinds; each addition below makes a new list (``held`` stays as it is)
            acts = self.held[p]
            melds = self.melds[p]
            if not melds and not self.discards[p]:  # _may_baoting (SDG §4.6)
                ting = self._ting_actions(p)
                if ting:
                    acts = acts + ting
            drawn = self.drawn
            assert drawn is not None  # the turn began with a draw (after a 碰: the branch above)
            if self.jiao[p] >> drawn & 1:  # _can_zimo
                acts = [*acts, HU]
            fours = self.fours[p]
            if (melds or fours) and self.tail >= self.head:
                # a kong needs a non-empty wall (SDG §3.1.4)
                if fours:
                    acts = acts + [ANGANG + t for t in bits_kinds(fours)]
                if melds:
                    hand = self.hands[p]
                    bugang = [
                        BUGANG + m.tile for m in melds if hand[m.tile] and m.kind is PENG_KIND
                    ]
                    if bugang:
                        acts = acts + sorted(bugang)
        self._self_cache = acts
        return acts.copy()

    def _can_zimo(self, p: int) -> bool:
        """Whether the turn seat ``p``'s tiles with the one just drawn are a legal win."""
        assert self.drawn is not None
        return bool(self.jiao[p] >> self.drawn & 1)

    def _move(self, p: int, t: int, n: int) -> None:
        """Add ``n`` (or take ``-n``) tiles of kind ``t`` to seat ``p``'s concealed tiles."""
        hand = self.hands[p]
        hand[t] += n
        self.keys[p][t // 9] += n * KEY_STEP[t]
        self.odd[p] ^= (n & 1) << t
        self.held[p] = list(compress(KINDS, hand))
        if hand[t] == COPIES:
            self.fours[p] |= KIND_BIT[t]
        else:
            self.fours[p] &= ~KIND_BIT[t]

    def _wins_with(self, q: int, x: int) -> bool:
        """Whether seat ``q``'s 13 tiles and ``x`` are a legal win (SDG §6.1)."""
        return bool(self.jiao[q] >> x & 1)

    def _may_baoting(self, p: int) -> bool:
        """SDG §4.6: 报听 only with the seat's first discard, and with no melds."""
        return not self.discards[p] and not self.melds[p]

    def _ting_actions(self, p: int) -> list[int]:
        """The 报听 discards of the turn seat ``p`` (SDG §4.6): :meth:`_ting_ok` of each held
        kind, asked only where a cheap bound lets the 13 tiles left be 叫. 叫 of sets and a
        pair needs two suits that already split into sets (or sets + the pair) with the third
        a tile short (``hands.wait_bits``); discarding ``t`` changes only the key of its own
        suit, so where neither other suit splits, or one does and ``t``'s suit without ``t``
        does not, only 七对 is left, which needs every kind paired but one after the discard
        (SDG §6.1): no odd kinds now, or two with ``t`` one of them."""
        keys = self.keys[p]
        odd = self.odd[p]
        k0, k1, k2 = keys
        split = (k0 in SPLIT_KEYS, k1 in SPLIT_KEYS, k2 in SPLIT_KEYS)
        n_split = split[0] + split[1] + split[2]
        any_qidui = odd == 0
        two_odd = odd.bit_count() == 2
        out: list[int] = []
        if not n_split and not any_qidui and not two_odd:
            return out  # most first turns: no discard passes the bound below
        for t in self.held[p]:
            s = t // 9
            others = n_split - split[s]
            if (
                others < 2
                and not (others == 1 and SUIT_CLASS.get(keys[s] - KEY_STEP[t], 0))
                and not any_qidui
                and not (two_odd and odd >> t & 1)
            ):
                continue  # neither shape can be 叫 after this discard
            if self._ting_ok(p, t):
                out.append(TING + t)
        return out

    def _ting_ok(self, p: int, t: int) -> bool:
        """Whether discarding ``t`` leaves 13 tiles that are 叫, within the 报听 window."""
        # With ``dealt_hand`` the dealt 13 tiles must be 叫: the seat discards its first draw.
        if (
            self.rules.baoting_window == "dealt_hand"
            and p != self.dealer
            and (t != self.drawn or self.n_draws[p] != 1)
        ):
            return False
        keys = self.keys[p]  # the discard taken out for the lookup, then put back
        keys[t // 9] -= KEY_STEP[t]
        bits = wait_bits(
            keys, self.odd[p] ^ KIND_BIT[t], True, (), self.rules.max_suits, self.que[p]
        )
        keys[t // 9] += KEY_STEP[t]
        return bool(bits)

    def verify(self, action: int, seat: int | None = None) -> None:
        """Raise ``IllegalAction`` naming the rule if ``seat`` may not take ``action`` now."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise IllegalAction(f"action must be an int id, not {quoted(action)}")
        if not 0 <= action < NUM_ACTIONS:
            raise IllegalAction(f"action id {action!r} out of range 0..{NUM_ACTIONS - 1}")
        if self.phase == OVER:
            raise IllegalAction(f"cannot {ACTIONS[action]}: the hand is over")
        acting = self.players_to_act()
        if seat is None:
            seat = self.current_player()
        if seat not in acting:
            raise IllegalAction(
                f"cannot {ACTIONS[action]}: seat {seat!r} is not to act (SDG §3), "
                f"waiting for {list(acting)}"
            )
        if action in self.legal_actions(seat):
            return
        raise IllegalAction(f"cannot {ACTIONS[action]}: {self._why_not(seat, action)}")

    def can(self, action: int, seat: int | None = None) -> bool:
        """Whether ``seat`` may take ``action`` now."""
        try:
            self.verify(action, seat)
        except IllegalAction:
            return False
        return True

    def _why_not(self, seat: int, action: int) -> str:
        """The rule an illegal action breaks (only the message: legality is the list above)."""
        a = ACTIONS[action]
        hand = self.hands[seat]
        if self.phase == DINGQUE:
            return "every seat first declares its lacking suit (定缺, SDG §2.4)"
        if a.kind == "que":
            return "定缺 is declared once, after the deal (SDG §2.4)"
        que = self.que[seat]
        if a.kind == "hu" and que >= 0:
            extra = (self.claim_tile,) if self.phase != SELF else ()
            held = [t for t in (*tiles_of(hand), *extra) if t // 9 == que]
            held += [m.tile for m in self.melds[seat] if m.tile // 9 == que]
            if held:
                return (
                    f"seat {seat} holds {tile_name(held[0])} of its declared lacking suit "
                    f"(定缺, SDG §2.4)"
                )
        if self.phase != SELF:
            x = tile_name(self.claim_tile)
            if a.kind == "hu":
                c = list(hand)
                c[self.claim_tile] += 1
                ctx = WinContext(tuple(c), tuple(self.melds[seat]), self.claim_tile, "other")
                result = score(ctx, self.rules)
                if not result.is_win:
                    return result.reason
                if self._locked(seat, self.claim_tile):
                    return (
                        f"过水: seat {seat} passed a 胡 on {x} and has not drawn since (SDG §5.2)"
                    )
                return f"no passport for {x} (SDG §5.1): {result}"
            if a.kind in ("peng", "gang") and self.baoting[seat]:
                return f"seat {seat} is 报听: no 碰 or 杠 (SDG §4.6)"
            if a.kind in ("peng", "gang") and self.phase == ROB:
                return "a 补杠 can only be robbed by 胡 (SDG §3 ROB)"
            if a.kind == "peng":
                return f"碰 needs two {x} in hand (SDG §4.3)"
            if a.kind == "gang":
                return f"明杠 needs three {x} in hand and a non-empty wall (SDG §4.4, §3.1.4)"
            return f"the window on {x} offers {[str(ACTIONS[i]) for i in self.options[seat]]}"
        t = a.tile
        if a.kind in ("peng", "gang", "pass"):
            return f"no discard to claim: it is seat {seat}'s own turn (SDG §3 SELF)"
        if self.after_claim and a.kind != "discard":
            return "after a 碰 the claimant may only discard (SDG §3)"
        if self.baoting[seat] and a.kind != "hu":
            return f"seat {seat} is 报听: only 胡 or discarding the drawn tile (SDG §4.6)"
        if a.kind == "hu":
            ctx = WinContext(tuple(hand), tuple(self.melds[seat]), self.drawn, "self")
            return score(ctx, self.rules).reason
        assert t is not None
        if a.kind in ("discard", "ting") and not hand[t]:
            return f"seat {seat} holds no {tile_name(t)}"
        if a.kind == "ting":
            if not self._may_baoting(seat):
                return "报听 only with the seat's first discard and no melds (SDG §4.6)"
            return f"the 13 tiles left after {tile_name(t)} are not 叫 (SDG §4.6, §6.3)"
        if self.wall_left == 0:
            return "a kong needs a non-empty wall (SDG §3.1.4)"
        if a.kind == "angang":
            return f"暗杠 needs four {tile_name(t)} in hand (SDG §4.5)"
        return f"补杠 needs a 碰 of {tile_name(t)} and the fourth in hand (SDG §4.5)"

    # ------------------------------------------------------------------------------ actions

    def apply(self, action: int, seat: int | None = None) -> tuple[Event, ...]:
        """Verify and take an action; return the events it caused (a window decision that
        leaves others to decide returns none: choices stay hidden until all have chosen)."""
        if seat is None:
            seat = self.current_player()
        # The legal actions, when already made (the turn's cache, a window's options), answer
        # at once what verify would: verify only runs to refuse, or to make them.
        legal: Sequence[int] | None
        # (a comparison kept as a value costs more than one that only branches)
        if self.phase == SELF:
            own = True
            legal = self._self_cache if seat == self.turn else None
        else:
            own = False
            legal = None if seat in self.decisions else self.options.get(seat)
        if legal is None or type(action) is not int or action not in legal:
            self.verify(action, seat)
        self.history.append(DECISIONS[seat][action])
        events: list[Event] = []
        if own:
            self._self_cache = None
            if action < TING:
                self._discard(seat, action, False, events)  # a discard's id is its kind
            elif action < HU:
                self._discard(seat, action - TING, True, events)
            elif action == HU:
                self._win_self(seat, events)
            elif action < BUGANG:
                self._angang(seat, action - ANGANG, events)
            else:
                self._bugang(seat, action - BUGANG, events)
        else:
            self.decisions[seat] = action
            if len(self.decisions) == len(self.options):
                if self.phase == CLAIMS:
                    self._resolve_claims(events)
                elif self.phase == ROB:
                    self._resolve_rob(events)
                else:
                    self._resolve_que(events)
        # ``turn`` is a seat in every phase; a 报听 seat is rare, so its test comes first
        if self.baoting[self.turn] and self.phase == SELF:
            self._advance(events)
        self.events += events
        return tuple(events)

    def _resolve_que(self, events: list[Event]) -> None:
        """定缺 (SDG §2.4): every declaration is made public at once; the dealer plays."""
        for seat in range(NUM_SEATS):
            self.que[seat] = self.decisions[seat] - QUE
            events.append(QueDeclared(seat, self.que[seat]))
        self.options, self.decisions = {}, {}
        self.phase, self.turn = SELF, self.dealer
        self._self_cache = None
        self.jiao = [self._wait_bits(s) for s in range(NUM_SEATS)]  # 定缺 limits every 叫

    def _advance(self, events: list[Event]) -> None:
        """Automatic steps: a 报听 seat that cannot 胡 discards the drawn tile (SDG §4.6)."""
        while self.phase == SELF and self.baoting[self.turn] and not self._can_zimo(self.turn):
            assert self.drawn is not None
            self._self_cache = None
            self._discard(self.turn, self.drawn, False, events)

    def _discard(self, p: int, t: int, ting: bool, events: list[Event]) -> None:
        """出 (SDG §4.1), with 报听 (§4.6); then the claim window (§3 CLAIMS)."""
        keys = self.keys[p]
        hand = self.hands[p]
        left = hand[t] - 1
        hand[t] = left
        if not left:
            self.held[p].remove(t)
        keys[t // 9] -= KEY_STEP[t]
        odd = self.odd[p] ^ KIND_BIT[t]
        self.odd[p] = odd
        fours = self.fours
        if fours[p]:
            fours[p] &= ~KIND_BIT[t]
        self.discards[p].append(t)
        self.taken[p].append(False)
        if ting:
            self.baoting[p] = True
        repao = self.repao_kind[p]
        if repao is None:
            events.append(Discarded(p, t, True) if ting else DISCARDED[p][t])
        else:
            self.repao_kind[p] = None
            events.append(Discarded(p, t, ting, True))
        rules = self.rules
        if t == YAOJI or (t == WUGU and rules.wugu):
            key = t if rules.chongfeng_per_kind else 0
            if key not in self.first_keys:
                self.first_keys.add(key)
                self.pending_first = (t, p)
        jiao = self.jiao
        if t != self.drawn:
            # The 13 tiles left are those before the draw when the drawn tile goes (摸打), and
            # the kept 叫 is theirs already. Otherwise it is made again where it can be any:
            # 叫 needs two suits that split into sets (or sets and the pair), or for 七对 (no
            # melds) a single odd kind (hands.wait_bits, SDG §6.1); most hands have neither.
            melds = self.melds[p]
            k0, k1, k2 = keys
            if (
                (k0 in SPLIT_KEYS and (k1 in SPLIT_KEYS or k2 in SPLIT_KEYS))
                or (k1 in SPLIT_KEYS and k2 in SPLIT_KEYS)
                or (not melds and odd and not odd & (odd - 1))
            ):
                jiao[p] = wait_bits(keys, odd, not melds, melds, rules.max_suits, self.que[p])
            else:
                jiao[p] = 0
        self.drawn = None
        hands = self.hands
        q1, q2 = ASK_ORDER[p]
        if hands[q1][t] < 2 and hands[q2][t] < 2 and not (jiao[q1] | jiao[q2]) >> t & 1:
            # Neither 碰 nor 胡 for anyone (most discards): no window (SDG §3 CLAIMS 3). The
            # options are empty already: every window empties them when it closes.
            if self.pending_first is not None:
                self._note_first(None, None, events)
            head, tail = self.head, self.tail
            if tail < head:
                self._end(events)  # 荒庄 (SDG §3 DRAW)
                return
            # The 下家's draw from the head: ``_draw``'s steps for a plain draw, written out
            # because this is the path of most decisions and a call costs as much as a step.
            x = self.wall[head]
            self.head = head + 1
            hand = hands[q1]
            n = hand[x] = hand[x] + 1
            self.keys[q1][x // 9] += KEY_STEP[x]
            self.odd[q1] ^= KIND_BIT[x]
            if n == 1:
                insort(self.held[q1], x)
            elif n == COPIES:
                self.fours[q1] |= KIND_BIT[x]
            lock_any = self.lock_any
            if lock_any[q1]:  # 过水 lasts until the seat draws (SDG §5.2)
                lock_any[q1] = False
                self.locks[q1].clear()
            self.turn = q1  # the phase is SELF already: no window opened
            self.drawn = x
            self.from_kong = False
            self.after_claim = False
            events.append(DREW[q1][x][False][tail - head])
            return
        # The window (SDG §3 CLAIMS): its tile, its discarder and whether a 热炮.
        self.phase = CLAIMS
        self.claim_tile, self.claim_from = t, p
        self.claim_repao = repao
        options: dict[int, tuple[int, ...]] = {}
        for q in (q1, q2):
            n = hands[q][t]
            if n < 2 and not jiao[q] >> t & 1:
                continue  # neither 碰 nor 胡 for this seat
            hu = (
                jiao[q] >> t & 1
                and not self._locked(q, t)
                and self._has_passport(q, p, t, repao is not None)
            )
            peng = n >= 2 and not self.baoting[q]
            if hu or peng:
                opts = [HU] if hu else []
                if peng:
                    opts.append(PENG)
                    if n == 3 and self.tail >= self.head:
                        opts.append(GANG)
                opts.append(PASS)
                options[q] = tuple(opts)
        self.options = options
        if options:
            self.decisions = {}
        else:
            # Nobody may claim: the window closes at once (SDG §3 CLAIMS 3).
            if self.pending_first is not None:
                self._note_first(None, None, events)
            self._draw(ASK_ORDER[p][0], False, events)

    def _locked(self, q: int, x: int) -> bool:
        """过水 (SDG §5.2)."""
        mode = self.rules.pass_lock
        return (mode == "same_face" and x in self.locks[q]) or (mode == "any" and self.lock_any[q])

    def _lock(self, q: int, x: int) -> None:
        self.locks[q].add(x)
        self.lock_any[q] = True

    def _has_passport(self, q: int, p: int, x: int, special: bool) -> bool:
        """通行证 (SDG §5.1) of seat ``q`` for a 胡 on seat ``p``'s tile."""
        has_kong = any(m.kind.is_kong for m in self.melds[q])
        if has_kong or self.baoting[q] or special or self.rules.passport != "kong_or_big":
            return passport(self.rules, has_kong, 0, self.baoting[q], special, self.baoting[p])
        counts = list(self.hands[q])
        counts[x] += 1
        ctx = WinContext(tuple(counts), tuple(self.melds[q]), x, "other")
        before = score(ctx, self.rules).fan_before_baoting
        return passport(self.rules, False, before, False, False, self.baoting[p])

    def _note_first(self, claim: str | None, claimant: int | None, events: list[Event]) -> None:
        """The fate of the first chicken discard, when its window closes (SDG §7.4, §7.5)."""
        if self.pending_first is None:
            return
        t, seat = self.pending_first
        self.pending_first = None
        self.firsts.append(FirstChicken(t, seat, claim, claimant))  # type: ignore[arg-type]
        if claim is None and self.rules.chongfeng:
            events.append(ChickenNoted(seat, t, "chongfeng"))
        elif claim in ("peng", "gang"):
            events.append(ChickenNoted(seat, t, "zeren", claimant))

    def _winners_of(self) -> list[int]:
        huers = [q for q in self.options if self.decisions[q] == HU]
        for q, opts in self.options.items():
            if HU in opts and self.decisions[q] != HU:
                self._lock(q, self.claim_tile)
        return huers if self.rules.multi_ron else huers[:1]

    def _resolve_claims(self, events: list[Event]) -> None:
        """SDG §3 CLAIMS: 胡 (one or two seats), else 碰/明杠, else the 下家 draws."""
        x, p = self.claim_tile, self.claim_from
        huers = self._winners_of()
        if huers:
            self.taken[p][-1] = True
            self._note_first("hu", None, events)
            way: WinWay = "repao" if self.claim_repao is not None else "dianpao"
            for q in huers:
                self._add_winner(q, x, way, p, events)
            self._end(events)
            return
        for q, d in self.decisions.items():
            if d in (PENG, GANG):
                self.taken[p][-1] = True
                self.claim_made = True
                kind = MeldKind.PENG if d == PENG else MeldKind.GANG
                self._move(q, x, 1 - kind.size)
                self.melds[q].append(Meld(kind, x, p))
                events.append(Claimed(q, x, "peng" if d == PENG else "gang", p))
                self._note_first("peng" if d == PENG else "gang", q, events)
                self.options, self.decisions = {}, {}
                if d == PENG:
                    self.phase, self.turn = SELF, q
                    self.after_claim, self.from_kong, self.drawn = True, False, None
                else:
                    self.repao_kind[q] = MeldKind.GANG
                    self.jiao[q] = self._wait_bits(q)
                    self._draw(q, True, events)
                return
        self._note_first(None, None, events)
        self.options, self.decisions = {}, {}
        self._draw(xiajia(p), False, events)

    def _angang(self, p: int, t: int, events: list[Event]) -> None:
        """暗杠 (SDG §4.5): face down, then a replacement draw."""
        self._move(p, t, -4)
        self.melds[p].append(Meld(MeldKind.ANGANG, t))
        self.claim_made = True
        self.repao_kind[p] = MeldKind.ANGANG
        events.append(Angang(p, t, self.rules.angang_public))
        self.drawn = None
        self.jiao[p] = self._wait_bits(p)
        self._draw(p, True, events)

    def _bugang(self, p: int, t: int, events: list[Event]) -> None:
        """补杠 (SDG §4.5): the others may rob it (§3 ROB)."""
        self._move(p, t, -1)
        self.claim_tile, self.claim_from = t, p
        self.claim_repao = None
        events.append(BugangDeclared(p, t))
        self.phase = ROB
        self.jiao[p] = self._wait_bits(p)
        self.options, self.decisions = {}, {}
        for q in ASK_ORDER[p]:
            if self._wins_with(q, t) and not self._locked(q, t):
                self.options[q] = (HU, PASS)
        if not self.options:
            self._resolve_rob(events)

    def _resolve_rob(self, events: list[Event]) -> None:
        """SDG §3 ROB: 抢杠胡 (the 补杠 never happened), else the kong stands."""
        t, p = self.claim_tile, self.claim_from
        huers = self._winners_of()
        self.options, self.decisions = {}, {}
        if huers:
            for q in huers:
                self._add_winner(q, t, "qianggang", p, events)
            self._end(events)
            return
        i = next(i for i, m in enumerate(self.melds[p]) if m.kind is MeldKind.PENG and m.tile == t)
        self.melds[p][i] = Meld(MeldKind.BUGANG, t, self.melds[p][i].source)
        self.claim_made = True
        self.repao_kind[p] = MeldKind.BUGANG
        events.append(BugangStood(p, t))
        self._draw(p, True, events)

    def _draw(self, p: int, replacement: bool, events: list[Event]) -> None:
        """摸 (SDG §3 DRAW): from the head, or the tail after a kong; 荒庄 when empty. A discard
        nobody may claim makes its plain draw itself (``_discard``): a change here goes there."""
        head, tail = self.head, self.tail
        if tail < head:
            self._end(events)
            return
        if replacement:
            t = self.wall[tail]
            tail = self.tail = tail - 1
        else:
            t = self.wall[head]
            head = self.head = head + 1
        hand = self.hands[p]
        n = hand[t] = hand[t] + 1
        self.keys[p][t // 9] += KEY_STEP[t]
        self.odd[p] ^= KIND_BIT[t]
        if n == 1:
            insort(self.held[p], t)
        elif n == COPIES:
            self.fours[p] |= KIND_BIT[t]
        lock_any = self.lock_any
        if lock_any[p]:  # 过水 lasts until the seat draws (SDG §5.2); a lock sets both
            lock_any[p] = False
            self.locks[p].clear()
        self.phase = SELF
        self.turn = p
        self.drawn = t
        self.from_kong = replacement
        self.after_claim = False
        # ``_self_cache`` is empty already: every action of a turn empties it (``apply``).
        events.append(DREW[p][t][replacement][tail - head + 1])

    def _win_self(self, p: int, events: list[Event]) -> None:
        """自摸 or 杠上花 (SDG §6.4)."""
        assert self.drawn is not None
        self._move(p, self.drawn, -1)
        self._add_winner(p, self.drawn, "gangshanghua" if self.from_kong else "zimo", None, events)
        self._end(events)

    def _add_winner(
        self, q: int, t: int, way: WinWay, source: int | None, events: list[Event]
    ) -> None:
        early = not self.discards[q] and not self.claim_made
        self.winners.append(Winner(q, t, way, source, early))

    def _end(self, events: list[Event]) -> None:
        """The end of the hand (SDG §9): 翻牌 after a 胡 (§7.2), settlement."""
        self.phase = OVER
        self.options, self.decisions = {}, {}
        flip = None
        if self.winners and self.tail >= self.head:  # a tile left in the wall
            flip = self.wall[self.head]
        table = self.table(flip)
        for w in table.winners:
            fan = score(win_context(table, w.seat), self.rules).fan
            events.append(Won(w.seat, w.tile, w.way, w.source, fan))
        result = HandResult(table, settle(table, self.rules, self._is_jiao()))
        self.result = result
        h0, h1, h2 = self.hands
        events.append(
            HandEnded(
                self.turn,
                not self.winners,
                flip,
                result.net,
                tuple((t.payer, t.payee, t.amount, t.reason) for t in result.settlement.transfers),
                (format_counts(h0), format_counts(h1), format_counts(h2)),
            )
        )

    def _is_jiao(self) -> tuple[bool, bool, bool]:
        """Whether each seat's 3n+1 concealed tiles are 叫 (``settle.is_jiao``), from the kept
        bits: a kind the seat holds all four of, its melds with them, cannot come
        (``hands.waits``)."""
        out = []
        for s in range(NUM_SEATS):
            bits = self.jiao[s]
            if bits:  # most seats of a random hand are not 叫: no meld to read
                hand = self.hands[s]
                for m in self.melds[s]:
                    if hand[m.tile] + m.size >= COPIES:
                        bits &= ~KIND_BIT[m.tile]
            out.append(bits != 0)
        return out[0], out[1], out[2]

    def table(self, flip: int | None = None) -> TableDescription:
        """The table as SDG §1.5 describes it (concealed tiles without the winning tile)."""
        dingque = self.rules.dingque
        seats = [
            SeatDescription(
                tuple(self.hands[s]),
                tuple(self.melds[s]),
                tuple(compress(self.discards[s], map(not_, self.taken[s]))),
                self.baoting[s],
                self.que[s],
                dingque and len({t // 9 for t in self._dealt_tiles(s)}) < 3,
            )
            for s in range(NUM_SEATS)
        ]
        winners = self.winners
        repao = self.claim_repao if winners and any(w.way == "repao" for w in winners) else None
        return TableDescription(
            (seats[0], seats[1], seats[2]),
            tuple(winners),
            self.dealer,
            self.streak,
            flip,
            tuple(self.firsts),
            repao,
        )

    # ------------------------------------------------------------------------ copies, checks

    def returns(self) -> tuple[int, int, int]:
        """Each seat's points from this hand (zero until the end)."""
        return self.result.net if self.result is not None else (0, 0, 0)

    def clone(self) -> State:
        """An independent copy of this state."""
        other = State.__new__(State)
        for name in _PLAIN_FIELDS:
            setattr(other, name, getattr(self, name))
        # the kept legal actions may be this state's own held kinds (``legal_actions``)
        cache = self._self_cache
        other._self_cache = None if cache is None else list(cache)
        other.wall = list(self.wall)
        other.hands = [list(h) for h in self.hands]
        other.keys = [list(k) for k in self.keys]
        other.odd = list(self.odd)
        other.fours = list(self.fours)
        other.held = [list(h) for h in self.held]
        other.jiao = list(self.jiao)
        other.melds = [list(m) for m in self.melds]
        other.discards = [list(d) for d in self.discards]
        other.taken = [list(t) for t in self.taken]
        other.baoting = list(self.baoting)
        other.locks = [set(lk) for lk in self.locks]
        other.lock_any = list(self.lock_any)
        other.repao_kind = list(self.repao_kind)
        other.que = list(self.que)
        other.options = dict(self.options)
        other.decisions = dict(self.decisions)
        other.firsts = list(self.firsts)
        other.first_keys = set(self.first_keys)
        other.winners = list(self.winners)
        other.history = list(self.history)
        other.events = list(self.events)
        return other

    def resample(self, viewer: int, rng: random.Random) -> State:
        """A copy consistent with what ``viewer`` sees: the tiles hidden from it (the other
        seats' concealed tiles and the wall) dealt again at random, each seat keeping its
        count. Face-down 暗杠 keep their kind."""
        other = self.clone()
        other.seed = None
        others = [s for s in range(NUM_SEATS) if s != viewer]
        pool: list[int] = []
        for s in others:
            for k in range(NUM_KINDS):
                pool += [k] * other.hands[s][k]
        pool += other.wall[other.head : other.tail + 1]
        rng.shuffle(pool)
        i = 0
        for s in others:
            n = sum(other.hands[s])
            other.hands[s] = [0] * NUM_KINDS
            for t in pool[i : i + n]:
                other.hands[s][t] += 1
            other.keys[s] = list(suit_keys(other.hands[s]))
            other.odd[s] = odd_bits(other.hands[s])
            other.fours[s] = four_bits(other.hands[s])
            other.held[s] = list(compress(KINDS, other.hands[s]))
            i += n
            if other.phase == SELF and other.turn == s and other.drawn is not None:
                other.drawn = next(k for k in range(NUM_KINDS) if other.hands[s][k])
        for s in others:
            other.jiao[s] = other._wait_bits(s)
        other.wall[other.head : other.tail + 1] = pool[i:]
        other._self_cache = None
        return other

    def tile_count(self) -> int:
        """All tiles on the table: hands, melds, discard rows (taken ones are in melds or a
        winner's hand), the wall, and a 补杠 tile under a rob window."""
        n = sum(sum(h) for h in self.hands)
        n += sum(m.size for ms in self.melds for m in ms)
        n += sum(not gone for row in self.taken for gone in row)
        n += self.wall_left
        if self.phase == ROB:
            n += 1
        if self.phase == OVER and self.winners:
            # The winning tile lies aside (a won discard is out of its row, a 自摸 or robbed
            # tile out of the hand), counted once: 一炮双响's winners take the same tile.
            n += 1
        return n

    def __repr__(self) -> str:
        return (
            f"<sandingguai.State seed={self.seed} dealer={self.dealer} "
            f"phase={PHASE_NAMES[self.phase]} turn={self.turn} wall={self.wall_left}>"
        )


_PLAIN_FIELDS: Final = (
    "rules",
    "draws_before",
    "seed",
    "dealer",
    "streak",
    "deck",
    "head",
    "tail",
    "phase",
    "turn",
    "drawn",
    "from_kong",
    "after_claim",
    "claim_made",
    "claim_tile",
    "claim_from",
    "claim_repao",
    "pending_first",
    "result",
)


def stack_deck(
    hands: Sequence[Sequence[int]],
    head: Sequence[int] = (),
    tail: Sequence[int] = (),
    dealer: int = 0,
    num_tiles: int = 108,
) -> list[int]:
    """A deck that deals ``hands`` (the dealer's 14, the others' 13, by seat), puts ``head``
    at the head of the wall (the next normal draws) and ``tail`` at its tail (the next kong
    replacements); the rest of the wall in kind order. For tests and puzzles (SDG §2.2)."""
    rest = sorted_deck(num_tiles)
    for tiles in (*hands, head, tail):
        for t in tiles:
            if t not in rest:
                raise IllegalAction(f"more than four {tile_name(t)} in the stacked deck")
            rest.remove(t)
    for seat, tiles in enumerate(hands):
        want = DEALT + (seat == dealer)
        if len(tiles) != want:
            raise IllegalAction(f"seat {seat} is dealt {want} tiles, not {len(tiles)}")
    deck = [0] * num_tiles
    queues = [list(h) for h in hands]
    for k in range(3 * DEALT):
        deck[k] = queues[(dealer + k) % NUM_SEATS].pop(0)
    deck[3 * DEALT] = queues[dealer].pop(0)
    wall = list(head) + rest + list(reversed(tail))
    deck[3 * DEALT + 1 :] = wall
    return deck
