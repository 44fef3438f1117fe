"""Rich rendering of 偎麻雀's cards, breakdowns and presets for the terminal.

A breakdown is rendered from its JSON (``scoring.explain.breakdown_json``, the calculator's
answer, docs/protocol.md §1), so ``wmq score`` and the end of a hand at ``wmq play`` show the
same table from the same numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from rich.console import Group as RenderGroup
from rich.table import Table
from rich.text import Text

from weimaque.games.maque.cards import FACE_CHARS, RED_FACES
from weimaque.games.maque.notation import parse_cards
from weimaque.games.maque.rules.config import PATTERN_NAMES, RuleConfig

GROUP_LABELS = {
    "peng": "碰",
    "wei": "偎",
    "chi": "吃",
    "kan": "砍",
    "run": "顺",
    "maque": "麻雀",
    "tuanyuan": "团圆",
}


def cards_text(faces: Iterable[int]) -> Text:
    """Faces as text, red faces in red."""
    text = Text()
    for f in faces:
        text.append(FACE_CHARS[f], style="bold red" if f in RED_FACES else "bold")
    return text


def breakdown_renderable(
    b: Mapping[str, Any], gain: Mapping[str, Any] | None = None
) -> RenderGroup:
    """A readable table of a breakdown (its JSON, ``breakdown_json``): groups with 息, 名堂
    with points, the total; with ``gain`` (``wmq score --pool/--players``) the winner's take
    and whole gain (RULES §8.5.3)."""
    groups = Table(title=f"规则 {b['rules']}", show_edge=False, pad_edge=False)
    groups.add_column("组")
    groups.add_column("牌")
    groups.add_column("息", justify="right")
    groups.add_column("")
    for g in b["groups"]:
        notes = []
        tags = g.get("tags", ())
        if "tuanyuan_ming" in tags:
            notes.append("明团圆")
        elif "tuanyuan_an" in tags:
            notes.append("暗团圆")
        if "win" in tags:
            notes.append("胡张")
        faces = parse_cards(g["cards"]) if g["cards"] else []
        groups.add_row(GROUP_LABELS[g["kind"]], cards_text(faces), str(g["xi"]), " ".join(notes))
    groups.add_section()
    groups.add_row("硬息", "", str(b["hard_xi"]), f"红 {b['red']}")
    parts: list[Table | Text] = [groups]
    if b["winning"]:
        pats = Table(show_edge=False, pad_edge=False)
        pats.add_column("名堂")
        pats.add_column("", justify="right")
        pats.add_column("分", justify="right")
        for p in b["patterns"]:
            pats.add_row(f"{p['name']} ({p['key']})", p["effect"], f"+{p['points']}")
        pats.add_section()
        adds = sum(p["points"] for p in b["patterns"] if p["mode"] == "add")
        formula = f"{b['hard_xi']} × {b['multiplier']} + {adds}"
        pats.add_row("总息", formula, Text(str(b["total"]), style="bold"))
        if gain is not None:
            players, take = gain["players"], gain["take"]
            pool = "" if gain["pool"] is None else f" (留子 {gain['pool']})"
            pats.add_row(f"留子 take{pool}", "", f"+{take}")
            sum_text = f"{b['total']} × {players - 1} + {take}"
            pats.add_row(f"得 gain ({players} 人)", sum_text, Text(str(gain["gain"]), style="bold"))
        parts.append(pats)
    else:
        parts.append(Text(f"不胡: {b['reason']}", style="yellow"))
    return RenderGroup(*parts)


def rules_table(rules: RuleConfig) -> Table:
    """A preset's 名堂 table."""
    table = Table(title=f"{rules.id}: {rules.name} ({rules.name_en})", caption=rules.source)
    table.add_column("key")
    table.add_column("名堂")
    table.add_column("value", justify="right")
    table.add_column("")
    for key in PATTERN_NAMES:
        name = rules.pattern_name(key)
        if key in rules.patterns:
            table.add_row(key, name, str(rules.patterns[key]), "")
        elif key in rules.optional_patterns:
            table.add_row(key, name, str(rules.optional_patterns[key]), "option, off")
    return table


__all__ = ["GROUP_LABELS", "breakdown_renderable", "cards_text", "rules_table"]
