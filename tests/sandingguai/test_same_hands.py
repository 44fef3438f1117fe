"""Random play gives the very hands it gave before the engine's fast paths (SDG §2-§9).

Each hand of random play with a fixed action generator is reduced to a digest of everything it
shows: its events (the deal, every turn, 胡 and the end with its hands and transfers), its
table description (SDG §1.5), its settlement (SDG §9) and its JSON record. The digests of many
hands are folded into one, pinned below as the engine gave them before; a speed-up that
changed any hand would change it. Run as a script to fold more seeds:
``.venv/bin/python tests/sandingguai/test_same_hands.py 3000 [preset]``.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys

import pytest

from weimaque.games.sandingguai.record import hand_record
from weimaque.games.sandingguai.rules import RuleConfig, get_rules
from weimaque.games.sandingguai.state import State


def _rules(preset: str) -> RuleConfig:
    """A preset by id, or ``dingque``: the default one with 定缺 (SDG §2.4)."""
    return get_rules(dingque=True) if preset == "dingque" else get_rules(preset)


def hand_digest(state: State) -> bytes:
    """The digest of a finished hand: events, table, settlement and record."""
    assert state.result is not None
    text = "\n".join(
        (
            repr(state.events),
            repr(state.result.table),
            repr(state.result.settlement),
            json.dumps(hand_record(state), ensure_ascii=False, sort_keys=True),
        )
    )
    return hashlib.sha256(text.encode()).digest()


def play_digest(preset: str, seeds: int) -> str:
    """Hands ``0 .. seeds - 1`` of random play (dealer ``seed % 3``, actions from one
    ``random.Random(7)``), their digests folded in order."""
    rules = _rules(preset)
    rng = random.Random(7)
    fold = hashlib.sha256()
    for seed in range(seeds):
        state = State(rules, seed, seed % 3)
        while not state.is_terminal():
            seat = state.current_player()
            state.apply(rng.choice(state.legal_actions(seat)), seat)
        fold.update(hand_digest(state))
    return fold.hexdigest()


#: ``play_digest(preset, 300)`` as the engine gave it before its latest fast paths.
PINNED = {
    "sandingguai": "a7da21802797e533fa7eb1708ad2fe11640ab4351bd16718efed99f40de18e4b",
    "baike-3p": "e7f8a9e101403e99b67572b9607ac5a0ba222c50e14929ce8b6646927a03954a",
    "dingque": "1c9f5b2f1591da6403239658c79e3747e3dac3f2bef812cf397eee10b5393e58",
}


@pytest.mark.parametrize("preset", sorted(PINNED))
def test_random_play_gives_the_same_hands(preset: str) -> None:
    assert play_digest(preset, 300) == PINNED[preset]


if __name__ == "__main__":
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 3000
    for name in sys.argv[2:] or sorted(PINNED):
        print(name, count, play_digest(name, count))
