"""Hostile record files against every command that reads one: ``wmq verify``, ``wmq review`` and
``wmq replay`` (docs/terminal.md, "Record files").

The corpus is made from one real match record (two hands, each with its revealed commitment,
and the match seed, as the server publishes a finished match): wrong types, seats and dealers
out of range, NaN and Infinity, deep nesting, huge strings and files, missing keys, illegal
actions, commitments removed. A file that is no record is refused by each command with exit 2
and one line on stderr; a record that is well formed but does not hold is ``NOT VERIFIED``
(exit 1) by ``wmq verify``. Nothing ends in a traceback, and each answer comes in seconds.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.test_verify import played_match
from weimaque.cli import app
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.game.record import MAX_RECORD_BYTES, start_from_record
from weimaque.games.maque.match import Match

runner = CliRunner(env={"COLUMNS": "100"})
#: The search bot of the review runs: a small budget, the review's cost is not under test.
REVIEW_BOT = "mcts:iters=16"
#: Seconds any one command may take on a hostile file: a bound on a hang or a blow-up (which
#: take far longer), not on speed, with room for a machine whose every core is busy.
SECONDS = 15.0

Doc = dict[str, Any]


def real_record() -> Doc:
    doc = played_match(21, 2)
    doc["seed"] = Match.new("anxiang", 21).seed
    doc["seed_text"] = str(doc["seed"])
    return doc


BASE = real_record()


def edit(change: Callable[[Doc], Any]) -> str:
    doc = copy.deepcopy(BASE)
    change(doc)
    return json.dumps(doc, ensure_ascii=False)


def put(path: str, value: Any) -> Callable[[Doc], None]:
    """Set ``doc[a][b]…`` (a dotted path; numbers index lists) to ``value``."""

    def change(doc: Doc) -> None:
        *outer, last = [int(p) if p.isdigit() else p for p in path.split(".")]
        here: Any = doc
        for key in outer:
            here = here[key]
        here[last] = value

    return change


def drop(path: str) -> Callable[[Doc], None]:
    def change(doc: Doc) -> None:
        *outer, last = [int(p) if p.isdigit() else p for p in path.split(".")]
        here: Any = doc
        for key in outer:
            here = here[key]
        del here[last]

    return change


def raw(path: str, text: str) -> str:
    """The record with the JSON text ``text`` (NaN, a huge number) at ``path``."""
    return edit(put(path, "@@raw@@")).replace('"@@raw@@"', text)


def illegal_discard(doc: Doc) -> None:
    """Seat 0's first discard replaced by a discard of a face seat 0 does not hold."""
    hand = doc["hands"][0]
    state = start_from_record(hand)
    for k, (seat, text) in enumerate(hand["actions"]):
        if seat == 0 and text.startswith("出"):
            held = state.hands[0]
            face = next(f for f in range(20) if held[f] == 0)
            hand["actions"][k] = [0, str(Action.discard(face))]
            return
        state.apply(seat, Action.parse(text))
    raise AssertionError("seat 0 never discards")


def all_hands(change: Callable[[Doc], None]) -> Callable[[Doc], None]:
    def each(doc: Doc) -> None:
        for hand in doc["hands"]:
            change(hand)

    return each


def unseeded(doc: Doc) -> None:
    del doc["hands"][0]["seed"]
    del doc["hands"][0]["deal"]


def nest(depth: int) -> str:
    return "[" * depth + "]" * depth


#: name → (file text or bytes, what `wmq verify` answers: 2 not a record, 1 not verified).
#: ``wmq review`` and ``wmq replay`` answer 2 to every file verify answers 2 to, and to those
#: marked in REVIEW_TOO / REPLAY_TOO; the other well-formed files they read as they are.
CORPUS: dict[str, tuple[str | bytes, int]] = {
    "a list": ("[1, 2]", 2),
    "a string": ('"record"', 2),
    "a number": ("17", 2),
    "null": ("null", 2),
    "an empty object": ("{}", 2),
    "not JSON": ("{not json", 2),
    "not UTF-8": (b'{"rules": "\xff\xfe"}', 2),
    "empty file": ("", 2),
    "hands not a list": (edit(put("hands", 5)), 2),
    "a hand not an object": (edit(put("hands.0", 5)), 2),
    "no hands": (edit(put("hands", [])), 1),
    "10001 hands": (edit(put("hands", [{}] * 10_001)), 2),
    "rules a number": (edit(put("rules", 5)), 2),
    "rules unknown": (edit(put("rules", "nosuch")), 2),
    "rules 100k characters": (edit(put("rules", "x" * 100_000)), 2),
    "rules 20M characters": (edit(put("rules", "x" * 20_000_000)), 2),
    "overrides a string": (edit(put("overrides", "x")), 2),
    "match_hands 1e30": (raw("overrides", '{"match_hands": 1' + "0" * 30 + "}"), 2),
    "liuzi_dealer 1e4000": (raw("overrides", '{"liuzi_dealer": 1' + "0" * 4000 + "}"), 2),
    "min_xi -5": (edit(put("overrides", {"min_xi": -5})), 2),
    "an unknown option": (edit(put("overrides", {"nosuch": 1})), 2),
    "enable_patterns 5": (edit(put("overrides", {"enable_patterns": 5})), 2),
    "match seed a string": (edit(put("seed", "abc")), 2),
    "match seed 1.5": (edit(put("seed", 1.5)), 2),
    "match seed NaN": (raw("seed", "NaN"), 2),
    "match seed Infinity": (raw("seed", "Infinity"), 2),
    "match seed 1e999": (raw("seed", "1e999"), 2),
    "match seed 1e30": (raw("seed", "1" + "0" * 30), 2),
    "seed_text another": (edit(put("seed_text", "1")), 2),
    "dealer 7": (edit(put("hands.0.dealer", 7)), 2),
    "dealer -1": (edit(put("hands.0.dealer", -1)), 2),
    "dealer a string": (edit(put("hands.0.dealer", "0")), 2),
    "dealer true": (edit(put("hands.0.dealer", True)), 2),
    "dealer NaN": (raw("hands.0.dealer", "NaN"), 2),
    "hand seed a string": (edit(put("hands.0.seed", "x")), 2),
    "hand seed -Infinity": (raw("hands.0.seed", "-Infinity"), 2),
    "no seed, no deal": (edit(unseeded), 2),
    "deal of two hands": (edit(put("hands.0.deal.hands", ["一二", "三四"])), 2),
    "deal not the seed's": (
        edit(put("hands.0.deal.stock", BASE["hands"][0]["deal"]["stock"][::-1])),
        1,
    ),
    "actions a string": (edit(put("hands.0.actions", "x")), 2),
    "2001 actions": (edit(put("hands.0.actions", [[0, "过"]] * 2001)), 2),
    "an action of one item": (edit(put("hands.0.actions.0", [0])), 2),
    "an action's seat 5": (edit(put("hands.0.actions.0.0", 5)), 2),
    "an action's seat a string": (edit(put("hands.0.actions.0.0", "0")), 2),
    "an action's seat 1e30": (raw("hands.0.actions.0.0", "1" + "0" * 30), 2),
    "an action's text a number": (edit(put("hands.0.actions.0.1", 5)), 2),
    "an action's text 100k": (edit(put("hands.0.actions.0.1", "出" * 100_000)), 2),
    "an unknown action": (edit(put("hands.0.actions.0.1", "飞")), 1),
    "an illegal discard": (edit(illegal_discard), 1),
    "a lone surrogate": (
        edit(put("hands.0.actions.0.1", "\ud800")).encode("utf-8", "surrogatepass"),
        2,
    ),
    "an escaped surrogate": (edit(put("hands.0.actions.0.1", "@@")).replace("@@", "\\ud800"), 1),
    "no rules": (edit(drop("rules")), 2),
    "no hand rules": (edit(drop("hands.0.rules")), 2),
    "no dealer": (edit(drop("hands.0.dealer")), 2),
    "no actions": (edit(drop("hands.0.actions")), 2),
    "result a number": (edit(put("hands.0.result", 5)), 2),
    "result changed": (edit(put("hands.0.result.total", -1)), 1),
    "settlement seats a string": (edit(put("hands.0.settlement.seats", "x")), 2),
    "no settlement pool": (edit(drop("hands.0.settlement.pool")), 2),
    "fairness a string": (edit(put("hands.0.fairness", "x")), 2),
    "commitments removed": (edit(all_hands(lambda h: h.pop("fairness"))), 1),
    "one commitment removed": (edit(drop("hands.1.fairness")), 1),
    "a secret changed": (edit(put("hands.1.fairness.secret", "0" * 64)), 1),
    "ledger a list": (edit(put("ledger", [1])), 2),
    "ledger changed": (edit(put("ledger.pool", 99)), 1),
    "ended_early yes": (edit(put("ended_early", "yes")), 2),
    "nested 100 in a result": (raw("hands.0.result", nest(100)), 2),
    "nested 100000 in a result": (raw("hands.0.result", nest(100_000)), 2),
    "nested 100000 at the top": (nest(100_000), 2),
    "a wrapped hand numbered x": (json.dumps({"record": BASE["hands"][0], "number": "x"}), 0),
    "a wrapped hand not an object": (json.dumps({"record": 5}), 2),
    "over the size limit": (" " * (MAX_RECORD_BYTES + 1) + "{}", 2),
}
#: Well-formed records ``wmq review`` refuses (exit 2): an action it cannot replay, no hand.
REVIEW_TOO = {
    "no hands",
    "an unknown action",
    "an illegal discard",
    "an escaped surrogate",
    "a wrapped hand numbered x",
}
#: … and ``wmq replay`` (which also checks the results and the ledger).
REPLAY_TOO = {
    "no hands",
    "an unknown action",
    "an illegal discard",
    "an escaped surrogate",
    "result changed",
    "ledger changed",
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("hostile")
    out = {}
    for k, (name, (content, _)) in enumerate(CORPUS.items()):
        path = folder / f"{k:02d}.json"
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, "utf-8")
        out[name] = path
    return out


def run(args: list[str]) -> tuple[int, str, str, float]:
    start = time.perf_counter()
    result = runner.invoke(app, args)
    took = time.perf_counter() - start
    assert result.exception is None or isinstance(result.exception, SystemExit), (
        args,
        repr(result.exception),
    )
    return result.exit_code, result.stdout, result.stderr, took


def one_error_line(stderr: str, where: str) -> str:
    lines = stderr.splitlines()
    assert len(lines) == 1, (where, stderr[:2000])
    assert "Traceback" not in stderr and len(lines[0]) <= 320, (where, stderr[:500])
    return lines[0]


def test_the_real_record_passes_every_command(corpus: dict[str, Path], tmp_path: Path) -> None:
    path = tmp_path / "real.json"
    path.write_text(json.dumps(BASE, ensure_ascii=False), "utf-8")
    code, out, err, _ = run(["verify", str(path)])
    assert code == 0 and "every deal follows from the match seed" in out, err
    code, out, err, _ = run(["review", str(path), "--seat", "0", "--bot", REVIEW_BOT, "--json"])
    assert code == 0, err
    code, out, err, _ = run(["replay", str(path), "--all"])
    assert code == 0 and "比赛结束" in out, err


@pytest.mark.parametrize("name", list(CORPUS))
def test_a_hostile_file_is_refused_in_one_line(corpus: dict[str, Path], name: str) -> None:
    path = str(corpus[name])
    expected = CORPUS[name][1]
    code, _, err, took = run(["verify", path])
    assert code == expected, (name, code, err)
    assert took < SECONDS, (name, "verify", took)
    if expected:
        line = one_error_line(err, f"verify {name}")
        assert line.startswith("wmq verify: " if expected == 2 else "NOT VERIFIED: "), line
    review = 2 if expected == 2 or name in REVIEW_TOO else 0
    args = ["review", path, "--seat", "0", "--bot", REVIEW_BOT, "--hand", "1", "--json"]
    code, _, err, took = run(args)
    assert code == review, (name, "review", code, err)
    assert took < SECONDS, (name, "review", took)
    if review:
        assert one_error_line(err, f"review {name}").startswith("wmq review: ")
    replay = 2 if expected == 2 or name in REPLAY_TOO else 0
    code, _, err, took = run(["replay", path, "--all"])
    assert code == replay, (name, "replay", code, err)
    assert took < SECONDS, (name, "replay", took)
    if replay:
        assert one_error_line(err, f"replay {name}").startswith("wmq replay: ")


@pytest.mark.parametrize(
    "name", ["dealer 7", "match seed NaN", "nested 100000 in a result", "an illegal discard"]
)
def test_the_installed_command_answers_in_one_line(corpus: dict[str, Path], name: str) -> None:
    # The real process: what a person sees, stderr and exit status, within the time bound.
    wmq = [sys.executable, "-c", "from weimaque.cli.app import main; main()"]
    for args in (
        ["verify", str(corpus[name])],
        ["review", str(corpus[name]), "-s", "0", "--bot", REVIEW_BOT],
        ["replay", str(corpus[name]), "--all"],
    ):
        done = subprocess.run([*wmq, *args], capture_output=True, text=True, timeout=30)
        assert done.returncode in (1, 2), (name, args[0], done.stderr)
        one_error_line(done.stderr, f"{args[0]} {name}")
