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

    Every person at the table votes: the seated players and the 守醒, who has a share in the
    match's ledger (RULES §2.1, §8.4). The proposer agrees by proposing; every other person
    answers before ``deadline`` (monotonic seconds). One who does not answer agrees only if
    they are connected when the time is up: the silence of a player whose connection dropped
    is no agreement, and the vote lapses (docs/protocol.md §2.4). One refusal closes the vote.
    """

    by: SeatId
    deadline: float
    seconds: int
    #: The answers so far, by seat (``"shouxing"``: the 守醒's): True (同意) or False (拒绝).
    answers: dict[SeatId, bool] = field(default_factory=dict)

    @classmethod
    def open(cls, by: SeatId, now: float, seconds: int) -> Vote:
        """The vote ``by`` proposes at ``now``, open ``seconds``."""
        return cls(by, now + seconds, seconds, {by: True})

    def refused_by(self) -> list[SeatId]:
        """The seats that refused."""
        return [s for s, a in self.answers.items() if a is False]

    def passed(self, voters: list[SeatId], now: float, present: Callable[[SeatId], bool]) -> bool:
        """Every person at the table agreed, or the time is up with nobody refusing and every
        silent person connected (``present``)."""
        if self.refused_by():
            return False
        if all(self.answers.get(s) is True for s in voters):
            return True
        return now >= self.deadline and not self.absent(voters, present)

    def absent(self, voters: list[SeatId], present: Callable[[SeatId], bool]) -> list[SeatId]:
        """The persons who have not answered and are not connected: their silence is none."""
        return [s for s in voters if s not in self.answers and not present(s)]

    def moved(self, moved_to: dict[SeatId, SeatId]) -> None:
        """Persons took other seats for the next hand (RULES §2.1.1): their answers, and the
        proposal, go with them."""
        self.by = moved_to.get(self.by, self.by)
        self.answers = {moved_to.get(s, s): a for s, a in self.answers.items()}


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
