"""Scoring: 名堂 patterns, the best arrangement, the breakdown (RULES §7)."""

from weimaque.scoring.breakdown import Breakdown, PatternScore
from weimaque.scoring.scorer import patterns_of, score, score_description, score_position

__all__ = [
    "Breakdown",
    "PatternScore",
    "patterns_of",
    "score",
    "score_description",
    "score_position",
]
