"""A real ``wmq serve`` room of four persons with a rotating 守醒 (RULES §2.1.1, §2.1.2, §8.6.1;
docs/protocol.md §1): four people sit at the table's four places, three play each hand and the
one opposite the dealer sits out as 守醒, seeing what ``shouxing_sees`` lets him; the role moves
with the deal; a SIGKILL mid-match and a restart keep who sits where; the match ends with a
ledger of four persons summing to zero with the pool, as the match record replays it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.serverkit import Client, Server
from tests.test_server_durability import crash
from tests.test_store_games import call, sign_up
from weimaque.games.maque.match import replay_match, seat_persons

Msg = dict[str, Any]
FOUR = {
    "shouxing": True,
    "shouxing_rotation": True,
    "shouxing_liuju_reward": 2,
    "match_hands": 3,
}
#: Where person k first sits: dealer person 0 deals, so seats 0, 1, 2 are persons 0, 1, 3
#: and person 2 sits out (RULES §2.1.1).
FIRST_PLACE: dict[int, int | str] = {0: 0, 1: 1, 2: "shouxing", 3: 2}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    s = Server(tmp_path_factory.mktemp("four"), {"room_burst": 1000})
    try:
        yield s
    finally:
        s.stop()


def test_the_room_options(server: Server) -> None:
    """``shouxing_rotation`` and ``shouxing_sees`` are room options; a bad value is quoted; a
    room of four persons keys its bots by person (0–3)."""
    options = server.get("/api/presets")["room_options"]
    assert options["shouxing_rotation"] == "bool"
    assert options["shouxing_sees"] == ["all", "dealer"]
    status, body = server.post("/api/rooms", {"options": {**FOUR, "shouxing_sees": "behind"}})
    assert status == 400 and "'behind'" in body["error"]["message"]
    status, body = server.post("/api/rooms", {"options": FOUR, "bots": {"4": "greedy"}})
    assert status == 400 and body["error"]["code"] == "bad_bots"
    assert "no person 4" in body["error"]["message"]
    made = server.room(options=FOUR, bots={"3": "greedy"})
    room = made["room"]
    assert len(room["seats"]) == 3 and len(room["persons"]) == 4
    assert [p["seat"] for p in room["persons"]] == [0, 1, "shouxing", 2]
    assert room["persons"][3]["kind"] == "bot" and room["seats"][2]["person"] == 3
    assert room["shouxing"]["person"] == 2
    assert "shouxing_invite" not in made or made["shouxing_invite"] is None


class Person:
    """One person's socket: the seat it holds now and its latest view."""

    def __init__(self, server: Server, room_id: str, head: dict[str, str] | None = None) -> None:
        self.ws: Client = server.ws(room_id, additional_headers=head)
        self.seat: int | str | None = None
        self.view: Msg | None = None
        self.token = ""
        self.seen: list[Msg] = []
        #: what it was sent since its views were last checked (``play_hand``)
        self.fresh: list[Msg] = []

    def take(self, msg: Msg) -> None:
        if msg["type"] == "welcome":
            self.seat = msg["seat"]
            self.fresh.clear()  # what it is sent from now on is sent to its new place
        elif msg["type"] in ("snapshot", "events"):
            self.view = msg
        self.seen.append(msg)
        self.fresh.append(msg)

    def pump(self, wait: float = 0.01) -> list[Msg]:
        got = []
        while True:
            try:
                msg = self.ws.recv(wait)
            except TimeoutError:
                return got
            self.take(msg)
            got.append(msg)

    def until(self, pred: Any, timeout: float = 15.0) -> Msg:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                msg = self.ws.recv(max(0.01, end - time.monotonic()))
            except TimeoutError:
                break
            self.take(msg)
            if pred(msg):
                return msg
        last = [(m["type"], m.get("re"), m.get("code"), m.get("hand_number")) for m in self.ws.log]
        raise AssertionError(f"timed out at {self.seat}; last: {last[-12:]}")


class Four:
    """Four persons at one room, each playing its first legal action when asked."""

    def __init__(
        self,
        server: Server,
        room_id: str,
        tokens: list[str] | None = None,
        heads: list[dict[str, str]] | None = None,
    ) -> None:
        """``heads``: each person's socket's (a signed-in player's, docs/protocol.md §7.2)."""
        self.server, self.room_id = server, room_id
        self.people = [
            Person(server, room_id, None if heads is None else heads[p]) for p in range(4)
        ]
        self.ended: dict[int, Msg] = {}
        self.match_end: Msg | None = None
        for p, person in enumerate(self.people):
            if tokens is None:
                i = person.ws.send(type="sit", seat=FIRST_PLACE[p], name=f"P{p}")
            else:
                i = person.ws.send(type="join", token=tokens[p])
            welcome = person.until(lambda m, i=i: m["type"] == "welcome" and m.get("re") == i)
            person.token = str(welcome["token"])

    def pump(self) -> None:
        for person in self.people:
            for msg in person.pump():
                if msg["type"] == "hand_end":
                    self.ended.setdefault(msg["hand_number"], msg)
                elif msg["type"] == "match_end":
                    self.match_end = msg

    def step(self, timeout: float = 15.0) -> bool:
        """One action by whoever must decide (and 下一局 after a hand); False once over."""
        end = time.monotonic() + timeout
        asked: set[int] = set()
        while time.monotonic() < end:
            self.pump()
            if self.match_end is not None:
                return False
            for number, msg in self.ended.items():
                if number not in asked and not msg["match_over"]:
                    asked.add(number)
                    for person in self.people:
                        if isinstance(person.seat, int):
                            person.ws.send(type="next")
            for person in self.people:
                view = person.view
                if view is not None and view.get("legal_actions"):
                    action = view["legal_actions"][0]["text"]
                    person.view = None
                    person.ws.send(
                        type="act",
                        action=action,
                        hand=view["hand_number"],
                        decision=view["decision"],
                    )
                    return True
        raise AssertionError("nobody is asked to decide")

    def info(self) -> Msg:
        return dict(self.server.get(f"/api/rooms/{self.room_id}")["room"])

    def sitting_out(self) -> Person:
        # As a hand is dealt each person is told its new place on its own socket: read them
        # all until exactly one sits out (a person between two welcomes holds none).
        deadline = time.monotonic() + 15
        while len(out := [p for p in self.people if p.seat == "shouxing"]) != 1:
            assert time.monotonic() < deadline, [p.seat for p in self.people]
            self.pump()
        return out[0]

    def close(self) -> None:
        for person in self.people:
            person.ws.close()


def check_shouxing_view(msg: Msg, sees: str) -> None:
    """Hidden information (RULES §2.1.2): what the person sitting out is sent of the hand."""
    obs = msg.get("observation")
    if obs is not None:
        assert obs["viewer"] == "shouxing" and "hand" not in obs and "stock" not in obs
        dealer = obs["dealer"]
        hands = obs["hands"]
        if sees == "dealer":
            assert hands[dealer] is not None
            assert [h for s, h in enumerate(hands) if s != dealer] == [None, None]
            for s, melds in enumerate(obs["melds"]):
                if s != dealer and not obs.get("result"):
                    assert all(m["cards"] is not None or m["face_down"] for m in melds)
        else:
            assert all(h is not None for h in hands)
    assert not msg.get("legal_actions")
    for event in msg.get("history", []) + msg.get("events", []):
        if event["type"] == "dealt" and sees == "dealer":
            assert ("cards" in event) == (event["seat"] == event["dealer"])


def play_hand(four: Four, sees: str, stop_after: int | None = None) -> int:
    """Play until the hand in progress ends (or ``stop_after`` actions); checks the view of
    the person sitting out on the way; the number of actions taken."""
    start = len(four.ended)
    taken = 0
    while len(four.ended) == start and four.match_end is None:
        if stop_after is not None and taken >= stop_after:
            break
        if not four.step():
            break
        taken += 1
        for msg in four.sitting_out().fresh:
            check_shouxing_view(msg, sees)
        four.sitting_out().fresh.clear()
    return taken


def wait_deal(four: Four, number: int) -> None:
    """Press 下一局 (each person holding a seat) and wait until every person has a view of hand
    ``number``."""
    four.pump()
    if number > 1:
        for person in four.people:
            if isinstance(person.seat, int):
                person.ws.send(type="next")
    for person in four.people:
        if any(
            m["type"] in ("snapshot", "events") and m.get("hand_number") == number
            for m in person.seen
        ):
            continue
        person.until(
            lambda m: m["type"] in ("snapshot", "events") and m.get("hand_number") == number
        )


@pytest.mark.parametrize("sees", ["dealer", "all"])
def test_four_persons_play_three_hands_through_a_restart(tmp_path: Path, sees: str) -> None:
    """Three hands of a four-person room (seeded), with the server SIGKILLed mid-hand 2 and
    restarted: who sits out follows the dealer person (D+2) each hand, the seats follow the
    rotation (D, D+1, D+3), everyone keeps their place through the restart, the 守醒 sees only
    what ``shouxing_sees`` allows, and the match ends with four persons' ledger summing to zero
    with the pool, which the match record replays."""
    db = tmp_path / "four.db"
    server = Server(tmp_path, {"room_burst": 1000}, db=db)
    options = {**FOUR, "shouxing_sees": sees}
    made = server.room(options=options, seed=7, turn_seconds=600, next_seconds=None)
    room_id = made["room_id"]
    four = Four(server, room_id)
    try:
        wait_deal(four, 1)
        assert four.sitting_out() is four.people[2]
        play_hand(four, sees)
        first = four.ended[1]
        assert first["seat_persons"] == [0, 1, 3]
        assert len(first["ledger"]["seats"]) == 4
        # between hands everyone stays where the hand was played (unless 下一局 dealt already)
        between = four.info()
        if between["status"] == "between_hands":
            assert [p["seat"] for p in between["persons"]] == [0, 1, "shouxing", 2]
        # the role moves with the deal (RULES §8.2.1): the next dealer person deals hand 2
        dealer = first["settlement"]["next_dealer"]
        wait_deal(four, 2)
        four.pump()
        info = four.info()
        assert [p["seat"] for p in info["persons"]].index("shouxing") == (dealer + 2) % 4
        assert four.people.index(four.sitting_out()) == (dealer + 2) % 4
        places = {p: four.people[p].seat for p in range(4)}
        assert tuple(next(p for p in range(4) if places[p] == s) for s in range(3)) == seat_persons(
            dealer
        )
        play_hand(four, sees, stop_after=4)
        tokens = [p.token for p in four.people]
        four.close()
        crash(server)
        server = Server(tmp_path, {"room_burst": 1000}, db=db)
        four = Four(server, room_id, tokens)
        for p in range(4):
            assert four.people[p].seat == places[p], "a restart keeps who sits where"
        info = four.info()
        assert info["status"] == "playing" and info["hand_number"] == 2
        assert [p["seat"] for p in info["persons"]] == [places[p] for p in range(4)]
        while four.match_end is None:
            play_hand(four, sees)
            four.pump()
        end = four.match_end
        assert end is not None
        ledger = end["ledger"]
        assert len(ledger["seats"]) == 4 and len(end["scores"]) == 4
        assert sum(ledger["seats"]) + ledger["shouxing"] + ledger["pool"] == 0
        assert sorted(end["ranking"]) == [0, 1, 2, 3]
        record = server.get(f"/api/rooms/{room_id}/record")
        assert len(record["hands"]) == 3
        for hand in record["hands"]:
            d = hand["settlement"]["dealer"]
            assert hand["seat_persons"] == list(seat_persons(d))
        record["seed"] = int(record["seed_text"])
        replayed = replay_match(record)
        assert replayed.ledger()["persons"] == ledger["seats"]
        summaries = server.get(f"/api/rooms/{room_id}/hands")
        assert summaries["ledger"]["seats"] == ledger["seats"]
    finally:
        four.close()
        server.stop()


def test_the_person_sitting_out_may_chat_and_may_not_act(server: Server) -> None:
    """The 守醒 of the hand chats like a player and is refused a move and 下一局."""
    made = server.room(options=FOUR, seed=3, turn_seconds=600, next_seconds=None)
    four = Four(server, made["room_id"])
    try:
        wait_deal(four, 1)
        out = four.sitting_out()
        i = out.ws.send(type="chat", emote="thumbs")
        chat = out.until(lambda m: m["type"] in ("chat", "error") and m.get("re", i) == i)
        assert chat["type"] == "chat" and chat["seat"] == "shouxing", chat
        i = out.ws.send(type="act", action="过", hand=1, decision=0)
        err = out.until(lambda m: m.get("re") == i)
        assert err["type"] == "error"
    finally:
        four.close()


def test_every_person_votes_to_dissolve_and_answers_follow_their_persons(server: Server) -> None:
    """docs/protocol.md §2.4 at a table of four persons: the one sitting out has a share in
    the ledger (RULES §8.6.1), so he may propose 解散, his refusal closes the vote, and the
    vote waits for his answer; a vote open as the next hand is dealt keeps each person's
    answer at the place the person takes."""
    made = server.room(options=FOUR, seed=3, turn_seconds=600, next_seconds=None)
    four = Four(server, made["room_id"])

    def vote_shown(person: Person, i: int) -> Msg:
        return person.until(lambda m: m["type"] in ("room", "error") and m.get("re") == i)

    try:
        wait_deal(four, 1)
        out = four.sitting_out()
        # He proposes; a seated person refuses: closed at once, his proposal waits its time.
        room = vote_shown(out, out.ws.send(type="dissolve"))["room"]
        assert room["vote"]["by"] == "shouxing" and room["vote"]["shouxing"] is True
        assert room["vote"]["answers"] == [None, None, None]
        seated = [p for p in four.people if isinstance(p.seat, int)]
        seated[0].ws.send(type="vote", agree=False)
        result = out.until(lambda m: m["type"] == "vote_result")
        assert result["passed"] is False and result["refused_by"] == [seated[0].seat]
        i = out.ws.send(type="dissolve")
        assert out.until(lambda m: m.get("re") == i)["code"] == "rate_limited"
        # A seated person proposes, the other two agree: the vote still waits for the 守醒,
        # who refuses.
        room = vote_shown(seated[1], seated[1].ws.send(type="dissolve"))["room"]
        assert room["vote"]["shouxing"] is None
        for p in (seated[0], seated[2]):
            vote_shown(p, p.ws.send(type="vote", agree=True))
        assert four.info()["vote"]["answers"] == [True, True, True]
        out.ws.send(type="vote", agree=False)
        result = out.until(lambda m: m["type"] == "vote_result")
        assert result["passed"] is False and result["refused_by"] == ["shouxing"]

        # Between hands the 守醒 agrees to another person's proposal; the next deal moves
        # everyone, and the answers go with their persons.
        play_hand(four, "all")
        proposer, shouxing = seated[2], out
        vote_shown(proposer, proposer.ws.send(type="dissolve"))
        vote_shown(shouxing, shouxing.ws.send(type="vote", agree=True))
        wait_deal(four, 2)
        four.pump()
        info = four.info()
        vote = info["vote"]
        assert shouxing.seat != "shouxing", "seed 3: another person sits out hand 2"
        assert vote["by"] == proposer.seat
        agreed = {proposer.seat, shouxing.seat}
        answers = {**dict(enumerate(vote["answers"])), "shouxing": vote["shouxing"]}
        assert {s for s, a in answers.items() if a is True} == agreed
        assert all(a is None for s, a in answers.items() if s not in agreed)
        # The last two agree: the match ends, settled for four persons.
        for p in four.people:
            if p.seat not in agreed:
                p.ws.send(type="vote", agree=True)
        end = out.until(lambda m: m["type"] == "match_end")
        assert end["dissolved"] is True and len(end["ledger"]["seats"]) == 4
    finally:
        four.close()


def test_a_bot_sitting_out_is_not_waited_for(server: Server) -> None:
    """A bot agrees to 解散 without answering (docs/protocol.md §2.4), when it sits out too: the
    three persons at the seats agreeing end the match at once."""
    # Person 2, who sits out hand 1 (FIRST_PLACE), is a bot: the persons at seats 0, 1 and 2 are
    # persons 0, 1 and 3.
    made = server.room(options=FOUR, bots={"2": "greedy"}, seed=3, turn_seconds=600)
    players = [server.ws(made["room_id"]) for _ in range(3)]
    try:
        for k, ws in enumerate(players):
            i = ws.send(type="sit", seat=k, name=f"P{k}")
            ws.until(lambda m, i=i: m["type"] == "welcome" and m.get("re") == i)
        first, *others = players
        room = first.reply(first.send(type="dissolve"), "room")["room"]
        assert room["shouxing"]["kind"] == "bot" and room["vote"]["shouxing"] is None
        for ws in others:
            ws.reply(ws.send(type="vote", agree=True))
        result = first.until(lambda m: m["type"] == "vote_result")
        assert result["passed"] is True and result["absent"] == []
        end = first.until(lambda m: m["type"] == "match_end")
        assert end["dissolved"] is True and len(end["ledger"]["seats"]) == 4
    finally:
        for ws in players:
            ws.close()


def test_zhanji_is_per_person_through_a_restart(store_target: str, tmp_path: Path) -> None:
    """docs/protocol.md §7.3 at a table of four persons, on SQLite and PostgreSQL: four
    signed-in players play a three-hand match (the server SIGKILLed and restarted after the first
    hand); each one's 战绩 lists the match once, with the four people and each one's total as the
    ledger has it (the 守醒's shares included), counted over the three hands at the table."""
    server = Server(tmp_path, {"room_burst": 1000}, db=store_target)
    people = [sign_up(server, f"P{p}") for p in range(4)]
    heads = [head for _, head in people]
    made = server.room(options=FOUR, seed=5, turn_seconds=600, next_seconds=None)
    room_id = made["room_id"]
    four = Four(server, room_id, heads=heads)
    try:
        wait_deal(four, 1)
        play_hand(four, "all")
        tokens = [p.token for p in four.people]
        four.close()
        crash(server)
        server = Server(tmp_path, {"room_burst": 1000}, db=store_target)
        four = Four(server, room_id, tokens, heads=heads)
        wait_deal(four, 2)
        while four.match_end is None:
            play_hand(four, "all")
            four.pump()
        ledger = four.match_end["ledger"]["seats"]
        for p, (player, head) in enumerate(people):
            status, body = call(server, "GET", "/api/me/matches", head)
            assert status == 200, body
            (match,) = body["matches"]
            assert match["seat"] == p and match["hands"] == 3
            assert match["total"] == ledger[p]
            totals = {x["seat"]: x["total"] for x in match["players"]}
            assert totals == dict(enumerate(ledger))
            assert {x["player_id"] for x in match["players"]} == {pid for pid, _ in people}
            assert (
                player
                == match["players"][[x["seat"] for x in match["players"]].index(p)]["player_id"]
            )
    finally:
        four.close()
        server.stop()
