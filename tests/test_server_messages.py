"""The server's outbound messages, typed once (``weimaque.server.wire.messages``), are the ones it
sends and the ones docs/protocol.md §2.2 documents, field by field."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest

from weimaque.server.cluster.manager import RoomManager
from weimaque.server.table.options import RoomOptions
from weimaque.server.table.rooms import Room
from weimaque.server.table.seats import Conn
from weimaque.server.wire.messages import KINDS
from weimaque.server.wire.protocol import ProtocolError, parse_client

Msg = dict[str, Any]
PROTOCOL = Path(__file__).resolve().parents[1] / "docs" / "protocol.md"
#: Fields every kind has, documented once in §0 (conventions) and §2.
COMMON = {"v", "type", "re"}


class Wire:
    """A connection that keeps every message as the wire would carry it."""

    def __init__(self) -> None:
        self.log: list[Msg] = []

    def send(self, message: Msg) -> None:
        self.log.append(json.loads(json.dumps(message, ensure_ascii=False)))


def section(kind: str) -> str:
    """The text of docs/protocol.md's section on the server message ``kind``."""
    text = PROTOCOL.read_text("utf-8")
    outbound = text[text.index("### 2.2 Server → client") :]
    outbound = outbound[: outbound.index("\n### ", 1)]
    found = re.search(rf"^#### `{kind}`\n(.*?)(?=^#### |\Z)", outbound, re.M | re.S)
    assert found is not None, f"docs/protocol.md §2.2 has no section on `{kind}`"
    return found.group(1)


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_every_kind_and_field_is_documented(kind: str) -> None:
    text = section(kind)
    fields = set(KINDS[kind].__annotations__) - COMMON
    missing = [f for f in sorted(fields) if f"`{f}`" not in text and f'"{f}":' not in text]
    assert not missing, f"§2.2 `{kind}` does not document {missing}"


def check(message: Msg) -> None:
    """``message`` is of a kind the code lists, with every field it must have and no other."""
    kind = message.get("type")
    assert kind in KINDS, f"a message of an unlisted kind: {message!r:.200}"
    typed = KINDS[kind]
    keys = set(message)
    assert typed.__required_keys__ <= keys, (kind, sorted(typed.__required_keys__ - keys))
    assert keys <= typed.__required_keys__ | typed.__optional_keys__, (
        kind,
        sorted(keys - typed.__required_keys__ - typed.__optional_keys__),
    )


def say(room: Room, conn: Conn, **fields: Any) -> None:
    """Handle one client message as the app does: a refusal is sent back as its ``error``."""
    try:
        room.handle(conn, parse_client(json.dumps({"v": 1, **fields}, ensure_ascii=False)))
    except ProtocolError as exc:
        conn.send(exc.to_message())


def test_a_played_match_sends_only_listed_kinds_in_their_form() -> None:
    room = RoomManager(None).create(
        RoomOptions(turn_seconds=None, bot_delay_ms=0, next_seconds=None, seed=7)
    )
    wires = [Wire() for _ in range(4)]
    # Seat 0's player is signed in: their phone takes the seat at the end (``elsewhere``).
    conns = [room.connect(w, ("p0-id", "p0") if k == 0 else None) for k, w in enumerate(wires)]
    for seat, conn in enumerate(conns[:3]):
        say(room, conn, type="join", id=f"j{seat}")
        say(room, conn, type="sit", seat=seat, name=f"p{seat}", id=seat)
    say(room, conns[0], type="hints", on=True)
    say(room, conns[3], type="join")  # a spectator
    say(room, conns[1], type="ping", t=5, id="p")
    say(room, conns[2], type="chat", phrase="hello", id="c")
    say(room, conns[2], type="act", action="胡", decision=0, id="bad")  # refused: stale
    rng = random.Random(7)
    hands = 0
    for _ in range(2000):
        state = room.state
        if state is None:
            hands += 1
            if hands == 2:
                break
            for seat, conn in enumerate(conns[:3]):
                say(room, conn, type="next", id=f"n{seat}")
            continue
        seat = state.to_act()[0]
        legal = state.legal_actions(seat)
        say(
            room,
            conns[seat],
            type="act",
            action=str(rng.choice(legal)),
            decision=room.decision_of(seat),
            id=len(wires[seat].log),
        )
    assert hands == 2
    say(room, conns[0], type="dissolve", id="d")
    say(room, conns[1], type="vote", agree=True, id="v1")
    say(room, conns[2], type="vote", agree=True, id="v2")
    phone = Wire()
    wires.append(phone)
    say(room, room.connect(phone, ("p0-id", "p0")), type="join", claim=True, id="phone")
    room.out.flush()
    seen: set[str] = set()
    for wire in wires:
        for message in wire.log:
            check(message)
            seen.add(message["type"])
    assert seen == set(KINDS), sorted(set(KINDS) - seen)


def test_join_and_sit_ask_for_hints_without_a_second_snapshot() -> None:
    """``hints`` on ``sit`` and ``join`` (docs/protocol.md §2.1): the one snapshot that answers
    them carries the 听 hints of a seated connection, never a spectator's; a ``hints`` that is
    not a bool is refused and the connection goes on."""
    room = RoomManager(None).create(
        RoomOptions(bots={1: "random", 2: "random"}, turn_seconds=None, bot_delay_ms=0, seed=3)
    )
    player, watcher = Wire(), Wire()
    me, spectator = room.connect(player), room.connect(watcher)
    say(room, me, type="sit", seat=0, hints=True, id="s")
    answers = [m for m in player.log if m.get("re") == "s"]
    assert [m["type"] for m in answers] == ["welcome", "snapshot"]
    assert answers[1]["hints"] is not None
    token = answers[0]["token"]
    say(room, spectator, type="join", hints=True, id="j")
    (snap,) = [m for m in watcher.log if m.get("re") == "j" and m["type"] == "snapshot"]
    assert "hints" not in snap
    # Another tab of the seat: its join says no, and its views carry none.
    tab = Wire()
    other = room.connect(tab)
    say(room, other, type="join", token=token, hints=False, id="t")
    (snap,) = [m for m in tab.log if m.get("re") == "t" and m["type"] == "snapshot"]
    assert "hints" not in snap and snap["you"]["seat"] == 0
    say(room, other, type="join", token=token, hints="yes", id="bad")
    (error,) = [m for m in tab.log if m.get("re") == "bad"]
    assert error["type"] == "error" and error["code"] == "bad_message"
    assert error["echo"]["hints"] == "yes" and "hints" in error["message"]
    say(room, other, type="join", token=token, hints=True, id="ok")
    (snap,) = [m for m in tab.log if m.get("re") == "ok" and m["type"] == "snapshot"]
    assert snap["hints"] is not None
