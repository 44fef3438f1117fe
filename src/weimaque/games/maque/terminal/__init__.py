"""偎麻雀's terminal front end: the seam's ``"terminal"`` capability
(:class:`weimaque.games.protocol.Terminal`, docs/architecture.md "The CLI").

What only 偎麻雀 shows or does at the terminal lives here, in the game's package, on rich and
typer: its board and match (:mod:`.tui`, :mod:`.play`), its breakdown and preset tables
(:mod:`.render`), ``wmq rules`` (:mod:`.rules`) and ``wmq train`` (:mod:`.train`, the net bot's
training, weighed with the arena the CLI lends it). The CLI owns the commands' names and options
and reaches this only through ``get_game("maque").terminal()``; the engine below imports none of
it (the import-linter contracts ``maque-layers`` and ``engine-has-no-terminal``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from weimaque.games.maque.terminal.play import play_match, replay_record
from weimaque.games.maque.terminal.render import breakdown_renderable
from weimaque.games.maque.terminal.rules import rules_app
from weimaque.games.maque.terminal.train import train_command
from weimaque.games.protocol import JSON, ArenaRun, PlayRequest, Shown

#: The fields of ``wmq score --json`` (``Breakdown.to_dict``), in order, with each group's and
#: 名堂's own; the calculator's answer adds tags, effects and the formula for the 算息 page.
PLAIN_FIELDS: Final = (
    "winning",
    "rules",
    "hard_xi",
    "multiplier",
    "total",
    "red",
    "groups",
    "patterns",
    "reason",
)
GROUP_FIELDS: Final = ("kind", "cards", "xi")
PATTERN_FIELDS: Final = ("key", "name", "points")


def plain_breakdown(answer: JSON) -> JSON:
    """``wmq score --json``: the breakdown as ``Breakdown.to_dict`` writes it, and the gain."""
    b = answer["breakdown"]
    out: JSON = {}
    for key in PLAIN_FIELDS:
        if key == "groups":
            out[key] = [{k: g[k] for k in GROUP_FIELDS} for g in b[key]]
        elif key == "patterns":
            out[key] = [{k: p[k] for k in PATTERN_FIELDS} for p in b[key]]
        else:
            out[key] = b[key]
    if "gain" in answer:
        out["gain"] = answer["gain"]
    return out


class MaqueTerminal:
    """偎麻雀's :class:`~weimaque.games.protocol.Terminal`."""

    def calculation(self, answer: JSON, lang: str) -> Shown:
        """The breakdown table (as ``wmq score`` has always printed it), exit 0 for a win and 1
        for a hand that does not win."""
        b = answer["breakdown"]
        return Shown(
            breakdown_renderable(b, answer.get("gain")),
            plain_breakdown(answer),
            0 if b["winning"] else 1,
        )

    def play(self, console: Any, ask: Any, request: PlayRequest) -> None:
        """The board at seat 0 against two bots (docs/terminal.md)."""
        play_match(console, ask, request)

    def replay(self, console: Any, ask: Any, record: object, hand: int | None, seat: str) -> None:
        """A hand or match record stepped through event by event (docs/terminal.md)."""
        replay_record(console, ask, record, hand, seat)

    def commands(self, arena: ArenaRun) -> tuple[tuple[str, Any], ...]:
        """``wmq rules`` and ``wmq train``."""
        train: Callable[..., None] = train_command(arena)
        return (("rules", rules_app()), ("train", train))


FRONT_END: Final = MaqueTerminal()

__all__ = ["FRONT_END", "MaqueTerminal", "plain_breakdown"]
