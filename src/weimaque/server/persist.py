"""Persistence glue: what a room writes to the store as its match goes on.

A room without a store (tests, benchmarks) gets a recorder that writes nothing. Rooms are rebuilt
from what is written here by ``RoomManager.restore`` (:mod:`weimaque.server.manager`).
"""

from __future__ import annotations

import asyncio
from typing import Any

from weimaque.game.state import GameState
from weimaque.rules.config import RuleConfig
from weimaque.rules.registry import overrides_of
from weimaque.server.store import Store

#: Recorders with actions not yet written, and whether a write is scheduled.
_dirty: dict[int, Recorder] = {}
_scheduled: asyncio.AbstractEventLoop | None = None


def flush_actions() -> None:
    """Write every room's pending actions, one transaction per store."""
    global _scheduled
    _scheduled = None
    if not _dirty:
        return
    by_store: dict[int, tuple[Store, list[tuple[str, list[list[Any]]]]]] = {}
    for rec in list(_dirty.values()):
        if rec.store is not None and rec.pending is not None:
            by_store.setdefault(id(rec.store), (rec.store, []))[1].append(
                (rec.room_id, rec.pending)
            )
        rec.pending = None
    _dirty.clear()
    for store, items in by_store.values():
        store.save_actions_many(items)


class Recorder:
    """Writes one room's seats, hands and actions to an optional store.

    Actions are written on the next turn of the event loop, for all rooms in one transaction,
    before any message that answers them is sent (the answer's writer runs later in the same
    FIFO order), so a crash still loses no action a player saw confirmed.
    """

    def __init__(self, store: Store | None, room_id: str) -> None:
        """A recorder for ``room_id``; ``store`` None records nothing."""
        self.store = store
        self.room_id = room_id
        self.pending: list[list[Any]] | None = None

    def created(
        self, config: dict[str, Any], seats: dict[str, Any], rules: RuleConfig, seed: int
    ) -> None:
        """A new room and its empty match."""
        flush_actions()
        if self.store is not None:
            self.store.create_room(self.room_id, config, seats, rules.id, overrides_of(rules), seed)

    def seats(self, seats: dict[str, Any]) -> None:
        """The seats changed (a token, a name)."""
        flush_actions()
        if self.store is not None:
            self.store.save_seats(self.room_id, seats)

    def hand_started(self, number: int, rules: RuleConfig, state: GameState) -> None:
        """A hand was dealt."""
        flush_actions()
        if self.store is not None:
            assert state.seed is not None
            self.store.start_hand(
                self.room_id, number, rules.id, overrides_of(rules), state.seed, state.dealer
            )

    def actions(self, state: GameState) -> None:
        """The hand in progress took an action."""
        global _scheduled
        if self.store is None:
            return
        self.pending = [[s, str(a)] for s, a in state.actions]
        _dirty[id(self)] = self
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            flush_actions()
            return
        if _scheduled is not loop:  # (a flush scheduled on another, maybe closed, loop: again)
            _scheduled = loop
            loop.call_soon(flush_actions)

    def hand_finished(
        self,
        number: int,
        record: dict[str, Any],
        ledger: dict[str, Any],
        over: bool,
        match: int = 1,
    ) -> None:
        """Hand ``number`` of the room ended, in match ``match`` (and maybe the match ended)."""
        flush_actions()
        if self.store is not None:
            self.store.finish_hand(self.room_id, number, record, ledger, over, match)

    def match_ended(self, ledger: dict[str, Any], abandoned: int | None) -> None:
        """The match was dissolved (解散); ``abandoned``: the number of the hand dropped."""
        flush_actions()
        if self.store is not None:
            self.store.end_match(self.room_id, ledger, True, abandoned)

    def match_started(self, number: int, seed: int, seats: dict[str, Any]) -> None:
        """The room started its match ``number`` (再来一局)."""
        flush_actions()
        if self.store is not None:
            self.store.new_match(self.room_id, number, seed, seats)


__all__ = ["Recorder", "flush_actions"]
