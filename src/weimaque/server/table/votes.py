"""What a table decides together between deals: a vote to 解散 and the 再来一局 window.

Plain state with the rules of each decision; the room (:mod:`.rooms`, :mod:`.driver`) opens,
answers and closes them, and shows them in RoomInfo (docs/protocol.md §2.4).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from weimaque.server.wire.common import SeatId


@dataclass(slots=True)
class Vote:
    """An open vote to 解散房间: end the match now, settled as it stands.

    The proposer agrees by proposing; every other seated person answers before ``deadline``
    (monotonic seconds). One who does not answer agrees only if they are connected when the
    time is up: the silence of a player whose connection dropped is no agreement, and the vote
    lapses (docs/protocol.md §2.4). One refusal closes the vote.
    """

    by: int
    deadline: float
    seconds: int
    #: Per seat: True (同意), False (拒绝) or None (not answered, or no person there).
    answers: list[bool | None] = field(default_factory=list)

    @classmethod
    def open(cls, by: int, now: float, seconds: int, seats: int) -> Vote:
        """The vote ``by`` proposes at ``now`` at a table of ``seats`` seats, open ``seconds``."""
        vote = cls(by, now + seconds, seconds, [None] * seats)
        vote.answers[by] = True
        return vote

    def refused_by(self) -> list[int]:
        """The seats that refused."""
        return [s for s, a in enumerate(self.answers) if a is False]

    def passed(self, voters: list[int], now: float, present: Callable[[int], bool]) -> bool:
        """Every person at the table agreed, or the time is up with nobody refusing and every
        silent person connected (``present``)."""
        if self.refused_by():
            return False
        if all(self.answers[s] is True for s in voters):
            return True
        return now >= self.deadline and not self.absent(voters, present)

    def absent(self, voters: list[int], present: Callable[[int], bool]) -> list[int]:
        """The persons who have not answered and are not connected: their silence is none."""
        return [s for s in voters if self.answers[s] is None and not present(s)]


@dataclass(slots=True)
class Rematch:
    """The 再来一局 window after a match: who chose to play another, until ``deadline``."""

    deadline: float
    seconds: int
    chosen: set[SeatId] = field(default_factory=set)

    def ready(self, seated: list[SeatId], now: float) -> bool:
        """Every seated person chose it, or the window is over with at least one who did."""
        choosers = [s for s in seated if s in self.chosen]
        if not choosers:
            return False
        return now >= self.deadline or len(choosers) == len(seated)


__all__ = ["Rematch", "Vote"]
