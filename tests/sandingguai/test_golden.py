"""Golden playthroughs of 三丁拐 are reproduced exactly (OpenSpiel-style, SANDINGGUAI §2-§10).

Each line is one JSON document: the deal's three views, then per decision the seat, the action,
the events as the finished record shows them (``"all"``) and as the public sees them, and at
the end every seat's view. ``WMQ_UPDATE_GOLDEN=1`` rewrites the files after a deliberate change.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest

from tests.sandingguai.test_state import policy
from weimaque.games.sandingguai.actions import ACTIONS
from weimaque.games.sandingguai.observation import observe
from weimaque.games.sandingguai.state import State

GOLDEN = Path(__file__).resolve().parent.parent / "golden"
#: Seed 8 ends in a 热炮 after two kongs; seed 18 in a 自摸 with two kongs.
SEEDS = (8, 18)


def playthrough_lines(seed: int) -> list[str]:
    rng = random.Random(seed)
    state = State(None, seed)

    def dump(doc: object) -> str:
        return json.dumps(doc, ensure_ascii=False, sort_keys=True)

    lines = [dump({"deal": seed, "views": [observe(state, s).to_dict() for s in range(3)]})]
    while not state.is_terminal():
        seat = state.current_player()
        action = policy(state, rng)
        events = state.apply(action, seat)
        lines.append(
            dump(
                {
                    "seat": seat,
                    "action": str(ACTIONS[action]),
                    "events": [e.view("all") for e in events],
                    "public": [e.view("public") for e in events],
                }
            )
        )
    lines.append(dump({"end": [observe(state, s).to_dict() for s in range(3)]}))
    return lines


@pytest.mark.parametrize("seed", SEEDS)
def test_golden_playthrough(seed: int) -> None:
    path = GOLDEN / f"playthrough_sandingguai_seed{seed}.jsonl"
    lines = playthrough_lines(seed)
    if os.environ.get("WMQ_UPDATE_GOLDEN"):
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(expected)
    for i, (got, want) in enumerate(zip(lines, expected, strict=True)):
        assert got == want, f"line {i} differs from {path.name}"
    end = json.loads(lines[-1])["end"][0]["end"]
    assert sum(end["net"]) == 0 and not end["huang"]
