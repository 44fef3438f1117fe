"""复盘 (wmq review): graded decisions from one seat's view only."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from weimaque.cli.app import app
from weimaque.errors import WeimaqueError
from weimaque.games.maque.bots import get_bot
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.greedy import GreedyBot
from weimaque.games.maque.bots.review import record_hands, review
from weimaque.games.maque.cards import faces_str
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.game.record import hand_record, start_from_record
from weimaque.games.maque.game.state import NUM_SEATS, GameState
from weimaque.games.maque.match import Match

BOT = "mcts:iters=40"


class DeclinerBot:
    """Greedy, except that it passes every 胡 it is offered (a mistake to be flagged)."""

    name = "decliner"

    def act(self, view: BotView, rng: random.Random) -> Action:
        if any(a.kind == "hu" for a in view.legal):
            return Action("pass")
        return GreedyBot().act(view, rng)


def play(state: GameState, bots: list[Any], seed: int) -> GameState:
    rng = random.Random(seed)
    while not state.is_terminal():
        seat = state.current_player()
        state.apply(seat, bots[seat].act(BotView.of(state, seat), rng))
    return state


def explicit_hand(seed: int) -> dict[str, Any]:
    """A greedy hand whose record spells out the deal (so it can be dealt differently)."""
    dealt = GameState.new("anxiang", seed)
    state = GameState("anxiang", [list(h) for h in dealt.initial_hands], list(dealt.stock))
    return hand_record(play(state, [GreedyBot()] * 3, seed))


def rehidden(record: dict[str, Any], seat: int, rng: random.Random) -> dict[str, Any] | None:
    """The same hand with one card the seat never saw swapped between an opponent and the stock.

    None if the recorded actions no longer replay, or the seat would see anything different.
    """
    end = start_from_record(record)
    for s, text in record["actions"]:
        end.apply(int(s), Action.parse(text))
    opp = rng.choice([s for s in range(NUM_SEATS) if s != seat])
    held = end.hand_faces(opp)
    undrawn = list(range(end.pos, len(end.stock)))
    if not held or not undrawn:
        return None
    f = rng.choice(held)
    i = rng.choice(undrawn)
    g = end.stock[i]
    if g == f:
        return None
    hands = [list(h) for h in end.initial_hands]
    hands[opp].remove(f)
    hands[opp].append(g)
    stock = list(end.stock)
    stock[i] = f
    a = start_from_record(record)
    b = GameState(a.rules, hands, stock, a.dealer)
    other = dict(record)
    other["seed"] = None
    other["deal"] = {"hands": [faces_str(h) for h in hands], "stock": faces_str(stock)}
    other["result"] = None
    try:
        for s, text in record["actions"]:
            if int(s) == seat and BotView.of(a, seat) != BotView.of(b, seat):
                return None
            a.apply(int(s), Action.parse(text))
            b.apply(int(s), Action.parse(text))
    except WeimaqueError:
        return None
    if [e.view(seat) for e in a.events] != [e.view(seat) for e in b.events]:
        return None
    return other


def test_the_review_depends_only_on_what_the_seat_saw() -> None:
    record = explicit_hand(11)
    seat = 1
    rng = random.Random(5)
    others = []
    for _ in range(200):
        other = rehidden(record, seat, rng)
        if other is not None:
            others.append(other)
        if len(others) == 2:
            break
    assert len(others) == 2
    assert all(o["deal"] != record["deal"] for o in others)
    base = review(record, seat, BOT).to_dict()
    assert len(base["decisions"]) >= 5
    for other in others:
        assert review(other, seat, BOT).to_dict() == base


def test_a_declined_win_is_flagged() -> None:
    for seed in range(40):
        state = play(
            GameState.new("anxiang", seed), [DeclinerBot(), GreedyBot(), GreedyBot()], seed
        )
        record = hand_record(state)
        if any(s == 0 and t == "过" for s, t in record["actions"]) and any(
            e.kind == "declined_hu" and e.seat == 0 for e in state.events
        ):
            break
    else:
        pytest.fail("no declined 胡 in 40 hands")
    result = review(record, 0, "mcts:iters=60")
    declined = [d for d in result.decisions if d.best == "胡" and d.taken == "过"]
    assert declined
    assert all(d.mistake and d.reason.startswith("declined 胡") for d in declined)
    assert result.summary()["mistakes"] >= len(declined)


class RandomBot:
    """Uniformly random play: many clear mistakes in one hand."""

    name = "random"

    def act(self, view: BotView, rng: random.Random) -> Action:
        return rng.choice(view.legal)


def test_a_hands_points_lost_are_bounded_by_what_it_could_cost() -> None:
    # A random player's hands are full of clear mistakes whose costs, each measured against the
    # bot's play after it, add up past anything the hand could have cost (docs/bots.md).
    capped = 0
    for seed in range(6):
        state = play(GameState.new("anxiang", seed), [RandomBot(), GreedyBot(), GreedyBot()], seed)
        result = review(hand_record(state), 0, "mcts:iters=40")
        summary = result.summary()
        got = state.returns()[0]
        for x in summary["hand_losses"]:
            assert x["result"] == got
            mistakes = [d.cost for d in result.decisions if d.mistake]
            assert x["added"] == pytest.approx(sum(mistakes), abs=0.02)
            bound = max(0.0, max(d.value for d in result.decisions) - got)
            assert x["lost"] <= bound + 0.01
            assert x["lost"] <= x["added"] + 0.01
            assert x["capped"] == (x["added"] > bound + 0.005)
            capped += x["capped"]
        assert summary["points_lost"] == pytest.approx(
            sum(x["lost"] for x in summary["hand_losses"]), abs=0.02
        )
        if summary["capped"]:
            # The sentence says what it counted and why.
            assert "overlap" in summary["text"] and f"{got:+d}" in summary["text"]
        worst = summary["worst_decision"]
        if worst is not None:
            # Steps are the replay's: the view after the decision's action.
            assert f"step {worst['step'] + 1}:" in summary["text"]
    assert capped  # the bound is met, not only never reached


def match_record() -> dict[str, Any]:
    """What ``wmq play --save`` writes: a match record (two hands here)."""
    match = Match.new("anxiang", 3)
    bots = [get_bot("greedy"), get_bot("random"), get_bot("greedy")]
    for k in range(2):
        play(match.start_hand(), bots, k)
        match.finish_hand()
    return match.record()


def test_cli_reviews_match_and_server_records(tmp_path: Path) -> None:
    runner = CliRunner(env={"COLUMNS": "250"})
    record = match_record()
    path = tmp_path / "match.json"
    path.write_text(json.dumps(record, ensure_ascii=False), "utf-8")
    res = runner.invoke(app, ["review", str(path), "--seat", "1", "--bot", BOT, "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    assert out["seat"] == 1 and out["bot"] == BOT
    assert {d["hand"] for d in out["decisions"]} == {1, 2}
    keys = {"hand", "step", "taken", "best", "cost", "mistake", "reason"}
    assert all(keys <= set(d) for d in out["decisions"])
    for d in out["decisions"]:
        hand = record["hands"][d["hand"] - 1]
        assert hand["actions"][d["step"]] == [1, d["taken"]]
    assert out["summary"]["decisions"] == len(out["decisions"])
    # The server's finished-hand response wraps one hand record with its number.
    server = {"v": 1, "room_id": "r1", "number": 2, "record": record["hands"][1]}
    path.write_text(json.dumps(server, ensure_ascii=False), "utf-8")
    res = runner.invoke(app, ["review", str(path), "--seat", "1", "--bot", BOT, "--json"])
    assert res.exit_code == 0, res.output
    again = json.loads(res.stdout)
    assert again["decisions"] == [d for d in out["decisions"] if d["hand"] == 2]
    # Plain text: the table and the summary line.
    res = runner.invoke(app, ["review", str(path), "--seat", "1", "--bot", BOT])
    assert res.exit_code == 0 and "复盘" in res.stdout and "decisions" in res.stdout


def test_bad_input_is_refused_with_a_clear_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CliRunner(env={"COLUMNS": "250"})
    monkeypatch.chdir(tmp_path)  # the missing file's name is quoted whole, however deep tmp is
    path = tmp_path / "x.json"
    path.write_text('{"foo": 1}', "utf-8")
    res = runner.invoke(app, ["review", str(path), "--seat", "0"])
    assert res.exit_code == 2 and "not a hand or match record" in res.output
    path.write_text(json.dumps(explicit_hand(2)), "utf-8")
    res = runner.invoke(app, ["review", str(path), "--seat", "0", "--bot", "greedy"])
    assert res.exit_code == 2 and "'greedy'" in res.output
    res = runner.invoke(app, ["review", "missing.json", "--seat", "0"])
    assert res.exit_code == 2 and "missing.json" in res.output
    with pytest.raises(WeimaqueError, match="no hand 3"):
        review(match_record(), 0, BOT, hand=3)
    assert [n for n, _ in record_hands(match_record())] == [1, 2]


def test_the_server_reviews_in_a_worker_as_the_cli_does() -> None:
    # The 复盘 endpoint runs the review in a process of its own (server/botpool.review_job): the
    # same function of the record as `wmq review`, returned as plain data.
    from weimaque.server.table.botpool import review_job

    record = explicit_hand(11)
    want = review(record, 0, "mcts:iters=20", None).to_dict()
    assert review_job((record, 0, "mcts:iters=20")) == want
    assert json.loads(json.dumps(want)) == want  # plain data, as it crosses the process boundary
