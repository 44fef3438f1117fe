"""Hand analysis: every decomposition, arrangements with 硬息 and 团圆 (RULES §6)."""

from weimaque.games.maque.analysis.arrange import Arrangement, Group, arrangements
from weimaque.games.maque.analysis.decompose import splits

__all__ = ["Arrangement", "Group", "arrangements", "splits"]
