"""Each seat's clock for the decision it is posed, and how a running clock is shown.

The timer belongs to the decision (docs/protocol.md §3): it starts when the seat is posed the
decision, with the room's turn timer then in force, and only the decision's end (an action, by
the player or by 托管, or the end of the hand) stops it. Nothing else a player sends restarts it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from weimaque.server.wire.messages import Timer


@dataclass(frozen=True, slots=True)
class DecisionClock:
    """A seat's decision clock: when the decision was posed, and the turn timer in force then."""

    since: float
    seconds: int | None


def timed(deadline: float, now: float, seconds: int) -> Timer:
    """A running clock as the protocol shows it: seconds, the deadline (Unix ms) and time left."""
    left = deadline - now
    return {
        "seconds": seconds,
        "deadline_ms": int((time.time() + left) * 1000),
        "left_ms": max(0, int(left * 1000)),
    }


class DecisionClocks:
    """The decision clock of each seat that must decide now."""

    def __init__(self, now: Callable[[], float]) -> None:
        """Clocks read from ``now`` (monotonic seconds: the room's clock)."""
        self.now = now
        self._clocks: dict[int, DecisionClock] = {}

    def track(self, deciding: Iterable[int], seconds: int | None) -> None:
        """The seats ``deciding`` now: a clock starts (with ``seconds``, the timer in force) for
        each that had none; the others' clocks end."""
        todo = set(deciding)
        for seat in list(self._clocks):
            if seat not in todo:
                del self._clocks[seat]
        now = None
        for seat in todo:
            if seat not in self._clocks:
                now = self.now() if now is None else now
                self._clocks[seat] = DecisionClock(now, seconds)

    def end(self, seat: int) -> None:
        """The seat's decision ended (it acted)."""
        self._clocks.pop(seat, None)

    def clear(self) -> None:
        """Every decision ended (the hand did)."""
        self._clocks.clear()

    def get(self, seat: int) -> DecisionClock | None:
        """The seat's running clock, if it must decide."""
        return self._clocks.get(seat)

    def timer(self, seat: int) -> Timer | None:
        """The seat's running turn timer as the protocol shows it (None without one)."""
        clock = self._clocks.get(seat)
        if clock is None or clock.seconds is None:
            return None
        return timed(clock.since + clock.seconds, self.now(), clock.seconds)


__all__ = ["DecisionClock", "DecisionClocks", "timed"]
