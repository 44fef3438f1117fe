"""``wmq verify``: records of ``wmq play --save`` and of the server pass; tampered ones fail with
the first thing that does not hold (docs/fairness.md, RULES §2.2)."""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from tests.test_play import play_through_pty
from weimaque.cli import app
from weimaque.errors import RecordError
from weimaque.games.fairness import VerifyError, commitment, new_secret, reveal
from weimaque.games.maque.bots import RandomBot
from weimaque.games.maque.bots.base import choose
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.match import Match
from weimaque.games.maque.verify import deal_json, verify_document

runner = CliRunner()


def played_match(seed: int, hands: int) -> dict[str, Any]:
    """A match of random bots, each hand with its commitment revealed, as the server stores it."""
    match = Match.new("anxiang", seed)
    rng = random.Random(seed)
    bots = [RandomBot(), RandomBot(), RandomBot()]
    reveals = []
    for _ in range(hands):
        if match.is_over():
            break
        state = match.start_hand()
        secret = new_secret()
        assert state.seed is not None
        reveals.append((reveal(secret, state.seed), deal_json(state)))
        while not state.is_terminal():
            seat = state.to_act()[0]
            state.apply(seat, choose(bots, state, seat, rng))
        match.finish_hand()
    doc = match.record()
    doc.pop("seed")  # a live room never shows its match seed
    for hand, (block, deal) in zip(doc["hands"], reveals, strict=True):
        hand["fairness"] = block
        hand["deal"] = deal
    return doc


def verify_cli(tmp_path: Path, doc: Any, *options: str) -> tuple[int, str]:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), "utf-8")
    result = runner.invoke(app, ["verify", str(path), *options])
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def server_like() -> dict[str, Any]:
    return played_match(11, 3)


def test_a_wmq_play_record_verifies_only_without_commitments(tmp_path: Path) -> None:
    save = tmp_path / "match.json"
    play_through_pty(save)
    doc = json.loads(save.read_text("utf-8"))
    # Its deals were never committed to: nothing shows they were not chosen.
    code, out = verify_cli(tmp_path, doc)
    assert code == 1 and "NOT VERIFIED: hand 1: no deal commitment" in out, out
    code, out = verify_cli(tmp_path, doc, "--without-commitments")
    assert code == 0, out
    assert "verified: 1 hand(s)" in out and "every deal follows from the match seed" in out


def test_a_committed_match_verifies_and_each_hand_alone(
    tmp_path: Path, server_like: dict[str, Any]
) -> None:
    code, out = verify_cli(tmp_path, server_like)
    assert code == 0, out
    assert f"{len(server_like['hands'])} deal commitment(s) match" in out
    for number, hand in enumerate(server_like["hands"], 1):
        wrapped = {"v": 1, "room_id": "r", "number": number, "record": hand}
        assert verify_document(wrapped).commitments == 1


def tampered(doc: dict[str, Any], change: Any) -> dict[str, Any]:
    out = copy.deepcopy(doc)
    change(out)
    return out


def swap_card(doc: dict[str, Any]) -> None:
    deal = doc["hands"][0]["deal"]
    a, b = deal["hands"][0], deal["hands"][1]
    i = next(k for k in range(len(a)) if a[k] not in b)
    j = next(k for k in range(len(b)) if b[k] not in a)
    deal["hands"][0] = a[:i] + b[j] + a[i + 1 :]
    deal["hands"][1] = b[:j] + a[i] + b[j + 1 :]


def change_action(doc: dict[str, Any]) -> None:
    actions = doc["hands"][0]["actions"]
    k = next(i for i, (_, text) in enumerate(actions) if text.startswith("出"))
    seat, text = actions[k]
    face = Action.parse(text).face
    assert face is not None
    actions[k] = [seat, str(Action.discard((face + 7) % 20))]


def wrong_secret(doc: dict[str, Any]) -> None:
    block = doc["hands"][1]["fairness"]
    block["secret"] = new_secret()


def other_seed(doc: dict[str, Any]) -> None:
    """A seed that matches a fresh commitment but not the published one."""
    hand = doc["hands"][0]
    hand["seed"] += 1
    hand["fairness"]["seed"] = hand["seed"]
    hand["fairness"]["seed_text"] = str(hand["seed"])


def never_revealed(doc: dict[str, Any]) -> None:
    del doc["hands"][2]["fairness"]["secret"]


def changed_result(doc: dict[str, Any]) -> None:
    result = doc["hands"][0]["result"]
    result["total"] = (result["total"] or 0) + 10


@pytest.mark.parametrize(
    ("change", "quoted"),
    [
        (swap_card, "hand 1: the deal in the record is not the deal of seed"),
        (change_action, "hand 1, action"),
        (wrong_secret, "hand 2: commitment"),
        (other_seed, "hand 1: commitment"),
        (never_revealed, "hand 3: commitment"),
        (changed_result, "hand 1:"),
    ],
)
def test_a_tampered_record_is_rejected_with_the_first_failure(
    tmp_path: Path, server_like: dict[str, Any], change: Any, quoted: str
) -> None:
    code, out = verify_cli(tmp_path, tampered(server_like, change))
    assert code == 1, out
    assert "NOT VERIFIED" in out and quoted in out, out


def drop_commitments(doc: dict[str, Any]) -> None:
    for hand in doc["hands"]:
        del hand["fairness"]


def drop_one_commitment(doc: dict[str, Any]) -> None:
    del doc["hands"][1]["fairness"]


@pytest.mark.parametrize(
    ("change", "quoted"),
    [(drop_commitments, "hand 1: no deal commitment"), (drop_one_commitment, "hand 2: no deal")],
)
def test_a_record_without_its_commitments_is_not_verified(
    tmp_path: Path, server_like: dict[str, Any], change: Any, quoted: str
) -> None:
    code, out = verify_cli(tmp_path, tampered(server_like, change))
    assert code == 1 and "NOT VERIFIED" in out and quoted in out, out
    with pytest.raises(VerifyError, match="no deal commitment"):
        verify_document(tampered(server_like, change))


@pytest.fixture(scope="module")
def finished_with_seed() -> dict[str, Any]:
    """A finished match as the server publishes it: with its match seed."""
    doc = played_match(12, 8)
    doc["seed"] = Match.new("anxiang", 12).seed
    doc["seed_text"] = str(doc["seed"])
    return doc


def test_a_finished_match_verifies_from_its_match_seed(
    tmp_path: Path, finished_with_seed: dict[str, Any]
) -> None:
    done = verify_document(finished_with_seed)
    assert done.match_seed and done.hands == 8 and done.commitments == 8
    code, out = verify_cli(tmp_path, finished_with_seed)
    assert code == 0 and "every deal follows from the match seed" in out, out


def another_match_seed(doc: dict[str, Any]) -> None:
    doc["seed"] += 1
    doc["seed_text"] = str(doc["seed"])


def a_hand_from_elsewhere(doc: dict[str, Any]) -> None:
    """Hand 3 replaced by a hand of another match, with its own valid commitment."""
    other = played_match(99, 3)["hands"][2]
    doc["hands"][2] = other


def seed_text_differs(doc: dict[str, Any]) -> None:
    doc["seed_text"] = str(doc["seed"] + 1)


@pytest.mark.parametrize(
    ("change", "code", "quoted"),
    [
        (another_match_seed, 1, "hand 1: seed"),
        (a_hand_from_elsewhere, 1, "hand 3: seed"),
        (seed_text_differs, 2, "seed_text"),
    ],
)
def test_a_match_seed_that_does_not_give_every_hand_fails(
    tmp_path: Path, finished_with_seed: dict[str, Any], change: Any, code: int, quoted: str
) -> None:
    got, out = verify_cli(tmp_path, tampered(finished_with_seed, change))
    assert got == code and quoted in out, out


def test_commitments_bind_secret_and_seed() -> None:
    secret = new_secret()
    assert len(secret) == 64 and int(secret, 16) >= 0
    c = commitment(secret, 42)
    assert c == commitment(secret, 42)
    assert c != commitment(secret, 43) and c != commitment(new_secret(), 42)


def test_not_a_record(tmp_path: Path) -> None:
    assert verify_cli(tmp_path, [1, 2])[0] == 2
    with pytest.raises(RecordError, match="no hand"):
        verify_document({"hello": 1})
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", "utf-8")
    assert runner.invoke(app, ["verify", str(bad)]).exit_code == 2
