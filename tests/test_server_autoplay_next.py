"""托管 and the next deal, against a real ``wmq serve`` (tests/serverkit.py; docs/protocol.md
§2.4): at a table with no countdown, a seat under 托管 whose player is connected presses 下一局
by itself, as a real table's 托管 does, so friends who all leave the play to 托管 see their
match played on to its end; a person at the table who has not pressed is still waited for; and
a room whose players have all gone rests: their seats under 托管 press nothing, no hand is
dealt, and the match is closed as it stands.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.serverkit import Client, Msg, Server, running
from tests.test_server_rest import ok, room_info, sign_up, sit, socket

LIMITS = {"rest_seconds": 2, "player_burst": 100, "room_burst": 100}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with running(tmp_path_factory.mktemp("autoplay-next"), LIMITS) as s:
        yield s


class Friends:
    """Three signed-in friends at a 三丁拐 table without a countdown or a turn timer; every
    message each socket receives is read (a socket left unread would be dropped as slow)."""

    def __init__(self, server: Server, match_hands: int) -> None:
        self.keys = [sign_up(server, name)[1] for name in ("阿明", "小芳", "老王")]
        body = {
            "game": "sandingguai",
            "options": {"match_hands": match_hands},
            "turn_seconds": None,
            "next_seconds": None,
            "bot_delay_ms": 0,
        }
        self.room_id = str(ok(server, "POST", "/api/rooms", self.keys[0], body)["room_id"])
        self.server = server
        self.clients: dict[int, Client] = {}
        self.view: dict[int, Msg | None] = {}
        self.ends: list[Msg] = []
        self.match_end: Msg | None = None
        for k in range(3):
            c = self.clients[k] = socket(server, self.room_id, self.keys[k])
            sit(c, k)
            c.reply(c.send(type="no_timer", agree=True))

    def pump(self, wait: float = 0.01) -> None:
        """Read what every open socket has received."""
        for k, c in self.clients.items():
            while True:
                try:
                    msg = c.recv(wait)
                except TimeoutError:
                    break
                if msg["type"] in ("snapshot", "events"):
                    self.view[k] = msg
                elif msg["type"] == "hand_end" and k == min(self.clients):
                    self.ends.append(msg)
                elif msg["type"] == "match_end" and k == min(self.clients):
                    # The same socket's: its hand ends come before it, whatever the others read.
                    self.match_end = msg

    def autoplay(self, k: int) -> None:
        c = self.clients[k]
        c.reply(c.send(type="autoplay", on=True), "snapshot")

    def play_until_end(self, k: int, hands: int) -> None:
        """Seat ``k`` plays its first legal action at each decision until ``hands`` hands ended
        (the others are under 托管)."""
        deadline = time.monotonic() + 120
        while len(self.ends) < hands:
            assert time.monotonic() < deadline, f"hand {hands} did not end"
            self.pump()
            view = self.view.get(k)
            if view is None or not view["legal_actions"] or len(self.ends) >= hands:
                continue
            c = self.clients[k]
            c.send(
                type="act",
                action=view["legal_actions"][0]["text"],
                hand=view["hand_number"],
                decision=view["decision"],
            )
            self.view[k] = None  # its next view is on its way

    def close(self, k: int) -> None:
        self.clients.pop(k).close()
        self.view.pop(k, None)

    def info(self) -> Msg:
        return room_info(self.server, self.room_id, self.keys[0])


def test_friends_all_under_autoplay_play_their_match_to_its_end(server: Server) -> None:
    table = Friends(server, match_hands=4)
    # 小芳 and 老王 hand their seats to 托管; 阿明 plays the first hand.
    table.autoplay(1)
    table.autoplay(2)
    table.play_until_end(0, hands=1)
    # No countdown: the table waits for 阿明, the one person at it who has not pressed 下一局
    # (the seats under 托管 are ready, once the room has had its turn: waited for, not slept).
    deadline = time.monotonic() + 10
    while True:
        table.pump()
        info = table.info()
        if [s["ready"] for s in info["seats"]] == [False, True, True]:
            break
        assert time.monotonic() < deadline, info
        time.sleep(0.05)
    assert (info["status"], info["hand_number"]) == ("between_hands", 1), info
    assert info["next_hand"] is None
    assert [s["ready"] for s in info["seats"]] == [False, True, True]
    # 阿明 turns 托管 on too: from then on every hand is dealt by itself, to the match's end.
    table.autoplay(0)
    deadline = time.monotonic() + 120
    while table.match_end is None:
        assert time.monotonic() < deadline, f"stalled after hand {len(table.ends)}: {table.info()}"
        table.pump(0.05)
    end: dict[str, Any] = table.match_end
    assert end["hands_played"] == 4 and not end["dissolved"]
    assert sum(end["scores"]) == 0, end["scores"]
    assert [e["hand_number"] for e in table.ends] == [1, 2, 3, 4]
    # The hands played by 托管 from their deal enter nobody's 战绩 (§7.4): only the first.
    for key in table.keys:
        (match,) = ok(server, "GET", "/api/me/matches?game=sandingguai", key)["matches"]
        assert match["room_id"] == table.room_id and match["hands"] == 1, match


def test_a_room_its_players_left_to_autoplay_rests_and_deals_nothing(server: Server) -> None:
    table = Friends(server, match_hands=8)
    # 小芳 and 老王 leave their seats to 托管 and go; 阿明 plays the first hand out.
    for k in (1, 2):
        table.autoplay(k)
        table.close(k)
    table.play_until_end(0, hands=1)
    # 阿明 presses 下一局 (the seats under 托管 of players who went press nothing, and are not
    # waited for), plays no move of the second hand, and goes too.
    c = table.clients[0]
    snap = c.reply(c.send(type="next"), "snapshot")
    assert snap["hand_number"] == 2
    table.close(0)
    # 托管 plays the hand out once 阿明's seat is offline; then the room rests: nothing is dealt,
    # and the match is closed as it stands after rest_seconds.
    deadline = time.monotonic() + 60
    while not (info := table.info())["match_over"]:
        assert time.monotonic() < deadline, info
        assert info["hand_number"] <= 2, info
        time.sleep(0.2)
    assert (info["hands_played"], info["ended_by"], info["dissolved"]) == (2, "idle", True), info
