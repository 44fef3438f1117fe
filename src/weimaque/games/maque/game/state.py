"""The state of one hand and its whole turn flow (RULES §2-§5).

A hand is fully described by (rules, seed, dealer, actions). The engine has no I/O. Every action
goes through one check that names the rule it breaks; ``legal_actions`` is built from the same
checks, so the two never disagree. ``apply`` returns frozen events
(:mod:`weimaque.games.maque.game.events`).

Claims on one card are a *window*: each seat with an option decides (claim or pass) without seeing
the others' choices, and the engine resolves by priority 胡 > 碰 > 吃 (RULES §5.1).
"""

from __future__ import annotations

import _random
from collections.abc import Collection, Container, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal, TypeVar, overload

from weimaque.errors import IllegalAction, quoted
from weimaque.games.maque.analysis.decompose import can_split, winning_faces
from weimaque.games.maque.cards import FACE_CHARS, NUM_FACES, faces_of, sorted_deck
from weimaque.games.maque.game.actions import RUN_STARTS, Action
from weimaque.games.maque.game.events import (
    Chied,
    Chou,
    DeadHand,
    Dealt,
    DeclinedHu,
    Discarded,
    Drew,
    Event,
    Penged,
    Released,
    Weied,
    Won,
)
from weimaque.games.maque.notation import Meld, MeldKind, Source
from weimaque.games.maque.rules.config import RuleConfig
from weimaque.games.maque.rules.registry import get_rules
from weimaque.games.maque.scoring.breakdown import Breakdown
from weimaque.games.maque.scoring.patterns.deal import APP_DEAL_TESTS
from weimaque.games.maque.scoring.scorer import score_deal, score_position

#: The seats of the default table (RULES §2.1); a hand's own count is ``rules.players``
#: (RULES §2.5: 2 or 3), ``GameState.n``.
NUM_SEATS: Final = 3
#: The most seats a table has: the shared events and melds below are made for each.
MAX_SEATS: Final = 3
#: The stock of a three-player deal (RULES §2.2); ``stock_size`` gives any table's.
STOCK_SIZE: Final = 22
DEALER_CARDS: Final = 20
#: RULES §2.5.2: with two players the third hand of the deal is buried (埋牌) or joins the stock.
BURIED_CARDS: Final = 19
#: The largest stock of any table: 22 + the 19 cards of the third hand (RULES §2.5.2).
MAX_STOCK: Final = STOCK_SIZE + BURIED_CARDS
Phase = Literal["discard", "claim", "over"]
Origin = Literal["deal", "discard", "draw", "wei", "release"]

PASS: Final = Action("pass")
HU: Final = Action("hu")
PENG: Final = Action("peng")
#: The deal 名堂 the deal window reads from the dealt cards (RULES §7.2, §7.4.1): 天胡 and
#: every test of ``score_deal``.
DEAL_PATTERNS: Final = ("tianhu", *APP_DEAL_TESTS)
#: The 名堂 that read the facts of a win the cards do not show (RULES §7.4.4): 全求人 and
#: 美女踩单车 (a 自吃 meld), 圆圆丁 (dealt three of the winning face), 啫啫胡 (the faces on which
#: a 胡 was declined). The engine gathers the facts only for a preset that scores one of them.
FACT_PATTERNS: Final = frozenset(("quanqiuren", "meinv", "yuanyuanding", "zhezhe"))
#: The last rule set asked of ``rule_flags`` and its answer: a match plays every hand under one
#: rule set, so each hand's start asks the same object again.
_FLAGS_MEMO: list[tuple[RuleConfig | None, tuple[bool, bool]]] = [(None, (False, False))]


def rule_flags(rules: RuleConfig) -> tuple[bool, bool]:
    """Whether ``rules`` scores a deal 名堂 (RULES §7.2, §7.4.1), and a 名堂 that reads the
    facts of RULES §7.4.4: asked at each hand's start, so kept for the last rule set asked."""
    held, flags = _FLAGS_MEMO[0]
    if held is not rules:
        keys = rules.patterns.keys()
        flags = (not keys.isdisjoint(DEAL_PATTERNS), not keys.isdisjoint(FACT_PATTERNS))
        _FLAGS_MEMO[0] = (rules, flags)
    return flags


#: One shared (immutable) action per discard face and per run start, for the hot paths.
DISCARDS: Final = tuple(Action.discard(f) for f in range(NUM_FACES))
CHIS: Final = {s: Action.chi(s) for s in RUN_STARTS}
#: One shared (immutable) event per seat and face for a 出 and a release, and per seat, cards
#: left and face for a draw, face up and (a 偎'd card, unless 明偎) face down: the events of
#: every turn, made once.
DISCARDED: Final = tuple(tuple(Discarded(s, f) for f in range(NUM_FACES)) for s in range(MAX_SEATS))
RELEASED: Final = tuple(tuple(Released(s, f) for f in range(NUM_FACES)) for s in range(MAX_SEATS))
DREW_FACE_UP: Final = tuple(
    tuple(tuple(Drew(s, f, False, left) for f in range(NUM_FACES)) for left in range(MAX_STOCK))
    for s in range(MAX_SEATS)
)
DREW_FACE_DOWN: Final = tuple(
    tuple(tuple(Drew(s, f, True, left) for f in range(NUM_FACES)) for left in range(MAX_STOCK))
    for s in range(MAX_SEATS)
)
#: Per face: each run holding it (RULES §4.6, within one size) as (start, the two other faces).
CHI_NEEDS: Final = tuple(
    tuple((s, *(g for g in (s, s + 1, s + 2) if g != f)) for s in RUN_STARTS if s <= f <= s + 2)
    for f in range(NUM_FACES)
)
#: The start of each seat's memo in ``GameState._waits``: a hand (a list) never equals the
#: empty tuple, so the first question is always answered.
NO_MEMO: Final[tuple[Sequence[int], frozenset[int]]] = ((), frozenset())
#: The three seats in the order a window on a card from seat ``s`` asks them (RULES §3).
ASK_ORDER: Final = tuple((s, (s + 1) % 3, (s - 1) % 3) for s in range(MAX_SEATS))
#: RULES §2.5.3: with two seats the opponent is both 下家 and 上家, and is asked once.
ASK_ORDER_2: Final = ((0, 1), (1, 0))
#: The asking order of each table size.
ASK_ORDERS: Final = {2: ASK_ORDER_2, 3: ASK_ORDER}


@dataclass(frozen=True, slots=True)
class Table:
    """What the seat count decides (RULES §2.1, §2.5), one object per kind of table, so that a
    hand keeps it in one attribute: a ``GameState`` keeps at most ``MAX_STATE_ATTRIBUTES``
    attributes, those whose values CPython 3.11 keeps in a class's shared-key array (one more
    and every instance falls back to a plain dict: each hand plays about 6% slower)."""

    #: the seats (RULES §2.5: 2 or 3)
    n: int
    #: per seat, the seats a window on its card asks, in the order of RULES §3 (§2.5.3)
    ask: tuple[tuple[int, ...], ...]
    #: per seat, the seats asked after it (its 下家 and 上家; with two, the opponent once)
    others: tuple[tuple[int, ...], ...]
    seats: tuple[int, ...]
    #: RULES §2.5.4: with two players and ``chi_opponent_discard`` off, only the opponent's
    #: releases make a face 吃-过张, and his discards are never 吃'd (§2.5.3(1))
    release_only: bool

    def guo_sets(self, thrown: list[set[int]], released: list[set[int]]) -> list[set[int]]:
        """Per seat, the faces it makes 吃-过张 for its 下家 (RULES §5.3): those it discarded or
        released; at a ``release_only`` table those it released (RULES §2.5.4). The bots and the
        playout call it; the engine's draw and release read the same rule in place (a call
        fewer on every card, about 1% of a hand)."""
        return released if self.release_only else thrown


#: The most attributes a ``GameState`` may set (see :class:`Table`); a test holds it.
MAX_STATE_ATTRIBUTES: Final = 29
#: Every kind of table, by seats and ``release_only``.
TABLES: Final = {
    (n, r): Table(n, ASK_ORDERS[n], tuple(o[1:] for o in ASK_ORDERS[n]), tuple(range(n)), r)
    for n in (2, 3)
    for r in (False, True)
    if n == 2 or not r
}


def table_of(rules: RuleConfig) -> Table:
    """The table ``rules`` seat (RULES §2.5)."""
    n = rules.players
    return TABLES[(n, n == 2 and not rules.chi_opponent_discard)]


def xiajia(seat: int, seats: int = 3) -> int:
    """下家: the next seat in turn order (RULES §2.1; with two seats the opponent, §2.5.1)."""
    return (seat + 1) % seats


def stock_size(rules: RuleConfig) -> int:
    """The stock a deal leaves under ``rules`` (RULES §2.2, §2.5.2): 22, or 41 with two players
    and the third hand added to the stock (``maipai`` off)."""
    return STOCK_SIZE if rules.players == 3 or rules.maipai else MAX_STOCK


def buried_size(rules: RuleConfig) -> int:
    """The cards buried out of play (埋牌, RULES §2.5.2): 19 with two players and ``maipai``."""
    return BURIED_CARDS if rules.players == 2 and rules.maipai else 0


#: By how many of a face a hand holds: whether that count lets it 出 one (RULES §5.2): held,
#: and not a 砍 of three.
COUNT_DISCARDABLE: Final = (False, True, True, False, True)


#: Each face, as :func:`discardable` names it by default.
FACES: Final = tuple(range(NUM_FACES))
T = TypeVar("T")


@overload
def discardable(hand: Sequence[int], banned: Collection[int]) -> list[int]: ...


@overload
def discardable(hand: Sequence[int], banned: Collection[int], named: Sequence[T]) -> list[T]: ...


def discardable(
    hand: Sequence[int], banned: Collection[int], named: Sequence[Any] = FACES
) -> list[Any]:
    """The faces a hand may 出 (RULES §5.2): held, not a 砍 of three, not a face its seat 碰'd
    or 吃'd (``banned``), each as ``named[face]`` (the face itself by default, or its action).
    The one statement of the rule (with :func:`may_discard` for one face): the engine, its
    checks and the bots call it."""
    if banned:
        hand = list(hand)
        for f in banned:
            hand[f] = 0
    ok = COUNT_DISCARDABLE
    out = []  # a loop, not a comprehension: 3.11 builds a function and its cells for one
    for f in FACES:
        if ok[hand[f]]:
            out.append(named[f])
    return out


def may_discard(hand: Sequence[int], face: int, banned: Container[int]) -> bool:
    """Whether a hand may 出 ``face``: ``face in discardable(hand, banned)`` (RULES §5.2)."""
    return COUNT_DISCARDABLE[hand[face]] and face not in banned


def may_discard_any(hand: Sequence[int], banned: Container[int]) -> bool:
    """Whether a hand may 出 at all: ``bool(discardable(hand, banned))``, asked face by face up
    to the first it may (else the seat is 死手, RULES §4.1)."""
    ok = COUNT_DISCARDABLE
    for f in FACES:  # noqa: SIM110 (a loop, not ``any`` over a generator: a third of the time)
        if ok[hand[f]] and f not in banned:  # ``may_discard``, written out
            return True
    return False


def may_peng(hand: Sequence[int], card: int, peng_guo: Container[int]) -> bool:
    """Whether a hand may 碰 ``card`` (RULES §4.5, §5.3): two or more held, and ``card`` not
    碰-过张 for its seat (``peng_guo``)."""
    return hand[card] >= 2 and card not in peng_guo


def chi_runs(
    hand: Sequence[int],
    card: int,
    thrown: Container[int],
    shangjia_thrown: Container[int],
    holder_may_not_chi: bool,
) -> list[int]:
    """The starts of the runs a hand may 吃 ``card`` into (RULES §4.6, §5.3): the run's two other
    cards held; not a card its seat discarded or released (``thrown``) nor one its 上家 did
    (吃-过张, ``shangjia_thrown``); with ``holder_may_not_chi``, not while holding two of it."""
    if card in thrown or card in shangjia_thrown or (holder_may_not_chi and hand[card] >= 2):
        return []
    runs = []
    for s, a, b in CHI_NEEDS[card]:
        if hand[a] and hand[b]:
            runs.append(s)
    return runs


#: The plain meld of each claim: the 碰 of a face, and the 吃 into a run by its start.
PENG_MELD: Final = tuple(Meld("peng", (c, c, c)) for c in range(NUM_FACES))
CHI_MELD: Final = {s: Meld("chi", (s, s + 1, s + 2)) for s in RUN_STARTS}


def claim_into(hand: list[int], card: int, run: int | None) -> Meld:
    """A claim of ``card`` on ``hand``, in place: the 碰 (``run`` None) takes two more ``card``
    from it (RULES §4.5), the 吃 into the run starting at ``run`` the run's two other faces
    (§4.6); the meld it makes. The one statement of a claim's effect on a hand: the engine, its
    fast step (``game.playout``) and the bots call it."""
    if run is None:
        hand[card] -= 2
        return PENG_MELD[card]
    for g in (run, run + 1, run + 2):
        if g != card:
            hand[g] -= 1
    return CHI_MELD[run]


def shangjia(seat: int, seats: int = 3) -> int:
    """上家: the previous seat in turn order (RULES §2.1; with two seats the opponent, §2.5.1)."""
    return (seat - 1) % seats


_DECK: Final = tuple(sorted_deck())
_DECK_LIST: Final = list(_DECK)


#: The Fisher-Yates steps of a shuffle of the deck, from the top: (index, bits drawn for it).
_SHUFFLE_STEPS: Final = tuple((i, (i + 1).bit_length()) for i in range(len(_DECK) - 1, 0, -1))


def deal_order(seed: int) -> list[int]:
    """The shuffled deck of a seed: ``random.Random(seed).shuffle`` of the sorted deck (§2.2).

    The shuffle is written out (Fisher-Yates drawing each index as ``Random._randbelow`` does,
    from ``getrandbits``), which makes the very same draws in fewer calls; a test holds it equal
    to ``random.Random(seed).shuffle``. The generator is the C class ``random.Random`` is built on,
    ``_random.Random``, which an integer seeds as ``random.Random`` does (the same words from
    the same state) without the Python layers of ``random.Random.__init__`` and ``seed``.
    """
    deck = list(_DECK)
    getrandbits = _random.Random(seed).getrandbits
    for i, k in _SHUFFLE_STEPS:
        j = getrandbits(k)
        while j > i:
            j = getrandbits(k)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def win_check(
    melds: Sequence[Meld],
    hand: Sequence[int],
    card: int,
    source: Source,
    last: bool,
    rules: RuleConfig,
    declined: bool = False,
    *,
    zichi: bool = False,
    dealt_kan: bool = False,
    declined_faces: Sequence[int] = (),
    pool: int | None = None,
) -> Breakdown | None:
    """The breakdown if melds + hand (counts) + ``card`` win, else None (RULES §4.7, §6).

    A quick split check first: most cards cannot complete a hand, and then nothing is scored.
    ``declined`` marks a seat that passed a 胡 earlier this hand (蛰一蛰, RULES §7.2);
    ``zichi``, ``dealt_kan`` and ``declined_faces`` are the facts of RULES §7.4.4; ``pool`` the
    留子 pool the winner could take, which ``liuzi_choice`` weighs (RULES §8.5.3).
    """
    concealed = list(hand)
    if source == "self" and hand[card] >= 2:
        concealed[card] -= 2  # the forced 偎 (RULES §6.1)
    else:
        concealed[card] += 1
    if not can_split(tuple(concealed)):
        return None
    b = score_position(
        melds,
        tuple(hand),
        card,
        source=source,
        last=last,
        rules=rules,
        declared=(("zhe", 1),) if declined else (),
        zichi=zichi,
        dealt_kan=dealt_kan,
        declined=declined_faces,
        pool=pool,
    )
    return b if b.winning else None


@dataclass(frozen=True, slots=True)
class TableMeld:
    """A meld on the table: 碰, 偎 (face down unless 明偎) or 吃, with the card it took."""

    kind: MeldKind
    faces: tuple[int, int, int]
    card: int
    from_seat: int
    face_down: bool = False

    def meld(self) -> Meld:
        """The plain meld, for scoring."""
        return Meld(self.kind, self.faces)


#: One shared (immutable) meld and event per way a claim or a 偎 can fall, made once: the 碰 of
#: a card from a seat, the 吃 of a card into a run from a seat (by run start, then the card's
#: place in the run), the 偎 of a card by a seat face down or face up, with the events that tell
#: them; and the 臭 of each seat.
PENG_MELDS: Final = tuple(
    tuple(TableMeld("peng", (c, c, c), c, f) for f in range(MAX_SEATS)) for c in range(NUM_FACES)
)
PENGED: Final = tuple(
    tuple(tuple(Penged(s, c, f) for f in range(MAX_SEATS)) for c in range(NUM_FACES))
    for s in range(MAX_SEATS)
)
CHI_MELDS: Final = tuple(
    tuple(
        tuple(TableMeld("chi", (r, r + 1, r + 2), r + k, f) for f in range(MAX_SEATS))
        for k in range(3)
    )
    if r in RUN_STARTS
    else ()
    for r in range(max(RUN_STARTS) + 1)
)
CHIED: Final = tuple(
    tuple(
        tuple(tuple(Chied(s, r + k, r, f) for f in range(MAX_SEATS)) for k in range(3))
        if r in RUN_STARTS
        else ()
        for r in range(max(RUN_STARTS) + 1)
    )
    for s in range(MAX_SEATS)
)
WEI_MELDS: Final = tuple(
    tuple(
        tuple(TableMeld("wei", (c, c, c), c, s, down) for down in (False, True))
        for c in range(NUM_FACES)
    )
    for s in range(MAX_SEATS)
)
WEIED: Final = tuple(
    tuple(tuple(Weied(s, c, up) for up in (False, True)) for c in range(NUM_FACES))
    for s in range(MAX_SEATS)
)
CHOU: Final = tuple(Chou(s) for s in range(MAX_SEATS))


@dataclass(slots=True)
class Window:
    """An open claim window on one card: who may do what, and who has answered."""

    card: int
    origin: Origin
    from_seat: int
    last: bool
    #: each seat's options, keyed in the order RULES §3 asks the seats (``Table.ask``)
    options: dict[int, list[Action]]
    responses: dict[int, Action] = field(default_factory=dict)
    wins: dict[int, Breakdown] = field(default_factory=dict)
    #: the deal window's pattern of each seat that may declare one (RULES §7.2), None on any
    #: other window: a factory default would cost every window a call
    deal_patterns: dict[int, str] | None = None


@dataclass(frozen=True, slots=True)
class HandResult:
    """How a hand ended: a winner with his breakdown, or 臭."""

    winner: int | None
    breakdown: Breakdown | None
    card: int | None = None
    source: Source | None = None
    deal_pattern: str | None = None
    origin: Origin | None = None
    #: won on the card whose draw emptied the stock (海底, RULES §3.1.7), whether or not the
    #: preset scores 海底胡
    haidi: bool = False

    @property
    def chou(self) -> bool:
        """Whether the hand ended 臭 (no winner)."""
        return self.winner is None


#: The result of every hand that ends 臭 (RULES §8.1).
CHOU_RESULT: Final = HandResult(None, None)


def _check_dealer(dealer: int, seats: int) -> None:
    if type(dealer) is not int or not 0 <= dealer < seats:
        names = "0 or 1" if seats == 2 else "0, 1 or 2"
        raise IllegalAction(f"the dealer is seat {names}, not {quoted(dealer)}")


def _check_deal(
    hands: list[list[int]], stock: list[int], dealer: int, buried: list[int], rules: RuleConfig
) -> None:
    """The hands, the stock and the buried cards are the 80 cards, four of every face, the dealer
    holding one card more than the others, the stock and the buried pile of the sizes the rules
    give (RULES §2.2, §2.5.2)."""
    seats = rules.players
    sizes = [len(h) for h in hands]
    if (
        len(hands) != seats
        or sizes[dealer] != DEALER_CARDS
        or sizes.count(DEALER_CARDS - 1) != seats - 1
        or len(stock) != stock_size(rules)
        or len(buried) != buried_size(rules)
        or sorted([*stock, *buried, *(f for h in hands for f in h)]) != _DECK_LIST
    ):
        raise IllegalAction(
            f"not a valid deal: hand sizes {sizes}, stock {len(stock)}, buried {len(buried)}, "
            f"dealer {dealer} ({seats} players)"
        )


def deal_of(
    deck: list[int], dealer: int, rules: RuleConfig
) -> tuple[list[list[int]], list[int], list[int]]:
    """The hands, the stock in draw order and the buried cards of a shuffled deck (RULES §2.2
    [D]): the first 22 cards are the stock, card 22+k goes to seat (dealer + k) mod 3. With two
    players (RULES §2.5.2) card 22+k goes to the *virtual* seat k mod 3: 0 the dealer, 1 the other
    seat, 2 the buried pile, which stays out of play (``maipai``) or follows the 22 in the stock."""
    stock = deck[:STOCK_SIZE]
    if rules.players == 3:
        hands: list[list[int]] = [[], [], []]
        for k in range(3):  # one card at a time from the dealer on
            hands[(dealer + k) % 3] = deck[STOCK_SIZE + k :: 3]
        return hands, stock, []
    third = deck[STOCK_SIZE + 2 :: 3]
    hands = [[], []]
    hands[dealer] = deck[STOCK_SIZE::3]
    hands[1 - dealer] = deck[STOCK_SIZE + 1 :: 3]
    if rules.maipai:
        return hands, stock, third
    return hands, stock + third, []


class GameState:
    """One hand of 安乡偎麻雀 between three seats, or two (RULES §2.5)."""

    def __init__(
        self,
        rules: RuleConfig | str,
        hands: list[list[int]],
        stock: list[int],
        dealer: int = 0,
        seed: int | None = None,
        buried: Sequence[int] = (),
        pool: int | None = None,
    ) -> None:
        """Start a hand from explicit hands (faces), stock (draw order) and, with two players and
        埋牌, the buried cards (RULES §2.5.2), checked to be a deal of the whole deck; see
        ``new``."""
        config = get_rules(rules)
        _check_dealer(dealer, config.players)
        _check_deal(hands, list(stock), dealer, list(buried), config)
        self._start(config, hands, list(stock), dealer, seed, tuple(buried), pool)

    def _start(
        self,
        rules: RuleConfig,
        hands: list[list[int]],
        stock: list[int],
        dealer: int,
        seed: int | None,
        buried: tuple[int, ...] = (),
        pool: int | None = None,
    ) -> None:
        """Set up the hand from a checked deal and open the deal window."""
        self.rules = rules
        #: the 留子 pool a winner could take, set by a match whose rules choose the winning
        #: layout with it (``liuzi_choice``, RULES §8.5.3); None: the layout ignores the pool
        self.pool = pool if rules.liuzi_choice and rules.liuzi else None
        table = self.table = table_of(rules)
        n = table.n
        self.seed = seed
        self.dealer = dealer
        self.stock = stock
        #: the buried cards (埋牌, RULES §2.5.2): out of play, seen by nobody, kept for the record
        self.buried = tuple(sorted(buried)) if buried else ()
        self.initial_hands = list(map(tuple, map(sorted, hands)))  # no Python call per seat
        self.pos = 0
        # one list or set per seat (three written out: a comprehension costs a call)
        self.hands: list[list[int]]
        self.melds: list[list[TableMeld]]
        self.rows: list[list[int]]
        self.thrown: list[set[int]]
        self.released: list[set[int]]
        self.peng_guo: list[set[int]]
        self.no_discard: list[set[int]]
        if n == 3:
            self.hands = [[0] * NUM_FACES, [0] * NUM_FACES, [0] * NUM_FACES]
            self.melds, self.rows = [[], [], []], [[], [], []]
            self.thrown, self.released = [set(), set(), set()], [set(), set(), set()]
            self.peng_guo, self.no_discard = [set(), set(), set()], [set(), set(), set()]
        else:
            self.hands = [[0] * NUM_FACES for _ in range(n)]
            self.melds, self.rows = [[] for _ in range(n)], [[] for _ in range(n)]
            self.thrown = [set() for _ in range(n)]
            self.released = [set() for _ in range(n)]
            self.peng_guo = [set() for _ in range(n)]
            self.no_discard = [set() for _ in range(n)]
        for counts, cards in zip(self.hands, hands, strict=True):
            for f in cards:
                counts[f] += 1
        self.dead = [False] * n
        #: discards skipped by a 死手 seat: each leaves him one card more (RULES §3.1.8)
        self.skipped = [0] * n
        self.declined = [False] * n
        #: per seat, a bit per face on which it declined a 胡 this hand (RULES §7.4.4)
        self.declined_faces = [0] * n
        deal_patterns, win_facts = rule_flags(rules)
        #: whether the preset scores a 名堂 that reads the facts of RULES §7.4.4
        self.win_facts = win_facts
        self.phase: Phase = "discard"
        self.turn = dealer
        self.window: Window | None = None
        self.events: list[Event] = []
        #: per seat, a copy of the hand and its winning faces (``_waits``)
        self._wait_memo: list[tuple[Sequence[int], frozenset[int]]] = [NO_MEMO] * n
        self.actions: list[tuple[int, Action]] = []
        self.result: HandResult | None = None
        #: match points before this hand, set by the match (RULES §8.6)
        self.scores: list[int] = [0] * n
        for seat in range(n):
            self.events.append(Dealt(seat, self.initial_hands[seat], dealer))
        if deal_patterns:
            self._open_deal_window()
        else:  # no deal 名堂 to declare (RULES §7.2): the dealer 出s
            self._enter_discard(dealer)

    @classmethod
    def new(
        cls,
        rules: RuleConfig | str = "anxiang",
        seed: int = 0,
        dealer: int = 0,
        pool: int | None = None,
    ) -> GameState:
        """Deal a hand from a seed (RULES §2.2 [D], §2.5.2): 22 stock cards, then the deal.
        ``pool``: the 留子 pool a winner could take (RULES §8.5.3, with ``liuzi_choice``)."""
        config = get_rules(rules)
        _check_dealer(dealer, config.players)
        hands, stock, buried = deal_of(deal_order(seed), dealer, config)
        st = cls.__new__(cls)
        # the whole deck, shuffled: a deal that needs no check
        st._start(config, hands, stock, dealer, seed, tuple(buried), pool)
        return st

    @classmethod
    def position(
        cls,
        rules: RuleConfig,
        *,
        dealer: int,
        hands: list[list[int]],
        stock: list[int],
        melds: list[list[TableMeld]],
        rows: list[list[int]],
        thrown: list[set[int]],
        no_discard: list[set[int]],
        peng_guo: list[set[int]],
        dead: list[bool],
        skipped: list[int],
        declined: list[bool],
        scores: list[int],
        turn: int,
        declined_faces: list[int] | None = None,
        released: list[set[int]] | None = None,
    ) -> GameState:
        """A position inside a hand built from its parts (count vectors per seat, the stock still
        to draw) without replaying the hand: search's worlds consistent with a seat's view. It is
        ``turn``'s discard; a caller that needs an open claim window sets ``phase`` and
        ``window`` from :meth:`claim_window` or :meth:`deal_window`. Events and the action log
        start empty; ``initial_hands`` are the given hands (so a 砍 held now counts as dealt,
        RULES §7.4.4). ``declined_faces``: per seat, a bit per face on which it declined a 胡
        (none if not given). A stock holds at most the cards of a deal (RULES §2.2, §2.5.2).
        ``released``: per seat, the faces it released (RULES §2.5.4; empty if not given)."""
        if len(stock) > stock_size(rules):
            raise IllegalAction(f"a stock of {len(stock)} cards: a deal leaves {stock_size(rules)}")
        n = rules.players
        if len(hands) != n:
            raise IllegalAction(f"{len(hands)} hands: the rules seat {n} players")
        st = GameState.__new__(GameState)
        st.rules = rules
        st.table = table_of(rules)
        st.seed = None
        st.dealer = dealer
        st.buried = ()
        st.pool = None
        st.released = [set() for _ in range(n)] if released is None else released
        st.hands = hands
        st.initial_hands = [tuple(faces_of(h)) for h in hands]
        st.stock = stock
        st.pos = 0
        st.melds = melds
        st.rows = rows
        st.thrown = thrown
        st.no_discard = no_discard
        st.peng_guo = peng_guo
        st.dead = dead
        st.skipped = skipped
        st.declined = declined
        st.declined_faces = [0] * n if declined_faces is None else declined_faces
        st.win_facts = rule_flags(rules)[1]
        st.events = []
        st._wait_memo = [NO_MEMO] * n
        st.actions = []
        st.result = None
        st.scores = scores
        st.window = None
        st.turn = turn
        st.phase = "discard"
        return st

    def copy(self) -> GameState:
        """An independent copy for search: same position, events and action log left empty."""
        st = GameState.__new__(GameState)
        st.rules = self.rules
        st.table = self.table
        st.seed = self.seed
        st.dealer = self.dealer
        st.buried = self.buried
        st.pool = self.pool
        st.initial_hands = self.initial_hands
        st.stock = self.stock
        st.pos = self.pos
        st.hands = [list(h) for h in self.hands]
        st.melds = [list(m) for m in self.melds]
        st.rows = [list(r) for r in self.rows]
        st.thrown = [set(t) for t in self.thrown]
        st.released = [set(t) for t in self.released]
        st.peng_guo = [set(p) for p in self.peng_guo]
        st.no_discard = [set(n) for n in self.no_discard]
        st.dead = list(self.dead)
        st.skipped = list(self.skipped)
        st.declined = list(self.declined)
        st.declined_faces = list(self.declined_faces)
        st.win_facts = self.win_facts
        st.phase = self.phase
        st.turn = self.turn
        w = self.window
        st.window = None
        if w is not None:
            st.window = Window(
                w.card,
                w.origin,
                w.from_seat,
                w.last,
                {s: list(o) for s, o in w.options.items()},
                dict(w.responses),
                dict(w.wins),
                None if w.deal_patterns is None else dict(w.deal_patterns),
            )
        st.events = []
        st._wait_memo = list(self._wait_memo)
        st.actions = []
        st.result = self.result
        st.scores = list(self.scores)
        return st

    # ----------------------------------------------------------------- queries

    @property
    def stock_left(self) -> int:
        """Cards left in the stock."""
        return len(self.stock) - self.pos

    @property
    def n(self) -> int:
        """The seats of this hand (RULES §2.5: 2 or 3)."""
        return self.table.n

    @property
    def ask(self) -> tuple[tuple[int, ...], ...]:
        """Per seat, the seats a window on its card asks, in order (RULES §3, §2.5.3)."""
        return self.table.ask

    @property
    def release_only(self) -> bool:
        """Whether only releases make a face 吃-过张 (two players, no 吃 of discards, §2.5.4)."""
        return self.table.release_only

    @property
    def stock_size(self) -> int:
        """The stock of a deal under this hand's rules: 22, or 41 (RULES §2.2, §2.5.2)."""
        return stock_size(self.rules)

    def chi_guo(self, seat: int) -> set[int]:
        """The faces ``seat``'s 上家 has made 吃-过张 for it (RULES §5.3): those he discarded or
        released; with two players and ``chi_opponent_discard`` off, those he released only
        (RULES §2.5.4)."""
        table = self.table
        return table.guo_sets(self.thrown, self.released)[(seat - 1) % table.n]

    def is_terminal(self) -> bool:
        """Whether the hand is over."""
        return self.phase == "over"

    def to_act(self) -> tuple[int, ...]:
        """Seats that must decide now, in seat order."""
        if self.phase == "discard":
            return (self.turn,)
        if self.phase == "claim":
            w = self.window
            assert w is not None
            options, responses = w.options, w.responses
            return tuple(s for s in self.table.seats if s in options and s not in responses)
        return ()

    def current_player(self) -> int:
        """The seat RULES §3 asks first among those still to decide, or -1 when the hand is over.

        In a claim window that is the order of 胡 (RULES §4.7): the drawer (or discarder, or the
        dealer before the first discard), then his 下家, then his 上家. The window is resolved by
        priority once every seat has answered, so the order of answers never changes the outcome.
        """
        phase = self.phase
        if phase == "discard":
            return self.turn
        if phase == "claim":
            w = self.window
            assert w is not None
            responses = w.responses
            for seat in w.options:  # keyed in asking order (``Window.options``)
                if seat not in responses:
                    return seat
        return -1

    def _must_act(self, seat: int) -> bool:
        """``seat in self.to_act()``, without building the tuple."""
        phase = self.phase
        if phase == "discard":
            return seat == self.turn
        if phase == "claim":
            w = self.window
            assert w is not None
            return seat in w.options and seat not in w.responses
        return False

    def hand_faces(self, seat: int) -> list[int]:
        """A seat's concealed cards, sorted."""
        return faces_of(self.hands[seat])

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now (empty when it need not decide)."""
        if self.phase == "discard":
            if seat != self.turn:
                return []
            return discardable(self.hands[seat], self.no_discard[seat], DISCARDS)
        w = self.window
        if w is None or seat not in w.options or seat in w.responses:
            return []  # the hand is over, or the seat has no option or has answered
        return list(w.options[seat])

    def bans(self, seat: int) -> tuple[list[int], list[int], list[int]]:
        """Faces ``seat`` may not 出, 吃 or 碰 now, sorted (RULES §4.6, §5.2, §5.3).

        出: the 碰'd and 吃-claimed faces plus the 砍 held. 吃: the faces the seat or its 上家
        discarded or released, plus (``holder_may_not_chi``) faces held twice or more.
        碰: the faces the seat declined to 碰 (碰-过张).
        """
        hand = self.hands[seat]
        discard = self.no_discard[seat] | {f for f in range(NUM_FACES) if hand[f] == 3}
        chi = self.thrown[seat] | self.chi_guo(seat)
        if self.rules.holder_may_not_chi:
            chi = chi | {f for f in range(NUM_FACES) if hand[f] >= 2}
        return sorted(discard), sorted(chi), sorted(self.peng_guo[seat])

    def public_bans(self, seat: int) -> tuple[list[int], list[int]]:
        """The 出 and 吃 bans of ``seat`` that follow from what every seat saw (RULES §5.2, §5.3).

        碰'd and 吃-claimed faces, and faces the seat or its 上家 discarded or released; bans that
        follow from a hand (a 砍, faces held twice) or from a declined 碰 are left out.
        """
        return sorted(self.no_discard[seat]), sorted(self.thrown[seat] | self.chi_guo(seat))

    def returns(self) -> list[int]:
        """Points of this hand per seat: each loser pays the winner his total (RULES §8.3)."""
        n = self.table.n
        if self.result is None or self.result.breakdown is None:
            return [0] * n
        total = self.result.breakdown.total
        return [(n - 1) * total if s == self.result.winner else -total for s in range(n)]

    # ----------------------------------------------------------------- checks

    def _discard_reason(self, seat: int, face: int) -> str | None:
        """Why ``seat`` may not 出 ``face`` now (which part of :func:`discardable` it fails), or
        None (RULES §5.2)."""
        hand = self.hands[seat]
        if may_discard(hand, face, self.no_discard[seat]):
            return None
        name = FACE_CHARS[face]
        if hand[face] == 0:
            return f"cannot 出 {name}: seat {seat} holds none"
        if hand[face] == 3:
            return f"cannot 出 {name}: a 砍 of three stays in hand (RULES §5.2)"
        return f"cannot 出 {name}: seat {seat} has 碰'd or 吃'd {name} (RULES §5.2)"

    def _peng_reason(self, seat: int, card: int) -> str | None:
        """Why ``seat`` may not 碰 ``card`` (which part of :func:`may_peng` it fails), or None
        (RULES §4.5, §5.3)."""
        if may_peng(self.hands[seat], card, self.peng_guo[seat]):
            return None
        name = FACE_CHARS[card]
        if self.hands[seat][card] < 2:
            return f"cannot 碰 {name}: seat {seat} holds fewer than two (RULES §4.5)"
        return f"cannot 碰 {name}: {name} is 碰-过张 for seat {seat} (RULES §5.3)"

    def _chi_reason(self, seat: int, card: int, start: int) -> str | None:
        """Why ``seat`` may not 吃 ``card`` into the run at ``start`` (which part of
        :func:`chi_runs` it fails), or None (RULES §4.6, §5.3)."""
        if start in self._chi_runs(seat, card):
            return None
        name = FACE_CHARS[card]
        if start not in RUN_STARTS or not start <= card <= start + 2:
            return f"cannot 吃 {name} into a run from {FACE_CHARS[start]}: not a run holding it"
        hand = self.hands[seat]
        for f in (start, start + 1, start + 2):
            if f != card and hand[f] == 0:
                return f"cannot 吃 {name}: seat {seat} holds no {FACE_CHARS[f]} (RULES §4.6)"
        if card in self.thrown[seat]:
            return f"cannot 吃 {name}: seat {seat} has discarded or released it (RULES §4.6(1))"
        if card in self.chi_guo(seat):
            return f"cannot 吃 {name}: it is 吃-过张 for seat {seat} (RULES §5.3, §2.5.4)"
        return f"cannot 吃 {name}: seat {seat} holds two or more (RULES §4.6(3))"

    def _chi_runs(self, seat: int, card: int) -> list[int]:
        """:func:`chi_runs` for ``seat`` now."""
        return chi_runs(
            self.hands[seat],
            card,
            self.thrown[seat],
            self.chi_guo(seat),
            self.rules.holder_may_not_chi,
        )

    def _waits(self, seat: int) -> frozenset[int]:
        """:func:`winning_faces` of the seat's hand, kept per seat while the hand stays the
        same: the engine asks it of every seat at each draw, and a hand changes only when its
        own seat plays."""
        hand = self.hands[seat]
        held, waits = self._wait_memo[seat]
        if hand != held:
            waits = winning_faces(tuple(hand))
            self._wait_memo[seat] = (list(hand), waits)
        return waits

    def win_on(self, seat: int, card: int, source: Source, last: bool) -> Breakdown | None:
        """The breakdown if ``seat`` wins on ``card`` now, else None (RULES §4.7)."""
        if self.dead[seat]:
            return None
        hand = self.hands[seat]
        # the quick split check of ``win_check`` before the melds are gathered: the hand with
        # the card (the seat's winning faces, kept while its hand stays), or less the 偎'd pair
        if source == "self" and hand[card] >= 2:
            hand[card] -= 2
            key = tuple(hand)
            hand[card] += 2
            if not can_split(key):
                return None
        elif card not in self._waits(seat):
            return None
        if self.win_facts:
            return self._win_with_facts(seat, card, source, last)
        return win_check(
            [m.meld() for m in self.melds[seat]],
            self.hands[seat],
            card,
            source,
            last,
            self.rules,
            self.declined[seat],
            pool=self.pool,
        )

    def _win_with_facts(self, seat: int, card: int, source: Source, last: bool) -> Breakdown | None:
        """``win_check`` with the facts of RULES §7.4.4 (``win_facts``)."""
        zichi, dealt_kan, declined_faces = self.facts_of_win(seat, card)
        return win_check(
            [m.meld() for m in self.melds[seat]],
            self.hands[seat],
            card,
            source,
            last,
            self.rules,
            self.declined[seat],
            zichi=zichi,
            dealt_kan=dealt_kan,
            declined_faces=declined_faces,
            pool=self.pool,
        )

    def facts_of_win(self, seat: int, card: int) -> tuple[bool, bool, list[int]]:
        """The facts of RULES §7.4.4 for ``seat`` winning on ``card`` now, read from the hand so
        far: whether a 吃 meld came from his own draw (自吃), whether three of ``card`` were
        dealt to him, and the faces on which he declined a 胡."""
        mask = self.declined_faces[seat]
        return (
            any(m.kind == "chi" and m.from_seat == seat for m in self.melds[seat]),
            self.initial_hands[seat].count(card) >= 3,
            [f for f in range(NUM_FACES) if mask >> f & 1] if mask else [],
        )

    def verify(self, seat: int, action: Action) -> None:
        """Raise :class:`IllegalAction` naming the rule if ``seat`` may not take ``action`` now."""
        if (
            self.phase == "discard"
            and seat == self.turn
            and action.kind == "discard"
            and type(face := action.face) is int
            and 0 <= face < NUM_FACES
            and may_discard(self.hands[seat], face, self.no_discard[seat])
        ):
            return  # the common case, a legal 出, in one test
        w = self.window
        if self.phase == "claim" and w is not None and seat not in w.responses:
            for option in w.options.get(seat, ()):
                if option is action:
                    return  # an answer taken from ``legal_actions``, in one pass
        if self.phase == "over":
            raise IllegalAction(f"cannot {action}: the hand is over")
        if not 0 <= seat < self.table.n:
            raise IllegalAction(f"no seat {seat!r}")
        if not self._must_act(seat):
            raise IllegalAction(f"cannot {action}: seat {seat} is not to act now")
        if action.kind in ("discard", "chi") and (
            action.face is None or not 0 <= action.face < NUM_FACES
        ):
            raise IllegalAction(f"cannot {action.kind} face {action.face!r}: no such card")
        if self.phase == "discard":
            if action.kind != "discard" or action.face is None:
                raise IllegalAction(f"cannot {action}: seat {seat} must 出 a card (RULES §3)")
            reason = self._discard_reason(seat, action.face)
            if reason:
                raise IllegalAction(reason)
            return
        assert self.window is not None
        if action in self.window.options[seat]:
            return
        raise IllegalAction(self._claim_reason(seat, action))

    def _claim_reason(self, seat: int, action: Action) -> str:
        w = self.window
        assert w is not None
        if w.origin == "deal":
            return f"cannot {action}: only 胡 (a deal pattern) or 过 before the first discard"
        name = FACE_CHARS[w.card]
        if action.kind == "discard":
            return f"cannot {action}: a claim on {name} is open; 过 or claim first"
        if action.kind == "peng":
            if w.origin in ("draw", "discard") and seat != w.from_seat:
                return self._peng_reason(seat, w.card) or f"cannot 碰 {name} now"
            return f"cannot 碰 {name}: nobody may 碰 a 偎'd, released or own card (RULES §3)"
        if action.kind == "chi":
            assert action.face is not None
            own_draw = w.origin == "draw" and seat == w.from_seat
            from_shangjia = w.origin in ("discard", "release") and seat == xiajia(
                w.from_seat, self.table.n
            )
            if not (own_draw or from_shangjia):
                return f"cannot 吃 {name}: only one's own draw or the 上家's card (RULES §4.6)"
            if w.origin == "discard" and self.table.release_only:
                return f"cannot 吃 {name}: the opponent's discards are not 吃'd here (RULES §2.5.3)"
            return self._chi_reason(seat, w.card, action.face) or f"cannot {action} now"
        if action.kind == "hu":
            if self.dead[seat]:
                return f"cannot 胡: seat {seat} is 死手 (RULES §4.1)"
            if w.origin in ("discard", "release"):
                return f"cannot 胡 on a discarded card {name} (RULES §3, §4.7)"
            return f"cannot 胡 on {name}: the cards do not win (RULES §4.7)"
        return f"cannot {action} now"

    def can(self, seat: int, action: Action) -> bool:
        """Whether ``seat`` may take ``action`` now."""
        try:
            self.verify(seat, action)
        except IllegalAction:
            return False
        return True

    # ----------------------------------------------------------------- apply

    def apply(self, seat: int, action: Action) -> list[Event]:
        """Take one action; return the events it caused. Illegal actions change nothing."""
        events = self.events
        start = len(events)
        # ``verify`` and ``apply_trusted`` written out, two calls fewer on every step: the
        # common cases of ``verify`` (a legal 出, RULES §5.2 as ``may_discard`` states it, or an
        # answer among the seat's options) pass here, and anything else is ``verify``'s to judge
        face = action.face
        if self.phase == "discard":
            if not (
                seat == self.turn
                and action.kind == "discard"
                and type(face) is int
                and 0 <= face < NUM_FACES
                and COUNT_DISCARDABLE[self.hands[seat][face]]
                and face not in self.no_discard[seat]
            ):
                self.verify(seat, action)
            assert face is not None
            self.actions.append((seat, action))
            self._discard(seat, face)
        else:
            w = self.window
            if self.phase == "claim" and w is not None and seat not in w.responses:
                for option in w.options.get(seat, ()):
                    if option is action:  # an answer taken from ``legal_actions``
                        break
                else:
                    self.verify(seat, action)
            else:
                self.verify(seat, action)
            assert w is not None
            self.actions.append((seat, action))
            w.responses[seat] = action
            if len(w.responses) == len(w.options):
                self._resolve()
        return events[start:]

    def apply_trusted(self, seat: int, action: Action) -> None:
        """``apply`` without the check, for search rollouts that only ever pick legal actions."""
        self.actions.append((seat, action))
        if self.phase == "discard":
            assert action.face is not None
            self._discard(seat, action.face)
        else:
            w = self.window
            assert w is not None
            w.responses[seat] = action
            if len(w.responses) == len(w.options):
                self._resolve()

    def _discard(self, seat: int, face: int) -> None:
        """``seat`` 出s ``face`` (RULES §4.1): a window opens on it, or it goes to his row and
        his 下家 draws."""
        self.hands[seat][face] -= 1
        self.events.append(DISCARDED[seat][face])
        options = self._discard_options(face, seat)
        if options:
            self.phase = "claim"
            self.window = Window(face, "discard", seat, False, options, {}, {})
            return
        self.thrown[seat].add(face)
        self.rows[seat].append(face)
        self._draw((seat + 1) % self.table.n)

    def claim_window(self, card: int, origin: Origin, from_seat: int, last: bool) -> Window:
        """The window the rules open on a discarded, drawn or released card (RULES §3, §5.1).

        Each seat's options come from the same checks as ``verify``: 胡 only on a draw (drawer,
        then 下家, then 上家), 碰 by another seat, 吃 by the drawer on his own draw or by the 下家
        on a discard or release. A 偎 window is opened by the draw itself (its 胡 is judged on
        the hand before the 偎).
        """
        options, wins = self._claim_options(card, origin, from_seat, last)
        return Window(card, origin, from_seat, last, options, {}, wins)

    def _claim_options(
        self, card: int, origin: Origin, from_seat: int, last: bool
    ) -> tuple[dict[int, list[Action]], dict[int, Breakdown]]:
        """Each seat's options and scored wins on a card (see ``claim_window``)."""
        if origin == "draw":
            return self._draw_options(card, from_seat, last, self._seat_waits())
        if origin == "discard":
            return self._discard_options(card, from_seat), {}
        return self._release_options(card, from_seat), {}

    def _seat_waits(self) -> list[frozenset[int]]:
        """Each seat's :meth:`_waits`, its memo read here (a call per seat costs each draw as
        much as the reads)."""
        memo = self._wait_memo
        out = []
        for seat, hand in enumerate(self.hands):
            held, waits = memo[seat]
            if hand != held:
                waits = winning_faces(tuple(hand))
                memo[seat] = (list(hand), waits)
            out.append(waits)
        return out

    def _draw_options(
        self, card: int, drawer: int, last: bool, waits: Sequence[frozenset[int]]
    ) -> tuple[dict[int, list[Action]], dict[int, Breakdown]]:
        """The options and scored wins on a drawn card (RULES §3 DRAW), given each seat's
        winning faces (``_seat_waits``)."""
        options: dict[int, list[Action]] = {}
        wins: dict[int, Breakdown] = {}
        table = self.table
        # the drawer: 胡 on his own draw, or 吃 it (RULES §4.6, §4.7)
        hand = self.hands[drawer]
        # the quick test of ``win_on``: most cards complete nobody's hand
        win = None
        if hand[card] >= 2 or card in waits[drawer]:
            win = self.win_on(drawer, card, "self", last)
        thrown = self.thrown
        # his 上家's 吃-过张 faces (``Table.guo_sets``, written out on this path)
        guo = (self.released if table.release_only else thrown)[table.ask[drawer][-1]]
        mine = thrown[drawer]
        # ``chi_runs`` asked only of a card neither he nor his 上家 has thrown: its first test,
        # which most draws late in a hand fail
        runs = (
            chi_runs(hand, card, mine, guo, self.rules.holder_may_not_chi)
            if card not in mine and card not in guo
            else ()
        )
        if win is not None or runs:
            opts = [HU] if win is not None else []
            for s in runs:
                opts.append(CHIS[s])
            opts.append(PASS)
            options[drawer] = opts
            if win is not None:
                wins[drawer] = win
        # then his 下家 and 上家 (with two seats, the opponent once, RULES §2.5.3): 胡 on
        # another's draw, or 碰 it (RULES §4.5, §4.7)
        hands, peng_guo = self.hands, self.peng_guo
        for other in table.others[drawer]:
            hand = hands[other]
            # the quick test of ``may_peng``: most seats hold fewer than two of the card
            peng = hand[card] >= 2 and may_peng(hand, card, peng_guo[other])
            win = self.win_on(other, card, "other", last) if card in waits[other] else None
            if win is not None:
                wins[other] = win
                options[other] = [HU, PENG, PASS] if peng else [HU, PASS]
            elif peng:
                options[other] = [PENG, PASS]
        return options, wins

    def _discard_options(self, card: int, discarder: int) -> dict[int, list[Action]]:
        """The options on a discarded card: his 下家 may 碰 or 吃 it, his 上家 碰 it (RULES §4.5,
        §4.6); nobody 胡s it (§3)."""
        options: dict[int, list[Action]] = {}
        order = self.table.ask[discarder]
        nxt = order[1]
        hands, peng_guo, thrown = self.hands, self.peng_guo, self.thrown
        hand = hands[nxt]
        # ``may_peng`` asked only of a seat holding two: the quick test, as on a draw
        opts = [PENG] if hand[card] >= 2 and may_peng(hand, card, peng_guo[nxt]) else []
        holder = self.rules.holder_may_not_chi
        if not self.table.release_only:  # RULES §2.5.3(1): 吃 of a discard is an option
            guo = thrown[discarder]
            for s in chi_runs(hand, card, thrown[nxt], guo, holder):
                opts.append(CHIS[s])
        if opts:
            opts.append(PASS)
            options[nxt] = opts
        if len(order) == 2:  # the opponent is the 上家 too, asked once (RULES §2.5.3)
            return options
        prev = order[2]
        hand = hands[prev]
        if hand[card] >= 2 and may_peng(hand, card, peng_guo[prev]):
            options[prev] = [PENG, PASS]
        return options

    def _release_options(self, card: int, drawer: int) -> dict[int, list[Action]]:
        """The options on a released card: only the 下家 may 吃 it; nobody 碰s or 胡s it
        (RULES §3.1.3)."""
        table = self.table
        nxt = (drawer + 1) % table.n
        thrown = self.thrown
        # the drawer's 吃-过张 faces (``Table.guo_sets``, written out on this path)
        guo = (self.released if table.release_only else thrown)[drawer]
        runs = chi_runs(self.hands[nxt], card, thrown[nxt], guo, self.rules.holder_may_not_chi)
        if not runs:
            return {}
        opts = []
        for s in runs:
            opts.append(CHIS[s])
        opts.append(PASS)
        return {nxt: opts}

    def _draw(self, seat: int) -> None:
        """``seat`` draws (RULES §3 DRAW), and play goes on through every card nobody may claim:
        a drawn card nobody takes is released to the drawer's row, and his 下家 draws (§3.1.3),
        until a seat must decide or the stock runs out."""
        stock, hands, events, n = self.stock, self.hands, self.events, self.table.n
        waits = None  # asked at the first card drawn: no hand changes while cards are released
        while True:
            left = len(stock) - self.pos - 1  # once this card is drawn
            if left < 0:
                events.append(CHOU[seat])
                self._end(CHOU_RESULT)
                return
            card = stock[self.pos]
            self.pos += 1
            last = left == 0
            if hands[seat][card] >= 2:
                self._wei(seat, card, left, last)
                return
            events.append(DREW_FACE_UP[seat][left][card])
            if waits is None:
                # ``_seat_waits`` written out (a call fewer on every draw)
                waits = []
                memo = self._wait_memo
                for s, hand in enumerate(hands):
                    held, faces = memo[s]
                    if hand != held:
                        faces = winning_faces(tuple(hand))
                        memo[s] = (list(hand), faces)
                    waits.append(faces)
            options, wins = self._draw_options(card, seat, last, waits)
            if options:
                self.phase = "claim"
                self.window = Window(card, "draw", seat, last, options, {}, wins)
                return
            if self._release(seat, card, last):
                return
            seat = (seat + 1) % n

    def _release(self, seat: int, card: int, last: bool) -> bool:
        """A drawn card nobody took is released: it counts as the drawer's discard, and only his
        下家 may 吃 it (RULES §3.1.3). Whether a window opened on it; else it lies in the row."""
        self.events.append(RELEASED[seat][card])
        # ``_release_options`` written out (a call fewer on every release)
        table, thrown, released = self.table, self.thrown, self.released
        nxt = (seat + 1) % table.n
        guo = (released if table.release_only else thrown)[seat]
        runs = chi_runs(self.hands[nxt], card, thrown[nxt], guo, self.rules.holder_may_not_chi)
        if runs:
            opts = []
            for s in runs:
                opts.append(CHIS[s])
            opts.append(PASS)
            self.phase = "claim"
            self.window = Window(card, "release", seat, last, {nxt: opts}, {}, {})
            return True
        thrown[seat].add(card)
        released[seat].add(card)
        self.rows[seat].append(card)
        return False

    def _wei(self, seat: int, card: int, left: int, last: bool) -> None:
        """The mandatory 偎 of a drawn card: with three in hand, two are used and one kept
        (RULES §4.3); the drawer may 胡 on the hand before it."""
        win = self.win_on(seat, card, "self", last)
        face_up = self.rules.wei_face_up
        self.hands[seat][card] -= 2
        self.melds[seat].append(WEI_MELDS[seat][card][not face_up])
        self.events.append((DREW_FACE_UP if face_up else DREW_FACE_DOWN)[seat][left][card])
        self.events.append(WEIED[seat][card][face_up])
        if win is None:
            self._enter_discard(seat)  # no 胡 on it: the drawer must 出 (RULES §3 DRAW 1)
            return
        self.phase = "claim"
        self.window = Window(card, "wei", seat, last, {seat: [HU, PASS]}, {}, {seat: win})

    def _resolve(self) -> None:
        """Close the window: 胡 > 碰 > 吃 by priority (RULES §5.1), else play goes on."""
        w = self.window
        assert w is not None
        chosen = w.responses
        winner = penger = chier = None
        passed_peng = []  # seats offered 碰 that did not take it: 碰-过张 (RULES §5.3)
        # each kind to the first seat in asking order (RULES §3) that answered it (with one
        # answer, there is no order to keep)
        for s in chosen if len(chosen) == 1 else self.table.ask[w.from_seat]:
            a = chosen.get(s)
            if a is None:
                continue
            kind = a.kind
            if kind == "hu":
                winner = s
                break
            if kind == "peng":
                if penger is None:
                    penger = s
                continue
            if kind == "chi" and chier is None:
                chier = s
            for o in w.options[s]:
                if o.kind == "peng":
                    passed_peng.append(s)
                    break
        if winner is not None:
            self._hu(winner, w)
            return
        origin, card, from_seat = w.origin, w.card, w.from_seat
        if w.wins and origin != "deal":
            for s in w.wins:
                if (a := chosen.get(s)) is None or a.kind != "hu":
                    self.declined[s] = True
                    self.declined_faces[s] |= 1 << card
                    self.events.append(DeclinedHu(s, card))
        for s in passed_peng:
            self.peng_guo[s].add(card)
        self.window = None
        if origin == "discard":
            self.thrown[from_seat].add(card)
        elif origin == "release":
            self.thrown[from_seat].add(card)
            self.released[from_seat].add(card)
        if penger is not None:
            claim_into(self.hands[penger], card, None)
            self.melds[penger].append(PENG_MELDS[card][from_seat])
            self.no_discard[penger].add(card)
            self.events.append(PENGED[penger][card][from_seat])
            self._enter_discard(penger)
            return
        if chier is not None:
            start = chosen[chier].face
            assert start is not None
            claim_into(self.hands[chier], card, start)
            self.melds[chier].append(CHI_MELDS[start][card - start][from_seat])
            self.no_discard[chier].add(card)
            self.events.append(CHIED[chier][start][card - start][from_seat])
            self._enter_discard(chier)
            return
        # nobody claimed the card: play goes on
        if origin in ("discard", "release"):
            self.rows[from_seat].append(card)
            self._draw((from_seat + 1) % self.table.n)
        elif origin == "draw":
            if not self._release(from_seat, card, w.last):
                self._draw((from_seat + 1) % self.table.n)
        else:  # after a 偎 not won on, or the deal: the seat must 出
            self._enter_discard(from_seat)

    def _enter_discard(self, seat: int) -> None:
        if may_discard_any(self.hands[seat], self.no_discard[seat]):
            self.phase = "discard"
            self.turn = seat
            return
        # 死手: no legal discard; skip it and lose 胡 for the hand (RULES §4.1, §3.1.8).
        self.dead[seat] = True
        self.skipped[seat] += 1
        self.events.append(DeadHand(seat))
        self._draw((seat + 1) % self.table.n)

    def _hu(self, seat: int, w: Window) -> None:
        b = w.wins[seat]
        source: Source = "self" if seat == w.from_seat else "other"
        if w.origin == "deal":
            pattern = w.deal_patterns.get(seat) if w.deal_patterns else None
            self.events.append(Won(seat, None, "deal", b, tuple(self.hand_faces(seat)), pattern))
            self._end(HandResult(seat, b, None, "self", pattern, "deal"))
            return
        hand = tuple(self.hand_faces(seat))
        self.events.append(Won(seat, w.card, source, b, hand, haidi=w.last))
        self._end(HandResult(seat, b, w.card, source, None, w.origin, w.last))

    def _end(self, result: HandResult) -> None:
        self.result = result
        self.phase = "over"
        self.window = None

    # ----------------------------------------------------------------- deal patterns

    def deal_window(self) -> Window:
        """The window before the first discard: who may declare a deal 名堂 (RULES §7.2,
        §7.4.2 item 9): each seat's single best one of ``score_deal``, the dealer's 天胡
        competing."""
        options: dict[int, list[Action]] = {}
        wins: dict[int, Breakdown] = {}
        patterns: dict[int, str] = {}
        if rule_flags(self.rules)[0]:
            # the dealer, his 下家, his 上家; with two seats the dealer, then the other (§2.5.7)
            for seat in self.table.ask[self.dealer]:
                b = score_deal(tuple(self.hands[seat]), rules=self.rules)
                if b.winning:
                    options[seat] = [HU, PASS]
                    wins[seat] = b
                    # 天胡 scores the dealt cards as groups; a deal 名堂 is its one pattern
                    patterns[seat] = "tianhu" if b.groups else b.patterns[0].key
        return Window(-1, "deal", self.dealer, False, options, {}, wins, patterns)

    def _open_deal_window(self) -> None:
        window = self.deal_window()
        if window.options:
            self.phase = "claim"
            self.window = window
        else:
            self._enter_discard(self.dealer)
