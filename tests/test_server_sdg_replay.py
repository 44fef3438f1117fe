"""A 三丁拐 hand's replay steps and 复盘 over HTTP (docs/protocol.md §1, docs/sandingguai.md §14),
through the seam's ``"replay"`` and ``"review"`` capabilities: a hand played to its end by
托管 and bots, then its steps (the all-seeing view after every action, the hand's end at the
last) and one seat's decisions weighed by the search bot, from the room and from its 回放码;
bad input is a 4xx quoting it. The game's own functions are checked beside (a bad seat, spec
or record is refused quoting it; a review depends only on what the seat saw)."""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from typing import Any

import pytest
from starlette.testclient import TestClient

from weimaque.errors import RecordError, WeimaqueError
from weimaque.games import Replaying, Reviewing, get_game
from weimaque.server.app import create_app


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, str]]:
    """A server with one finished 三丁拐 hand (a one-hand match, seed 7): (client, room id)."""
    db = tmp_path_factory.mktemp("sdg") / "rooms.db"
    with TestClient(create_app(db)) as client:
        body = {
            "game": "sandingguai",
            "options": {"match_hands": 1},
            "bots": {"1": "greedy", "2": "greedy"},
            "bot_delay_ms": 0,
            "seed": 7,
        }
        res = client.post("/api/rooms", json=body)
        assert res.status_code == 201, res.text
        room_id = res.json()["room_id"]
        with client.websocket_connect(f"/ws/{room_id}") as ws:
            ws.send_json({"v": 1, "type": "sit", "seat": 0, "id": 1})
            ws.send_json({"v": 1, "type": "autoplay", "on": True, "id": 2})
            while ws.receive_json()["type"] != "match_end":
                pass
        yield client, room_id


def _record(client: TestClient, room_id: str) -> dict[str, Any]:
    record: dict[str, Any] = client.get(f"/api/rooms/{room_id}/hands/1").json()["record"]
    return record


def test_the_replay_of_a_sandingguai_hand_is_every_step_seen_by_all(
    played: tuple[TestClient, str],
) -> None:
    client, room_id = played
    record = _record(client, room_id)
    res = client.get(f"/api/rooms/{room_id}/hands/1/replay")
    assert res.status_code == 200, res.text
    steps = res.json()["steps"]
    actions = record["actions"]
    assert len(steps) == len(actions) + 1
    assert (steps[0]["action"], steps[0]["seat"]) == (None, None)
    assert [[s["seat"], s["action"]] for s in steps[1:]] == actions
    for step in steps:
        obs = step["observation"]
        # A finished hand is replayed from above (as 偎麻雀's): every hand, never the wall.
        assert obs["viewer"] == "all" and len(obs["hands"]) == 3
        assert "wall" not in obs and "deck" not in obs
    assert [e["type"] for e in steps[0]["events"]].count("dealt") == 3
    assert all(e.get("tiles") for e in steps[0]["events"] if e["type"] == "dealt")
    last = steps[-1]
    end = last["observation"]["end"]
    assert last["observation"]["phase"] == "over"
    assert end["net"] == record["settlement"]["seats"] == last["settlement"]["seats"]
    assert sum(end["net"]) == 0
    assert sum(a for payer, payee, a, _ in end["transfers"]) >= 0
    assert end["huang"] or end["flip"]
    assert any(e["type"] == "end" for e in last["events"])


def test_the_review_of_a_sandingguai_seat_weighs_each_of_its_decisions(
    played: tuple[TestClient, str],
) -> None:
    client, room_id = played
    record = _record(client, room_id)
    res = client.get(f"/api/rooms/{room_id}/hands/1/review?seat=0")
    assert res.status_code == 200, res.text
    body = res.json()
    assert (body["seat"], body["number"]) == (0, 1)
    game = get_game("sandingguai")
    assert isinstance(game, Reviewing)
    assert body["bot"] == game.review_spec(300) == "review:worlds=15"
    decisions = body["decisions"]
    mine = [i for i, (seat, _) in enumerate(record["actions"]) if seat == 0]
    assert decisions and len(decisions) <= len(mine)
    for d in decisions:
        assert d["step"] in mine and d["taken"] == record["actions"][d["step"]][1]
        assert d["hand"] == 1 and d["se"] >= 0
        assert d["why"]["kind"] in ("agrees", "declined_hu", "preference", "close_call")
        assert (d["taken"] == d["best"]) == (d["why"]["kind"] == "agrees")
        assert d["mistake"] == (d["taken"] != d["best"] and d["cost"] >= max(3.0, 2 * d["se"]))
    summary = body["summary"]
    assert summary["decisions"] == len(decisions)
    assert summary["agree"] == sum(d["taken"] == d["best"] for d in decisions)
    assert summary["mistakes"] == sum(d["mistake"] for d in decisions)
    assert summary["text"]
    # Asked again: the same review (kept, and reproducible).
    assert client.get(f"/api/rooms/{room_id}/hands/1/review?seat=0").json() == body


def test_a_sandingguai_hands_replay_code_opens_its_steps_and_review(
    played: tuple[TestClient, str],
) -> None:
    client, room_id = played
    code = client.get(f"/api/rooms/{room_id}/hands").json()["hands"][0]["code"]
    room_steps = client.get(f"/api/rooms/{room_id}/hands/1/replay").json()["steps"]
    res = client.get(f"/api/replays/{code}")
    assert res.status_code == 200, res.text
    assert res.json()["record"]["game"] == "sandingguai"
    assert res.json()["steps"] == room_steps
    review = client.get(f"/api/replays/{code}/review?seat=2")
    assert review.status_code == 200, review.text
    assert review.json()["seat"] == 2 and "hand" not in review.json()["decisions"][0]


@pytest.mark.parametrize(
    ("path", "status", "code", "quoted"),
    [
        ("/hands/1/review?seat=9", 400, "bad_seat", "'9'"),
        ("/hands/1/review?seat=x%27", 400, "bad_seat", "x'"),
        ("/hands/1/review", 400, "bad_seat", "None"),
        ("/hands/2/review?seat=0", 404, "hand_not_found", "2"),
        ("/hands/zz/review?seat=0", 404, "hand_not_found", "'zz'"),
        ("/hands/zz/replay", 404, "hand_not_found", "'zz'"),
        ("/hands/3/replay", 404, "hand_not_found", "3"),
    ],
)
def test_bad_review_and_replay_requests_are_refused_quoting_them(
    played: tuple[TestClient, str], path: str, status: int, code: str, quoted: str
) -> None:
    client, room_id = played
    res = client.get(f"/api/rooms/{room_id}{path}")
    assert res.status_code == status, res.text
    error = res.json()["error"]
    assert error["code"] == code and quoted in error["message"]


def test_the_games_review_refuses_a_bad_seat_spec_or_record_quoting_it(
    played: tuple[TestClient, str],
) -> None:
    client, room_id = played
    record = _record(client, room_id)
    game = get_game("sandingguai")
    assert isinstance(game, Reviewing) and isinstance(game, Replaying)
    assert {"replay", "review"} <= game.info.capabilities
    with pytest.raises(WeimaqueError, match="not 3"):
        game.review(record, 3, "review")
    with pytest.raises(WeimaqueError, match="'mcts:iters=9'"):
        game.review(record, 0, "mcts:iters=9")
    with pytest.raises(WeimaqueError, match="'review:worlds=0'"):
        game.review(record, 0, "review:worlds=0")
    bad = copy.deepcopy(record)
    bad["actions"][3] = [bad["actions"][3][0], "出9z"]
    with pytest.raises(RecordError, match="9z"):
        game.steps(bad)
    with pytest.raises(RecordError, match="9z"):
        game.review(bad, 0, "review:worlds=2")


def test_a_review_depends_only_on_what_the_seat_saw(played: tuple[TestClient, str]) -> None:
    # The same seat's review of the hand is the same however often it is asked: each decision's
    # worlds are drawn from its own view and step number alone.
    client, room_id = played
    record = _record(client, room_id)
    game = get_game("sandingguai")
    assert isinstance(game, Reviewing)
    first = game.review(record, 1, "review:worlds=4")
    assert game.review(copy.deepcopy(record), 1, "review:worlds=4") == first
    assert first["bot"] == "review:worlds=4"


def test_a_declined_hu_is_graded_against_the_hu() -> None:
    # SDG §6.2: a legal 胡 always scores, and the bot always takes it; a seat that passes one is
    # shown the 胡 as the bot's choice, with what it scored. Seed 1: seat 0 passes its first 胡.
    game = get_game("sandingguai")
    assert isinstance(game, Reviewing)
    hand = game.new_hand("sandingguai", None, seed=1)
    bot = game.bot("greedy", "sandingguai")
    rng = random.Random(1)
    passed = None
    while not hand.is_terminal():
        seat = hand.to_act()[0]
        legal = hand.legal_actions(seat)
        hu, pass_ = game.parse_action("胡").id, game.parse_action("过").id
        if seat == 0 and passed is None and hu in legal and pass_ in legal:
            action, passed = pass_, len(hand.record()["actions"])
        else:
            action = bot.act(hand.bot_view(seat), rng)
        hand.apply(seat, action)
    assert passed is not None
    review = game.review(hand.record(), 0, "review:worlds=4")
    (decision,) = [d for d in review["decisions"] if d["step"] == passed]
    assert (decision["taken"], decision["best"]) == ("过", "胡")
    assert decision["why"]["kind"] == "declined_hu" and decision["why"]["score"] > 0
