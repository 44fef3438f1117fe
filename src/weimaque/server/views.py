"""What each connection is sent: snapshots, event batches, welcomes and room broadcasts.

Every message about the hand is built from ``observation(state, viewer)`` and
``event.view(viewer)`` only (RULES §2.1, §4.3), with viewer = the seat, ``"shouxing"`` or
``"public"``.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any, Final

from weimaque.game.actions import Action
from weimaque.game.events import Event, Viewer, Won
from weimaque.game.observation import observation
from weimaque.game.record import start_from_record
from weimaque.game.state import NUM_SEATS, GameState
from weimaque.match import Settlement
from weimaque.server.base import RoomBase
from weimaque.server.gate import settled, viewers
from weimaque.server.protocol import server_message
from weimaque.server.seats import Conn, SeatId


def replay_steps(record: dict[str, Any]) -> list[dict[str, Any]]:
    """A finished hand as steps: each action with its events and the full view after it."""
    state = start_from_record(record)
    steps: list[dict[str, Any]] = [
        {
            "action": None,
            "seat": None,
            "events": [v for e in state.events if (v := e.view("all")) is not None],
            "observation": observation(state, "all"),
        }
    ]
    for seat, text in record["actions"]:
        events = state.apply(int(seat), Action.parse(text))
        steps.append(
            {
                "action": text,
                "seat": int(seat),
                "events": [v for e in events if (v := e.view("all")) is not None],
                "observation": observation(state, "all"),
            }
        )
    return steps


#: Room broadcasts within this many seconds are sent as one.
ROOM_COALESCE_S: Final = 0.05


class RoomViews(RoomBase):
    """The messages a room sends, per connection."""

    #: The published commitment to the hand in progress (docs/fairness.md).
    deal_commitment: str | None = None
    #: A ``room`` broadcast is scheduled.
    _room_due: bool = False

    @staticmethod
    def viewer_of(conn: Conn) -> Viewer:
        """The engine viewer of a connection: its seat, the 守醒, or the public."""
        if conn.seat is None:
            return "public"
        return conn.seat

    def _timer(self, seat: SeatId | None) -> dict[str, Any] | None:
        turn = self.opts.turn_seconds
        if turn is None or not isinstance(seat, int) or seat not in self._since:
            return None
        if self.seats[seat].kind == "bot":
            return None
        left = self._since[seat] + turn - time.monotonic()
        return {
            "deadline_ms": int((time.time() + left) * 1000),
            "left_ms": max(0, int(left * 1000)),
            "seconds": turn,
        }

    def _legal(self, seat: SeatId | None) -> list[dict[str, Any]]:
        state = self.state
        if state is None or not isinstance(seat, int):
            return []
        return [{"text": str(a), "id": a.id} for a in state.legal_actions(seat)]

    def _view_fields(self, conn: Conn) -> dict[str, Any]:
        state = self.state
        seat = conn.seat
        legal = self._legal(seat)
        return {
            "observation": None if state is None else observation(state, self.viewer_of(conn)),
            "legal_actions": legal,
            "to_act": bool(legal),
            "timer": self._timer(seat) if legal else None,
        }

    def _displayed(self) -> GameState | None:
        """The hand shown in a snapshot: the one in progress, or the last one finished."""
        if self.state is not None:
            return self.state
        return self._last_state

    def snapshot(self, conn: Conn, re: Any = None) -> dict[str, Any]:
        """The full view of one connection."""
        viewer = self.viewer_of(conn)
        shown = self._displayed()
        fields = self._view_fields(conn)
        if self.state is None and shown is not None:
            fields["observation"] = observation(shown, viewer)
        events = [] if shown is None else shown.events
        held = None if self.state is None else self.gate.waiting(viewer)
        if held is not None:
            # Waiting for a window to close: the position of its last delivery (see .gate).
            events = events[: NUM_SEATS if held.upto is None else held.upto]
            legal = [] if held.obs is None else held.obs.get("legal_actions", [])
            fields.update(
                observation=held.obs,
                legal_actions=[{"text": t, "id": Action.parse(t).id} for t in legal],
                to_act=bool(legal),
                timer=None,
            )
        history = [v for e in events if (v := e.view(viewer)) is not None]
        return server_message(
            "snapshot",
            re,
            room=self.info(),
            you=self._you(conn),
            hand_number=self.hand_number,
            **fields,
            history=history,
            event_count=len(history),
            match=self.match_info(),
            last_hand=self.last_hand if self.state is None else None,
            commitment=self.deal_commitment if self.state is not None else None,
        )

    def _you(self, conn: Conn) -> dict[str, Any]:
        seat = conn.seat
        if seat is None:
            return {"seat": None, "role": "spectator", "name": None}
        s = self._seat(seat)
        return {
            "seat": seat,
            "role": "shouxing" if seat == "shouxing" else "player",
            "name": s.name,
        }

    def _welcome(self, conn: Conn, re: Any) -> dict[str, Any]:
        seat = conn.seat
        s = None if seat is None else self._seat(seat)
        you = self._you(conn)
        return server_message(
            "welcome",
            re,
            room_id=self.id,
            seat=seat,
            role=you["role"],
            token=None if s is None else conn.token,
            name=you["name"],
            protocol=1,
        )

    def broadcast(self, message: dict[str, Any]) -> None:
        """Send the same (public) message to every connection."""
        for conn in list(self.conns):
            conn.send(message)

    def broadcast_room(self) -> None:
        """Tell everyone the room changed: one message for all changes of the next 50 ms.

        Coalesced, so a burst of joins costs one broadcast, not one per join per connection.
        """
        if self._room_due:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._flush_room()
            return
        self._room_due = True
        loop.call_later(ROOM_COALESCE_S, self._flush_room)

    def _flush_room(self) -> None:
        self._room_due = False
        self.broadcast(server_message("room", room=self.info()))

    def send_snapshots(self) -> None:
        """A fresh snapshot to every connection (a new hand)."""
        for conn in list(self.conns):
            conn.send(self.snapshot(conn))

    def send_deal(self, origin: Conn | None, re: Any) -> None:
        """A new hand: a snapshot to each connection, except those a deal window holds."""
        state = self.state
        assert state is not None
        held = self.gate.dealt(state, self.shouxing is not None)
        self._counted.clear()
        for conn in list(self.conns):
            reply = re if conn is origin else None
            if self.viewer_of(conn) in held:
                if reply is not None:
                    self.gate.replies[conn] = reply
                continue
            conn.send(self.snapshot(conn, reply))

    def send_events(
        self,
        new: list[Event],
        first: int,
        seat: int,
        action: Action,
        auto: bool,
        origin: Conn | None,
        re: Any,
        before: GameState | None = None,
    ) -> None:
        """Send each connection what it may see of the events ``new`` of one action.

        A viewer waiting for a claim window to close gets nothing now, and everything since its
        last delivery once it is settled (:mod:`.gate`).
        """
        state = self.state
        assert state is not None
        gate = self.gate
        act = (seat, action, auto)
        if before is not None:
            gate.after_action(before, state, first, act, self.shouxing is not None)
        groups: dict[Viewer, list[Conn]] = {}
        for conn in list(self.conns):
            groups.setdefault(self.viewer_of(conn), []).append(conn)
        if origin is not None and re is not None and not settled(state, self.viewer_of(origin)):
            gate.replies[origin] = re
        for viewer in viewers(state, self.shouxing is not None):
            if not settled(state, viewer):
                continue
            held = gate.release(viewer)
            conns = groups.get(viewer, [])
            if held is not None and held.upto is None:
                # Held since the deal: the hand's first snapshot.
                for conn in conns:
                    conn.send(self.snapshot(conn, gate.replies.pop(conn, None)))
                continue
            start, actors = (first, [act]) if held is None else (held.upto or 0, held.actors)
            if not conns:
                continue
            views = [v for e in state.events[start:] if (v := e.view(viewer)) is not None]
            # Count only what this viewer saw: a gap would betray a hidden event, such as
            # another seat's declined 胡 (RULES §3.1.5).
            seen = self._count_seen(viewer, start)
            shared: dict[Any, dict[str, Any]] = {}
            for conn in conns:
                own = any(s == conn.seat for s, _, _ in actors)
                if not views and not own:
                    continue
                actor = next(
                    (
                        {"seat": s, "action": str(a), "auto": au}
                        for s, a, au in actors
                        if s == conn.seat or a.kind == "discard"
                    ),
                    None,
                )
                reply = gate.replies.pop(conn, None)
                if reply is None and conn is origin:
                    reply = re
                # Spectators (and several tabs of one seat) share one message, encoded once.
                key = (conn.seat, None if actor is None else actor["seat"])
                message = None if reply is not None else shared.get(key)
                if message is None:
                    message = server_message(
                        "events",
                        reply,
                        hand_number=self.hand_number,
                        **{"from": seen},
                        events=views,
                        actor=actor,
                        **self._view_fields(conn),
                    )
                    if reply is None:
                        shared[key] = message
                conn.send(message)

    def _count_seen(self, viewer: Viewer, upto: int) -> int:
        """How many of the hand's first ``upto`` events ``viewer`` sees (counted incrementally)."""
        state = self.state
        assert state is not None
        done, count = self._counted.get(viewer, (0, 0))
        if done > upto:
            done, count = 0, 0
        count += sum(1 for e in state.events[done:upto] if e.view(viewer) is not None)
        self._counted[viewer] = (upto, count)
        return count

    def _hand_end(self, number: int, state: GameState, settlement: Settlement) -> dict[str, Any]:
        r = state.result
        assert r is not None
        won = next((e for e in reversed(state.events) if isinstance(e, Won)), None)
        return {
            "hand_number": number,
            "result": {
                "winner": r.winner,
                "chou": r.chou,
                "card": None if won is None else won.view("public")["card"],
                "source": r.source,
                "deal_pattern": r.deal_pattern,
                "total": 0 if r.breakdown is None else r.breakdown.total,
                "hand": None if won is None else won.view("public")["hand"],
            },
            "breakdown": None if r.breakdown is None else r.breakdown.to_dict(),
            "settlement": settlement.to_dict(),
            "ledger": self.match.ledger(),
            "scores": list(self.match.scores),
            "final_pool_share": None
            if self.match.final_share is None
            else list(self.match.final_share),
            "match_over": self.match.is_over(),
            "record_url": f"/api/rooms/{self.id}/hands/{number}",
        }


__all__ = ["RoomViews", "replay_steps"]
