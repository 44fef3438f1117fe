"""Golden playthrough: every event and every seat's view of one fixed hand, as JSON lines.

Regenerate after an intended change with ``WMQ_UPDATE_GOLDEN=1 pytest tests/test_golden.py``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from weimaque.games.maque.game.observation import observation
from weimaque.games.maque.game.state import GameState

GOLDEN = Path(__file__).parent / "golden" / "playthrough_anxiang_seed27.jsonl"
SEED = 27


def policy_play(state: GameState, rng: random.Random) -> None:
    """Take a 胡 whenever offered, else a uniformly random legal action."""
    seat = state.current_player()
    legal = state.legal_actions(seat)
    action = next((a for a in legal if a.kind == "hu"), None) or rng.choice(legal)
    state.apply(seat, action)


def playthrough_lines(seed: int = SEED) -> list[str]:
    """One JSON line per step: the action, the new events per viewer, each seat's view."""
    state = GameState.new("anxiang", seed)
    rng = random.Random(seed)
    lines: list[str] = []

    def snapshot(action: str | None, start: int) -> None:
        events = state.events[start:]
        row = {
            "action": action,
            "events": {
                str(v): [e.view(v) for e in events if e.view(v) is not None]
                for v in (0, 1, 2, "public")
            },
            "views": [observation(state, seat) for seat in range(3)],
        }
        lines.append(json.dumps(row, ensure_ascii=False, sort_keys=True))

    snapshot(None, 0)
    while not state.is_terminal():
        seat = state.current_player()
        before = len(state.events)
        policy_play(state, rng)
        snapshot(f"{seat} {state.actions[-1][1]}", before)
    return lines
