"""Rich rendering of cards and breakdowns for the terminal."""

from __future__ import annotations

from collections.abc import Iterable

from rich.console import Group as RenderGroup
from rich.table import Table
from rich.text import Text

from weimaque.cards import FACE_CHARS, RED_FACES
from weimaque.rules.config import PATTERN_NAMES, RuleConfig
from weimaque.scoring.breakdown import Breakdown

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


def breakdown_renderable(b: Breakdown) -> RenderGroup:
    """A readable table of a breakdown: groups with 息, 名堂 with points, the total."""
    groups = Table(title=f"规则 {b.rules}", show_edge=False, pad_edge=False)
    groups.add_column("组")
    groups.add_column("牌")
    groups.add_column("息", justify="right")
    groups.add_column("")
    for g in b.groups:
        notes = []
        if g.tuanyuan:
            notes.append("明团圆" if g.tuanyuan == "ming" else "暗团圆")
        if g.win:
            notes.append("胡张")
        groups.add_row(GROUP_LABELS[g.kind], cards_text(g.faces), str(g.xi), " ".join(notes))
    groups.add_section()
    groups.add_row("硬息", "", str(b.hard_xi), f"红 {b.red}")
    parts: list[Table | Text] = [groups]
    if b.winning:
        pats = Table(show_edge=False, pad_edge=False)
        pats.add_column("名堂")
        pats.add_column("", justify="right")
        pats.add_column("分", justify="right")
        for p in b.patterns:
            pats.add_row(f"{p.name} ({p.key})", p.effect(), f"+{p.points}")
        pats.add_section()
        adds = sum(p.points for p in b.patterns if p.mode == "add")
        formula = f"{b.hard_xi} × {b.multiplier} + {adds}"
        pats.add_row("总息", formula, Text(str(b.total), style="bold"))
        parts.append(pats)
    else:
        parts.append(Text(f"不胡: {b.reason}", style="yellow"))
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
