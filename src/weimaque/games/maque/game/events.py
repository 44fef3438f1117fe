"""Frozen event records: the one source for logs, screens, network messages and replays.

``event.view(viewer)`` renders an event for one viewer with hidden information removed: a seat
(0..2) sees its own cards, ``"public"`` (a spectator) sees what lies face up, ``"shouxing"`` (守醒,
RULES §2.1) also sees the three hands, a :class:`ShouxingOf` (the 守醒 who may see some seats'
hands only, ``shouxing_sees``, RULES §2.1.2) those seats' hands, and ``"all"`` (a finished record)
sees everything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from weimaque.games.maque.cards import faces_str
from weimaque.games.maque.scoring.breakdown import Breakdown


@dataclass(frozen=True, slots=True)
class ShouxingOf:
    """The 守醒 who may see the concealed cards of ``seats`` only (RULES §2.1.2: with
    ``shouxing_sees = "dealer"``, the dealer's): he plays no cards, and his view's JSON names
    him ``"shouxing"`` as the 守醒 who sees the three hands is named."""

    seats: tuple[int, ...]


Viewer = int | Literal["public", "shouxing", "all"] | ShouxingOf


def sees_hand(viewer: Viewer, seat: int) -> bool:
    """Whether a viewer may see the concealed cards of ``seat``."""
    if viewer == seat or viewer == "all" or viewer == "shouxing":
        return True
    return isinstance(viewer, ShouxingOf) and seat in viewer.seats


@dataclass(frozen=True, slots=True)
class Event:
    """Base of all events; ``seat`` is the acting seat."""

    kind: ClassVar[str] = "event"
    seat: int

    def view(self, viewer: Viewer) -> dict[str, Any] | None:
        """This event as a dict for one viewer, hidden parts left out; None if it sees none."""
        return {"type": self.kind, "seat": self.seat}


@dataclass(frozen=True, slots=True)
class Dealt(Event):
    """A seat's dealt hand (RULES §2.2); others only learn its size."""

    kind: ClassVar[str] = "dealt"
    cards: tuple[int, ...]
    dealer: int

    def view(self, viewer: Viewer) -> dict[str, Any]:
        out = {
            "type": self.kind,
            "seat": self.seat,
            "dealer": self.dealer,
            "count": len(self.cards),
        }
        if sees_hand(viewer, self.seat):
            out["cards"] = faces_str(self.cards)
        return out


@dataclass(frozen=True, slots=True)
class Drew(Event):
    """A card turned up from the stock; a card that is 偎'd stays face down (RULES §4.3)."""

    kind: ClassVar[str] = "drew"
    card: int
    face_down: bool
    stock_left: int

    def view(self, viewer: Viewer) -> dict[str, Any]:
        out = {"type": self.kind, "seat": self.seat, "stock_left": self.stock_left}
        if not self.face_down or sees_hand(viewer, self.seat):
            out["card"] = faces_str((self.card,))
        return out


@dataclass(frozen=True, slots=True)
class Weied(Event):
    """A mandatory 偎 (RULES §4.3): drawn card + 2 hand cards, face down unless 明偎."""

    kind: ClassVar[str] = "wei"
    card: int
    face_up: bool

    def view(self, viewer: Viewer) -> dict[str, Any]:
        out = {"type": self.kind, "seat": self.seat}
        if self.face_up or sees_hand(viewer, self.seat):
            out["card"] = faces_str((self.card,))
        return out


@dataclass(frozen=True, slots=True)
class FaceUpEvent(Event):
    """An event about one card that lies face up for everyone."""

    card: int

    def view(self, viewer: Viewer) -> dict[str, Any]:
        return {"type": self.kind, "seat": self.seat, "card": faces_str((self.card,))}


@dataclass(frozen=True, slots=True)
class Discarded(FaceUpEvent):
    """出 (RULES §4.1)."""

    kind: ClassVar[str] = "discard"


@dataclass(frozen=True, slots=True)
class Released(FaceUpEvent):
    """A drawn card nobody claimed goes to the drawer's discard row (RULES §3, step 5)."""

    kind: ClassVar[str] = "release"


@dataclass(frozen=True, slots=True)
class Penged(FaceUpEvent):
    """碰 (RULES §4.5)."""

    kind: ClassVar[str] = "peng"
    from_seat: int

    def view(self, viewer: Viewer) -> dict[str, Any]:
        return {**FaceUpEvent.view(self, viewer), "from": self.from_seat}


@dataclass(frozen=True, slots=True)
class Chied(FaceUpEvent):
    """吃 (RULES §4.6): the run and the claimed card."""

    kind: ClassVar[str] = "chi"
    run: int
    from_seat: int

    def view(self, viewer: Viewer) -> dict[str, Any]:
        run = faces_str((self.run, self.run + 1, self.run + 2))
        return {**FaceUpEvent.view(self, viewer), "run": run, "from": self.from_seat}


@dataclass(frozen=True, slots=True)
class DeadHand(Event):
    """死手 (RULES §4.1): no legal discard; the discard is skipped and 胡 is lost."""

    kind: ClassVar[str] = "dead"


@dataclass(frozen=True, slots=True)
class DeclinedHu(Event):
    """A seat declined a 胡 it could take; only that seat learns of it (RULES §3.1.5)."""

    kind: ClassVar[str] = "declined_hu"
    card: int

    def view(self, viewer: Viewer) -> dict[str, Any] | None:
        if viewer not in ("all", self.seat):
            return None
        return {"type": self.kind, "seat": self.seat, "card": faces_str((self.card,))}


@dataclass(frozen=True, slots=True)
class Won(Event):
    """胡 (RULES §4.7): the winner's cards are shown with the breakdown."""

    kind: ClassVar[str] = "hu"
    card: int | None
    source: str
    breakdown: Breakdown
    hand: tuple[int, ...]
    pattern: str | None = None
    #: won on the last stock card (海底, RULES §3.1.7), whether or not the preset scores it
    haidi: bool = False

    def view(self, viewer: Viewer) -> dict[str, Any]:
        return {
            "type": self.kind,
            "seat": self.seat,
            "card": None if self.card is None else faces_str((self.card,)),
            "source": self.source,
            "hand": faces_str(self.hand),
            "deal_pattern": self.pattern,
            "haidi": self.haidi,
            "breakdown": self.breakdown.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class Chou(Event):
    """臭 (RULES §8.1): a draw was needed and the stock was empty."""

    kind: ClassVar[str] = "chou"
