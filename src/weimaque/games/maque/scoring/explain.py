"""A breakdown as the 算息 calculator answers it (docs/protocol.md §1 ``POST /api/score``): its
``to_dict`` with each group's tags, each 名堂's effect and the formula of the total.

The 偎麻雀 adapter's calculator (``weimaque.games.maque``, the seam's ``Calculator``) answers
with it, so ``POST /api/score`` and the result panel show the same numbers.
"""

from __future__ import annotations

from typing import Any

from weimaque.games.maque.analysis.arrange import Group
from weimaque.games.maque.cards import counts_of
from weimaque.games.maque.scoring.breakdown import Breakdown


def group_tags(g: Group, total: list[int], forced: bool) -> list[str]:
    """The tags a result shows beside a group: 明团圆 / 暗团圆, 转弯, 胡张, forced 偎."""
    tags: list[str] = []
    if g.tuanyuan is not None:
        tags.append(f"tuanyuan_{g.tuanyuan}")
    if g.kind == "maque" and total[g.faces[0]] >= 3:
        tags.append("zhuanwan")
    if g.win:
        tags.append("win")
        if forced:
            tags.append("forced_wei")
    return tags


def breakdown_json(b: Breakdown) -> dict[str, Any]:
    """A breakdown for the result panel: ``to_dict`` plus group tags, 名堂 effects and the sum."""
    out = b.to_dict()
    # The winner's 20 cards are the groups' (a 团圆 bonus line repeats cards: leave it out).
    total = list(counts_of(f for g in b.groups if g.kind != "tuanyuan" for f in g.faces))
    forced = any(g.win and g.kind == "wei" and not g.meld for g in b.groups)
    for row, g in zip(out["groups"], b.groups, strict=True):
        row["tags"] = group_tags(g, total, forced)
        row["meld"] = g.meld
    out["patterns"] = [
        {
            "key": p.key,
            "name": p.name,
            "mode": p.mode,
            "value": p.value,
            "units": p.units,
            "points": p.points,
            "effect": p.effect(),
        }
        for p in b.patterns
    ]
    additions = sum(p.points for p in b.patterns if p.mode == "add")
    out["additions"] = additions
    out["formula"] = f"{b.hard_xi} × {b.multiplier} + {additions} = {b.total}"
    return out


__all__ = ["breakdown_json", "group_tags"]
