"""The result of scoring a hand: every group with its 息, every 名堂 with its points."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from weimaque.games.maque.analysis.arrange import Group
from weimaque.games.maque.cards import faces_str
from weimaque.games.maque.rules.config import PatternMode


@dataclass(frozen=True, slots=True)
class PatternScore:
    """One 名堂 as it scored: its value in the preset, how often it applied, what it added."""

    key: str
    name: str
    mode: PatternMode
    value: int
    units: int
    points: int

    def effect(self) -> str:
        """The effect in words: ``×6`` or ``+10 × 2``."""
        if self.mode == "mul":
            return f"×{self.value}"
        return f"+{self.value}" if self.units == 1 else f"+{self.value} × {self.units}"


@dataclass(frozen=True, slots=True)
class Breakdown:
    """A scored hand: total = 硬息 × multiplier + additions (RULES §7.1).

    For a hand that does not win, ``winning`` is False, ``total`` 0 and ``reason`` says why;
    ``groups`` then shows the arrangement with the most 硬息, if any.
    """

    winning: bool
    rules: str
    hard_xi: int
    multiplier: int
    total: int
    red: int
    groups: tuple[Group, ...]
    patterns: tuple[PatternScore, ...]
    reason: str | None

    def to_dict(self) -> dict[str, Any]:
        """The JSON form printed by ``wmq score --json``."""
        return {
            "winning": self.winning,
            "rules": self.rules,
            "hard_xi": self.hard_xi,
            "multiplier": self.multiplier,
            "total": self.total,
            "red": self.red,
            "groups": [
                {"kind": g.kind, "cards": faces_str(g.faces), "xi": g.xi} for g in self.groups
            ],
            "patterns": [{"key": p.key, "name": p.name, "points": p.points} for p in self.patterns],
            "reason": self.reason,
        }
