"""Ablation: how much would the search gain if it could read the opponents' hands?

**An upper bound for analysis, never a player.** Here ``mcts`` samples its worlds from the *true*
state: the opponents' concealed hands and face-down 偎 as they are, only the order of the stock
still shuffled (nobody can know it). Against its real score (same deals, same budget) this
measures what any determinization, however well it read the opponents' claims and discards,
could add at most; what remains is the rollout model's limit. The patch lives in this script
only: nothing in the package, the arena or the server can build this bot.

Run: ``.venv/bin/python research/oracle.py --bots 'mcts:iters=300;keep=2,greedy,greedy' --hands 600
--seed 1 --workers 2 --out oracle`` (then ``oracle.json``, as ``research/confirm.py`` writes it).

``WMQ_ORACLE_KNOWS=waits`` tells the search less: only which faces each opponent's hand waits on
(none, or the faces one more card completes, RULES §6.1). Its worlds then come from the chain of
``mcts:infer=N`` weighted to match those waits instead of reading the discards (give ``infer=150``:
3,000 steps of burn-in, 150 between worlds), so the hands differ but the threats are the real ones.
``WMQ_ORACLE_KNOWS=nothing`` is the control: the same chain with no weight at all, whose law is the
uniform one, so it should play as plain ``mcts`` does.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import weimaque.games.maque as maque_game
import weimaque.games.maque.bots.mcts as mcts
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.game.state import GameState

sys.path.insert(0, str(Path(__file__).parent))
from _truth import truth, wait_match

_TRUE: list[GameState] = []


class _RecordingView:
    """Stands in for ``BotView`` in the 偎麻雀 adapter's ``bot_view``, which the arena's loop
    calls: keeps the state it was built from."""

    @staticmethod
    def of(state: GameState, seat: int) -> BotView:
        _TRUE[:] = [state]
        return BotView.of(state, seat)


def _true_state(view: BotView) -> GameState:
    (state,) = _TRUE
    return state


#: What the search is told: "hands", "waits" or "nothing"; from the environment, so that the
#: arena's worker processes (spawned: they import this script again) patch the same way.
KNOWS = os.environ.get("WMQ_ORACLE_KNOWS", "hands")
maque_any: Any = maque_game
mcts_any: Any = mcts
maque_any.BotView = _RecordingView
if KNOWS == "hands":
    mcts_any.Knowledge = truth(_true_state)
elif KNOWS == "waits":
    mcts_any.seat_loglik = wait_match(_true_state)
elif KNOWS == "nothing":
    mcts_any.seat_loglik = lambda *_, **__: 0.0
else:
    raise SystemExit(f"WMQ_ORACLE_KNOWS must be 'hands', 'waits' or 'nothing', not {KNOWS!r}")

if __name__ == "__main__":
    import confirm

    confirm.main()
