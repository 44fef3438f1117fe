"""What each connection is sent: snapshots, event batches, welcomes and room broadcasts.

Every message about the hand is built from ``observation(state, viewer)`` and
``event.view(viewer)`` only (RULES §2.1, §4.3), with viewer = the seat, ``"shouxing"`` or
``"public"``.
"""

from __future__ import annotations

from typing import Any

from weimaque.game.actions import Action
from weimaque.game.events import Event, Viewer, Won
from weimaque.game.observation import (
    Observation,
    answered_view,
    observation,
    settled,
    view_of,
)
from weimaque.game.record import start_from_record
from weimaque.game.state import NUM_SEATS, GameState
from weimaque.match import Settlement
from weimaque.server.table.broadcast import Broadcaster
from weimaque.server.table.clocks import DecisionClocks
from weimaque.server.table.gate import Gate, viewers
from weimaque.server.table.numbers import HintCache, breakdown_json, hints, table_xi
from weimaque.server.table.seats import Conn
from weimaque.server.table.table import DECISION_SPAN, Table
from weimaque.server.wire import messages
from weimaque.server.wire.common import SeatId
from weimaque.server.wire.messages import Actor, LegalAction, Timer, ViewFields


def replay_steps(record: dict[str, Any]) -> list[dict[str, Any]]:
    """A finished hand as steps: each action with its events, the full view after it and the
    numbers as they stood then (明息 of each seat; ``observation.scores`` holds the match scores
    before the hand, the last step adds what the hand paid)."""
    state = start_from_record(record)

    def step(action: str | None, seat: int | None, events: list[Event]) -> dict[str, Any]:
        view = view_of(state, "all")
        return {
            "action": action,
            "seat": seat,
            "events": [v for e in events if (v := e.view("all")) is not None],
            "observation": view.to_json(),
            "numbers": table_xi(view, state.rules),
        }

    steps = [step(None, None, list(state.events))]
    for seat, text in record["actions"]:
        events = state.apply(int(seat), Action.parse(text))
        steps.append(step(text, int(seat), events))
    if state.result is not None and state.result.breakdown is not None:
        steps[-1]["breakdown"] = breakdown_json(state.result.breakdown)
    steps[-1]["settlement"] = record.get("settlement")
    return steps


ViewCache = dict[Viewer, tuple[Observation | None, dict[str, Any] | None, dict[str, Any] | None]]


class Views:
    """The messages a room sends, per connection: what each viewer may see of its table."""

    def __init__(self, table: Table, clocks: DecisionClocks, out: Broadcaster) -> None:
        """Views of ``table``, its decision clocks shown as timers, sent through ``out``."""
        self.table = table
        self.seating = table.seating
        self.clocks = clocks
        self.out = out
        #: Viewers waiting for a claim window to close (docs/protocol.md §2.3; :mod:`.gate`).
        self.gate = Gate()
        #: Per viewer: (events counted, how many of them it sees), for the ``from`` field.
        self.counted: dict[Viewer, tuple[int, int]] = {}
        self.hint_cache = HintCache()

    def reset(self) -> Gate:
        """The hand is gone (a 解散, a new match): nothing held, nothing counted; the old gate."""
        gate, self.gate = self.gate, Gate()
        self.counted.clear()
        return gate

    @staticmethod
    def viewer_of(conn: Conn) -> Viewer:
        """The engine viewer of a connection: its seat, the 守醒, or the public."""
        if conn.seat is None:
            return "public"
        return conn.seat

    def _timer(self, seat: SeatId | None) -> Timer | None:
        if not isinstance(seat, int):
            return None
        s = self.seating.seats[seat]
        if s.kind == "bot" or s.autoplay or s.away:
            return None  # decided for the seat: no clock is shown
        return self.clocks.timer(seat)

    def _turn_timer(self, shown: GameState | None) -> Timer | None:
        """The clock of the seat that must 出, shown to every viewer (docs/protocol.md §3).

        Whose turn it is to 出 is public (RULES §3); in a claim window no clock is shown to
        others, since who may claim is not (§2.3 of the protocol).
        """
        state = self.table.state
        if state is None or shown is not state or state.phase != "discard":
            return None
        return self._timer(state.turn)

    def _decision(self, viewer: Viewer, seen: int) -> int | None:
        """The decision number of a view of the hand in progress (docs/protocol.md §2.2).

        ``seen`` is how many of the hand's events the view shows. The number is the hand's
        base plus those events plus the viewer's own actions: nothing the viewer does not know
        (no other seat's hidden answer in a claim window counts, §2.3). It grows with each of
        the viewer's decisions, since each ends with an action of its own.
        """
        state = self.table.state
        if state is None:
            return None
        own = 0 if not isinstance(viewer, int) else sum(1 for s, _ in state.actions if s == viewer)
        return self.table.hand_key * DECISION_SPAN + seen + own

    def decision_of(self, viewer: Viewer) -> int | None:
        """The decision number the viewer's views show now (None between hands)."""
        state = self.table.state
        if state is None:
            return None
        held = self.gate.waiting(viewer)
        upto = len(state.events) if held is None else NUM_SEATS if held.upto is None else held.upto
        return self._decision(viewer, self._visible_before(viewer, upto))

    def _legal(self, seat: SeatId | None) -> list[LegalAction]:
        state = self.table.state
        if state is None or not isinstance(seat, int):
            return []
        return [{"text": str(a), "id": a.id} for a in state.legal_actions(seat)]

    def _view_fields(
        self, conn: Conn, shown: GameState | None = None, cache: ViewCache | None = None
    ) -> ViewFields:
        """Observation, legal actions, timer, 息 numbers and (when asked for) 听 hints.

        ``shown`` is the hand to show (default: the one in progress); ``cache`` shares the
        per-viewer parts between the connections of one broadcast.
        """
        state = self.table.state
        shown = state if shown is None else shown
        seat = conn.seat
        viewer = self.viewer_of(conn)
        if cache is None:
            cache = {}
        if viewer not in cache:
            view = None if shown is None else view_of(shown, viewer)
            cache[viewer] = (
                view,
                None if view is None else view.to_json(),
                None if view is None else table_xi(view, self.table.rules),
            )
        view, obs, numbers = cache[viewer]
        legal = self._legal(seat) if state is not None else []
        fields: ViewFields = {
            "observation": obs,
            "legal_actions": legal,
            "to_act": bool(legal),
            "timer": self._timer(seat) if legal else None,
            "turn_timer": self._turn_timer(shown),
            "numbers": numbers,
        }
        if conn.hints and isinstance(seat, int) and view is not None and shown is state:
            fields["hints"] = hints(view, self.table.rules, self.hint_cache)
        return fields

    def _displayed(self) -> GameState | None:
        """The hand shown in a snapshot: the one in progress, or the last one finished."""
        if self.table.state is not None:
            return self.table.state
        return self.table.last_state

    def snapshot(self, conn: Conn, re: Any = None) -> messages.Snapshot:
        """The full view of one connection."""
        viewer = self.viewer_of(conn)
        shown = self._displayed()
        fields = self._view_fields(conn, shown)
        events = [] if shown is None else shown.events
        held = None if self.table.state is None else self.gate.waiting(viewer)
        if held is not None:
            # Waiting for a window to close: the position of its last delivery (see .gate).
            events = events[: NUM_SEATS if held.upto is None else held.upto]
            view = held.view
            answer = next((a for s, a, _ in held.actors if s == viewer), None)
            if view is not None and view.legal_actions and answer is not None:
                # The viewer has answered the decision shown: as far as it knows, its answer.
                view = answered_view(view, answer)
            legal = () if view is None else view.legal_actions
            fields = {
                "observation": None if view is None else view.to_json(),
                "legal_actions": [{"text": t, "id": Action.parse(t).id} for t in legal],
                "to_act": bool(legal),
                "timer": None,
                "turn_timer": None,
                "numbers": None if view is None else table_xi(view, self.table.rules),
            }
        history = [v for e in events if (v := e.view(viewer)) is not None]
        return messages.snapshot(
            re,
            fields,
            room=self.table.info(),
            you=self._you(conn),
            hand_number=self.table.hand_number,
            decision=self._decision(viewer, len(history)),
            history=history,
            match=self.table.match_info(),
            last_hand=self.table.last_hand if self.table.state is None else None,
            commitment=self.table.deal_commitment if self.table.state is not None else None,
        )

    def _you(self, conn: Conn) -> messages.You:
        seat = conn.seat
        if seat is None:
            held = conn.held
            name = None if held is None else self.seating.seat(held).name
            return {"seat": None, "role": "spectator", "name": name, "held": held}
        s = self.seating.seat(seat)
        return {
            "seat": seat,
            "role": "shouxing" if seat == "shouxing" else "player",
            "name": s.name,
            "held": None,
        }

    def welcome(self, conn: Conn, re: Any) -> messages.Welcome:
        seat = conn.seat if conn.seat is not None else conn.held
        s = None if seat is None else self.seating.seat(seat)
        you = self._you(conn)
        return messages.welcome(
            re,
            room_id=self.table.id,
            seat=conn.seat,
            role=you["role"],
            token=None if s is None else conn.token,
            name=you["name"],
            held=conn.held,
        )

    def send_snapshots(self) -> None:
        """A fresh snapshot to every connection (a new hand)."""
        self.out.flush()
        for conn in list(self.seating.conns):
            conn.send(self.snapshot(conn))

    def send_deal(self, origin: Conn | None, re: Any) -> None:
        """A new hand: a snapshot to each connection, except those a deal window holds."""
        state = self.table.state
        assert state is not None
        held = self.gate.dealt(state, self.seating.shouxing is not None)
        self.counted.clear()
        for conn in list(self.seating.conns):
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
        last delivery once it is settled (:mod:`.gate`). The acting connection is answered at
        once; the others' news is built and queued on the next turn of the event loop
        (``Broadcaster.later``), so that under load every player's own move is confirmed before the
        table's news is built. Anything that changes the room or sends to it flushes first, so
        the order of messages never changes.
        """
        state = self.table.state
        assert state is not None
        gate = self.gate
        act = (seat, action, auto)
        if before is not None:
            gate.after_action(before, state, first, act, self.seating.shouxing is not None)
        groups: dict[Viewer, list[Conn]] = {}
        for conn in list(self.seating.conns):
            groups.setdefault(self.viewer_of(conn), []).append(conn)
        if origin is not None and re is not None and not settled(state, self.viewer_of(origin)):
            gate.replies[origin] = re
        plan: list[tuple[Conn, Any, list[dict[str, Any]], int, Actor | None]] = []
        for viewer in viewers(state, self.seating.shouxing is not None):
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
            seen = self._visible_before(viewer, start)
            for conn in conns:
                own = any(s == conn.seat for s, _, _ in actors)
                if not views and not own:
                    continue
                actor: Actor | None = next(
                    (
                        Actor(seat=s, action=str(a), auto=au)
                        for s, a, au in actors
                        if s == conn.seat or a.kind == "discard"
                    ),
                    None,
                )
                reply = gate.replies.pop(conn, None)
                if reply is None and conn is origin:
                    reply = re
                plan.append((conn, reply, views, seen, actor))
        hand = self.table.hand_number
        cache: ViewCache = {}
        shared: dict[Any, messages.Events] = {}

        def message(
            conn: Conn,
            reply: Any,
            views: list[dict[str, Any]],
            seen: int,
            actor: Actor | None,
        ) -> messages.Events:
            # Spectators (and several tabs of one seat) share one message, encoded once.
            key = (conn.seat, conn.hints, None if actor is None else actor["seat"], seen)
            found = None if reply is not None else shared.get(key)
            if found is None:
                found = messages.events(
                    reply,
                    self._view_fields(conn, cache=cache),
                    hand_number=hand,
                    decision=self._decision(self.viewer_of(conn), seen + len(views)),
                    first=seen,
                    events=views,
                    actor=actor,
                )
                if reply is None:
                    shared[key] = found
            return found

        later = []
        for item in plan:
            if item[0] is origin:
                item[0].send(message(*item))
            else:
                later.append(item)
        if later:

            def deliver() -> None:
                for item in later:
                    item[0].send(message(*item))

            self.out.later(deliver)

    def _visible_before(self, viewer: Viewer, upto: int) -> int:
        """How many of the hand's first ``upto`` events ``viewer`` sees (counted incrementally)."""
        state = self.table.state
        assert state is not None
        done, count = self.counted.get(viewer, (0, 0))
        if done > upto:
            done, count = 0, 0
        count += sum(1 for e in state.events[done:upto] if e.view(viewer) is not None)
        self.counted[viewer] = (upto, count)
        return count

    def hand_end(self, number: int, state: GameState, settlement: Settlement) -> dict[str, Any]:
        r = state.result
        assert r is not None
        won = next((e for e in reversed(state.events) if isinstance(e, Won)), None)
        shown = observation(state, "all")
        return {
            "hand_number": number,
            "result": {
                "winner": r.winner,
                "chou": r.chou,
                "card": None if won is None else won.view("public")["card"],
                "source": r.source,
                "origin": r.origin,
                "from": self._card_from(state) if won is not None else None,
                "deal_pattern": r.deal_pattern,
                "total": 0 if r.breakdown is None else r.breakdown.total,
                "hand": None if won is None else won.view("public")["hand"],
                # RULES §8.1: a hand ends 臭 when a draw is needed and the stock is empty.
                "chou_reason": "stock_empty" if r.chou else None,
            },
            # Every seat's cards face up, as the table turns them over at the end.
            "hands": shown["hands"],
            "melds": shown["melds"],
            "dead": shown["dead"],
            "breakdown": None if r.breakdown is None else breakdown_json(r.breakdown),
            "settlement": settlement.to_dict(),
            "ledger": self.table.match.ledger(),
            "scores": list(self.table.match.scores),
            "final_pool_share": None
            if self.table.match.final_share is None
            else list(self.table.match.final_share),
            "match_over": self.table.match.is_over(),
            "record_url": f"/api/rooms/{self.table.id}/hands/{number}",
        }

    @staticmethod
    def _card_from(state: GameState) -> int | None:
        """The seat that turned up or discarded the winning card (the winner on a 自摸)."""
        for e in reversed(state.events):
            if isinstance(e, Won):
                continue
            if getattr(e, "card", None) is not None and e.kind in (
                "drew",
                "discard",
                "release",
                "wei",
            ):
                return e.seat
        return None


__all__ = ["Views", "replay_steps"]
