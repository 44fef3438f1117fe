"""Persistence glue: what a room writes to the store as its match goes on.

A room without a store (tests, benchmarks) gets a recorder that writes nothing. Rooms are rebuilt
from what is written here by ``RoomManager.restore`` (:mod:`weimaque.server.manager`).
"""

from __future__ import annotations

from typing import Any

from weimaque.game.state import GameState
from weimaque.rules.config import RuleConfig
from weimaque.rules.registry import overrides_of
from weimaque.server.store import Store


class Recorder:
    """Writes one room's seats, hands and actions to an optional store."""

    def __init__(self, store: Store | None, room_id: str) -> None:
        """A recorder for ``room_id``; ``store`` None records nothing."""
        self.store = store
        self.room_id = room_id

    def created(
        self, config: dict[str, Any], seats: dict[str, Any], rules: RuleConfig, seed: int
    ) -> None:
        """A new room and its empty match."""
        if self.store is not None:
            self.store.create_room(self.room_id, config, seats, rules.id, overrides_of(rules), seed)

    def seats(self, seats: dict[str, Any]) -> None:
        """The seats changed (a token, a name)."""
        if self.store is not None:
            self.store.save_seats(self.room_id, seats)

    def hand_started(self, number: int, rules: RuleConfig, state: GameState) -> None:
        """A hand was dealt."""
        if self.store is not None:
            assert state.seed is not None
            self.store.start_hand(
                self.room_id, number, rules.id, overrides_of(rules), state.seed, state.dealer
            )

    def actions(self, state: GameState) -> None:
        """The hand in progress took an action."""
        if self.store is not None:
            self.store.save_actions(self.room_id, [[s, str(a)] for s, a in state.actions])

    def hand_finished(
        self, number: int, record: dict[str, Any], ledger: dict[str, Any], over: bool
    ) -> None:
        """A hand ended (and maybe the match)."""
        if self.store is not None:
            self.store.finish_hand(self.room_id, number, record, ledger, over)


__all__ = ["Recorder"]
