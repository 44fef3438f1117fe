"""The room's transitions driven at random by its players, and the table's invariants after each.

A Hypothesis state machine (derandomized: the same runs every time) plays a room of the toy game
(tests/toygame.py, two seats) as its players would: sitting down, acting, pressing 下一局,
leaving, dropping and coming back (the room rests, docs/protocol.md §2.4), proposing and voting
解散, choosing 再来一局, and letting time pass (the countdown, the vote's and the window's clocks,
托管's moves, a resting room closed). After every step the table keeps the invariants ``Table``
states (``Table.check``), a refused message is refused with a protocol error code and changes
nothing, and RoomInfo agrees with the table.
"""

from __future__ import annotations

import ast
import asyncio
import json
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

import weimaque.server
from tests import toygame
from weimaque.games import register
from weimaque.server.table.rooms import Room, RoomOptions
from weimaque.server.table.seats import Conn
from weimaque.server.wire.protocol import AnyClientMessage, ProtocolError, parse_client

register(toygame.GAME, replace=True)

SEATS = (0, 1)


class Inbox:
    """A connection's client: keeps what it is sent."""

    def __init__(self) -> None:
        self.log: list[Any] = []

    def send(self, message: Any) -> None:
        self.log.append(message)

    def fail(self, reason: str) -> None:
        self.log.append({"failed": reason})


def steady(info: Any) -> Any:
    """RoomInfo less its timers' wall-clock deadlines (``deadline_ms``, read off the wall clock
    as RoomInfo is built: docs/protocol.md §1)."""
    if isinstance(info, dict):
        return {k: steady(v) for k, v in info.items() if k != "deadline_ms"}
    if isinstance(info, list):
        return [steady(v) for v in info]
    return info


def message(**fields: Any) -> AnyClientMessage:
    """A client message as a socket's reader parses it (docs/protocol.md §2)."""
    return parse_client(json.dumps({"v": 1, **fields}))


class RoomMachine(RuleBasedStateMachine):
    """Two players at a room of the toy game, with a clock of the test's own."""

    def __init__(self) -> None:
        super().__init__()
        self.now = 1000.0
        opts = RoomOptions(
            game="toy",
            preset="grab",
            seed=7,
            next_seconds=5,
            vote_seconds=10,
            bot_delay_ms=0,
            turn_seconds=20,
        )
        self.room = Room("machine", opts, 7, None)
        self.room.table.clock = lambda: self.now
        self.room.table.configure(unattended_delay=0.0, rest_seconds=60.0)
        #: Each seat's token (None: not held) and its open connection (None: none).
        self.tokens: dict[int, str | None] = dict.fromkeys(SEATS)
        self.conns: dict[int, Conn | None] = dict.fromkeys(SEATS)
        self.refusals = 0

    def send(self, who: int, **fields: Any) -> bool:
        """The connection of seat ``who`` sends a message; whether the room took it."""
        conn = self.conns[who]
        assert conn is not None
        before = steady(self.room.info())
        try:
            answered = self.room.handle(conn, message(**fields))
        except ProtocolError as exc:
            assert exc.code != "internal", exc
            # A refused message changes nothing.
            assert steady(self.room.info()) == before, fields
            self.refusals += 1
            return False
        assert answered is None  # no store: answered at once
        return True

    # ----------------------------------------------------------------- the players

    @initialize()
    def seated(self) -> None:
        """Both players sit down: the match's first hand is dealt at once."""
        for seat in SEATS:
            self.come(seat)
        assert self.room.table.hand is not None

    @rule(seat=st.sampled_from(SEATS))
    def come(self, seat: int) -> None:
        """A player opens a connection: sits down, or comes back with the seat's token."""
        conn = self.conns[seat]
        if conn is None:
            conn = self.conns[seat] = self.room.connect(Inbox())
        elif conn.seat is not None or conn.held is not None:
            return
        token = self.tokens[seat]
        if token is None:
            if self.send(seat, type="sit", seat=seat, name=f"p{seat}"):
                self.tokens[seat] = conn.token
        else:
            assert self.send(seat, type="join", token=token)

    @rule(seat=st.sampled_from(SEATS))
    def drop(self, seat: int) -> None:
        """A player's connection closes; the seat stays theirs."""
        conn = self.conns[seat]
        if conn is not None:
            self.room.disconnect(conn)
            self.conns[seat] = None

    @precondition(lambda self: self.room.table.hand is not None)
    @rule(data=st.data(), moves=st.integers(1, 12))
    def act(self, data: st.DataObject, moves: int) -> None:
        """Connected players whose turn it is play legal actions, ``moves`` of them at most."""
        for _ in range(moves):
            hand = self.room.table.hand
            seats = [] if hand is None else [s for s in hand.to_act() if self.conns[s] is not None]
            if hand is None or not seats:
                return
            seat = data.draw(st.sampled_from(sorted(seats)))
            action = data.draw(st.sampled_from(sorted(hand.legal_actions(seat))))
            decision = self.room.decision_of(seat)
            number = self.room.table.hand_number
            assert self.send(seat, type="act", action=action, decision=decision, hand=number)
            self.room.table.check()

    @rule(seat=st.sampled_from(SEATS))
    def next_hand(self, seat: int) -> None:
        if self.conns[seat] is not None:
            self.send(seat, type="next")

    @rule(seat=st.sampled_from(SEATS), on=st.booleans())
    def autoplay(self, seat: int, on: bool) -> None:
        if self.conns[seat] is not None:
            self.send(seat, type="autoplay", on=on)

    @rule(seat=st.sampled_from(SEATS))
    def leave(self, seat: int) -> None:
        if self.conns[seat] is not None and self.send(seat, type="leave"):
            self.tokens[seat] = None

    @rule(seat=st.sampled_from(SEATS))
    def dissolve(self, seat: int) -> None:
        if self.conns[seat] is not None:
            self.send(seat, type="dissolve")

    @rule(seat=st.sampled_from(SEATS), agree=st.booleans())
    def vote(self, seat: int, agree: bool) -> None:
        if self.conns[seat] is not None:
            self.send(seat, type="vote", agree=agree)

    @rule(seat=st.sampled_from(SEATS))
    def rematch(self, seat: int) -> None:
        if self.conns[seat] is not None:
            self.send(seat, type="rematch")

    @rule(seconds=st.sampled_from((1.0, 6.0, 11.0, 25.0, 61.0)))
    def time_passes(self, seconds: float) -> None:
        """The room's own clocks run (``AutoPlay.housekeep``), and 托管 or the turn timer makes
        the automatic move that is due, as the room's task would."""
        self.now += seconds
        self.room.auto.housekeep()
        wait, seat = self.room.auto.due()
        hand = self.room.table.hand
        if hand is not None and seat is not None and wait <= 0:
            action = min(hand.legal_actions(seat))
            assert asyncio.run(self.room.play(seat, action, auto=True))
        self.room.out.flush()

    # ----------------------------------------------------------------- after every step

    @invariant()
    def table_invariants(self) -> None:
        self.room.table.check()

    @invariant()
    def info_agrees(self) -> None:
        table, info = self.room.table, self.room.info()
        assert info["status"] == table.status
        assert info["match_over"] == table.is_over()
        assert (info["next_hand"] is not None) <= (table.next_deadline is not None)
        assert (info["vote"] is None) == (table.vote is None)
        assert (info["rematch"] is None) == (table.rematch is None)
        for seat in SEATS:
            # a freed seat's token no longer holds it; a held one still does
            token = self.tokens[seat]
            if token is not None and self.room.seating.seats[seat].taken:
                assert self.room.seat_of_token(token) == seat

    @invariant()
    def seats_follow_tokens(self) -> None:
        for seat in SEATS:
            taken = self.room.seating.seats[seat].taken
            if self.tokens[seat] is not None and not taken:
                # freed by the room (再来一局 without them, a match ended as it stood)
                self.tokens[seat] = None
                conn = self.conns[seat]
                if conn is not None:
                    assert conn.seat is None and conn.token is None


RoomMachine.TestCase.settings = settings(
    derandomize=True,
    max_examples=60,
    stateful_step_count=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
test_room_transitions_keep_the_tables_invariants = RoomMachine.TestCase


def _is_table(node: ast.expr) -> bool:
    """Whether an expression names a room's table: ``table``, ``self.table``, ``room.table`` …"""
    return (isinstance(node, ast.Name) and node.id == "table") or (
        isinstance(node, ast.Attribute) and node.attr == "table"
    )


def test_only_the_table_changes_its_fields() -> None:
    """No module of the server but table.py assigns a field of a ``Table`` or changes one in
    place: the state changes only through the table's transitions (docs/architecture.md)."""
    server = Path(weimaque.server.__file__).parent
    owner = server / "table" / "table.py"
    changes = {"append", "add", "clear", "extend", "pop", "remove", "update", "discard"}
    found = []
    for path in sorted(server.rglob("*.py")):
        if path == owner:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    targets += target.elts if isinstance(target, ast.Tuple) else [target]
            elif isinstance(node, ast.AugAssign | ast.AnnAssign):
                targets.append(node.target)
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in changes
            ):
                targets.append(node.func.value)
            for target in targets:
                while isinstance(target, ast.Subscript):
                    target = target.value
                if isinstance(target, ast.Attribute) and _is_table(target.value):
                    line = getattr(node, "lineno", 0)
                    found.append(f"{path.relative_to(server)}:{line}: {ast.unparse(node)}")
    assert found == []
