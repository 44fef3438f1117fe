"""A seat's event history as the bots read it: frozen records parsed once from the engine's
rendering of each event for that seat (``Event.view(seat)``, docs/bot-protocol.md), so that a
card the seat may not see is None here as it is absent there (RULES §4.3: another seat's face-down
偎 and the draw it came from).

:class:`~weimaque.games.maque.bots.base.BotView` parses its events with :func:`parse_history`
where the view is built; the bots match on the record types, never on the JSON.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Final

from weimaque.errors import WeimaqueError
from weimaque.games.maque.cards import FACE_CHARS
from weimaque.games.maque.notation import parse_cards

#: A face by the character ``Event.view`` writes for it (``faces_str``).
_FACE: Final = {ch: f for f, ch in enumerate(FACE_CHARS)}


@dataclass(frozen=True, slots=True)
class Seen:
    """One event of the hand as the seat saw it; ``seat`` is the acting seat."""

    kind: ClassVar[str] = "event"
    seat: int


@dataclass(frozen=True, slots=True)
class Deal(Seen):
    """A seat's dealt hand (RULES §2.2): its cards only for the seat's own."""

    kind: ClassVar[str] = "dealt"
    dealer: int
    count: int
    cards: tuple[int, ...] | None


@dataclass(frozen=True, slots=True)
class Draw(Seen):
    """A card turned up from the stock (RULES §3 DRAW); None: drawn into another seat's face-down
    偎 (RULES §4.3)."""

    kind: ClassVar[str] = "drew"
    card: int | None
    stock_left: int


@dataclass(frozen=True, slots=True)
class Wei(Seen):
    """A mandatory 偎 (RULES §4.3); its face None where the seat may not see it."""

    kind: ClassVar[str] = "wei"
    card: int | None


@dataclass(frozen=True, slots=True)
class Discard(Seen):
    """出 (RULES §4.1)."""

    kind: ClassVar[str] = "discard"
    card: int


@dataclass(frozen=True, slots=True)
class Release(Seen):
    """A drawn card nobody claimed, to the drawer's row (RULES §3.1.3)."""

    kind: ClassVar[str] = "release"
    card: int


@dataclass(frozen=True, slots=True)
class Peng(Seen):
    """碰 of ``card`` from ``from_seat`` (RULES §4.5)."""

    kind: ClassVar[str] = "peng"
    card: int
    from_seat: int


@dataclass(frozen=True, slots=True)
class Chi(Seen):
    """吃 of ``card`` from ``from_seat`` into the run starting at ``run`` (RULES §4.6)."""

    kind: ClassVar[str] = "chi"
    card: int
    run: int
    from_seat: int

    @property
    def faces(self) -> tuple[int, int, int]:
        """The run's three faces."""
        return (self.run, self.run + 1, self.run + 2)


@dataclass(frozen=True, slots=True)
class Dead(Seen):
    """死手 (RULES §4.1): the seat's discard skipped."""

    kind: ClassVar[str] = "dead"


@dataclass(frozen=True, slots=True)
class DeclinedHu(Seen):
    """The seat itself declined a 胡 on ``card`` (RULES §3.1.5; only it learns of it)."""

    kind: ClassVar[str] = "declined_hu"
    card: int


@dataclass(frozen=True, slots=True)
class Win(Seen):
    """胡 (RULES §4.7): the hand is over; ``card`` None for a 胡 on the dealt cards."""

    kind: ClassVar[str] = "hu"
    card: int | None


@dataclass(frozen=True, slots=True)
class Chou(Seen):
    """臭 (RULES §8.1): the stock ran out."""

    kind: ClassVar[str] = "chou"


def _card(text: str) -> int:
    face = _FACE.get(text)
    return parse_cards(text)[0] if face is None else face


def _maybe(event: Mapping[str, Any]) -> int | None:
    text = event.get("card")
    return None if text is None else _card(text)


def parse_event(event: Mapping[str, Any]) -> Seen:
    """One record from an event's JSON view; a :class:`WeimaqueError` naming an unknown type."""
    kind = event["type"]
    seat: int = event["seat"]
    if kind == "discard":
        return Discard(seat, _card(event["card"]))
    if kind == "drew":
        return Draw(seat, _maybe(event), event["stock_left"])
    if kind == "release":
        return Release(seat, _card(event["card"]))
    if kind == "peng":
        return Peng(seat, _card(event["card"]), event["from"])
    if kind == "chi":
        return Chi(seat, _card(event["card"]), parse_cards(event["run"])[0], event["from"])
    if kind == "wei":
        return Wei(seat, _maybe(event))
    if kind == "dealt":
        cards = event.get("cards")
        faces = None if cards is None else tuple(parse_cards(cards))
        return Deal(seat, event["dealer"], event["count"], faces)
    if kind == "dead":
        return Dead(seat)
    if kind == "declined_hu":
        return DeclinedHu(seat, _card(event["card"]))
    if kind == "hu":
        return Win(seat, _maybe(event))
    if kind == "chou":
        return Chou(seat)
    raise WeimaqueError(f"unknown event type {kind!r}")


def parse_history(events: Iterable[Mapping[str, Any]]) -> tuple[Seen, ...]:
    """The records of a seat's events, in order."""
    return tuple(parse_event(e) for e in events)
