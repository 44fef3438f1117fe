"""``wmq verify`` and ``wmq replay`` of 三丁拐 records, played through the seam: the record's
``game`` decides, the game's ``replay`` checks the play, the commitment of docs/fairness.md the
deal; 偎麻雀's records are read as before (tests/test_verify.py)."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from weimaque.cli import app
from weimaque.games import get_game
from weimaque.games.fairness import commitment, reveal

runner = CliRunner(env={"COLUMNS": "250"})
SECRET = "5e" * 32


def played(seed: int) -> dict[str, Any]:
    """A 三丁拐 hand played to its end by the game's own bots, and its record."""
    game = get_game("sandingguai")
    hand = game.new_hand("sandingguai", None, seed=seed)
    bots = [game.bot("greedy", "sandingguai") for _ in range(3)]
    rng = random.Random(seed)
    while not hand.is_terminal():
        seat = hand.to_act()[0]
        hand.apply(seat, bots[seat].act(hand.bot_view(seat), rng))
    record = hand.record()
    assert record["game"] == "sandingguai" and "net" in record
    return json.loads(json.dumps(record))


def committed(record: dict[str, Any]) -> dict[str, Any]:
    """The record as a server would keep it: its commitment revealed, with the deal."""
    out = copy.deepcopy(record)
    out["fairness"] = reveal(SECRET, record["seed"])
    out["deal"] = get_game("sandingguai").new_hand("sandingguai", None, record["seed"]).deal()
    return out


def run(tmp_path: Path, doc: Any, *args: str) -> tuple[int, str, str]:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), "utf-8")
    result = runner.invoke(app, [*args, str(path)])
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    return played(11)


def test_a_played_hand_verifies(tmp_path: Path, record: dict[str, Any]) -> None:
    code, out, err = run(tmp_path, record, "verify", "--without-commitments")
    assert code == 0, err
    assert f"verified: 1 hand(s), {len(record['actions'])} actions legal" in out
    # Without its commitment the deal proves nothing (docs/fairness.md).
    code, _, err = run(tmp_path, record, "verify")
    assert code == 1 and "no deal commitment" in err
    code, out, err = run(tmp_path, committed(record), "verify")
    assert code == 0, err
    assert "1 deal commitment(s) match their reveal" in out
    # As the server answers one hand: {"record": …}.
    code, out, err = run(tmp_path, {"record": committed(record)}, "verify")
    assert code == 0, err


def test_tampered_records_fail(tmp_path: Path, record: dict[str, Any]) -> None:
    good = committed(record)
    wrong_secret = copy.deepcopy(good)
    wrong_secret["fairness"]["secret"] = "00" * 32
    wrong_seed = copy.deepcopy(good)
    wrong_seed["seed"] += 1
    wrong_seed["fairness"] = reveal(SECRET, wrong_seed["seed"])  # a deal other than the shown
    wrong_net = copy.deepcopy(good)
    wrong_net["net"] = [0, 0, 0]
    wrong_action = copy.deepcopy(good)
    wrong_action["actions"][0] = [1, wrong_action["actions"][0][1]]
    for doc, said in [
        (wrong_secret, "does not match the revealed secret"),
        (wrong_seed, "hand 1:"),
        (wrong_net, "the record says"),
        (wrong_action, "action 0"),
    ]:
        code, _, err = run(tmp_path, doc, "verify")
        assert code == 1 and "NOT VERIFIED" in err and said in err, err
    assert commitment(SECRET, record["seed"]) == good["fairness"]["commitment"]


def test_not_a_record_exit_2(tmp_path: Path, record: dict[str, Any]) -> None:
    code, _, err = run(tmp_path, {**record, "game": "chess"}, "verify")
    assert code == 2 and "chess" in err
    code, _, err = run(tmp_path, {"game": "sandingguai", "hands": [record]}, "verify")
    assert code == 2 and "one hand" in err
    code, _, err = run(tmp_path, {**record, "game": 3}, "replay", "--all")
    assert code == 2 and "3" in err


def test_replay_shows_what_the_viewer_may_see(tmp_path: Path, record: dict[str, Any]) -> None:
    code, out, err = run(tmp_path, record, "replay", "--all", "--seat", "1")
    assert code == 0, err
    lines = out.splitlines()
    dealt = [ln for ln in lines if ln.startswith("dealt")]
    assert len(dealt) == 3
    # Seat 1 sees its own dealt tiles only, and the end of the hand.
    assert ["tiles=" in ln for ln in dealt] == [False, True, False]
    assert lines[-1] == f"NET {record['net']}"
    code, out, _ = run(tmp_path, record, "replay", "--all")
    assert sum("tiles=" in ln for ln in out.splitlines() if ln.startswith("dealt")) == 3
    code, _, err = run(tmp_path, record, "replay", "--all", "--seat", "shouxing")
    assert code == 2 and "shouxing" in err
    code, _, err = run(tmp_path, record, "replay", "--all", "--hand", "2")
    assert code == 2 and "no hand 2" in err
    broken = copy.deepcopy(record)
    broken["actions"].append([0, "出9x"])
    code, out, err = run(tmp_path, broken, "replay", "--all")
    assert code == 2 and out == "" and "9x" in err
