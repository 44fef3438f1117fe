"""The 三丁拐 calculator: a hand or a whole table explained, as JSON (docs/sandingguai.md §12).

:func:`explain_hand` scores a hand description (SDG §1.4): the winning hand laid out in its sets,
each 番 with its names and value, the formula of F (SDG §6.2) and whether the hand may 胡 on the
way it names (the passport of SDG §5.1). :func:`explain_table` settles a table description
(SDG §1.5): the dealer's stake, the flipped tile and the chickens it makes, every seat's 叫 and
hand, every chicken each seat counts and where (冲锋, 责任, 金鸡, 包鸡), every kong's money,
查叫 at 荒庄, and every transfer before and after the dealer's stake, summing to zero.

Nothing is scored twice: the 番 are :func:`.hands.score`'s, the transfers
:func:`.settle.settle_items` and :func:`.settle.stake`'s, the chickens
:func:`.settle.chicken_lines`', the kongs :func:`.settle.kong_lines`'. :func:`calculate` reads a
request of the seam's calculator capability (``Calculator`` of the game protocol, which the
adapter ``game.py`` implements with it).

>>> explain_hand("111m222m333m555m77m")["fan"]
15
>>> explain_table('''flip:6p
... s0 hand:13469m2469s3459p
... s1 hand:12689m4569s2356p
... s2 hand:555m777m22s99s peng:333s@1 win:2s@0''')["net"]
[-10, 0, 10]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from weimaque.errors import InvalidNotation, WeimaqueError, quoted
from weimaque.games.sandingguai.hands import (
    Score,
    WinContext,
    context,
    hu_verdict,
    jiao_value,
    score,
    waits,
)
from weimaque.games.sandingguai.notation import (
    MELD_ASCII,
    HandDescription,
    Meld,
    TableDescription,
    format_counts,
    format_tiles,
    parse_hand,
    parse_table,
    tile_name,
)
from weimaque.games.sandingguai.rules import RuleConfig, get_rules
from weimaque.games.sandingguai.settle import (
    BAOJI_PLACES,
    NUM_SEATS,
    REASONS,
    chicken_lines,
    collectors,
    is_jiao,
    kong_lines,
    next_dealer,
    next_rank_kinds,
    settle_items,
    stake,
    win_context,
)
from weimaque.games.sandingguai.tiles import NUM_KINDS, WUGU, YAOJI

GAME: Final = "sandingguai"
#: The longest hand and table descriptions the calculator reads (a table of three seats with
#: long discard rows is under 400 characters).
MAX_HAND_TEXT: Final = 400
MAX_TABLE_TEXT: Final = 2000
#: The fields of a calculator request.
REQUEST_FIELDS: Final = ("hand", "table", "rules", "options")


def _names(zh: str, en: str) -> dict[str, str]:
    return {"zh": zh, "en": en}


#: The patterns of SDG §6.2 in English (the Chinese names are the pattern functions').
PATTERN_EN: Final = {
    "pinghu": "plain win",
    "daduizi": "all pungs",
    "qidui": "seven pairs",
    "longqidui": "seven pairs with a four",
    "qingyise": "one suit",
    "baoting": "declared ready",
    "dandiao": "single wait",
    "tianhu": "dealer's win on the deal",
    "dihu": "win before one's first discard",
}
#: Sets of a laid-out hand (SDG §6.1) and melds (SDG §1.4), in both languages.
SET_NAMES: Final = {
    "pair": _names("对子", "pair"),
    "kezi": _names("刻子", "concealed pung"),
    "shunzi": _names("顺子", "run"),
    "peng": _names("碰", "pung"),
    "gang": _names("明杠", "exposed kong"),
    "bugang": _names("补杠", "added kong"),
    "angang": _names("暗杠", "concealed kong"),
}
#: Win ways: the hand description's (SDG §1.4) and the table description's (SDG §6.4).
WAY_NAMES: Final = {
    "self": _names("自摸", "self-drawn"),
    "other": _names("点炮", "on a discard"),
    "rob": _names("抢杠", "robbing a kong"),
    "kong": _names("杠上花", "on a kong's replacement"),
    "repao": _names("热炮", "on a hot discard"),
    "zimo": _names("自摸", "self-drawn"),
    "dianpao": _names("点炮", "on a discard"),
    "qianggang": _names("抢杠", "robbing a kong"),
    "gangshanghua": _names("杠上花", "on a kong's replacement"),
}
#: Transfer reasons in English (the Chinese are :data:`.settle.REASONS`).
REASON_EN: Final = {
    "hu": "the hand",
    "shabao": "winning on a 报听 seat",
    "repao_kong": "the hot discard's kong",
    "gang_an": "concealed kong",
    "gang_bu": "added kong",
    "gang_dian": "kong on a discard",
    "ji": "chickens",
    "baoji": "chickens owed by a seat not ready",
    "zeren": "responsible chicken",
    "chajiao": "ready check at a drawn hand",
    "sanse": "three suits at a drawn hand",
    "chaque": "missing-suit check",
    "yuanque": "dealt without a suit",
    "chahu": "false win",
}
#: Where a seat's chickens lie (:class:`.settle.ChickenLine`).
PLACE_NAMES: Final = {
    "hand": _names("手牌", "in hand"),
    "meld": _names("碰杠", "in melds"),
    "win": _names("胡张", "the winning tile"),
    "discard": _names("打出", "discarded"),
    "chongfeng": _names("冲锋鸡", "first chicken, double"),
}
#: A chicken kind's name (SDG §7.1-§7.3).
CHICKEN_NAMES: Final = {
    "yaoji": _names("幺鸡", "1s chicken"),
    "wugu": _names("乌骨鸡", "8p chicken"),
    "fanpai": _names("翻牌鸡", "flipped chicken"),
    "jinji": _names("金鸡", "golden chicken"),
}


def _pattern(key: str, name: str, fan: int) -> dict[str, Any]:
    en = PATTERN_EN.get(key, key)
    if name.startswith("清") and key != "qingyise":
        en = f"one suit, {en}"
    return {"key": key, "name": _names(name, en), "fan": fan}


def _meld_json(m: Meld) -> dict[str, Any]:
    kind = MELD_ASCII[m.kind]
    return {
        "kind": kind,
        "name": SET_NAMES[kind],
        "tiles": format_tiles([m.tile] * m.size),
        "from": m.source,
        "meld": True,
        "win": False,
    }


def _decompose(counts: list[int], triplets_only: bool) -> list[tuple[str, int]] | None:
    """Sets of a count vector of 3n tiles (``kezi`` or ``shunzi`` from their lowest kind), or
    None when it does not split (SDG §6.1)."""
    k = next((i for i, c in enumerate(counts) if c), -1)
    if k < 0:
        return []
    if counts[k] >= 3:
        counts[k] -= 3
        rest = _decompose(counts, triplets_only)
        counts[k] += 3
        if rest is not None:
            return [("kezi", k), *rest]
    if not triplets_only and k % 9 <= 6 and counts[k + 1] and counts[k + 2]:
        for d in range(3):
            counts[k + d] -= 1
        rest = _decompose(counts, triplets_only)
        for d in range(3):
            counts[k + d] += 1
        if rest is not None:
            return [("shunzi", k), *rest]
    return None


def lay_out(ctx: WinContext, reading: str) -> list[dict[str, Any]]:
    """The winning hand in its sets (SDG §6.1) under the reading its 番 was scored by: the pair
    and the concealed sets (all triplets for 大对子), or seven pairs; then the melds. The set
    that holds the winning tile is marked ``win``."""
    counts = list(ctx.counts)
    sets: list[tuple[str, tuple[int, ...]]] = []
    if reading in ("qidui", "longqidui"):
        sets = [("pair", (k, k)) for k in range(NUM_KINDS) for _ in range(counts[k] // 2)]
    else:
        for p in range(NUM_KINDS):
            if counts[p] < 2:
                continue
            counts[p] -= 2
            found = _decompose(counts, reading == "daduizi")
            counts[p] += 2
            if found is not None:
                sets = [("pair", (p, p))]
                sets += [
                    (kind, (k, k, k) if kind == "kezi" else (k, k + 1, k + 2)) for kind, k in found
                ]
                break
    out: list[dict[str, Any]] = []
    marked = ctx.win is None
    for kind, tiles in sets:
        win = not marked and ctx.win in tiles
        marked = marked or win
        out.append(
            {
                "kind": kind,
                "name": SET_NAMES[kind],
                "tiles": format_tiles(tiles),
                "from": None,
                "meld": False,
                "win": win,
            }
        )
    return out + [_meld_json(m) for m in ctx.melds]


def _formula(result: Score, rules: RuleConfig) -> str:
    parts = " + ".join(str(i.fan) for i in result.items)
    return f"max({rules.fan_pinghu}, {parts}) = {result.fan}"


def _scored(ctx: WinContext, rules: RuleConfig) -> dict[str, Any]:
    """The 番 of a winning hand explained: sets, patterns, the formula (SDG §6.2)."""
    result = score(ctx, rules)
    if not result.is_win:
        return {
            "win": False,
            "reason": result.reason,
            "sets": [],
            "patterns": [],
            "fan": 0,
            "formula": "",
        }
    reading = result.items[0].key
    return {
        "win": True,
        "reason": "",
        "sets": lay_out(ctx, reading),
        "patterns": [_pattern(i.key, i.name, i.fan) for i in result.items],
        "fan": result.fan,
        "fan_before_baoting": result.fan_before_baoting,
        "formula": _formula(result, rules),
    }


def _hand_json(desc: HandDescription) -> dict[str, Any]:
    return {
        "concealed": format_counts(desc.concealed),
        "concealed_zh": format_counts(desc.concealed, chinese=True),
        "melds": [_meld_json(m) for m in desc.melds],
        "win": None if desc.win is None else tile_name(desc.win),
        "way": desc.way,
        "way_name": WAY_NAMES[desc.way],
        "baoting": desc.baoting,
    }


def explain_hand(text: str, rules: RuleConfig | None = None) -> dict[str, Any]:
    """A hand description (SDG §1.4) scored and explained; ``InvalidNotation`` quoting bad
    text. Tiles that are no legal win answer ``win: false`` with the reason (叉胡 included)."""
    rules = rules or RuleConfig()
    desc = parse_hand(text)
    ctx = context(desc)
    out: dict[str, Any] = {
        "game": GAME,
        "kind": "hand",
        "rules": rules.id,
        "input": text,
        "canonical": str(desc),
        "hand": _hand_json(desc),
    }
    out.update(_scored(ctx, rules))
    verdict = hu_verdict(desc, rules)
    out["may_hu"] = not verdict
    out["verdict"] = verdict
    return out


def _chicken_kinds(table: TableDescription, rules: RuleConfig, v: tuple[int, ...]) -> list[Any]:
    """Each chicken kind of the hand and why it is one (SDG §7.1-§7.3)."""
    flipped = () if table.flip is None else next_rank_kinds(table.flip, rules.fanji)
    fixed = {YAOJI: "yaoji", WUGU: "wugu"} if rules.wugu else {YAOJI: "yaoji"}
    out = []
    for k in range(NUM_KINDS):
        if not v[k]:
            continue
        why = [fixed[k]] if k in fixed else []
        if k in flipped:
            why.append("jinji" if k in fixed else "fanpai")
        out.append(
            {
                "tile": tile_name(k),
                "value": v[k],
                "why": why,
                "names": [CHICKEN_NAMES[w] for w in why],
            }
        )
    return out


def _seat_chickens(
    table: TableDescription,
    rules: RuleConfig,
    v: tuple[int, ...],
    seat: int,
    jiao: tuple[bool, ...],
    burned: tuple[bool, ...],
) -> dict[str, Any]:
    """What a seat's chickens do (SDG §7.6, §7.7, §7.9): ``collect`` (a 叫 seat not burned:
    each other seat pays it the total), ``baoji`` (not 叫: it pays each collector the lines
    of ``baoji_scope``), or ``burned`` (叫 but burned: nothing)."""
    lines = chicken_lines(table, rules, v, seat)
    if seat in collectors(jiao, burned):
        role, counted = "collect", lines
    elif not jiao[seat]:
        places = BAOJI_PLACES[rules.baoji_scope]
        role, counted = "baoji", tuple(line for line in lines if line.where in places)
    else:
        role, counted = "burned", ()
    return {
        "role": role,
        "lines": [
            {
                "where": line.where,
                "where_name": PLACE_NAMES[line.where],
                "tile": tile_name(line.tile),
                "count": line.count,
                "value": line.value,
                "total": line.total,
                "counted": line in counted,
            }
            for line in lines
        ],
        "total": sum(line.total for line in counted),
    }


def _firsts(
    table: TableDescription,
    rules: RuleConfig,
    v: tuple[int, ...],
    jiao: tuple[bool, ...],
    burned: tuple[bool, ...],
) -> list[dict[str, Any]]:
    """The first chicken discarded and its fate (SDG §7.4, §7.5): 冲锋鸡 (unclaimed: its
    discarder counts it twice), 责任鸡 (claimed by 碰 or 明杠: the discarder owes the claimant
    ``zeren_multiplier`` × its value if the claimant collects), or won on."""
    out = []
    takers = collectors(jiao, burned)
    for first in table.firsts:
        item: dict[str, Any] = {
            "tile": tile_name(first.tile),
            "seat": first.seat,
            "claim": first.claim,
            "claimant": first.claimant,
        }
        if first.claim is None:
            item["fate"] = "chongfeng" if rules.chongfeng else "none"
            item["extra"] = v[first.tile] if rules.chongfeng else 0
        elif first.claim == "hu":
            item["fate"] = "won"
        else:
            paid = first.claimant in takers
            item["fate"] = "zeren"
            item["zeren"] = rules.zeren_multiplier * v[first.tile] if paid else 0
            if not paid:
                item["why_not"] = "the claimant is not 叫 or is burned (SDG §7.5)"
        out.append(item)
    return out


def _kongs(
    table: TableDescription,
    rules: RuleConfig,
    jiao: tuple[bool, ...],
    burned: tuple[bool, ...],
) -> list[dict[str, Any]]:
    """Every kong and whether it is paid (SDG §8): to a 叫 owner not burned; with ``baogang``
    a non-叫 owner pays instead. Kongs are settled only after a 胡 unless ``huang_settle_gang``."""
    settled = not table.huang or rules.huang_settle_gang
    out = []
    for line in kong_lines(table, rules):
        owner = line.owner
        if not settled:
            status = "huang"
        elif jiao[owner] and not burned[owner]:
            status = "paid"
        elif not jiao[owner]:
            status = "baogang" if rules.baogang else "not_jiao"
        else:
            status = "burned"
        out.append(
            {
                "owner": owner,
                **_meld_json(line.meld),
                "payers": list(line.payers),
                "value": line.value,
                "reason": line.reason,
                "reason_name": _names(REASONS[line.reason], REASON_EN[line.reason]),
                "status": status,
            }
        )
    return out


def _dealer(table: TableDescription, rules: RuleConfig) -> dict[str, Any]:
    """The dealer's stake (SDG §9.5)."""
    k = table.streak
    if rules.dealer_stake == "multiply":
        rule = f"× {1 + k} (1 + k)"
    elif rules.dealer_stake == "add":
        rule = f"+ {k} on the hand (k)"
    else:
        rule = "none"
    return {
        "seat": table.dealer,
        "streak": k,
        "stake": rules.dealer_stake,
        "scope": rules.dealer_scope,
        "factor": 1 + k if rules.dealer_stake == "multiply" else 1,
        "rule": rule,
    }


def explain_table(text: str, rules: RuleConfig | None = None) -> dict[str, Any]:
    """A table description (SDG §1.5) settled and explained (SDG §7-§9); ``InvalidNotation``
    quoting bad text. The transfers are :func:`.settle.settle`'s, each with its amount before
    the dealer's stake (``base``), and they sum to zero."""
    rules = rules or RuleConfig()
    table = parse_table(text)
    items, jiao, burned, v = settle_items(table, rules)
    transfers = [(t, stake(table, rules, t)) for t in items]
    net = [0] * NUM_SEATS
    for _, t in transfers:
        net[t.payer] -= t.amount
        net[t.payee] += t.amount
    dealer, streak = next_dealer(table, rules)
    winners = {w.seat: w for w in table.winners}
    seats = []
    for i, s in enumerate(table.seats):
        seat: dict[str, Any] = {
            "seat": i,
            "concealed": format_counts(s.concealed),
            "melds": [_meld_json(m) for m in s.melds],
            "discards": "".join(tile_name(t) for t in s.discards),
            "baoting": s.baoting,
            "jiao": jiao[i],
            "waits": format_tiles(waits(s.concealed, s.melds, rules.max_suits, s.que)),
            "burned": burned[i],
            "chickens": _seat_chickens(table, rules, v, i, jiao, burned),
        }
        if table.huang and is_jiao(s, rules):
            seat["jiao_value"] = jiao_value(s.concealed, s.melds, s.baoting, rules, s.que)
        w = winners.get(i)
        if w is not None:
            ctx = win_context(table, i)
            seat["winner"] = {
                "tile": tile_name(w.tile),
                "way": w.way,
                "way_name": WAY_NAMES[w.way],
                "from": w.source,
                **_scored(ctx, rules),
            }
        seats.append(seat)
    flip = None
    if table.flip is not None:
        flip = {
            "tile": tile_name(table.flip),
            "chickens": [tile_name(k) for k in next_rank_kinds(table.flip, rules.fanji)],
        }
    return {
        "game": GAME,
        "kind": "table",
        "rules": rules.id,
        "input": text,
        "canonical": str(table),
        "end": "huang" if table.huang else "win",
        "dealer": _dealer(table, rules),
        "flip": flip,
        "chicken_kinds": [] if table.huang else _chicken_kinds(table, rules, v),
        "firsts": _firsts(table, rules, v, jiao, burned),
        "seats": seats,
        "kongs": _kongs(table, rules, jiao, burned),
        "transfers": [
            {
                "payer": t.payer,
                "payee": t.payee,
                "amount": t.amount,
                "base": b.amount,
                "reason": t.reason,
                "reason_name": _names(REASONS[t.reason], REASON_EN[t.reason]),
            }
            for b, t in transfers
        ],
        "net": net,
        "sum": sum(net),
        "next_dealer": {"seat": dealer, "streak": streak},
    }


class RequestError(WeimaqueError):
    """A calculator request of the wrong form (the adapter answers it as the seam's
    ``BadRequest``)."""


def calculate(request: Mapping[str, Any]) -> dict[str, Any]:
    """A calculator request of the seam (``Calculator.calculate``): ``{"hand": text}`` or
    ``{"table": text}``, with ``rules`` (a preset id or alias, default ``sandingguai``) and
    ``options`` (rule options over it). ``RequestError`` for a request of the wrong form,
    ``RuleConfigError`` and ``InvalidNotation`` quoting a bad preset, option or text."""
    if not isinstance(request, Mapping):
        raise RequestError(f"a calculator request is a JSON object, not {quoted(request)}")
    unknown = sorted(str(k) for k in request if k not in REQUEST_FIELDS)
    if unknown:
        raise RequestError(f"unknown fields {unknown}; known: {', '.join(REQUEST_FIELDS)}")
    asked = [k for k in ("hand", "table") if k in request]
    if len(asked) != 1:
        raise RequestError("a request asks for one of hand or table")
    kind = asked[0]
    text = request[kind]
    limit = MAX_HAND_TEXT if kind == "hand" else MAX_TABLE_TEXT
    if not isinstance(text, str) or len(text) > limit:
        raise RequestError(f"{kind} must be a string of at most {limit}, not {quoted(text)}")
    if not text.strip():
        raise InvalidNotation(f"empty {kind} description {quoted(text)}")
    preset = request.get("rules", GAME)
    options = request.get("options", {})
    if not isinstance(preset, str) or not isinstance(options, Mapping):
        raise RequestError(
            f"rules is a preset id and options an object, not {quoted(preset)} and "
            f"{quoted(options)}"
        )
    rules = get_rules(preset, **{str(k): v for k, v in options.items()})
    return explain_hand(text, rules) if kind == "hand" else explain_table(text, rules)


__all__ = ["RequestError", "calculate", "explain_hand", "explain_table", "lay_out"]
