"""A room's sending: to every connection, the room's news coalesced, the table's news deferred.

One ``Broadcaster`` per room. It keeps the order of everything the room sends: whatever sends
to all connections, or changes the room, first sends the news still deferred
(:meth:`Broadcaster.flush`). It knows connections only as objects with a non-blocking
``send``, and the room only through the two callables it is given.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection
from typing import Final

from weimaque.server.table.seats import Conn
from weimaque.server.wire.messages import ServerMessage

#: Room broadcasts within this many seconds are sent as one.
ROOM_COALESCE_S: Final = 0.05


class Broadcaster:
    """What a room sends to more than one connection, in order."""

    def __init__(self, conns: Collection[Conn], room_message: Callable[[], ServerMessage]) -> None:
        """Send to ``conns`` (the room's live set); ``room_message`` builds the ``room`` news."""
        self.conns = conns
        self.room_message = room_message
        self._pending: list[Callable[[], None]] = []
        self._flush_scheduled = False
        self._room_due = False

    def send_all(self, message: ServerMessage) -> None:
        """Send the same (public) message to every connection, after the news deferred."""
        self.flush()
        for conn in list(self.conns):
            conn.send(message)

    def room_changed(self) -> None:
        """Tell everyone the room changed: one message for all changes of the next 50 ms.

        Coalesced, so a burst of joins costs one broadcast, not one per join per connection.
        """
        if self._room_due:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._send_room()
            return
        self._room_due = True
        loop.call_later(ROOM_COALESCE_S, self._send_room)

    def _send_room(self) -> None:
        self._room_due = False
        self.send_all(self.room_message())

    def later(self, job: Callable[[], None]) -> None:
        """Run ``job`` on a later turn of the event loop (at once without a running loop).

        Two hops: the socket writers woken by this turn's answers run first (FIFO in both
        asyncio and uvloop), then the job.
        """
        self._pending.append(job)
        if self._flush_scheduled:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.flush()
            return
        self._flush_scheduled = True
        loop.call_soon(loop.call_soon, self.flush)

    def flush(self) -> None:
        """Run the deferred jobs now, in order."""
        self._flush_scheduled = False
        while self._pending:
            jobs, self._pending = self._pending, []
            for job in jobs:
                job()


__all__ = ["ROOM_COALESCE_S", "Broadcaster"]
