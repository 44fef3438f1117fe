"""External bots over JSON lines on stdio: the example bots, and crashing, hanging, lying bots."""

from __future__ import annotations

import json
import random
import shutil
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.test_bot_lines import check_line
from weimaque.arena import ArenaConfig, run_arena
from weimaque.cli import app
from weimaque.errors import WeimaqueError
from weimaque.games.lines import PROTOCOL
from weimaque.games.maque.bots import BotView, get_bot
from weimaque.games.maque.bots.external import ExternalBot, Fault, parse_answer
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.game.state import GameState

ROOT = Path(__file__).resolve().parent.parent
#: A generous time limit where timing is not under test (the machine running the suite may be busy).
SLOW = "ms=20000:"
PY_BOT = ROOT / "examples" / "bots" / "simple_bot.py"
JS_BOT = ROOT / "examples" / "bots" / "simple_bot.js"

#: A bot that answers the first legal action; ``{before}`` runs at each request (n counts them).
TEMPLATE = """
import json, sys, time
n = 0
for line in sys.stdin:
    m = json.loads(line)
    if m["type"] != "request":
        continue
    n += 1
{before}
    print(json.dumps({{"id": m["id"], "action": m["legal"][0]}}), flush=True)
"""


def _script(tmp_path: Path, name: str, before: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(TEMPLATE.format(before=textwrap.indent(before, "    ")), encoding="utf-8")
    return f"cmd:{SLOW}{sys.executable} {path}"


def _arena(spec: str, **kwargs: object) -> object:
    config = ArenaConfig((spec, "greedy", "random"), 1, seed=4, rotations=3, **kwargs)  # type: ignore[arg-type]
    return run_arena(config)


def test_python_example_bot_plays_whole_hands() -> None:
    result = _arena(f"cmd:{SLOW}{sys.executable} {PY_BOT}")
    bot = result.bots[0]  # type: ignore[attr-defined]
    assert bot.hands == 3 and bot.decisions > 10 and bot.faults == 0
    assert result.faults == ()  # type: ignore[attr-defined]
    assert len(PY_BOT.read_text(encoding="utf-8").splitlines()) < 100


def test_node_example_bot_plays_whole_hands() -> None:
    node = shutil.which("node")
    assert node is not None, "node is needed (make test installs it)"
    result = _arena(f"cmd:{SLOW}{node} {JS_BOT}")
    bot = result.bots[0]  # type: ignore[attr-defined]
    assert bot.hands == 3 and bot.decisions > 10 and bot.faults == 0
    assert len(JS_BOT.read_text(encoding="utf-8").splitlines()) < 100


def _kinds(faults: tuple[str, ...]) -> set[str]:
    return {f.split(": ")[2] for f in faults}


def test_crashing_bot_is_replaced_and_restarted(tmp_path: Path) -> None:
    spec = _script(
        tmp_path, "crash", 'if n == 2:\n    sys.stderr.write("boom\\n")\n    sys.exit(3)'
    )
    result = _arena(spec)
    faults = result.faults  # type: ignore[attr-defined]
    assert result.bots[0].hands == 3  # type: ignore[attr-defined]
    assert faults and _kinds(faults) == {"crash"}
    assert any("status 3" in f and "boom" in f for f in faults)
    # restarted twice per hand (the history replayed), then no longer started
    assert any("not restarted after 2 restarts" in f for f in faults)


def test_hanging_bot_times_out_and_the_hand_goes_on(tmp_path: Path) -> None:
    spec = _script(tmp_path, "hang", "if n >= 2:\n    time.sleep(60)")
    spec = spec.replace(SLOW, "ms=150:", 1)
    result = _arena(spec)
    faults = result.faults  # type: ignore[attr-defined]
    assert result.bots[0].hands == 3  # type: ignore[attr-defined]
    assert _kinds(faults) == {"timeout"}
    assert any("within 150 ms" in f for f in faults)
    assert any("not waited for after 3 timeouts" in f for f in faults)


def test_lying_bot_garbage_and_illegal_actions(tmp_path: Path) -> None:
    lies = (
        'if n == 1:\n    print("hello there", flush=True)\n    continue\n'
        "if n == 2:\n    print(json.dumps([1, 2]), flush=True)\n    continue\n"
        'if n == 3:\n    print(json.dumps({"id": m["id"], "action": "出火"}), flush=True)\n'
        "    continue\n"
        "if n % 2 == 0:\n"
        '    bad = next(a for a in ["胡", "碰", "出一", "出拾"] if a not in m["legal"])\n'
        '    print(json.dumps({"id": m["id"], "action": bad}), flush=True)\n    continue'
    )
    result = _arena(_script(tmp_path, "liar", lies))
    faults = result.faults  # type: ignore[attr-defined]
    assert result.bots[0].hands == 3  # type: ignore[attr-defined]
    assert _kinds(faults) == {"garbage", "illegal"}
    assert any("not JSON: 'hello there'" in f for f in faults)
    assert any("not a JSON object" in f for f in faults)
    assert any("火" in f for f in faults)
    assert any("is not legal now" in f for f in faults)


def test_messages_are_the_seats_views_only(tmp_path: Path) -> None:
    log = tmp_path / "log.jsonl"
    spec = _script(
        tmp_path, "recorder", f"open({str(log)!r}, 'a').write(json.dumps(m) + '\\n')"
    ).replace('    if m["type"] != "request":\n        continue\n', "")
    path = Path(spec.split(" ", 1)[1])
    path.write_text(
        path.read_text(encoding="utf-8").replace(
            "    m = json.loads(line)\n",
            f"    m = json.loads(line)\n    open({str(log)!r}, 'a').write(line)\n",
        ),
        encoding="utf-8",
    )
    bot = get_bot(spec)
    assert isinstance(bot, ExternalBot)
    state = GameState.new("anxiang", 99)
    rngs = [random.Random(s) for s in range(3)]
    others = get_bot("greedy")
    while not state.is_terminal():
        seat = state.current_player()
        view = BotView.of(state, seat)
        action = (bot if seat == 1 else others).act(view, rngs[seat])
        state.apply(seat, action)
    bot.close(BotView.of(state, 1))
    assert bot.faults == []
    lines = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines()]
    for line in lines:
        check_line(line)
    hello = lines[0]
    assert hello["type"] == "hello" and hello["protocol"] == PROTOCOL and hello["seat"] == 1
    events = [m["event"] for m in lines if m["type"] == "event"]
    expected = [v for e in state.events if (v := e.view(1)) is not None]
    assert events == json.loads(json.dumps(expected, ensure_ascii=False))
    requests = [m for m in lines if m["type"] == "request"]
    assert requests and all("hands" not in r["observation"] for r in requests)
    assert all(r["observation"]["viewer"] == 1 for r in requests)
    assert lines[-1]["type"] == "end" and "result" in lines[-1]["observation"]


def test_answers_and_specs() -> None:
    legal = (Action.parse("出三"), Action.parse("过"))
    assert parse_answer('{"id": 4, "action": "出三"}', legal) == (4, legal[0])
    assert parse_answer('{"id": 5, "action_id": 38}', legal) == (5, legal[1])
    rid, fault = parse_answer('{"id": 6, "action": "碰"}', legal)
    assert rid == 6 and isinstance(fault, Fault) and fault.kind == "illegal"
    _, fault = parse_answer('{"id": 7}', legal)
    assert isinstance(fault, Fault) and fault.kind == "garbage"
    bot = ExternalBot.from_spec("cmd:ms=250:restarts=0:python3 my_bot.py --fast")
    assert bot.command == ["python3", "my_bot.py", "--fast"] and bot.ms == 250
    assert bot.restarts == 0
    with pytest.raises(WeimaqueError, match="needs a command"):
        get_bot("cmd:")
    with pytest.raises(WeimaqueError, match="cannot split"):
        get_bot("cmd:python3 'unclosed")


def test_missing_program_is_a_reported_fault() -> None:
    result = _arena("cmd:/nonexistent/bot")
    faults = result.faults  # type: ignore[attr-defined]
    assert result.bots[0].hands == 3 and faults  # type: ignore[attr-defined]
    assert any("cannot start" in f for f in faults)


def test_cli_lists_faults(tmp_path: Path) -> None:
    spec = _script(tmp_path, "crash1", "if n == 1:\n    sys.exit(5)")
    args = ["arena", "--bots", f"{spec},random,random", "--hands", "3", "--rotations", "3"]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "decisions went to the fallback" in result.stdout and "crash" in result.stdout
