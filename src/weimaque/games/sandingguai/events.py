"""Frozen event records of a 三丁拐 hand: the one source for logs, views and replays.

``event.view(viewer)`` renders an event for one viewer with hidden information removed: a seat
(0..2) sees its own tiles, ``"public"`` what lies face up, ``"all"`` (a finished record)
everything. A drawn tile and a dealt hand are its seat's only; an 暗杠 is face down to the
others (SDG §10) unless the rules make it public.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from weimaque.games.sandingguai.notation import format_tiles, tile_name

Viewer = int | Literal["public", "all"]


def sees_hand(viewer: Viewer, seat: int) -> bool:
    """Whether a viewer may see the concealed tiles of ``seat``."""
    return viewer == "all" or viewer == seat


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
    """A seat's dealt tiles (SDG §2.2); others learn only how many."""

    kind: ClassVar[str] = "dealt"
    tiles: tuple[int, ...]
    dealer: int

    def view(self, viewer: Viewer) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": self.kind,
            "seat": self.seat,
            "dealer": self.dealer,
            "count": len(self.tiles),
        }
        if sees_hand(viewer, self.seat):
            out["tiles"] = format_tiles(self.tiles)
        return out


@dataclass(frozen=True, slots=True)
class Drew(Event):
    """摸 (SDG §3): a tile from the head of the wall, or from the tail after a kong."""

    kind: ClassVar[str] = "draw"
    tile: int
    replacement: bool
    wall_left: int

    def view(self, viewer: Viewer) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": self.kind,
            "seat": self.seat,
            "replacement": self.replacement,
            "wall_left": self.wall_left,
        }
        if sees_hand(viewer, self.seat):
            out["tile"] = tile_name(self.tile)
        return out


@dataclass(frozen=True, slots=True)
class TileEvent(Event):
    """An event about one tile that lies face up for everyone."""

    tile: int

    def view(self, viewer: Viewer) -> dict[str, Any]:
        return {"type": self.kind, "seat": self.seat, "tile": tile_name(self.tile)}


@dataclass(frozen=True, slots=True)
class Discarded(TileEvent):
    """出 (SDG §4.1), with 报听 (§4.6); ``repao``: a 热炮 tile (§3, §6.4)."""

    kind: ClassVar[str] = "discard"
    baoting: bool = False
    repao: bool = False

    def view(self, viewer: Viewer) -> dict[str, Any]:
        out = TileEvent.view(self, viewer)
        if self.baoting:
            out["baoting"] = True
        if self.repao:
            out["repao"] = True
        return out


@dataclass(frozen=True, slots=True)
class Claimed(TileEvent):
    """碰 or 明杠 of another seat's discard (SDG §4.3, §4.4)."""

    kind: ClassVar[str] = "claim"
    meld: Literal["peng", "gang"] = "peng"
    source: int = 0

    def view(self, viewer: Viewer) -> dict[str, Any]:
        return {**TileEvent.view(self, viewer), "meld": self.meld, "from": self.source}


@dataclass(frozen=True, slots=True)
class Angang(Event):
    """暗杠 (SDG §4.5): four of the seat's own, face down to the others."""

    kind: ClassVar[str] = "angang"
    tile: int
    public: bool = False

    def view(self, viewer: Viewer) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.kind, "seat": self.seat}
        if self.public or sees_hand(viewer, self.seat):
            out["tile"] = tile_name(self.tile)
        return out


@dataclass(frozen=True, slots=True)
class BugangDeclared(TileEvent):
    """补杠 declared (SDG §4.5): the others may rob it (§3 ROB)."""

    kind: ClassVar[str] = "bugang"


@dataclass(frozen=True, slots=True)
class BugangStood(TileEvent):
    """Nobody robbed the 补杠: the kong stands (SDG §3 ROB)."""

    kind: ClassVar[str] = "bugang_stands"


@dataclass(frozen=True, slots=True)
class ChickenNoted(TileEvent):
    """The first chicken discard's fate, public when its window closes (SDG §7.4, §7.5, §10):
    ``chongfeng`` (nobody claimed it) or ``zeren`` (碰 or 明杠 by ``claimant``)."""

    kind: ClassVar[str] = "chicken"
    fate: Literal["chongfeng", "zeren"] = "chongfeng"
    claimant: int | None = None

    def view(self, viewer: Viewer) -> dict[str, Any]:
        out = {**TileEvent.view(self, viewer), "fate": self.fate}
        if self.claimant is not None:
            out["claimant"] = self.claimant
        return out


@dataclass(frozen=True, slots=True)
class QueDeclared(Event):
    """定缺 (SDG §2.4): a seat's declared lacking suit, public once every seat has chosen."""

    kind: ClassVar[str] = "que"
    suit: int

    def view(self, viewer: Viewer) -> dict[str, Any]:
        return {"type": self.kind, "seat": self.seat, "suit": "msp"[self.suit]}


@dataclass(frozen=True, slots=True)
class Won(TileEvent):
    """胡 (SDG §6.4): the winner, the tile, the way and where it came from."""

    kind: ClassVar[str] = "win"
    way: str = "zimo"
    source: int | None = None
    fan: int = 0

    def view(self, viewer: Viewer) -> dict[str, Any]:
        return {
            **TileEvent.view(self, viewer),
            "way": self.way,
            "from": self.source,
            "fan": self.fan,
        }


@dataclass(frozen=True, slots=True)
class HandEnded(Event):
    """The end of a hand: 胡 or 荒庄, the flipped tile, every transfer; all hands are shown."""

    kind: ClassVar[str] = "end"
    huang: bool
    flip: int | None
    net: tuple[int, int, int]
    transfers: tuple[tuple[int, int, int, str], ...]
    hands: tuple[str, str, str]

    def view(self, viewer: Viewer) -> dict[str, Any]:
        return {
            "type": self.kind,
            "huang": self.huang,
            "flip": None if self.flip is None else tile_name(self.flip),
            "net": list(self.net),
            "transfers": [list(t) for t in self.transfers],
            "hands": list(self.hands),
        }
