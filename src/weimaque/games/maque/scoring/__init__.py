"""Scoring: 名堂 patterns, the best arrangement, the breakdown (RULES §7)."""

from weimaque.games.maque.scoring.breakdown import Breakdown, PatternScore
from weimaque.games.maque.scoring.scorer import (
    patterns_of,
    score,
    score_dealt,
    score_description,
    score_position,
)
from weimaque.games.maque.scoring.waits import Wait, waits

__all__ = [
    "Breakdown",
    "PatternScore",
    "Wait",
    "patterns_of",
    "score",
    "score_dealt",
    "score_description",
    "score_position",
    "waits",
]
