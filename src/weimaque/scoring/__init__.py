"""Scoring: 名堂 patterns, the best arrangement, the breakdown (RULES §7)."""

from weimaque.scoring.breakdown import Breakdown, PatternScore
from weimaque.scoring.scorer import (
    patterns_of,
    score,
    score_dealt,
    score_description,
    score_position,
)
from weimaque.scoring.waits import Wait, waits

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
