"""What a table decides together between deals: a vote to 解散 and the 再来一局 window.

Plain state with the rules of each decision; the room (:mod:`.rooms`, :mod:`.driver`) opens,
answers and closes them, and shows them in RoomInfo (docs/protocol.md §2.4).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from weimaque.game.state import NUM_SEATS
from weimaque.server.seats import SeatId


@dataclass(slots=True)
class Vote:
    """An open vote to 解散房间: end the match now, settled as it stands.

    The proposer agrees by proposing; every other seated person answers before ``deadline``
    (monotonic seconds), and one who does not answer agrees. One refusal closes the vote.
    """

    by: int
    deadline: float
    seconds: int
    #: Per seat: True (同意), False (拒绝) or None (not answered, or no person there).
    answers: list[bool | None] = field(default_factory=lambda: [None] * NUM_SEATS)

    @classmethod
    def open(cls, by: int, now: float, seconds: int) -> Vote:
        """The vote ``by`` proposes at ``now``, open ``seconds``."""
        vote = cls(by, now + seconds, seconds)
        vote.answers[by] = True
        return vote

    def refused_by(self) -> list[int]:
        """The seats that refused."""
        return [s for s, a in enumerate(self.answers) if a is False]

    def passed(self, voters: list[int], now: float) -> bool:
        """Every person at the table agreed, or the time is up with nobody refusing."""
        if self.refused_by():
            return False
        return now >= self.deadline or all(self.answers[s] is True for s in voters)


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
