"""偎麻雀's table numbers (明息, 听 hints, a breakdown's JSON), where callers outside the server
found them before they became the game's own (:mod:`weimaque.games.maque.numbers`, reached by the
server through the game's ``"table"`` capability, docs/new-game.md)."""

from weimaque.games.maque.numbers import (
    HintCache,
    breakdown_json,
    group_tags,
    hints,
    seen_counts,
    table_xi,
)

__all__ = ["HintCache", "breakdown_json", "group_tags", "hints", "seen_counts", "table_xi"]
