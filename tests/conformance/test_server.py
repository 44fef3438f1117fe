"""The conformance kit through the real server: every registered game's rooms are played by a
real ``wmq serve`` (tests/serverkit.py) through the game seam alone (docs/new-game.md,
docs/protocol.md §1, §2, §4).

For each game (偎麻雀 with one preset, and its table of two; 三丁拐; the toy game of
tests/toygame.py, which the server finds through an entry point of a distribution on its path):
a room of bots created over HTTP plays its match to the end, and its record replays to the same
hands and ledger through the game's own ``new_match`` / ``replay``; a seated client plays a seat,
the server is killed (SIGKILL) mid-hand and started again on the same store, the client rejoins
with its token, the hand goes on from where it was and the match ends, and every view the client
was sent is one the game's own ``Hand.view`` gives its seat at some point of the replayed hands
(so none holds another seat's concealed cards or tiles).
"""

from __future__ import annotations

import contextlib
import json
import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests import toygame
from tests.serverkit import Client, Msg, Server
from weimaque.games import get_game
from weimaque.games.protocol import Game, Hand
from weimaque.games.registry import ENTRY_POINT_GROUP

TESTS = Path(__file__).resolve().parent.parent
#: Each case's room: game, preset, options (a short match) and match seed. 偎麻雀 also at its
#: table of two (RULES §2.5), whose seat count only the game's shape gives.
ROOMS: dict[str, tuple[str, str, dict[str, Any], int]] = {
    "maque": ("maque", "anxiang", {"match_hands": 2}, 11),
    "maque-2p": ("maque", "anxiang-2p", {"match_hands": 1}, 14),
    "sandingguai": ("sandingguai", "sandingguai", {"match_hands": 2}, 12),
    "toy": ("toy", "grab", {"hands": 2}, 13),
}
#: Every game of the kit: the registered ones (the toy game is registered by conftest.py).
GAMES = ["maque", "sandingguai", "toy"]
LIMITS = {"unattended_delay_ms": 1, "room_burst": 100}
#: How long a match may take on a loaded machine before the test gives up (not a speed check).
PATIENCE = 300.0


@pytest.fixture
def toy_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A distribution declaring the toy game in ``weimaque.games``, on the path of the server
    (and its bot workers) with tests/ itself: found as any installed game is."""
    site = tmp_path / "site"
    info = site / "weimaque_toy-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: weimaque-toy\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\ntoy = toygame:GAME\n")
    old = os.environ.get("PYTHONPATH")
    paths = [str(site), str(TESTS), *([old] if old else [])]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(paths))
    return site


@contextlib.contextmanager
def serving(tmp: Path, db: Path | None = None) -> Iterator[Server]:
    server = Server(tmp, LIMITS, db=db)
    try:
        yield server
    finally:
        server.stop()


def room_body(case: str, **more: Any) -> dict[str, Any]:
    game_id, preset, options, seed = ROOMS[case]
    return {"game": game_id, "variant": preset, "options": options, "seed": seed, **more}


def seats_of(game: Game, case: str) -> int:
    _, preset, options, _ = ROOMS[case]
    return game.shape(preset, options).seats


def wait_over(server: Server, room_id: str) -> dict[str, Any]:
    end = time.monotonic() + PATIENCE
    while True:
        info: dict[str, Any] = server.get(f"/api/rooms/{room_id}")["room"]
        if info["status"] == "over":
            return info
        assert time.monotonic() < end, f"the match did not end: {info['status']}"
        time.sleep(0.2)


def replayed(
    game: Game, case: str, record: dict[str, Any], seat: int | None = None
) -> list[dict[str, Any]]:
    """The match of ``record`` played again by the game alone, hand by hand from its seed with
    the recorded actions: each hand's record must be the server's (less what a table adds)
    and ``game.replay`` of the server's record must give the same result; the ledgers agree.
    With ``seat``: every view that seat may have been shown, at each point of each hand its
    view, and its view as answered while a claim window holds it (``Game.answered``)."""
    _, preset, options, _ = ROOMS[case]
    play = game.new_match(preset, options, int(record["seed"]))
    views: list[dict[str, Any]] = []

    def seen(hand: Hand) -> None:
        if seat is None:
            return
        view = hand.view(seat)
        views.append(json.loads(json.dumps(view.to_json())))
        for action in hand.legal_actions(seat):
            views.append(json.loads(json.dumps(game.answered(view, action).to_json())))

    for stored in record["hands"]:
        hand = play.next_hand()
        seen(hand)
        for who, text in stored["actions"]:
            hand.apply(int(who), game.parse_action(text).id)
            seen(hand)
        assert hand.is_terminal()
        own = hand.record()
        assert {k: stored[k] for k in own} == json.loads(json.dumps(own))
        again = game.replay(stored)
        assert again.is_terminal() and again.outcome() == hand.outcome()
        play.finish(hand)
    assert play.is_over()
    assert play.ledger().to_json() == record["ledger"]
    return views


@pytest.mark.parametrize("case", sorted(ROOMS))
def test_a_room_of_bots_plays_its_match_to_the_end(
    case: str, toy_path: Path, tmp_path: Path
) -> None:
    game_id, preset, _, seed = ROOMS[case]
    game = get_game(game_id)
    seats = seats_of(game, case)
    bots = {str(k): "random" for k in range(seats)}
    with serving(tmp_path) as server:
        listed = {g["info"]["id"] for g in server.get("/api/games")["games"]}
        assert game_id in listed
        status, data = server.post("/api/rooms", room_body(case, bots=bots, bot_delay_ms=0))
        assert status == 201, data
        room = data["room"]
        assert (room["game"], room["variant"], len(room["seats"])) == (
            game_id,
            preset,
            seats,
        )
        info = wait_over(server, data["room_id"])
        record = server.get(f"/api/rooms/{data['room_id']}/record")
        hands = server.get(f"/api/rooms/{data['room_id']}/hands")
    assert info["hands_played"] == len(record["hands"]) == len(hands["hands"]) >= 1
    assert record["seed"] == seed
    replayed(game, case, record)


@pytest.mark.parametrize("game_id", GAMES)
def test_a_bad_room_of_a_game_is_refused_quoting_it(game_id: str, toy_path: Path) -> None:
    game = get_game(game_id)
    key = game.schema.options[0].key
    with serving(toy_path.parent) as server:
        status, data = server.post("/api/rooms", room_body(game_id, options={key: "lots"}))
        assert status == 400 and "'lots'" in data["error"]["message"], data
        status, data = server.post("/api/rooms", room_body(game_id, variant="nowhere"))
        assert status == 400 and "'nowhere'" in data["error"]["message"], data
        status, data = server.post("/api/rooms", {"game": "chess-960"})
        assert status == 400 and data["error"]["code"] == "bad_game", data
        assert "'chess-960'" in data["error"]["message"]


class Player:
    """A client at seat 0 playing each decision it is shown, by action id (docs/protocol.md
    §2.1); it keeps every observation it was sent."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.views: list[dict[str, Any]] = []
        self.acked: list[tuple[int, str]] = []
        self.over = False
        self.last: Msg | None = None

    def take(self, msg: Msg) -> None:
        if msg["type"] in ("snapshot", "events"):
            if msg.get("observation") is not None:
                self.views.append(msg["observation"])
            self.last = msg
        elif msg["type"] == "hand_end" and not msg["match_over"]:
            self.client.send(type="next")
        elif msg["type"] == "match_end":
            self.over = True

    def step(self) -> bool:
        """Play one decision of seat 0 if it has one: whether it acted."""
        msg = self.last
        if msg is None or not msg["legal_actions"] or msg.get("hand_number") is None:
            return False
        choice = msg["legal_actions"][0]
        i = self.client.send(
            type="act", action=choice["id"], hand=msg["hand_number"], decision=msg["decision"]
        )
        self.last = None
        while True:
            reply = self.client.recv(30)
            self.take(reply)
            if reply.get("ack") == i:
                self.acked.append((int(msg["hand_number"]), choice["text"]))
                return True
            if reply["type"] == "error" and reply.get("re") == i:
                assert reply["code"] == "stale", reply  # a later view is on its way
                return False

    def play(self, actions: int | None = None) -> None:
        """Play until ``actions`` more are acknowledged, or to the match's end."""
        end = time.monotonic() + PATIENCE
        goal = None if actions is None else len(self.acked) + actions
        while not self.over and (goal is None or len(self.acked) < goal):
            assert time.monotonic() < end, "the match did not end"
            if not self.step():
                with contextlib.suppress(TimeoutError):
                    self.take(self.client.recv(1.0))


@pytest.mark.parametrize("game_id", GAMES)
def test_a_player_rejoins_after_the_server_is_killed_and_the_match_ends(
    game_id: str, toy_path: Path, tmp_path: Path
) -> None:
    game = get_game(game_id)
    seats = seats_of(game, game_id)
    bots = {str(k): "random" for k in range(1, seats)}
    db = tmp_path / "kept.db"
    body = room_body(game_id, bots=bots, bot_delay_ms=0, turn_seconds=None, next_seconds=None)
    (tmp_path / "first").mkdir()
    (tmp_path / "second").mkdir()
    first = Server(tmp_path / "first", LIMITS, db=db)
    player: Player | None = None
    try:
        status, data = first.post("/api/rooms", body)
        assert status == 201, data
        room_id = data["room_id"]
        player = Player(first.ws(room_id))
        i = player.client.send(type="sit", seat=0, name="p0")
        welcome = player.client.until(lambda m: m["type"] == "welcome" and m.get("re") == i)
        token = welcome["token"]
        player.client.send(type="no_timer", agree=True)
        player.play(actions=3)
        before = player.acked[-1][0]
        first.proc.kill()  # SIGKILL: no shutdown runs, only what the store holds survives
        first.proc.wait(10)
    finally:
        if player is not None:
            player.client.close()
        first.stop()
    second = Server(tmp_path / "second", LIMITS, db=db)
    try:
        again = Player(second.ws(room_id))
        again.acked = list(player.acked)
        again.views = list(player.views)
        i = again.client.send(type="join", token=token)
        again.client.until(lambda m: m["type"] == "welcome" and m.get("re") == i)
        snapshot = again.client.until(lambda m: m["type"] == "snapshot")
        assert snapshot["hand_number"] == before  # the hand goes on where it was
        again.take(snapshot)
        again.play()
        assert again.over
        record = second.get(f"/api/rooms/{room_id}/record")
        again.client.close()
    finally:
        second.stop()
    allowed = replayed(game, game_id, record, seat=0)
    # What seat 0 acknowledged before the kill is in the stored hand, in order.
    kept = [t for s, t in record["hands"][before - 1]["actions"] if int(s) == 0]
    mine = [t for number, t in player.acked if number == before]
    assert kept[: len(mine)] == mine
    assert again.views and allowed
    for view in again.views:
        assert view in allowed, view


def test_the_toy_game_is_found_through_its_entry_point(toy_path: Path) -> None:
    with serving(toy_path.parent) as server:
        games = {g["info"]["id"]: g for g in server.get("/api/games")["games"]}
    assert games["toy"]["info"] == toygame.GAME.info.to_json()
    assert games["toy"]["schema"] == toygame.GAME.schema.to_json()
