"""The golden playthrough file is reproduced exactly (OpenSpiel-style playthrough, RULES §2-§5)."""

from __future__ import annotations

import os

from tests.playthrough import GOLDEN, playthrough_lines


def test_golden_playthrough_matches() -> None:
    lines = playthrough_lines()
    if os.environ.get("WMQ_UPDATE_GOLDEN"):
        GOLDEN.write_text("\n".join(lines) + "\n", encoding="utf-8")
    expected = GOLDEN.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(expected)
    for i, (got, want) in enumerate(zip(lines, expected, strict=True)):
        assert got == want, f"step {i} differs from {GOLDEN.name}"


def test_golden_hand_ends_in_a_win() -> None:
    import json

    last = json.loads(playthrough_lines()[-1])
    assert last["views"][0]["result"]["winner"] is not None
    assert last["views"][0]["result"]["breakdown"]["total"] > 0
