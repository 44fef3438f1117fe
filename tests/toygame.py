"""抢牌 (Grab), a toy game from outside the package: the protocol's smallest full example.

Two seats are dealt ``cards_each`` hidden cards of a 12-card deck (values 0..11, all distinct);
the rest is a face-down stock. Each round turns the stock's top card face up and opens a claim
window: both seats at once bid a card from hand (``bid 7``) or pass, neither seeing the other's
choice. The higher bid takes the turned card's value in points; bids are spent face up. The hand
ends when the stock is out; each seat's net is its points less the other's (zero-sum).

docs/new-game.md walks through it; tests/conformance runs it through the kit like the real games.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

import numpy as np
import numpy.typing as npt

from weimaque.errors import IllegalAction, InvalidNotation, RecordError, WeimaqueError, quoted
from weimaque.games.protocol import (
    BASE_COUNTERS,
    JSON,
    BotInfo,
    GameInfo,
    HandOutcome,
    Ledger,
    Names,
    ObservationLayout,
    ObservationPiece,
    OptionSchema,
    OptionSpec,
    TableShape,
    Variant,
    Viewer,
    base_counts,
)

DECK: Final = 12
PASS: Final = DECK  # action ids: bid card c = c, pass = 12


@dataclass(frozen=True, slots=True)
class Bid:
    """An action: bid ``card``, or pass (``card`` None)."""

    card: int | None

    @property
    def id(self) -> int:
        """Its id."""
        return PASS if self.card is None else self.card

    def __str__(self) -> str:
        return "pass" if self.card is None else f"bid {self.card}"

    @staticmethod
    def parse(text: str) -> Bid:
        """``bid 7`` or ``pass``."""
        words = text.split() if isinstance(text, str) else []
        if words == ["pass"]:
            return Bid(None)
        if len(words) == 2 and words[0] == "bid" and words[1].isdigit() and int(words[1]) < DECK:
            return Bid(int(words[1]))
        raise InvalidNotation(f"not a bid: {quoted(text)}")


@dataclass(frozen=True, slots=True)
class Dealt:
    """A seat's dealt cards; the other seat learns how many."""

    kind: ClassVar[str] = "dealt"
    seat: int
    cards: tuple[int, ...]

    def view(self, viewer: Viewer) -> dict[str, Any] | None:
        out: dict[str, Any] = {"type": self.kind, "seat": self.seat, "count": len(self.cards)}
        if viewer in (self.seat, "all"):
            out["cards"] = list(self.cards)
        return out


@dataclass(frozen=True, slots=True)
class Turned:
    """The stock's top card turned face up."""

    kind: ClassVar[str] = "turned"
    card: int

    def view(self, viewer: Viewer) -> dict[str, Any] | None:
        return {"type": self.kind, "card": self.card}


@dataclass(frozen=True, slots=True)
class Resolved:
    """Both bids shown; the winner (None: both passed) takes the turned card."""

    kind: ClassVar[str] = "resolved"
    bids: tuple[int | None, int | None]
    winner: int | None

    def view(self, viewer: Viewer) -> dict[str, Any] | None:
        return {"type": self.kind, "bids": list(self.bids), "winner": self.winner}


@dataclass(frozen=True, slots=True)
class ToyView:
    """What a viewer sees: its own hand (a seat), sizes, the turned card, spent cards, points."""

    viewer: Viewer
    hand: tuple[int, ...] | None
    sizes: tuple[int, int]
    turned: int | None
    spent: tuple[int, ...]
    points: tuple[int, int]
    stock_left: int
    to_act: bool
    legal: tuple[int, ...]
    hands: tuple[tuple[int, ...], ...] | None = None

    def to_json(self) -> JSON:
        """JSON form."""
        return {
            "viewer": self.viewer,
            "hand": None if self.hand is None else list(self.hand),
            "sizes": list(self.sizes),
            "turned": self.turned,
            "spent": list(self.spent),
            "points": list(self.points),
            "stock_left": self.stock_left,
            "to_act": self.to_act,
            "legal": [str(Bid(None if a == PASS else a)) for a in self.legal],
            "hands": None if self.hands is None else [list(h) for h in self.hands],
        }


@dataclass
class ToyHand:
    """One hand of 抢牌."""

    cards_each: int
    seed: int | None
    hands: list[list[int]]
    stock: list[int]
    dealer: int = 0
    points: list[int] = field(default_factory=lambda: [0, 0])
    spent: list[int] = field(default_factory=list)
    bids: dict[int, int] = field(default_factory=dict)
    turned: int | None = None
    log: list[Any] = field(default_factory=list)
    actions: list[tuple[int, int]] = field(default_factory=list)
    #: The stock as dealt, in order.
    dealt_stock: tuple[int, ...] = ()

    @staticmethod
    def deal_of(cards_each: int, seed: int, dealer: int = 0) -> ToyHand:
        """The deal is a function of (rules, seed)."""
        deck = list(range(DECK))
        random.Random(seed).shuffle(deck)
        n = cards_each
        hands = [sorted(deck[:n]), sorted(deck[n : 2 * n])]
        hand = ToyHand(n, seed, hands, deck[2 * n :], dealer, dealt_stock=tuple(deck[2 * n :]))
        hand.log = [Dealt(s, tuple(hands[s])) for s in (0, 1)]
        hand._turn(hand.log)
        return hand

    def _turn(self, events: list[Any]) -> None:
        self.turned = self.stock.pop(0) if self.stock else None
        if self.turned is not None:
            events.append(Turned(self.turned))

    def to_act(self) -> tuple[int, ...]:
        """Both seats not yet bid while a card is turned."""
        if self.turned is None:
            return ()
        return tuple(s for s in (0, 1) if s not in self.bids)

    def in_window(self) -> bool:
        """Every round is a window."""
        return self.turned is not None

    def settled(self, viewer: Viewer) -> bool:
        """Every round opens a window for both, so it tells nothing: always."""
        return True

    def opening_view(self, viewer: Viewer) -> ToyView:
        """The view."""
        return self.view(viewer)

    def legal_actions(self, seat: int) -> tuple[int, ...]:
        """Bid any card in hand, or pass."""
        if seat not in self.to_act():
            return ()
        return (*self.hands[seat], PASS)

    def verify(self, seat: int, action: int) -> None:
        """The rule a bid breaks."""
        if seat not in self.to_act():
            raise IllegalAction(f"seat {quoted(seat)} has nothing to decide")
        if action != PASS and action not in self.hands[seat]:
            raise IllegalAction(f"seat {seat} holds no card {quoted(action)}")

    def apply(self, seat: int, action: int) -> tuple[Any, ...]:
        """Bid; once both have, resolve and turn the next card."""
        self.verify(seat, action)
        self.actions.append((seat, action))
        self.bids[seat] = action
        events: list[Any] = []
        if len(self.bids) == 2:
            b = [None if self.bids[s] == PASS else self.bids[s] for s in (0, 1)]
            bids: tuple[int | None, int | None] = (b[0], b[1])
            winner = max((0, 1), key=lambda s: -1 if b[s] is None else b[s])
            won = None if bids[winner] is None else winner
            for s in (0, 1):
                card = bids[s]
                if card is not None:
                    self.hands[s].remove(card)
                    self.spent.append(card)
            if won is not None and self.turned is not None:
                self.points[won] += self.turned
            events.append(Resolved(bids, won))
            self.bids = {}
            self._turn(events)
        self.log += events
        return tuple(events)

    def events(self) -> tuple[Any, ...]:
        """Every event."""
        return tuple(self.log)

    def is_terminal(self) -> bool:
        """Whether the stock is out."""
        return self.turned is None

    def outcome(self) -> HandOutcome | None:
        """Points less the other's."""
        if not self.is_terminal():
            return None
        d = self.points[0] - self.points[1]
        winners = () if d == 0 else ((0,) if d > 0 else (1,))
        return HandOutcome((d, -d), winners, {"points": list(self.points)})

    def view(self, viewer: Viewer) -> ToyView:
        """The one place hidden cards are filtered."""
        seat = viewer if isinstance(viewer, int) else None
        return ToyView(
            viewer,
            None if seat is None else tuple(self.hands[seat]),
            (len(self.hands[0]), len(self.hands[1])),
            self.turned,
            tuple(self.spent),
            (self.points[0], self.points[1]),
            len(self.stock),
            seat in self.to_act(),
            () if seat is None else self.legal_actions(seat),
            tuple(tuple(h) for h in self.hands) if viewer == "all" else None,
        )

    def observation(self, seat: int) -> npt.NDArray[np.float32]:
        """The view as a flat array (:data:`LAYOUT`)."""
        out = np.zeros(LAYOUT.size, dtype=np.float32)
        parts = LAYOUT.split(out)
        parts["hand"][list(self.hands[seat])] = 1
        if self.turned is not None:
            parts["turned"][self.turned] = 1
        parts["spent"][list(self.spent)] = 1
        parts["sizes"][:] = [len(self.hands[seat]), len(self.hands[1 - seat])]
        parts["points"][:] = [self.points[seat], self.points[1 - seat]]
        parts["legal"][list(self.legal_actions(seat))] = 1
        return out

    def bot_view(self, seat: int) -> ToyView:
        """Bots read the seat's view."""
        return self.view(seat)

    def deal(self) -> JSON:
        """The deal as dealt."""
        return {"hands": [list(d.cards) for d in self.log[:2]], "stock": list(self.dealt_stock)}

    def record(self) -> JSON:
        """Variant options, seed and actions."""
        return {
            "game": "toy",
            "cards_each": self.cards_each,
            "seed": self.seed,
            "dealer": self.dealer,
            "actions": [[s, str(Bid(None if a == PASS else a))] for s, a in self.actions],
        }

    def clone(self) -> ToyHand:
        """An independent copy."""
        return ToyHand(
            self.cards_each,
            self.seed,
            [list(h) for h in self.hands],
            list(self.stock),
            self.dealer,
            list(self.points),
            list(self.spent),
            dict(self.bids),
            self.turned,
            list(self.log),
            list(self.actions),
            self.dealt_stock,
        )

    def resample(self, seat: int, rng: random.Random) -> ToyHand:
        """The other hand and the stock dealt again from the cards ``seat`` cannot see."""
        other = self.clone()
        # A bid the other seat made stays in its hand: it decided on a card it holds.
        kept = [b for s, b in self.bids.items() if s != seat and b != PASS]
        pool = [c for c in other.hands[1 - seat] if c not in kept] + other.stock
        rng.shuffle(pool)
        n = len(other.hands[1 - seat]) - len(kept)
        other.hands[1 - seat] = sorted(kept + pool[:n])
        other.stock = pool[n:]
        return other


@dataclass
class ToyMatch:
    """``hands`` hands, each seed drawn from the match seed."""

    cards_each: int
    hands: int
    seed: int
    played: int = 0
    scores: list[int] = field(default_factory=lambda: [0, 0])
    current: ToyHand | None = None

    def is_over(self) -> bool:
        """Whether every hand was played."""
        return self.played >= self.hands

    def next_hand(self) -> ToyHand:
        """Deal the next hand."""
        seed = random.Random(f"{self.seed}:{self.played}").getrandbits(32)
        self.current = ToyHand.deal_of(self.cards_each, seed, self.played % 2)
        return self.current

    def finish(self, hand: Any) -> tuple[int, ...]:
        """Book it."""
        outcome = hand.outcome() if hand is self.current else None
        if outcome is None:
            raise IllegalAction("finish() takes the current hand, once it is over")
        for s in (0, 1):
            self.scores[s] += outcome.net[s]
        self.played += 1
        self.current = None
        return outcome.net

    def ledger(self) -> Ledger:
        """Both seats' points."""
        return Ledger((self.scores[0], self.scores[1]))


LAYOUT: Final = ObservationLayout(
    (
        ObservationPiece("hand", (DECK,)),
        ObservationPiece("turned", (DECK,)),
        ObservationPiece("spent", (DECK,)),
        ObservationPiece("sizes", (2,)),
        ObservationPiece("points", (2,)),
        ObservationPiece("legal", (DECK + 1,)),
    )
)
SCHEMA: Final = OptionSchema(
    (
        OptionSpec("cards_each", "int", 3, Names("每家张数", "cards each"), 1, 5),
        OptionSpec("hands", "int", 2, Names("局数", "hands in a match"), 1, 100),
    ),
    (
        Variant(
            "grab",
            Names("抢牌", "Grab"),
            TableShape(2, (3, 3), 6, DECK),
            ("toy",),
            description="Three of the twelve cards each; each round turns the stock's top card, "
            "both seats bid a card or pass at once and the higher bid takes its value.",
            description_zh="12 张牌，每家 3 张；每轮翻开牌堆顶的一张，两家同时出一张牌竞价或不出，"
            "出得大的得这张牌的分。",
        ),
        Variant(
            "grab-4",
            Names("抢牌四张", "Grab, four cards"),
            TableShape(2, (4, 4), 4, DECK),
            (),
            {"cards_each": 4},
            "Four cards each, four turned cards to bid for.",
            "每家 4 张，翻四张牌竞价。",
        ),
    ),
)


@dataclass(frozen=True, slots=True)
class ToyBot:
    """``random``: any legal action; ``high``: the playout policy, from the seat's view."""

    name: str

    def act(self, view: Any, rng: random.Random) -> int:
        """An action id of ``view.viewer``."""
        if self.name == "random":
            return int(rng.choice(view.legal))
        if view.turned is not None and view.turned >= 6 and view.hand:
            return int(max(view.hand))
        return PASS


BOTS: Final = (
    BotInfo("high", Names("高价", "high"), Names("好牌出最大", "bids its highest on a good card")),
    BotInfo("random", Names("随机", "random"), Names("随机", "a random bid")),
)


class Toy:
    """The game object."""

    info: Final = GameInfo(
        "toy", Names("抢牌", "Grab"), ("grab",), capabilities=frozenset({"resample", "playout"})
    )
    schema: Final = SCHEMA
    layout: Final = LAYOUT
    num_actions: Final = DECK + 1
    counters: Final = BASE_COUNTERS
    bots: Final = BOTS

    def bot(self, spec: str, variant: str, options: Mapping[str, object] | None = None) -> ToyBot:
        """A bot by name."""
        self._options(variant, options)
        if spec not in ("high", "random"):
            raise WeimaqueError(f"unknown toy bot {quoted(spec)}; known: high, random")
        return ToyBot(spec)

    def _options(self, variant: str, options: Mapping[str, object] | None) -> dict[str, Any]:
        v = self.schema.variant(variant)
        out: dict[str, Any] = {o.key: o.default for o in self.schema.options}
        out.update(v.options)
        out.update(self.schema.validate(options or {}))
        return out

    def shape(self, variant: str, options: Mapping[str, object] | None = None) -> TableShape:
        """Two seats, ``cards_each`` each, the rest in the stock."""
        n = self._options(variant, options)["cards_each"]
        return TableShape(2, (n, n), DECK - 2 * n, DECK)

    def new_hand(
        self,
        variant: str,
        options: Mapping[str, object] | None = None,
        seed: int = 0,
        dealer: int = 0,
    ) -> ToyHand:
        """Deal."""
        return ToyHand.deal_of(self._options(variant, options)["cards_each"], seed, dealer)

    def new_match(
        self, variant: str, options: Mapping[str, object] | None = None, seed: int = 0
    ) -> ToyMatch:
        """A match."""
        opts = self._options(variant, options)
        return ToyMatch(opts["cards_each"], opts["hands"], seed)

    def replay(self, record: object) -> ToyHand:
        """Replay a record."""
        if not isinstance(record, dict) or record.get("game") != "toy":
            raise RecordError(f"not a toy record: {quoted(record)}")
        hand = ToyHand.deal_of(record["cards_each"], record["seed"], record["dealer"])
        for seat, text in record["actions"]:
            hand.apply(seat, Bid.parse(text).id)
        return hand

    def action(self, action_id: int) -> Bid:
        """The action with this id."""
        if type(action_id) is not int or not 0 <= action_id <= PASS:
            raise InvalidNotation(f"not an action id: {quoted(action_id)}")
        return Bid(None if action_id == PASS else action_id)

    def parse_action(self, text: str) -> Bid:
        """Parse a bid."""
        return Bid.parse(text)

    def answered(self, view: Any, action: int) -> ToyView:
        """Never needed: every viewer is settled."""
        return view  # type: ignore[no-any-return]

    def playout(self, hand: Any, seat: int, rng: random.Random) -> int:
        """Bid the highest card on a card worth 6 or more, else pass."""
        view = hand.view(seat)
        if view.turned is not None and view.turned >= 6 and view.hand:
            return int(max(view.hand))
        return PASS

    def counts(self, outcome: HandOutcome) -> tuple[dict[str, int], ...]:
        """Hands, wins, points."""
        return tuple(base_counts(outcome, 2))


GAME: Final = Toy()
