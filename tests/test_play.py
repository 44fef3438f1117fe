"""``wmq play`` and ``wmq replay``: a match at a pseudo-terminal, and replays of its record."""

from __future__ import annotations

import io
import json
import os
import random
import re
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest
from rich.console import Console
from typer.testing import CliRunner

from weimaque.cli import app
from weimaque.errors import IllegalAction, InvalidNotation, WeimaqueError
from weimaque.games.maque.bots import get_bot
from weimaque.games.maque.cards import FACE_CHARS, faces_str
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.game.events import Chied, DeclinedHu, Discarded, Penged
from weimaque.games.maque.game.record import replay
from weimaque.games.maque.game.state import GameState
from weimaque.games.maque.match import Match, replay_match
from weimaque.games.maque.rules import get_rules
from weimaque.games.maque.terminal.play import make_bots, parse_viewer
from weimaque.games.maque.terminal.tui import (
    QuitGame,
    Replayer,
    TerminalGame,
    hint_lines,
    parse_choice,
    should_auto_pass,
)

WMQ = Path(sys.executable).parent / "wmq"
ENV = {**os.environ, "COLUMNS": "120", "LINES": "50", "TERM": "dumb", "NO_COLOR": "1"}
# With --bots random,random and "1" for every decision, hand 1 of match seed 4 is won by the
# human (seat 0): 胡 肆 自摸, 硬息 12 × 3 (点胡) + 20 (单吊) = 56 (checked below from the record).
SEED = 4
PROMPT = "你的选择"
runner = CliRunner(env={"COLUMNS": "120", "NO_COLOR": "1"})


def spawn(*args: str) -> pexpect.spawn:
    return pexpect.spawn(
        str(WMQ), list(args), env=ENV, encoding="utf-8", timeout=20, dimensions=(50, 120)
    )


def play_through_pty(save: Path) -> str:
    child = spawn(
        "play", "--hands", "1", "--seed", str(SEED), "--bots", "random,random", "--save", str(save)
    )
    child.expect(PROMPT)
    # The dealer must 出 first: a claim word is refused with the engine's reason.
    child.sendline("碰")
    child.expect(re.escape("cannot 碰: seat 0 must 出 a card (RULES §3)"))
    child.expect(PROMPT)
    child.sendline("garbage!")
    child.expect(re.escape("unknown action 'garbage!'"))
    child.expect(PROMPT)
    child.sendline("99")
    child.expect("no option 99")
    child.expect(PROMPT)
    child.sendline("?")
    child.expect("你现在的息")
    child.expect(r"\[1\]出(\S)")
    first = child.match.group(1)
    child.expect(PROMPT)
    child.sendline(f"出 {first}")  # the game's words + card notation
    child.expect(f"你 出 {first}")
    screen = child.before or ""
    while True:
        k = child.expect([PROMPT, "比赛结束", pexpect.EOF])
        screen += child.before or ""
        if k != 0:
            break
        child.sendline("1")
    child.expect(pexpect.EOF)
    screen += child.before or ""
    child.close()
    assert child.exitstatus == 0, screen
    return screen


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    save = tmp_path_factory.mktemp("play") / "match.json"
    return play_through_pty(save), save


def test_play_one_hand_through_a_pty(played: tuple[str, Path]) -> None:
    screen, save = played
    record = json.loads(save.read_text(encoding="utf-8"))
    assert len(record["hands"]) == 1
    result = record["hands"][0]["result"]
    assert result["winner"] == 0 and result["total"] == 56
    # The end-of-hand breakdown exactly as `wmq score` renders it, then payments and the ledger.
    assert "总息" in screen and "12 × 3 + 20" in screen
    assert "你 胡" in screen
    assert "结算: 你 +112  下家 -56  上家 -56" in screen
    assert "总账" in screen
    # Others' face-down 偎 never show their faces to seat 0 (RULES §4.3).
    assert "偎 ▮▮▮" in screen or "偎▮▮▮" in screen
    assert record["ledger"] == {"seats": [112, -56, -56], "shouxing": 0, "pool": 0}
    assert replay_match(record).ledger() == record["ledger"]


def test_replay_all_shows_every_action_and_the_totals(played: tuple[str, Path]) -> None:
    _, save = played
    record = json.loads(save.read_text(encoding="utf-8"))
    out = subprocess.run(
        [str(WMQ), "replay", str(save), "--all", "--seat", "all"],
        env=ENV,
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    ).stdout
    lines = out.splitlines()
    # Every 出 of the record, and every 碰/吃 the engine made of its claims, appears in order.
    hand = record["hands"][0]
    discards = [f"座{seat} 出 {text[1:]}" for seat, text in hand["actions"] if text[0] == "出"]
    wanted = []
    for e in replay(hand).events:
        if isinstance(e, Discarded):
            wanted.append(f"座{e.seat} 出 {FACE_CHARS[e.card]}")
        elif isinstance(e, Penged):
            wanted.append(f"座{e.seat} 碰 {FACE_CHARS[e.card]}")
        elif isinstance(e, Chied):
            wanted.append(f"座{e.seat} 吃 {faces_str(range(e.run, e.run + 3))}")
    assert [w for w in wanted if " 出 " in w] == discards
    k = 0
    for line in lines:
        if k < len(wanted) and line.startswith(wanted[k]):
            k += 1
    assert k == len(wanted) > len(discards), wanted[k:]
    assert "座0 胡" in out and "12 × 3 + 20" in out
    assert "结算: 座0 +112  座1 -56  座2 -56" in out
    assert re.search(r"座0\s+│\s+112", out)


def test_replay_from_a_seat_hides_what_it_may_not_see(played: tuple[str, Path]) -> None:
    _, save = played
    code = runner.invoke(app, ["replay", str(save), "--all", "--seat", "1", "--hand", "1"])
    assert code.exit_code == 0, code.output
    out = code.stdout
    assert "上家 (庄) 起手 20 张\n" in out  # seat 0's dealt cards are not shown to seat 1
    assert re.search(r"^你 起手 19 张: \S+", out, re.M)
    assert "上家 偎 ▮▮▮" in out and "上家 偎 壹壹壹" not in out
    # The 守醒 sees the three hands (RULES §2.1).
    shouxing = runner.invoke(app, ["replay", str(save), "--all", "--seat", "shouxing"]).stdout
    assert re.search(r"^座1 起手 19 张: \S+", shouxing, re.M)


def test_replay_steps_with_enter(played: tuple[str, Path]) -> None:
    _, save = played
    child = spawn("replay", str(save), "--seat", "0")
    child.expect("起手 20 张")
    child.sendline("")
    child.expect("下家 起手 19 张")
    child.sendline("q")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


def test_replay_of_a_single_hand_record(tmp_path: Path) -> None:
    match = Match.new(get_rules("anxiang").with_options(match_hands=1), SEED)
    state = match.start_hand()
    rng = random.Random(1)
    while not state.is_terminal():
        seat = state.current_player()
        state.apply(seat, rng.choice(state.legal_actions(seat)))
    match.finish_hand()
    hand = match.hands[0]
    path = tmp_path / "hand.json"
    path.write_text(json.dumps(hand, ensure_ascii=False), encoding="utf-8")
    result = runner.invoke(app, ["replay", str(path), "--all"])
    assert result.exit_code == 0, result.output
    assert "第 1/1 局" in result.stdout
    bad = tmp_path / "bad.json"
    bad.write_text("{}", encoding="utf-8")
    result = runner.invoke(app, ["replay", str(bad), "--all"])
    assert result.exit_code == 2 and "not a hand or match record" in result.stderr


def test_unknown_bot_is_a_clear_error() -> None:
    result = runner.invoke(app, ["play", "--bots", "nosuchbot", "--hands", "1"])
    assert result.exit_code == 2
    assert "unknown bot 'nosuchbot'" in result.stderr
    err = Console(file=io.StringIO())
    bots = make_bots(None, err)  # the defaults fall back to random until they exist
    assert bots[0] is None and len(bots) == 3


def test_parse_viewer() -> None:
    assert parse_viewer("2") == 2 and parse_viewer("shouxing") == "shouxing"
    with pytest.raises(WeimaqueError):
        parse_viewer("3")


def test_parse_choice_numbers_words_and_ascii() -> None:
    state = GameState.new("anxiang", 4)
    seat = state.current_player()
    legal = state.legal_actions(seat)
    face = legal[0].face
    assert face is not None
    assert parse_choice("1", legal, state, seat) == legal[0]
    assert parse_choice(str(legal[0]), legal, state, seat) == legal[0]
    ascii_card = f"{(face % 10 + 1) % 10}{'d' if face >= 10 else 'x'}"
    assert parse_choice(f"出{ascii_card}", legal, state, seat) == legal[0]
    assert parse_choice(f"d {ascii_card}", legal, state, seat) == legal[0]
    assert parse_choice(ascii_card, legal, state, seat) == legal[0]  # a bare card means 出
    with pytest.raises(IllegalAction):
        parse_choice("过", legal, state, seat)
    with pytest.raises(InvalidNotation):
        parse_choice("吃 一二四", legal, state, seat)
    with pytest.raises(InvalidNotation):
        parse_choice("", legal, state, seat)


def test_auto_pass_only_passes_chi_windows() -> None:
    assert should_auto_pass([Action.chi(0), Action("pass")])
    assert not should_auto_pass([Action("peng"), Action("pass")])
    assert not should_auto_pass([Action("hu"), Action("pass")])
    assert not should_auto_pass([Action.discard(3)])


def _game(answers: list[str], auto_pass: bool = False) -> tuple[TerminalGame, io.StringIO]:
    buf = io.StringIO()
    console = Console(file=buf, width=120, no_color=True)

    def ask(prompt: str) -> str:
        if not answers:
            raise EOFError
        return answers.pop(0)

    bots = [None, get_bot("random"), get_bot("random")]
    return TerminalGame(console, ask, bots, random.Random(SEED), auto_pass=auto_pass), buf


def test_driver_in_process_with_auto_pass_and_quit() -> None:
    match = Match.new(get_rules("anxiang").with_options(match_hands=3), SEED)
    game, buf = _game(["1"] * 200, auto_pass=True)
    game.play_match(match)
    assert len(match.hands) == 3
    assert "总账" in buf.getvalue()
    assert "(自动过: 吃" in buf.getvalue()
    # No 胡 is ever passed automatically (and "1" takes a 胡 when offered).
    for hand in match.hands:
        events = replay(hand).events
        assert not any(isinstance(e, DeclinedHu) and e.seat == 0 for e in events)
    match = Match.new("anxiang", SEED)
    game, buf = _game(["q"])
    with pytest.raises(QuitGame):
        game.play_match(match)


def test_hints_list_waits_and_xi() -> None:
    state = GameState.new("anxiang", SEED)
    assert hint_lines(state, state.current_player())[0].startswith("你现在的息: 砍叁 3 = 3 息")
    # Hand 1 of the pty match again, asking for hints before every decision.
    match = Match.new(get_rules("anxiang").with_options(match_hands=1), SEED)
    game, buf = _game(["?", "1"] * 100)
    game.play_match(match)
    out = buf.getvalue()
    assert "你现在的息: 碰伍 2 + 碰五 2 + 碰九 2 + 砍壹 3 = 9 息 (胡至少 10)" in out
    assert "出牌后听 (括号里是最好的总息):\n  出八 → 听 柒(36) 拾(36)" in out
    assert "听: 肆(56)" in out


def test_replayer_refuses_a_missing_hand(played: tuple[str, Path]) -> None:
    _, save = played
    record = json.loads(save.read_text(encoding="utf-8"))
    replayer = Replayer(Console(file=io.StringIO()), "all")
    with pytest.raises(WeimaqueError, match="no hand 5"):
        replayer.replay(record, 5)
