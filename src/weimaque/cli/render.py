"""Rich rendering of a game calculator's JSON answer for the terminal (``wmq score --game``).

A game with its own terminal front end (the seam's ``"terminal"`` capability: 偎麻雀's
breakdown table) renders its answers itself; the others' are rendered here from their JSON:
三丁拐's hand (``kind: "hand"``: sets, 番型, the formula) and table (``kind: "table"``: the
dealer, chickens, kongs, transfers, docs/sandingguai.md §12), anything else as indented JSON.
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import Group as RenderGroup
from rich.table import Table
from rich.text import Text


def _name(names: dict[str, str], lang: str) -> str:
    """A ``{"zh", "en"}`` name in the chosen language, or both (``zh en``)."""
    if lang == "zh":
        return names["zh"]
    if lang == "en":
        return names["en"]
    return f"{names['zh']} {names['en']}"


def _words(zh: str, en: str, lang: str) -> str:
    return _name({"zh": zh, "en": en}, lang)


def _sets_table(sets: list[dict[str, Any]], lang: str) -> Table:
    table = Table(show_edge=False, pad_edge=False)
    table.add_column(_words("组", "set", lang))
    table.add_column(_words("牌", "tiles", lang))
    table.add_column("")
    for s in sets:
        notes = []
        if s["from"] is not None:
            notes.append(f"← s{s['from']}")
        if s["win"]:
            notes.append(_words("胡张", "winning tile", lang))
        table.add_row(_name(s["name"], lang), s["tiles"], " ".join(notes))
    return table


def _fan_table(answer: dict[str, Any], lang: str) -> Table:
    table = Table(show_edge=False, pad_edge=False)
    table.add_column(_words("番型", "pattern", lang))
    table.add_column(_words("番", "fan", lang), justify="right")
    for p in answer["patterns"]:
        table.add_row(_name(p["name"], lang), str(p["fan"]))
    table.add_section()
    table.add_row(_words("总番", "F", lang), Text(answer["formula"], style="bold"))
    return table


def _hand_renderable(answer: dict[str, Any], lang: str) -> RenderGroup:
    hand = answer["hand"]
    head = Text(f"{answer['rules']}: {answer['canonical']}  ", style="dim")
    head.append(_name(hand["way_name"], lang))
    if not answer["win"]:
        return RenderGroup(head, Text(f"不胡 not a win: {answer['reason']}", style="yellow"))
    parts: list[Table | Text] = [head, _sets_table(answer["sets"], lang), _fan_table(answer, lang)]
    if answer["verdict"]:
        parts.append(Text(answer["verdict"], style="yellow"))
    return RenderGroup(*parts)


_ROLE: dict[str, tuple[str, str]] = {
    "collect": ("收鸡", "collects"),
    "baoji": ("包鸡", "owes (not ready)"),
    "burned": ("烧鸡", "burned"),
}
_KONG_STATUS: dict[str, tuple[str, str]] = {
    "paid": ("收", "paid"),
    "not_jiao": ("未叫不收", "not ready: unpaid"),
    "burned": ("烧杠不收", "burned: unpaid"),
    "baogang": ("包杠", "not ready: owner pays"),
    "huang": ("荒庄不算", "drawn hand: unpaid"),
}


def _table_renderable(answer: dict[str, Any], lang: str) -> RenderGroup:
    d = answer["dealer"]
    head = Text(
        f"{answer['rules']}  {_words('庄家', 'dealer', lang)} s{d['seat']} k={d['streak']} "
        f"({d['rule']})",
        style="dim",
    )
    parts: list[Table | Text] = [head]
    if answer["flip"] is not None:
        flip = answer["flip"]
        parts.append(
            Text(f"{_words('翻牌', 'flipped', lang)} {flip['tile']} → {' '.join(flip['chickens'])}")
        )
    if answer["chicken_kinds"]:
        kinds = ", ".join(
            f"{k['tile']} {k['value']} ({'/'.join(_name(n, lang) for n in k['names'])})"
            for k in answer["chicken_kinds"]
        )
        parts.append(Text(f"{_words('鸡', 'chickens', lang)}: {kinds}"))
    for f in answer["firsts"]:
        fate = {
            "chongfeng": _words("冲锋鸡", "first chicken, counts double", lang),
            "zeren": _words("责任鸡", "responsible chicken", lang) + f" {f.get('zeren', 0)}",
            "won": _words("被胡", "won on", lang),
            "none": "",
        }[f["fate"]]
        parts.append(Text(f"{f['tile']} s{f['seat']}: {fate}"))
    seats = Table(show_edge=False, pad_edge=False)
    columns = (("座", "seat"), ("牌", "tiles"), ("叫", "ready"), ("胡", "win"), ("鸡", "chickens"))
    for col in columns:
        seats.add_column(_words(*col, lang))
    for s in answer["seats"]:
        tiles = " ".join([s["concealed"], *(m["tiles"] for m in s["melds"])])
        if s["discards"]:
            tiles += f" | {s['discards']}"
        ready = s["waits"] if s["jiao"] else "-"
        if "jiao_value" in s:
            ready += f" J={s['jiao_value']}"
        win = ""
        if "winner" in s:
            w = s["winner"]
            src = "" if w["from"] is None else f" ← s{w['from']}"
            win = f"{w['tile']} {_name(w['way_name'], lang)}{src} F={w['fan']}"
        c = s["chickens"]
        lines = " + ".join(
            f"{ln['tile']}×{ln['count']}{'' if ln['value'] == 1 else '·' + str(ln['value'])} "
            f"{_name(ln['where_name'], lang)}"
            for ln in c["lines"]
            if ln["counted"]
        )
        role = _words(*_ROLE[c["role"]], lang)
        seats.add_row(f"s{s['seat']}", tiles, ready, win, f"{role} {c['total']}: {lines}")
    parts.append(seats)
    if answer["kongs"]:
        kongs = Table(show_edge=False, pad_edge=False)
        for col in (("杠", "kong"), ("座", "seat"), ("分", "value"), ("", "")):
            kongs.add_column(_words(*col, lang) if col[0] else "")
        for k in answer["kongs"]:
            payers = ",".join(f"s{p}" for p in k["payers"])
            kongs.add_row(
                f"{_name(k['name'], lang)} {k['tiles']}",
                f"s{k['owner']}",
                f"{k['value']} × {payers}",
                _words(*_KONG_STATUS[k["status"]], lang),
            )
        parts.append(kongs)
    transfers = Table(show_edge=False, pad_edge=False)
    for col in (("付", "payer"), ("收", "payee"), ("分", "amount"), ("项", "reason")):
        transfers.add_column(_words(*col, lang))
    for t in answer["transfers"]:
        amount = str(t["amount"])
        if t["base"] != t["amount"]:
            amount = f"{t['base']} → {t['amount']}"
        transfers.add_row(f"s{t['payer']}", f"s{t['payee']}", amount, _name(t["reason_name"], lang))
    parts.append(transfers)
    nxt = answer["next_dealer"]
    parts.append(
        Text(
            f"NET {answer['net']}  {_words('下局庄家', 'next dealer', lang)} s{nxt['seat']} "
            f"k={nxt['streak']}",
            style="bold",
        )
    )
    return RenderGroup(*parts)


def calculation_renderable(answer: dict[str, Any], lang: str = "both") -> RenderGroup:
    """A game calculator's explained answer (三丁拐's ``calc``: a hand or a table) for the
    terminal, its names in ``zh``, ``en`` or ``both``; an answer of another form as JSON."""
    if answer.get("kind") == "table":
        return _table_renderable(answer, lang)
    if answer.get("kind") == "hand":
        return _hand_renderable(answer, lang)
    return RenderGroup(Text(json.dumps(answer, ensure_ascii=False, indent=1)))
