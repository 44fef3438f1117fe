"""Quick chat (docs/protocol.md §2.1 `chat`): fixed phrases and emotes from a seated player,
broadcast to the whole room, refused when unknown, from a spectator or in a flood, and held to
the browser's own list (web/js/chat.js)."""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from tests.test_server_protocol import Client, make_room, room_of, seat_all
from weimaque.server.app import create_app
from weimaque.server.wire.quickchat import CHAT_BURST, CHAT_INTERVAL, EMOTES, PHRASES

WEB = Path(__file__).resolve().parents[1] / "src" / "weimaque" / "web" / "js"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(tmp_path / "chat.db")) as c:
        yield c


def test_a_phrase_reaches_every_connection_and_the_game_is_untouched(client: TestClient) -> None:
    room_id = make_room(client, turn_seconds=None)
    with contextlib.ExitStack() as stack:
        clients, _ = seat_all(client, room_id, stack, seats=(0, 1))
        watcher = Client(stack.enter_context(client.websocket_connect(f"/ws/{room_id}")))
        watcher.reply(watcher.send(type="join"), "snapshot")
        for c in (*clients.values(), watcher):
            c.drain()
        room = room_of(client, room_id)
        before = (room.table.hand_number, room.state, len(room.match.hands))
        clients[0].send(type="chat", phrase="hurry")
        want = {"v": 1, "type": "chat", "seat": 0, "phrase": "hurry", "emote": None}
        for c in (*clients.values(), watcher):
            assert c.until(lambda m: m["type"] == "chat") == want
        clients[1].send(type="chat", emote="thumbs")
        for c in (*clients.values(), watcher):
            got = c.until(lambda m: m["type"] == "chat")
            assert (got["seat"], got["phrase"], got["emote"]) == (1, None, "thumbs")
        assert (room.table.hand_number, room.state, len(room.match.hands)) == before


def test_unknown_ids_and_spectators_are_refused(client: TestClient) -> None:
    room_id = make_room(client, turn_seconds=None)
    with contextlib.ExitStack() as stack:
        clients, _ = seat_all(client, room_id, stack, seats=(0,))
        c = clients[0]
        err = c.reply(c.send(type="chat", phrase="傻瓜"), "error")
        assert err["code"] == "bad_message" and "unknown phrase '傻瓜'" in err["message"]
        err = c.reply(c.send(type="chat", emote="skull"), "error")
        assert err["code"] == "bad_message" and "unknown emote 'skull'" in err["message"]
        err = c.reply(c.send(type="chat", phrase="hurry", emote="cry"), "error")
        assert err["code"] == "bad_message" and "exactly one" in err["message"]
        err = c.reply(c.send(type="chat", text="free text"), "error")
        assert err["code"] == "bad_message"
        watcher = Client(stack.enter_context(client.websocket_connect(f"/ws/{room_id}")))
        watcher.reply(watcher.send(type="join"), "snapshot")
        err = watcher.reply(watcher.send(type="chat", phrase="hello"), "error")
        assert err["code"] == "not_seated"
        assert not [m for m in c.drain() if m["type"] == "chat"]


def test_a_flood_is_refused_and_the_connection_stays_usable(client: TestClient) -> None:
    room_id = make_room(client, turn_seconds=None)
    with contextlib.ExitStack() as stack:
        clients, _ = seat_all(client, room_id, stack, seats=(0, 1))
        room = room_of(client, room_id)
        now = [1000.0]
        room.table.clock = lambda: now[0]
        c, other = clients[0], clients[1]
        other.drain()
        for _ in range(CHAT_BURST):
            c.send(type="chat", phrase="nice")
            assert c.until(lambda m: m["type"] == "chat")["seat"] == 0
        err = c.reply(c.send(type="chat", phrase="nice"), "error")
        assert err["code"] == "rate_limited"
        assert "chats too fast" in err["message"] and "try again in 2 s" in err["message"]
        assert err["echo"]["phrase"] == "nice"
        # The others heard the burst only; the refused one never reached them (read up to a
        # pong: it is answered after every message queued to that connection before it).
        pong = other.send(type="ping", t=0)
        other.reply(pong, "pong")
        heard = [m for m in other.log if m["type"] == "chat"]
        assert len(heard) == CHAT_BURST
        # The connection is usable at once, and chat again once the budget refills.
        assert c.reply(c.send(type="ping", t=1), "pong")["t"] == 1
        now[0] += CHAT_INTERVAL
        c.send(type="chat", emote="smile")
        assert c.until(lambda m: m["type"] == "chat")["emote"] == "smile"
        # Each seat has its own budget.
        other.send(type="chat", phrase="sorry")
        assert c.until(lambda m: m["type"] == "chat")["seat"] == 1


def _js_list(text: str, name: str) -> list[str]:
    found = re.search(rf"export const {name} = \[(.*?)\];", text, re.S)
    assert found is not None, f"web/js/chat.js has no {name}"
    return re.findall(r'"(\w+)"', found.group(1))


def test_the_browser_lists_the_same_phrases_and_emotes_in_both_languages() -> None:
    text = (WEB / "chat.js").read_text(encoding="utf-8")
    assert _js_list(text, "PHRASES") == list(PHRASES)
    assert _js_list(text, "EMOTES") == list(EMOTES)
    strings = (WEB / "strings.js").read_text(encoding="utf-8")
    for key in [f"chat_{p}" for p in PHRASES] + [f"emote_{e}" for e in EMOTES]:
        assert strings.count(f"    {key}: ") == 2, key  # zh and en
