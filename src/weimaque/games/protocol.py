"""The game protocol: what the platform knows of a hosted game (docs/new-game.md).

A game is one :class:`Game` object handed to the registry (:mod:`weimaque.games.registry`), as a
boardgame.io ``Game`` is handed to its server. The platform reads its declared data: its
:class:`GameInfo` (id and names), its :class:`OptionSchema` (rule options and presets, which a
server validates a dict of options against and a page renders from JSON), one :class:`Variant`
per preset with its :class:`TableShape`, the :class:`Counter` s a player's 战绩 keeps, the
:class:`ObservationLayout` of its flat array (named pieces with shapes, as OpenSpiel's observer).
Play goes through a :class:`Hand` (who must decide now, legal actions as small ints, ``verify`` /
``apply`` returning frozen events, the per-viewer :class:`View`), a :class:`MatchPlay` for the
ledger across hands, and the record hooks (``record`` / ``replay``, the deal as a function of
(rules, seed)). Nothing here knows a card, a tile or a seat count: those are a game's data.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from weimaque.errors import RuleConfigError, WeimaqueError, quoted

#: Who looks: a seat (0-based), a spectator (``"public"``), or an all-seeing finished record.
Viewer = int | Literal["public", "all"]
#: A JSON document at the boundary.
JSON = dict[str, Any]
OptionType = Literal["bool", "int", "choice", "keys"]
OptionValue = bool | int | str | tuple[str, ...]


class UnknownGame(WeimaqueError):
    """A game id or alias the registry does not know (it quotes the name)."""


@dataclass(frozen=True, slots=True)
class Names:
    """A name in both languages of the platform."""

    zh: str
    en: str

    def to_json(self) -> JSON:
        """JSON form."""
        return {"zh": self.zh, "en": self.en}


@dataclass(frozen=True, slots=True)
class GameInfo:
    """A game's identity (OpenSpiel's ``GameType``): id, aliases, names, what it is."""

    id: str
    names: Names
    aliases: tuple[str, ...] = ()
    #: Whether every hand's points sum to zero over the seats (and the ledger's other accounts).
    zero_sum: bool = True
    #: Optional capabilities, by name: ``"resample"`` (:class:`Resampling`, on its hands),
    #: ``"playout"`` (:class:`Playout`, on the game), ``"calculate"`` (:class:`Calculator`, on
    #: the game), ``"table"`` (:class:`TableExtras`, on the game), ``"tidy"``
    #: (:class:`Tidier`, on the game), ``"presets"`` (:class:`PresetList`, on the game),
    #: ``"verify"`` (:class:`RecordChecker`, on the game), ``"rotation"`` (:class:`Rotation`, on
    #: the matches of a table whose shape has ``persons``), ``"replay"`` (:class:`Replaying`, on
    #: the game), ``"review"`` (:class:`Reviewing`, on the game), ``"invariants"``
    #: (:class:`Invariants`, on the game) and ``"terminal"`` (:class:`TerminalFrontEnd`, on the
    #: game).
    capabilities: frozenset[str] = frozenset()

    def to_json(self) -> JSON:
        """JSON form."""
        return {
            "id": self.id,
            "names": self.names.to_json(),
            "aliases": list(self.aliases),
            "zero_sum": self.zero_sum,
            "capabilities": sorted(self.capabilities),
        }


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One rule option: its key, type, bounds or choices, default and label.

    ``bool`` takes true/false, ``int`` an integer in ``low..high``, ``choice`` one of
    ``choices``, ``keys`` a list of distinct names out of ``choices`` (e.g. 名堂 to enable).
    ``choice_names``, where given, names each choice in both languages (a form shows them, not
    the values).
    """

    key: str
    type: OptionType
    default: OptionValue
    label: Names
    low: int | None = None
    high: int | None = None
    choices: tuple[str | int, ...] = ()
    choice_names: tuple[Names, ...] = ()

    def __post_init__(self) -> None:
        if self.choice_names and len(self.choice_names) != len(self.choices):
            raise ValueError(
                f"option {self.key!r}: {len(self.choice_names)} choice names"
                f" for {len(self.choices)} choices"
            )

    def check(self, value: object) -> OptionValue:
        """The value if it fits this option; else ``RuleConfigError`` quoting key and value."""
        bad = RuleConfigError(f"option {self.key!r} {self.describe()}, not {quoted(value)}")
        if self.type == "bool":
            if not isinstance(value, bool):
                raise bad
            return value
        if self.type == "int":
            if isinstance(value, bool) or not isinstance(value, int):
                raise bad
            if self.low is not None and value < self.low:
                raise bad
            if self.high is not None and value > self.high:
                raise bad
            return value
        if self.type == "choice":
            if isinstance(value, bool) or value not in self.choices:
                raise bad
            assert isinstance(value, (int, str))
            return value
        if (
            not isinstance(value, (list, tuple))
            or len(value) > len(self.choices)
            or not all(isinstance(v, str) and v in self.choices for v in value)
            or len(set(value)) != len(value)
        ):
            raise bad
        return tuple(value)

    def describe(self) -> str:
        """What the option takes, in words (the error messages')."""
        if self.type == "bool":
            return "takes true or false"
        if self.type == "int":
            return f"takes an integer {self.low}..{self.high}"
        if self.type == "choice":
            return f"must be one of {list(self.choices)}"
        return f"takes a list of distinct names out of {list(self.choices)[:8]}…"

    def to_json(self) -> JSON:
        """JSON form (what a page renders a form field from)."""
        out: JSON = {
            "key": self.key,
            "type": self.type,
            "default": list(self.default) if isinstance(self.default, tuple) else self.default,
            "label": self.label.to_json(),
        }
        if self.type == "int":
            out["low"], out["high"] = self.low, self.high
        if self.type in ("choice", "keys"):
            out["choices"] = list(self.choices)
            if self.choice_names:
                out["choice_names"] = [n.to_json() for n in self.choice_names]
        return out


@dataclass(frozen=True, slots=True)
class TableShape:
    """The shape of a table as data: seats, cards dealt per seat, the stock left to draw.

    ``deal[k]`` is what the seat ``k`` places after the dealer is dealt (``deal[0]``: the
    dealer's); ``stock`` the cards or tiles left after the deal; ``deck`` all of them.
    ``persons``: how many persons sit round the table when more of them take turns at the seats
    than a hand has seats (偎麻雀's four with a rotating 守醒); 0 where each person keeps a seat.
    Then the match has the ``"rotation"`` capability (:class:`Rotation`).
    """

    seats: int
    deal: tuple[int, ...]
    stock: int
    deck: int
    persons: int = 0

    def __post_init__(self) -> None:
        if (
            self.seats < 1
            or len(self.deal) != self.seats
            or sum(self.deal) + self.stock > self.deck
            or (self.persons and self.persons <= self.seats)
        ):
            raise ValueError(f"not a table shape: {self!r}")

    @property
    def people(self) -> int:
        """The persons at the table: ``persons``, or one per seat."""
        return self.persons or self.seats

    def to_json(self) -> JSON:
        """JSON form (``persons`` only where it is not one per seat)."""
        out: JSON = {
            "seats": self.seats,
            "deal": list(self.deal),
            "stock": self.stock,
            "deck": self.deck,
        }
        if self.persons:
            out["persons"] = self.persons
        return out


@dataclass(frozen=True, slots=True)
class Variant:
    """A preset: its id, aliases, names, the options it sets, its table's shape and its
    description in English (``description``) and in Chinese (``description_zh``)."""

    id: str
    names: Names
    shape: TableShape
    aliases: tuple[str, ...] = ()
    options: Mapping[str, OptionValue] = field(default_factory=lambda: MappingProxyType({}))
    description: str = ""
    description_zh: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "options", MappingProxyType(dict(self.options)))

    def to_json(self) -> JSON:
        """JSON form."""
        return {
            "id": self.id,
            "names": self.names.to_json(),
            "aliases": list(self.aliases),
            "shape": self.shape.to_json(),
            "options": {k: list(v) if isinstance(v, tuple) else v for k, v in self.options.items()},
            "description": self.description,
            "description_zh": self.description_zh,
        }


@dataclass(frozen=True, slots=True)
class OptionSchema:
    """Every rule option of a game, and its presets (as :class:`Variant` s)."""

    options: tuple[OptionSpec, ...]
    variants: tuple[Variant, ...]

    def spec(self, key: str) -> OptionSpec:
        """The option with this key; ``RuleConfigError`` quoting an unknown one."""
        for spec in self.options:
            if spec.key == key:
                return spec
        raise RuleConfigError(f"unknown rule option {quoted(key)}")

    def variant(self, name: str) -> Variant:
        """A preset by id or alias (case-insensitive); ``RuleConfigError`` quoting the name."""
        if isinstance(name, str):
            low = name.lower()
            for v in self.variants:
                if low == v.id.lower() or low in (a.lower() for a in v.aliases):
                    return v
        known = ", ".join(v.id for v in self.variants)
        raise RuleConfigError(f"unknown preset {quoted(name)} (known: {known})")

    def validate(self, raw: object) -> dict[str, OptionValue]:
        """Check a dict of options (key → value) against the schema; quote what is wrong."""
        if not isinstance(raw, Mapping):
            raise RuleConfigError(f"options are an object of key → value, not {quoted(raw)}")
        out: dict[str, OptionValue] = {}
        for key, value in raw.items():
            if not isinstance(key, str):
                raise RuleConfigError(f"unknown rule option {quoted(key)}")
            out[key] = self.spec(key).check(value)
        return out

    def to_json(self) -> JSON:
        """JSON form: the options and presets a page renders."""
        return {
            "options": [o.to_json() for o in self.options],
            "presets": [v.to_json() for v in self.variants],
        }


@dataclass(frozen=True, slots=True)
class ObservationPiece:
    """One named piece of the flat observation array, with its shape."""

    name: str
    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        """How many floats the piece takes."""
        n = 1
        for d in self.shape:
            n *= d
        return n


@dataclass(frozen=True, slots=True)
class ObservationLayout:
    """The flat float32 observation of a seat as named pieces, in order (OpenSpiel's observer)."""

    pieces: tuple[ObservationPiece, ...]

    @property
    def size(self) -> int:
        """The flat array's length: the sum of its pieces."""
        return sum(p.size for p in self.pieces)

    def offset(self, name: str) -> int:
        """Where the piece ``name`` starts in the flat array."""
        at = 0
        for p in self.pieces:
            if p.name == name:
                return at
            at += p.size
        raise KeyError(name)

    def split(self, array: npt.NDArray[np.float32]) -> dict[str, npt.NDArray[np.float32]]:
        """The flat array cut into its named pieces, each in its shape."""
        if array.shape != (self.size,):
            raise ValueError(f"an observation has shape ({self.size},), not {array.shape}")
        out: dict[str, npt.NDArray[np.float32]] = {}
        at = 0
        for p in self.pieces:
            out[p.name] = array[at : at + p.size].reshape(p.shape)
            at += p.size
        return out

    def to_json(self) -> JSON:
        """JSON form."""
        return {"size": self.size, "pieces": [[p.name, list(p.shape)] for p in self.pieces]}


@dataclass(frozen=True, slots=True)
class Counter:
    """A number a player's 战绩 and a club's leaderboard keep, summed over finished hands."""

    key: str
    label: Names

    def to_json(self) -> JSON:
        """JSON form."""
        return {"key": self.key, "label": self.label.to_json()}


@dataclass(frozen=True, slots=True)
class HandOutcome:
    """How a hand ended: each seat's points, the winners, and the game's own summary (JSON)."""

    net: tuple[int, ...]
    winners: tuple[int, ...]
    summary: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def to_json(self) -> JSON:
        """JSON form."""
        return {"net": list(self.net), "winners": list(self.winners), **dict(self.summary)}


@dataclass(frozen=True, slots=True)
class Ledger:
    """A match's accounts: each seat's points and the game's other accounts (a pool, a 守醒)."""

    seats: tuple[int, ...]
    others: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def total(self) -> int:
        """The sum of every account (zero for a zero-sum game)."""
        return sum(self.seats) + sum(self.others.values())

    def to_json(self) -> JSON:
        """JSON form."""
        return {"seats": list(self.seats), **dict(self.others)}


class GameAction(Protocol):
    """A typed action: a stable small-int ``id`` and a text form (``str``)."""

    @property
    def id(self) -> int:
        """Its stable integer id."""
        ...


class GameEvent(Protocol):
    """A frozen event record that renders itself for one viewer (None: it sees nothing)."""

    def view(self, viewer: Any) -> dict[str, Any] | None:
        """The event as a JSON object for ``viewer``, hidden parts left out."""
        ...


class View(Protocol):
    """What one viewer sees of a hand, typed; ``to_json`` is its form at the boundary."""

    def to_json(self) -> JSON:
        """The JSON document of this view."""
        ...


class Hand(Protocol):
    """One hand in progress (OpenSpiel's state, PokerKit's verify/apply)."""

    @property
    def seed(self) -> int | None:
        """The seed the deal came from (None for a stacked deal)."""
        ...

    @property
    def dealer(self) -> int:
        """The dealer's seat."""
        ...

    def to_act(self) -> tuple[int, ...]:
        """Every seat that must decide now: one, or several in a claim window; () at the end."""
        ...

    def in_window(self) -> bool:
        """Whether the seats to act decide at once, none seeing another's choice (a claim
        window)."""
        ...

    def settled(self, viewer: Viewer) -> bool:
        """The claim-window rule: whether ``viewer`` may be shown the position now. A viewer
        that is not is shown the last view it was shown, with its own answer since
        (:meth:`Game.answered`), until it is settled again."""
        ...

    def opening_view(self, viewer: Viewer) -> View:
        """What a viewer not settled at the deal is shown, before it was shown anything."""
        ...

    def legal_actions(self, seat: int) -> tuple[int, ...]:
        """The legal action ids of ``seat`` (empty when it need not decide), sorted."""
        ...

    def verify(self, seat: int, action: int) -> None:
        """Raise ``IllegalAction`` naming the rule if ``seat`` may not take ``action`` now."""
        ...

    def apply(self, seat: int, action: int) -> tuple[GameEvent, ...]:
        """Verify and take the action; the events it caused."""
        ...

    def events(self) -> tuple[GameEvent, ...]:
        """Every event of the hand so far, from the deal on."""
        ...

    def is_terminal(self) -> bool:
        """Whether the hand is over."""
        ...

    def outcome(self) -> HandOutcome | None:
        """The hand's result once it is over."""
        ...

    def view(self, viewer: Viewer) -> View:
        """The view of a seat, a spectator or an all-seeing record: the only place hidden
        information is filtered."""
        ...

    def observation(self, seat: int) -> npt.NDArray[np.float32]:
        """The seat's view as the flat float32 array of :attr:`Game.layout`."""
        ...

    def bot_view(self, seat: int) -> object:
        """What the game's bots read for ``seat`` (its view and legal actions only)."""
        ...

    def deal(self) -> JSON:
        """The deal as dealt (hands and stock order): a function of (rules, seed)."""
        ...

    def record(self) -> JSON:
        """The hand's JSON record: enough to replay it exactly."""
        ...

    def clone(self) -> Hand:
        """An independent copy."""
        ...


@dataclass(frozen=True, slots=True)
class BotInfo:
    """A bot a game offers by name (its spec is ``name`` or ``name:key=value,...``)."""

    name: str
    names: Names
    #: One line on how it plays, in both languages.
    about: Names
    #: A search bot whose hand takes seconds or more at its default budget: suites that play
    #: every bot through every preset (tests/conformance/test_bots.py) leave it to its own
    #: tests and bench.
    slow: bool = False

    def to_json(self) -> JSON:
        """JSON form."""
        return {"name": self.name, "names": self.names.to_json(), "about": self.about.to_json()}


class SeatBot(Protocol):
    """A player of one game at one seat: it reads only ``Hand.bot_view(seat)``, never the hand
    (a bot knows what its seat may see, and no transport)."""

    def act(self, view: Any, rng: random.Random) -> int:
        """A legal action id of the seat whose bot view ``view`` is."""
        ...


@runtime_checkable
class Resampling(Protocol):
    """The optional ``"resample"`` capability: a position consistent with a seat's view."""

    def resample(self, seat: int, rng: random.Random) -> Hand:
        """A copy with what ``seat`` cannot see dealt again at random (determinization)."""
        ...


@runtime_checkable
class Playout(Protocol):
    """The optional ``"playout"`` capability of a :class:`Game`: a quick policy of the game's
    own, reading only the seat's view, that reaches the game's ends (wins and what they settle)
    in simulations and in the conformance kit, where uniform random play seldom wins."""

    def playout(self, hand: Any, seat: int, rng: random.Random) -> int:
        """An action id for ``seat``, one of ``hand.legal_actions(seat)``."""
        ...


class BadRequest(WeimaqueError):
    """A request that is not of the form the game's service reads (:class:`Calculator`,
    :class:`Tidier`): not an object, an unknown field, a field of the wrong type (it quotes
    what is wrong). ``code`` names the fault for a client's translations (docs/protocol.md)."""

    def __init__(self, message: str, code: str = "bad_request") -> None:
        """A refusal with its code."""
        super().__init__(message)
        self.code = code


@runtime_checkable
class Calculator(Protocol):
    """The optional ``"calculate"`` capability of a :class:`Game`: its scorer as a service (the
    CLI's ``wmq score --game``, ``POST /api/score``, the 算息 page), JSON in, JSON out.

    A request says what is asked in the game's own terms (偎麻雀: ``{"hand", "rules",
    "source", "last"}``; 三丁拐: ``{"hand"}`` or ``{"table"}`` with ``rules`` and ``options``;
    docs/protocol.md §1 ``POST /api/score``); the answer is the explained result, JSON-able.
    Errors are ``WeimaqueError`` s quoting the input: :class:`BadRequest` for a request of the
    wrong form, ``RuleConfigError`` for a bad preset or option, ``InvalidNotation`` (and its
    kinds) for a description that does not parse."""

    def calculate(self, request: JSON) -> JSON:
        """The explained answer to ``request``."""
        ...


@runtime_checkable
class Replaying(Protocol):
    """The optional ``"replay"`` capability of a :class:`Game`: a finished hand's record as the
    steps a replay viewer shows (a game with :class:`TableExtras` has it there too)."""

    def steps(self, record: JSON) -> list[JSON]:
        """The steps of a finished hand's record: the deal, then each action (``action``: its
        text, ``seat``) with its ``events`` and the all-seeing ``observation`` (the view
        ``"all"``) after it; the last with the ``settlement``. A bad record is a
        ``RecordError`` quoting what is wrong."""
        ...


@runtime_checkable
class Reviewing(Protocol):
    """The optional ``"review"`` capability of a :class:`Game`: 复盘, each decision of one seat
    in a finished hand weighed by a search bot from what the seat could see then."""

    def review_spec(self, budget: int) -> str:
        """The reviewer a server runs, at its effort ``budget`` (its ``review_iters``; a game
        maps it to its own search's bound, so that a review stays within seconds)."""
        ...

    def review(self, record: JSON, seat: int, spec: str, hand: int | None = None) -> JSON:
        """The review of ``seat`` in a finished hand's record (or in each hand of a match record
        the game reads, or only its hand number ``hand``), by the bot ``spec`` (``""``: the
        game's own reviewer): ``{"seat", "bot", "decisions": [{"step", "taken", "best", "cost",
        "se", "mistake", "why", "value", …}], "summary": {…}}`` (the shape of 偎麻雀's,
        docs/bots.md; ``wmq review`` prints it as a table); a ``WeimaqueError`` quoting a bad
        seat, spec or record."""
        ...


@runtime_checkable
class TableExtras(Protocol):
    """The optional ``"table"`` capability of a :class:`Game`: what a server's table adds for
    this game beyond the seam's views and events (docs/protocol.md §2.2, docs/new-game.md).

    A rule object (:meth:`table_rules`) is built once per table and handed back to the other
    methods. Figures and hints are computed from one viewer's view only; the end of a hand from
    the finished hand and the match (every seat's cards are shown then); replay steps from a
    finished hand's record. A game without this capability is shown its views and events alone.
    """

    def table_rules(self, variant: str, options: Mapping[str, object] | None = None) -> object:
        """The game's rule object for a table of a preset with options."""
        ...

    def rules_info(self, rules: object) -> JSON:
        """The rules as a table shows and stores them: ``id``, ``name`` and ``overrides`` (the
        options that differ from the preset)."""
        ...

    def rule_options(self, rules: object) -> JSON:
        """Every rule option of ``rules`` with its value, as a bot is told them
        (docs/bot-protocol.md ``hello``)."""
        ...

    def extra_viewers(self, rules: object) -> tuple[str, ...]:
        """Viewers beyond the seats and ``"public"`` the rules seat (偎麻雀's ``"shouxing"``)."""
        ...

    def event_viewer(self, hand: Hand, viewer: str) -> object:
        """One of the :meth:`extra_viewers` as ``hand``'s events take it (``GameEvent.view``):
        the hand's views take the name itself, and an event may need what the hand knows
        (偎麻雀's 守醒 who may see the dealer's hand only, RULES §2.1.2, names this hand's
        dealer)."""
        ...

    def figures(self, view: View, rules: object) -> JSON | None:
        """Numbers shown beside ``view`` (None: none)."""
        ...

    def hint_cache(self) -> object:
        """A cache a table keeps for :meth:`hints` (positions are asked about many times)."""
        ...

    def hints(self, view: View, rules: object, cache: object) -> JSON | None:
        """Hints for a seat's ``view`` (None: none for this viewer)."""
        ...

    def public_action(self, action: int) -> bool:
        """Whether every viewer is told who took ``action`` at once (a discard lies in the
        middle for all to see), and its taker is shown its view as answered."""
        ...

    def hand_end(self, hand: Hand, play: MatchPlay) -> JSON:
        """What the end of a finished, booked hand shows: its result, every seat's cards, the
        settlement and what the match's accounts hold beyond :class:`Ledger`."""
        ...

    def booked(self, play: MatchPlay) -> JSON:
        """The record of the hand the match booked last, with its settlement, as the match
        keeps it (a table adds its fairness block and 回放码 to this very object). Without the
        capability a table records ``Hand.record()`` with ``{"settlement": {"seats": …}}``."""
        ...

    def match_summary(self, play: MatchPlay) -> JSON:
        """What a match's end and its record show beyond its ledger: ``final_pool_share`` (a
        pool shared out at the end), the match record's ``version``, and optionally
        ``ledger``, the record's own form of the ledger (where it differs from
        ``Ledger.to_json``)."""
        ...

    def rebook(self, play: MatchPlay, record: JSON) -> tuple[Hand, tuple[int, ...]]:
        """Book a stored finished hand into the match as its next (a table restored from its
        store): the hand replayed from its record, and each seat's change. Without the
        capability a table deals the match's next hand and takes the record's actions."""
        ...

    def end_early(self, play: MatchPlay) -> None:
        """End the match now, settled as it stands (a table's 解散); the hand in progress, if
        any, is dropped."""
        ...

    def steps(self, record: JSON) -> list[JSON]:
        """A finished hand's record as steps for replay: each action with its events, the
        all-seeing view after it and its figures; the last with the result's breakdown and
        the settlement."""
        ...

    def check_bot(self, spec: object) -> str:
        """A bot spec from an untrusted source (a room's creator), checked against what a
        server runs: a bot of :attr:`Game.bots`, its parameters within bounds (``WeimaqueError``
        quoting what is wrong). A game without this capability is checked by ``Game.bot``."""
        ...


@runtime_checkable
class Invariants(Protocol):
    """The optional ``"invariants"`` capability of a :class:`Game`: the game's own checks of a
    hand in progress (cards conserved, hidden sets consistent …), which ``wmq simulate
    --check`` runs after every action beside the seam's own (legal actions for whoever must
    act, the outcome summing as declared)."""

    def invariants(self, hand: Any) -> list[str]:
        """What does not hold of ``hand`` now, in words (empty: all holds); at the end of the
        hand, the end's checks too."""
        ...


@dataclass(frozen=True, slots=True)
class Shown:
    """A game's JSON answer as its terminal front end shows it: what a rich console prints,
    what ``--json`` prints, and the command's exit status."""

    renderable: Any
    json: JSON
    exit: int = 0


@dataclass(frozen=True, slots=True)
class PlayRequest:
    """A match at the terminal (``wmq play``): a person at seat 0, the game's bots at the
    others. ``bots`` is the ``--bots`` text as typed (None: the game's default line-up),
    ``hands`` the hands to play (None: the match's own), ``save`` a path for the record."""

    variant: str | None = None
    options: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    bots: str | None = None
    hands: int | None = None
    seed: int = 0
    save: str | None = None
    auto_pass: bool = False


class ArenaRun(Protocol):
    """The platform's arena lent to a game's front end (``wmq train`` weighs each checkpoint
    with it, docs/bots.md): the first bot of ``bots`` over duplicate deals of ``hands`` hands,
    as ``{"hands", "points_per_hand", "ci95", "win_rate"}``."""

    def __call__(
        self,
        bots: tuple[str, ...],
        hands: int,
        seed: int,
        workers: int,
        backend: str,
        address: str | None,
    ) -> JSON:
        """Play the arena and answer the first bot's figures."""
        ...


class Terminal(Protocol):
    """A game's own terminal front end (docs/architecture.md, "The CLI"): its board, its
    renderers and the commands only it has, built on rich and typer in the game's package. The
    CLI owns the command names and their options and hands them over."""

    def calculation(self, answer: JSON, lang: str) -> Shown:
        """The calculator's answer (:class:`Calculator`) as ``wmq score`` shows it."""
        ...

    def play(self, console: Any, ask: Any, request: PlayRequest) -> None:
        """Play a match at the terminal: ``console`` a rich ``Console``, ``ask`` a function
        ``prompt -> line`` (``EOFError`` ends the game). A bad preset, option or bot is a
        ``WeimaqueError`` quoting it, raised before anything is played."""
        ...

    def replay(self, console: Any, ask: Any, record: object, hand: int | None, seat: str) -> None:
        """Step through a record of this game as ``seat`` sees it (``ask`` None: no stepping):
        the whole record replayed first, a bad one a ``WeimaqueError``."""
        ...

    def commands(self, arena: ArenaRun) -> tuple[tuple[str, Any], ...]:
        """The commands only this game has, by name: a typer command function or a
        ``typer.Typer`` group, which the CLI adds at its top level."""
        ...


@runtime_checkable
class TerminalFrontEnd(Protocol):
    """The optional ``"terminal"`` capability of a :class:`Game`: its own terminal front end,
    loaded when the CLI first asks (the engine imports no rich or typer). A game without it is
    played and shown by the CLI's generic forms: views' JSON, actions' text forms."""

    def terminal(self) -> Terminal:
        """The front end."""
        ...


@runtime_checkable
class RecordChecker(Protocol):
    """The optional ``"verify"`` capability of a :class:`Game`: its hand and match records
    checked whole (``wmq verify``, docs/fairness.md). A game without it has each hand record
    checked through :meth:`Game.replay` (:func:`weimaque.games.fairness.verify_hand_record`)."""

    def verify_record(self, doc: object, require_commitments: bool = True) -> Any:
        """What the check covered (``weimaque.games.fairness.Verified``); ``VerifyError`` with
        the first thing that does not hold, ``RecordError`` for a document that is no record."""
        ...


@runtime_checkable
class Tidier(Protocol):
    """The optional ``"tidy"`` capability of a :class:`Game`: 理牌, a hand grouped for the
    page's 自动理牌 (``POST /api/tidy``, docs/protocol.md), JSON in, JSON out."""

    def tidy(self, request: JSON) -> JSON:
        """The hand of ``request`` grouped; :class:`BadRequest` with its ``code`` for a
        request the game cannot read."""
        ...


@runtime_checkable
class PresetList(Protocol):
    """The optional ``"presets"`` capability of a :class:`Game`: its presets in the form the
    page's own rule form for this game reads (``GET /api/presets``, docs/protocol.md §1)."""

    def presets(self, room_options: tuple[str, ...]) -> JSON:
        """The default preset, every preset, the types of ``room_options`` (those a room may
        set), names to label them by, and the bots a room may seat."""
        ...


class MatchPlay(Protocol):
    """Hands in sequence and the ledger across them. Its :class:`Ledger` has one entry per
    person (``TableShape.people``): per seat, unless persons take turns at the seats."""

    def is_over(self) -> bool:
        """Whether every hand of the match has been played."""
        ...

    def next_hand(self) -> Hand:
        """Deal the next hand (its seed drawn from the match seed)."""
        ...

    def finish(self, hand: Hand) -> tuple[int, ...]:
        """Book the finished current hand; each seat's change of the ledger."""
        ...

    def ledger(self) -> Ledger:
        """The accounts so far."""
        ...


@runtime_checkable
class Rotation(Protocol):
    """The optional ``"rotation"`` capability of a :class:`MatchPlay` whose table seats more
    persons than a hand has seats (``TableShape.persons``; 偎麻雀's four persons with a
    rotating 守醒, RULES §2.1.1): who plays each seat of a hand follows from the match. The
    persons are numbered ``0 .. persons - 1``; the match's :class:`Ledger` is theirs."""

    def seat_persons(self) -> tuple[int, ...]:
        """The person at each seat of the hand in progress, or of the next one between hands
        (``seat_persons()[seat]``); a person not named sits that hand out."""
        ...


def sitting_out(play: Rotation, persons: int) -> tuple[int, ...]:
    """The persons who sit out the hand in progress (or the next), of ``persons``."""
    playing = set(play.seat_persons())
    return tuple(p for p in range(persons) if p not in playing)


class Game(Protocol):
    """Everything the platform knows of one game."""

    @property
    def info(self) -> GameInfo:
        """Id, names, zero-sum, capabilities."""
        ...

    @property
    def schema(self) -> OptionSchema:
        """The rule options and the presets (variants)."""
        ...

    @property
    def layout(self) -> ObservationLayout:
        """The observation array's named pieces."""
        ...

    @property
    def num_actions(self) -> int:
        """Action ids run ``0..num_actions - 1``."""
        ...

    @property
    def counters(self) -> tuple[Counter, ...]:
        """The numbers a 战绩 keeps per seat, in order."""
        ...

    @property
    def bots(self) -> tuple[BotInfo, ...]:
        """The bots the game offers; the first is the one a table seats by default, and every
        game offers ``"random"``."""
        ...

    def bot(self, spec: str, variant: str, options: Mapping[str, object] | None = None) -> SeatBot:
        """A bot by spec (``name`` or ``name:key=value,...``) for a table of a preset with
        options (the rules are public, as at a real table); a ``WeimaqueError`` quoting an
        unknown name or a bad parameter."""
        ...

    def shape(self, variant: str, options: Mapping[str, object] | None = None) -> TableShape:
        """The table's shape under a preset with options (validated)."""
        ...

    def new_hand(
        self,
        variant: str,
        options: Mapping[str, object] | None = None,
        seed: int = 0,
        dealer: int = 0,
    ) -> Hand:
        """Deal a hand of a preset with options; the deal follows from (rules, seed)."""
        ...

    def new_match(
        self, variant: str, options: Mapping[str, object] | None = None, seed: int = 0
    ) -> MatchPlay:
        """A match of a preset with options."""
        ...

    def replay(self, record: object) -> Hand:
        """Replay a hand record; ``RecordError`` quoting what is wrong with it."""
        ...

    def action(self, action_id: int) -> GameAction:
        """The typed action with this id (``str()`` of it is its text form)."""
        ...

    def parse_action(self, text: str) -> GameAction:
        """Parse an action's text form; ``InvalidNotation`` quoting it."""
        ...

    def answered(self, view: View, action: int) -> View:
        """A seat's view once it answered the decision ``view`` shows (the claim-window rule)."""
        ...

    def counts(self, outcome: HandOutcome) -> tuple[dict[str, int], ...]:
        """Each seat's values of :attr:`counters` for one finished hand."""
        ...


#: The counters every game keeps; a game adds its own after them.
BASE_COUNTERS: Final = (
    Counter("hands", Names("局数", "hands")),
    Counter("wins", Names("胡牌", "wins")),
    Counter("points", Names("得分", "points")),
)


def base_counts(outcome: HandOutcome, seats: int) -> list[dict[str, int]]:
    """Each seat's :data:`BASE_COUNTERS` for one finished hand."""
    return [
        {"hands": 1, "wins": int(s in outcome.winners), "points": outcome.net[s]}
        for s in range(seats)
    ]


def legal_mask(game: Game, hand: Hand, seat: int) -> npt.NDArray[np.bool_]:
    """The seat's legal actions as a boolean mask over ``0..game.num_actions - 1`` (pgx's
    ``legal_action_mask``)."""
    mask = np.zeros(game.num_actions, dtype=np.bool_)
    mask[list(hand.legal_actions(seat))] = True
    return mask
