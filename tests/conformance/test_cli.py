"""The CLI plays every registered game through the seam alone (docs/architecture.md "The
CLI", docs/terminal.md): ``wmq simulate --game`` random hands with the seam's checks and the
game's own invariants, ``wmq play --game`` a match at the terminal against the game's bots from
its views and its actions' text forms; a game's front end (偎麻雀's board) where it has one."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from typer.testing import CliRunner

from tests import toygame
from weimaque.cli import app
from weimaque.games import (
    Calculator,
    Game,
    GameInfo,
    HandOutcome,
    Invariants,
    Names,
    TerminalFrontEnd,
    get_game,
    register,
    unregister,
)

from .kit import games, variants

runner = CliRunner()


def _invoke(args: list[str], text: str = "") -> Any:
    return runner.invoke(app, args, input=text)


@pytest.mark.parametrize(("game", "variant"), variants())
def test_simulate_plays_every_preset_with_its_checks(game: Game, variant: str) -> None:
    args = ["simulate", "--game", game.info.id, "--rules", variant, "-n", "4", "--seed", "3"]
    runs = [_invoke([*args, "--check", "--json"]) for _ in range(2)]
    for res in runs:
        assert res.exit_code == 0, res.output
    data = [json.loads(r.stdout) for r in runs]
    assert data[0]["games"] == 4 and data[0]["invariant_failures"] == 0
    assert data[0]["wins"] + data[0]["chou"] == 4
    assert data[0]["actions_per_s"] > 0
    assert (data[0]["wins"], data[0]["chou"]) == (data[1]["wins"], data[1]["chou"]), "seeded"


class LopsidedHand:
    """A toy hand whose outcome gives seat 0 a point nobody paid (not zero-sum)."""

    def __init__(self, hand: Any) -> None:
        self.hand = hand

    def __getattr__(self, name: str) -> Any:
        return getattr(self.hand, name)

    def outcome(self) -> HandOutcome | None:
        o = self.hand.outcome()
        return None if o is None else HandOutcome((o.net[0] + 1, *o.net[1:]), o.winners)


class Lopsided(toygame.Toy):
    """The toy game with a broken outcome, to show ``--check`` finds what does not hold."""

    info = GameInfo("lopsided", Names("歪牌", "Lopsided"))

    def new_hand(
        self,
        variant: str,
        options: Mapping[str, object] | None = None,
        seed: int = 0,
        dealer: int = 0,
    ) -> Any:
        return LopsidedHand(super().new_hand(variant, options, seed, dealer))


@pytest.fixture
def lopsided() -> Iterator[str]:
    register(Lopsided())
    yield "lopsided"
    unregister("lopsided")


def test_simulate_check_finds_a_hand_that_does_not_sum(lopsided: str) -> None:
    res = _invoke(["simulate", "--game", lopsided, "-n", "3", "--check", "--json"])
    assert res.exit_code == 1, res.output
    assert json.loads(res.stdout)["invariant_failures"] == 3
    assert "points sum to 1" in res.stderr
    unchecked = _invoke(["simulate", "--game", lopsided, "-n", "3", "--json"])
    assert unchecked.exit_code == 0 and json.loads(unchecked.stdout)["invariant_failures"] == 0


def test_simulate_runs_the_games_own_invariants() -> None:
    game = get_game("maque")
    assert isinstance(game, Invariants)
    hand: Any = game.new_hand("anxiang", seed=4)
    assert game.invariants(hand) == []
    hand.state.stock.pop()  # a card lost from the stock: the engine's conservation (RULES §1.1)
    assert game.invariants(hand)


def test_simulate_refuses_an_unknown_game_or_preset() -> None:
    res = _invoke(["simulate", "--game", "nosuchgame", "-n", "1"])
    assert res.exit_code == 2 and "nosuchgame" in res.output
    res = _invoke(["simulate", "--game", "toy", "--rules", "nosuch", "-n", "1"])
    assert res.exit_code == 2 and "nosuch" in res.output


@pytest.mark.parametrize("game", games())
def test_play_a_hand_against_the_games_bots(game: Game) -> None:
    """A person typing ``1`` at every prompt plays a hand to its end against ``random`` bots."""
    args = ["play", "--game", game.info.id, "--bots", "random", "--seed", "2", "--hands", "1"]
    res = _invoke(args, "1\n" * 3000)
    assert res.exit_code == 0, res.output
    if isinstance(game, TerminalFrontEnd):
        assert "比赛结束" in res.stdout  # the game's own board
        return
    found = re.search(r"总账 ledger: (\{.*\})", res.stdout)
    assert found is not None, res.stdout
    ledger = json.loads(found.group(1))
    net = re.search(r"NET (\[[-\d, ]*\])", res.stdout)
    assert net is not None and ledger["seats"] == json.loads(net.group(1)), "one hand: its net"
    if game.info.zero_sum:
        assert sum(ledger["seats"]) + sum(v for k, v in ledger.items() if k != "seats") == 0


def test_play_shows_only_the_persons_seat() -> None:
    """The person's view is its own seat's: the other hand is never printed (RULES §2.1)."""
    game = get_game("toy")
    variant = game.schema.variants[0].id
    hand = game.new_match(variant, {}, 5).next_hand()
    mine, theirs = hand.view(0).to_json()["hand"], hand.view(1).to_json()["hand"]
    res = _invoke(["play", "--game", "toy", "--seed", "5", "--hands", "1"], "pass\n" * 50)
    assert res.exit_code == 0, res.output
    shown = [
        json.loads(line.split(":", 1)[1])
        for line in res.stdout.splitlines()
        if line.startswith("  hand:")
    ]
    assert shown and shown[0] == mine
    assert theirs not in shown
    assert "bid" in res.stdout and "pass" in res.stdout  # actions by their text forms


def test_play_refuses_bad_input_and_stops_on_q() -> None:
    res = _invoke(["play", "--game", "toy", "--seed", "1"], "zzz\n99\nq\n")
    assert res.exit_code == 0, res.output
    assert "不行" in res.stdout and "zzz" in res.stdout and "no option 99" in res.stdout
    assert "已退出" in res.stdout
    for args, quoted in (
        (["--bots", "nosuchbot"], "nosuchbot"),
        (["--bots", "random,random,random"], "random,random,random"),
        (["--rules", "nosuch"], "nosuch"),
        (["--options", '{"cards_each": 99}'], "99"),
        (["--save", "x.json"], "--save"),
        (["--auto-pass"], "--auto-pass"),
    ):
        res = _invoke(["play", "--game", "toy", *args], "")
        assert res.exit_code == 2 and quoted in res.output, (args, res.output)


def test_review_and_score_need_the_games_capabilities(tmp_path: Any) -> None:
    """A game without a reviewer or a calculator is told so (exit 2), never a traceback."""
    game = get_game("toy")
    hand = game.new_hand(game.schema.variants[0].id, seed=3)
    rng = random.Random(3)
    while not hand.is_terminal():
        seat = hand.to_act()[0]
        hand.apply(seat, rng.choice(hand.legal_actions(seat)))
    path = tmp_path / "toy.json"
    path.write_text(json.dumps(hand.record()), "utf-8")
    res = _invoke(["review", str(path), "--seat", "0"])
    assert res.exit_code == 2 and "no reviewer" in res.output
    assert not isinstance(game, Calculator)
    res = _invoke(["score", "--game", "toy", "bid 3"])
    assert res.exit_code == 2 and "no calculator" in res.output
