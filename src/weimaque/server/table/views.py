"""What each connection is sent: snapshots, event batches, welcomes and room broadcasts.

Every message about the hand is built from the game's per-viewer ``Hand.view(viewer)`` and
``event.view(viewer)`` only (``weimaque.games``; RULES §2.1, §4.3), with viewer = the seat,
``"public"`` or one of the game's extra viewers (偎麻雀's ``"shouxing"``); the figures and hints a
game adds beside a view come from that view alone (its ``"table"`` capability).
"""

from __future__ import annotations

from typing import Any

from weimaque.games.protocol import Game, GameEvent, Hand, Replaying, TableExtras, View
from weimaque.games.registry import get_game
from weimaque.server.table.broadcast import Broadcaster
from weimaque.server.table.clocks import DecisionClocks
from weimaque.server.table.gate import Gate, Viewer, seen_by
from weimaque.server.table.options import DEFAULT_GAME
from weimaque.server.table.seats import Conn
from weimaque.server.table.table import DECISION_SPAN, Table
from weimaque.server.wire import messages
from weimaque.server.wire.common import SeatId
from weimaque.server.wire.messages import Actor, LegalAction, Timer, ViewFields


def replay_steps(record: dict[str, Any], game: Game | None = None) -> list[dict[str, Any]]:
    """A finished hand of ``game`` (default: the one its record names, else the default game) as
    steps for replay, as the game's ``"replay"`` capability makes them (``Replaying.steps``:
    the all-seeing view after each action); one step per action otherwise: the action alone,
    the record holding the rest."""
    if game is None:
        named = record.get("game")
        game = get_game(named if isinstance(named, str) else DEFAULT_GAME)
    if "replay" in game.info.capabilities and isinstance(game, Replaying):
        return game.steps(record)
    actions = record.get("actions") or []
    steps: list[dict[str, Any]] = [{"action": None, "seat": None}]
    steps += [{"action": str(text), "seat": int(seat)} for seat, text in actions]
    steps[-1]["settlement"] = record.get("settlement")
    return steps


ViewCache = dict[Viewer, tuple[View | None, dict[str, Any] | None, dict[str, Any] | None]]


class Views:
    """The messages a room sends, per connection: what each viewer may see of its table."""

    def __init__(self, table: Table, clocks: DecisionClocks, out: Broadcaster) -> None:
        """Views of ``table``, its decision clocks shown as timers, sent through ``out``."""
        self.table = table
        self.seating = table.seating
        self.clocks = clocks
        self.out = out
        #: Viewers waiting for a claim window to close (docs/protocol.md §2.3; :mod:`.gate`).
        self.gate = self._gate()
        #: Per viewer: (events counted, how many of them it sees), for the ``from`` field.
        self.counted: dict[Viewer, tuple[int, int]] = {}
        #: The game's ``"table"`` capability (figures beside a view, hints), if it has one.
        self.extras = table.game if isinstance(table.game, TableExtras) else None
        self.hint_cache = None if self.extras is None else self.extras.hint_cache()
        #: Each action id's text form as the game writes it (``Game.action``), made once.
        self.texts: dict[int, str] = {}
        #: The hand's actions counted per seat so far: (the table's list, how many, counts).
        self._counted_actions: tuple[list[tuple[int, int]] | None, int, dict[int, int]] = (
            None,
            0,
            {},
        )

    def reset(self) -> Gate:
        """The hand is gone (a 解散, a new match): nothing held, nothing counted; the old gate."""
        gate, self.gate = self.gate, self._gate()
        self.counted.clear()
        return gate

    def _gate(self) -> Gate:
        return Gate(self.table.shape.seats, self.table.setup.extra_viewers())

    @staticmethod
    def viewer_of(conn: Conn) -> Viewer:
        """The engine viewer of a connection: its seat, the 守醒, or the public."""
        if conn.seat is None:
            return "public"
        return conn.seat

    def _event_viewer(self, viewer: Viewer, hand: Hand | None) -> Any:
        """A viewer as ``hand``'s events take it: one of the game's extra viewers as the game
        names it for this hand (``TableExtras.event_viewer``: 偎麻雀's 守醒 who may see the
        dealer's hand only, RULES §2.1.2), else the viewer itself."""
        if (
            isinstance(viewer, str)
            and viewer != "public"
            and hand is not None
            and self.extras is not None
        ):
            return self.extras.event_viewer(hand, viewer)
        return seen_by(viewer)

    def _timer(self, seat: SeatId | None) -> Timer | None:
        if not isinstance(seat, int):
            return None
        s = self.seating.seats[seat]
        if s.kind == "bot" or s.autoplay or s.away:
            return None  # decided for the seat: no clock is shown
        return self.clocks.timer(seat)

    def _turn_timer(self, shown: Hand | None) -> Timer | None:
        """The clock of the one seat whose turn it is, shown to every viewer (docs/protocol.md
        §3).

        Whose turn it is to 出 is public (RULES §3); in a claim window (``Hand.in_window``) no
        clock is shown to others, since who may claim is not (§2.3 of the protocol).
        """
        hand = self.table.hand
        if hand is None or shown is not hand or hand.in_window():
            return None
        to_act = hand.to_act()
        return self._timer(to_act[0]) if len(to_act) == 1 else None

    def _decision(self, viewer: Viewer, seen: int) -> int | None:
        """The decision number of a view of the hand in progress (docs/protocol.md §2.2).

        ``seen`` is how many of the hand's events the view shows. The number is the hand's
        base plus those events plus the viewer's own actions: nothing the viewer does not know
        (no other seat's hidden answer in a claim window counts, §2.3). It grows with each of
        the viewer's decisions, since each ends with an action of its own.
        """
        if self.table.hand is None:
            return None
        own = self._own_actions(viewer) if isinstance(viewer, int) else 0
        return self.table.hand_key * DECISION_SPAN + seen + own

    def _own_actions(self, seat: int) -> int:
        """How many of the hand's actions so far are ``seat``'s (counted incrementally: the
        table's list of actions only grows within a hand, and is a new list for the next)."""
        actions = self.table.actions
        counted = self._counted_actions
        if counted[0] is not actions or counted[1] > len(actions):
            counted = (actions, 0, {})
        per_seat = counted[2]
        for s, _ in actions[counted[1] :]:
            per_seat[s] = per_seat.get(s, 0) + 1
        self._counted_actions = (actions, len(actions), per_seat)
        return per_seat.get(seat, 0)

    def decision_of(self, viewer: Viewer) -> int | None:
        """The decision number the viewer's views show now (None between hands)."""
        hand = self.table.hand
        if hand is None:
            return None
        held = self.gate.waiting(viewer)
        seats = self.table.shape.seats
        upto = len(hand.events()) if held is None else seats if held.upto is None else held.upto
        return self._decision(viewer, self._visible_before(viewer, upto))

    def text(self, action: int) -> str:
        """The text form of an action id (docs/protocol.md §2.1), remembered."""
        found = self.texts.get(action)
        if found is None:
            found = self.texts[action] = str(self.table.game.action(action))
        return found

    def _legal(self, seat: SeatId | None) -> list[LegalAction]:
        hand = self.table.hand
        if hand is None or not isinstance(seat, int):
            return []
        texts = self.texts
        return [{"text": texts.get(i) or self.text(i), "id": i} for i in hand.legal_actions(seat)]

    def _view_fields(
        self, conn: Conn, shown: Hand | None = None, cache: ViewCache | None = None
    ) -> ViewFields:
        """Observation, legal actions, timer, 息 numbers and (when asked for) 听 hints.

        ``shown`` is the hand to show (default: the one in progress); ``cache`` shares the
        per-viewer parts between the connections of one broadcast.
        """
        state = self.table.hand
        shown = state if shown is None else shown
        seat = conn.seat
        viewer = self.viewer_of(conn)
        if cache is None:
            cache = {}
        if viewer not in cache:
            view = None if shown is None else shown.view(seen_by(viewer))
            cache[viewer] = (
                view,
                None if view is None else view.to_json(),
                None if view is None else self._figures(view),
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
        extras = self.extras
        if (
            conn.hints
            and extras is not None
            and isinstance(seat, int)
            and view is not None
            and shown is state
        ):
            fields["hints"] = extras.hints(view, self.table.rules, self.hint_cache)
        return fields

    def _figures(self, view: View) -> dict[str, Any] | None:
        """The figures the game shows beside a view (偎麻雀's 息), if it shows any."""
        return None if self.extras is None else self.extras.figures(view, self.table.rules)

    def _displayed(self) -> Hand | None:
        """The hand shown in a snapshot: the one in progress, or the last one finished."""
        if self.table.hand is not None:
            return self.table.hand
        return self.table.last_state

    def snapshot(self, conn: Conn, re: Any = None) -> messages.Snapshot:
        """The full view of one connection."""
        viewer = self.viewer_of(conn)
        shown = self._displayed()
        fields = self._view_fields(conn, shown)
        events: tuple[GameEvent, ...] = () if shown is None else shown.events()
        held = None if self.table.hand is None else self.gate.waiting(viewer)
        if held is not None:
            # Waiting for a window to close: the position of its last delivery (see .gate).
            events = events[: self.table.shape.seats if held.upto is None else held.upto]
            view = held.view
            answer = next((a for s, a, _ in held.actors if s == viewer), None)
            if view is not None and answer is not None and _decides(view):
                # The viewer has answered the decision shown: as far as it knows, its answer.
                view = self.table.game.answered(view, answer)
            legal = [] if view is None else _legal_texts(view)
            parse = self.table.game.parse_action
            fields = {
                "observation": None if view is None else view.to_json(),
                "legal_actions": [{"text": t, "id": parse(t).id} for t in legal],
                "to_act": bool(legal),
                "timer": None,
                "turn_timer": None,
                "numbers": None if view is None else self._figures(view),
            }
        seen = self._event_viewer(viewer, shown)
        history = [v for e in events if (v := e.view(seen)) is not None]
        return messages.snapshot(
            re,
            fields,
            room=self.table.info(),
            you=self._you(conn),
            hand_number=self.table.hand_number,
            decision=self._decision(viewer, len(history)),
            history=history,
            match=self.table.match_info(),
            last_hand=self.table.last_hand if self.table.hand is None else None,
            commitment=self.table.deal_commitment if self.table.hand is not None else None,
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
        hand = self.table.hand
        assert hand is not None
        held = self.gate.dealt(hand)
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
        new: tuple[GameEvent, ...],
        first: int,
        seat: int,
        action: int,
        auto: bool,
        origin: Conn | None,
        re: Any,
        before: Hand | None = None,
    ) -> None:
        """Send each connection what it may see of the events ``new`` of one action.

        A viewer waiting for a claim window to close gets nothing now, and everything since its
        last delivery once it is settled (:mod:`.gate`). The acting connection is answered at
        once; the others' news is built and queued on the next turn of the event loop
        (``Broadcaster.later``), so that under load every player's own move is confirmed before the
        table's news is built. Anything that changes the room or sends to it flushes first, so
        the order of messages never changes.
        """
        hand = self.table.hand
        assert hand is not None
        gate = self.gate
        act = (seat, action, auto)
        if before is not None:
            gate.after_action(before, hand, first, act)
        groups: dict[Viewer, list[Conn]] = {}
        for conn in list(self.seating.conns):
            groups.setdefault(self.viewer_of(conn), []).append(conn)
        settled = hand.settled
        if origin is not None and re is not None and not settled(seen_by(self.viewer_of(origin))):
            gate.replies[origin] = re
        plan: list[tuple[Conn, Any, list[dict[str, Any]], int, Actor | None]] = []
        all_events: tuple[GameEvent, ...] | None = None
        public = self.extras.public_action if self.extras is not None else None
        text = self.text
        for viewer in gate.viewers:
            if not settled(seen_by(viewer)):
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
            if all_events is None:
                all_events = hand.events()
            sees = self._event_viewer(viewer, hand)
            views = [v for e in all_events[start:] if (v := e.view(sees)) is not None]
            # Count only what this viewer saw: a gap would betray a hidden event, such as
            # another seat's declined 胡 (RULES §3.1.5).
            seen = self._visible_before(viewer, start)
            for conn in conns:
                own = any(s == conn.seat for s, _, _ in actors)
                if not views and not own:
                    continue
                actor: Actor | None = next(
                    (
                        Actor(seat=s, action=text(a), auto=au)
                        for s, a, au in actors
                        if s == conn.seat or (public is not None and public(a))
                    ),
                    None,
                )
                reply = gate.replies.pop(conn, None)
                if reply is None and conn is origin:
                    reply = re
                plan.append((conn, reply, views, seen, actor))
        number = self.table.hand_number
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
                    hand_number=number,
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
        hand = self.table.hand
        assert hand is not None
        done, count = self.counted.get(viewer, (0, 0))
        if done > upto:
            done, count = 0, 0
        if upto > done:
            seen = self._event_viewer(viewer, hand)
            count += sum(1 for e in hand.events()[done:upto] if e.view(seen) is not None)
        self.counted[viewer] = (upto, count)
        return count

    def hand_end(self, number: int, hand: Hand, deltas: tuple[int, ...]) -> dict[str, Any]:
        """The ``hand_end`` payload of a finished hand the match has booked (``deltas``: what
        each seat's account changed by): the game's own end where it has one (its ``"table"``
        capability), else its outcome, the all-seeing view and the change of each seat."""
        table = self.table
        if self.extras is not None:
            extra = self.extras.hand_end(hand, table.match)
        else:
            outcome = hand.outcome()
            extra = {
                "result": None if outcome is None else outcome.to_json(),
                "view": hand.view("all").to_json(),
                "settlement": {
                    "seats": list(deltas),
                    "winners": [] if outcome is None else list(outcome.winners),
                },
            }
        final_share = extra.pop("final_pool_share", None)
        return {
            "hand_number": number,
            **extra,
            "ledger": table.ledger(),
            "scores": table.scores(),
            "final_pool_share": final_share,
            "match_over": table.is_over(),
            "record_url": f"/api/rooms/{table.id}/hands/{number}",
            **(
                {}
                if self.seating.persons is None or not table.records
                else {"seat_persons": table.records[-1].get("seat_persons")}
            ),
        }


def _legal_texts(view: View) -> list[str]:
    """The legal actions a held view still shows, as text (its JSON's ``legal_actions``; a view
    the claim-window rule holds has answered its decision, or has none: docs/protocol.md §2.3)."""
    legal = view.to_json().get("legal_actions")
    return [str(t) for t in legal] if isinstance(legal, list) else []


def _decides(view: View) -> bool:
    """Whether a view poses its viewer a decision it may have answered since: not one that
    lists no legal actions (``legal_actions: []``)."""
    legal = view.to_json().get("legal_actions")
    return not isinstance(legal, list) or bool(legal)


__all__ = ["Views", "replay_steps"]
