"""The claim-window gate: what each viewer has not been sent yet while the game's view keeps
it waiting (``game.observation.settled``, docs/protocol.md §2.3, RULES §3.1.5).

The rule of what a viewer is shown lives in the game's view: a viewer is settled when no window
is open or it has an option in the open one, and one that is not is shown its last delivery
(with its own answer since, ``answered_view``). The gate keeps, per viewer, where that last
delivery was and which actions followed it: once the viewer is settled, everything since arrives
in one message, with the view of the position then. A window that closes with no claim
therefore arrives exactly as a card nobody could claim, and one that ends in a claim arrives as
its public outcome.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from weimaque.game.actions import Action
from weimaque.game.events import Viewer
from weimaque.game.observation import Observation, dealt_view, settled, view_of
from weimaque.game.state import NUM_SEATS, GameState


def viewers(state: GameState, shouxing: bool) -> list[Viewer]:
    """Every viewer a room may have."""
    out: list[Viewer] = [*range(NUM_SEATS), "public"]
    if shouxing:
        out.append("shouxing")
    return out


@dataclass(slots=True)
class Held:
    """What one viewer has not been sent yet."""

    #: index into the hand's events of the first event not yet sent (None: not even the deal)
    upto: int | None
    #: the position at ``upto`` (a copy nobody changes), or the view itself once built
    at: GameState | Observation | None
    viewer: Viewer
    #: (seat, action, auto) of every action since, in order (for the ``actor`` field)
    actors: list[tuple[int, Action, bool]] = field(default_factory=list)

    @property
    def view(self) -> Observation | None:
        """The viewer's view at ``upto``, for a snapshot taken meanwhile.

        Built on first use: most windows close before anyone asks for a snapshot.
        """
        if isinstance(self.at, GameState):
            self.at = view_of(self.at, self.viewer)
        return self.at


class Gate:
    """Per hand: which viewers wait for a window to close, and from where."""

    def __init__(self) -> None:
        """No hand yet."""
        self.held: dict[Viewer, Held] = {}
        #: per connection: the ``id`` of its message whose answer waits (sent on delivery)
        self.replies: dict[Any, Any] = {}

    def dealt(self, state: GameState, shouxing: bool) -> list[Viewer]:
        """A new hand: hold the viewers the deal window keeps waiting; they get no snapshot yet."""
        self.held.clear()
        self.replies.clear()
        out = []
        for v in viewers(state, shouxing):
            if not settled(state, v):
                self.held[v] = Held(None, dealt_view(state, v), v)
                out.append(v)
        return out

    def after_action(
        self,
        before: GameState,
        state: GameState,
        first: int,
        act: tuple[int, Action, bool],
        shouxing: bool,
    ) -> None:
        """After one action: start holding the viewers that now wait, note the action."""
        for v in viewers(state, shouxing):
            held = self.held.get(v)
            if held is not None:
                held.actors.append(act)
            elif not settled(state, v):
                self.held[v] = Held(first, before, v, [act])

    def waiting(self, viewer: Viewer) -> Held | None:
        """What ``viewer`` waits for, or None when it is up to date."""
        return self.held.get(viewer)

    def replay(self, state: GameState, seat: int, action: Action, shouxing: bool) -> None:
        """Apply one action while restoring a hand, holding and releasing as when it was played."""
        before, first = state.copy(), len(state.events)
        state.apply(seat, action)
        self.after_action(before, state, first, (seat, action, False), shouxing)
        for v in viewers(state, shouxing):
            if settled(state, v):
                self.release(v)

    def release(self, viewer: Viewer) -> Held | None:
        """The viewer is settled: what it has been waiting for (None when it was not)."""
        return self.held.pop(viewer, None)


__all__ = ["Gate", "Held", "settled", "viewers"]
