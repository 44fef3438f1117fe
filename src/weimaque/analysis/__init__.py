"""Hand analysis: every decomposition, arrangements with 硬息 and 团圆 (RULES §6)."""

from weimaque.analysis.arrange import Arrangement, Group, arrangements
from weimaque.analysis.decompose import splits

__all__ = ["Arrangement", "Group", "arrangements", "splits"]
