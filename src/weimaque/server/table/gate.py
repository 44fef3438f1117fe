"""The claim-window gate: what each viewer has not been sent yet while the game keeps it
waiting (``Hand.settled``, docs/protocol.md §2.3, RULES §3.1.5).

The rule of what a viewer is shown lives in the game: a viewer is settled when no window is
open or it has an option in the open one (``Hand.settled``), and one that is not is shown its
last delivery (with its own answer since, ``Game.answered``). The gate keeps, per viewer, where
that last delivery was and which actions followed it: once the viewer is settled, everything
since arrives in one message, with the view of the position then. A window that closes with no
claim therefore arrives exactly as a card nobody could claim, and one that ends in a claim
arrives as its public outcome.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from weimaque.games.protocol import Hand, View

#: Who looks: a seat, ``"public"``, or one of the game's extra viewers (偎麻雀's ``"shouxing"``,
#: ``TableExtras.extra_viewers``), which its ``Hand`` takes as it takes ``"public"``.
Viewer = int | str


def seen_by(viewer: Viewer) -> Any:
    """A viewer as a game's ``Hand`` takes it (an extra viewer is the game's own string)."""
    return viewer


def viewers(seats: int, extra: tuple[str, ...] = ()) -> list[Viewer]:
    """Every viewer a room of ``seats`` seats may have: the seats, the public and the game's
    ``extra`` viewers (偎麻雀's 守醒)."""
    return [*range(seats), "public", *extra]


@dataclass(slots=True)
class Held:
    """What one viewer has not been sent yet."""

    #: index into the hand's events of the first event not yet sent (None: not even the deal)
    upto: int | None
    #: the position at ``upto`` (a copy nobody changes), or the view itself once built
    at: Hand | View | None
    viewer: Viewer
    #: (seat, action id, auto) of every action since, in order (for the ``actor`` field)
    actors: list[tuple[int, int, bool]] = field(default_factory=list)
    #: whether ``at`` is still the position (not yet its view)
    position: bool = False

    @property
    def view(self) -> View | None:
        """The viewer's view at ``upto``, for a snapshot taken meanwhile.

        Built on first use: most windows close before anyone asks for a snapshot.
        """
        if self.position:
            hand: Any = self.at
            self.at = hand.view(self.viewer)
            self.position = False
        return self.at  # type: ignore[return-value]


class Gate:
    """Per hand: which viewers wait for a window to close, and from where."""

    def __init__(self, seats: int, extra: tuple[str, ...] = ()) -> None:
        """No hand yet, at a table of ``seats`` seats with the game's ``extra`` viewers."""
        self.viewers: list[Viewer] = viewers(seats, extra)
        self.held: dict[Viewer, Held] = {}
        #: per connection: the ``id`` of its message whose answer waits (sent on delivery)
        self.replies: dict[Any, Any] = {}

    def dealt(self, hand: Hand) -> list[Viewer]:
        """A new hand: hold the viewers the deal window keeps waiting; they get no snapshot yet."""
        self.held.clear()
        self.replies.clear()
        out = []
        for v in self.viewers:
            if not hand.settled(seen_by(v)):
                self.held[v] = Held(None, hand.opening_view(seen_by(v)), v)
                out.append(v)
        return out

    def after_action(
        self, before: Hand, hand: Hand, first: int, act: tuple[int, int, bool]
    ) -> None:
        """After one action: start holding the viewers that now wait, note the action
        (``before``: the position before it, a copy nobody changes)."""
        for v in self.viewers:
            held = self.held.get(v)
            if held is not None:
                held.actors.append(act)
            elif not hand.settled(seen_by(v)):
                self.held[v] = Held(first, before, v, [act], position=True)

    def waiting(self, viewer: Viewer) -> Held | None:
        """What ``viewer`` waits for, or None when it is up to date."""
        return self.held.get(viewer)

    def replay(self, hand: Hand, seat: int, action: int) -> None:
        """Apply one action while restoring a hand, holding and releasing as when it was played."""
        before, first = hand.clone(), len(hand.events())
        hand.apply(seat, action)
        self.after_action(before, hand, first, (seat, action, False))
        for v in self.viewers:
            if hand.settled(seen_by(v)):
                self.release(v)

    def release(self, viewer: Viewer) -> Held | None:
        """The viewer is settled: what it has been waiting for (None when it was not)."""
        return self.held.pop(viewer, None)


__all__ = ["Gate", "Held", "Viewer", "seen_by", "viewers"]
