"""Strict notation of 三丁拐: tiles, melds, hand and table descriptions (SDG §1.3-§1.5).

ASCII ``123m456s78p`` and Chinese (一万, 1条, 幺鸡, 索, 饼, 萬/條/餅) may mix; anything else is an
``InvalidNotation`` that quotes the input. Printing is ASCII canonical (sorted m, s, p, then rank)
or Chinese on request; both parse back to the same value.

>>> format_tiles(parse_tiles("三万 幺鸡 2m 8筒"))
'23m1s8p'
>>> format_tiles(parse_tiles("23m1s8p"), chinese=True)
'二万三万一条八筒'
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from operator import mul
from typing import Final, Literal

from weimaque.errors import InvalidNotation, quoted
from weimaque.games.sandingguai.tiles import (
    COPIES,
    NUM_KINDS,
    RANK_CHARS,
    SUIT_CHARS,
    SUIT_LETTERS,
    YAOJI,
    Counts,
    counts_of,
    rank_of,
)

#: Suit characters and letters with their suit index (SDG §1.3).
_SUIT: Final[dict[str, int]] = {
    "m": 0,
    "s": 1,
    "p": 2,
    "万": 0,
    "萬": 0,
    "条": 1,
    "條": 1,
    "索": 1,
    "筒": 2,
    "饼": 2,
    "餅": 2,
}
_ASCII_SUITS: Final = frozenset("msp")
_SPACES: Final = frozenset(" \t\n\r\u3000")


def parse_tiles(text: str) -> list[int]:
    """The tiles of a tile list, in the order written (SDG §1.3); raise ``InvalidNotation``."""
    out: list[int] = []
    digits: list[int] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        low = ch.lower()
        if ch in _SPACES:
            i += 1
            continue
        if "1" <= ch <= "9":
            digits.append(int(ch))
        elif ch == "0":
            raise InvalidNotation(f"no tile 0 (no red fives) in {quoted(text)}")
        elif low in _ASCII_SUITS:
            if not digits:
                raise InvalidNotation(f"suit letter {ch!r} without ranks in {quoted(text)}")
            out += [_SUIT[low] * 9 + r - 1 for r in digits]
            digits = []
        elif ch in _SUIT:
            if len(digits) != 1:
                raise InvalidNotation(
                    f"{ch!r} needs one rank before it (1{ch} or 一{ch}) in {quoted(text)}"
                )
            out.append(_SUIT[ch] * 9 + digits[0] - 1)
            digits = []
        elif ch in RANK_CHARS:
            if digits:
                raise InvalidNotation(f"ranks {digits} without a suit in {quoted(text)}")
            nxt = text[i + 1] if i + 1 < n else ""
            if nxt not in _SUIT or nxt.lower() in _ASCII_SUITS:
                raise InvalidNotation(f"{ch!r} must be followed by 万, 条 or 筒 in {quoted(text)}")
            out.append(_SUIT[nxt] * 9 + RANK_CHARS.index(ch))
            i += 1
        elif ch == "幺":
            if digits:
                raise InvalidNotation(f"ranks {digits} without a suit in {quoted(text)}")
            nxt = text[i + 1] if i + 1 < n else ""
            if nxt not in ("鸡", "雞"):
                raise InvalidNotation(f"'幺' must be written 幺鸡 in {quoted(text)}")
            out.append(YAOJI)
            i += 1
        else:
            raise InvalidNotation(f"{ch!r} is not part of a tile in {quoted(text)}")
        i += 1
    if digits:
        raise InvalidNotation(f"ranks {digits} without a suit at the end of {quoted(text)}")
    return out


def parse_tile(text: str) -> int:
    """Exactly one tile."""
    tiles = parse_tiles(text)
    if len(tiles) != 1:
        raise InvalidNotation(f"expected one tile, got {len(tiles)} in {quoted(text)}")
    return tiles[0]


def check_copies(tiles: Iterable[int], text: str) -> Counts:
    """The count vector of tiles that describe one table: no kind more than four times."""
    counts = counts_of(tiles)
    for k, c in enumerate(counts):
        if c > COPIES:
            raise InvalidNotation(
                f"{tile_name(k)} appears {c} times (at most {COPIES}) in {quoted(text)}"
            )
    return counts


def tile_name(kind: int, chinese: bool = False) -> str:
    """One tile: ``5p`` or ``五筒``."""
    if chinese:
        return RANK_CHARS[kind % 9] + SUIT_CHARS[kind // 9]
    return f"{rank_of(kind)}{SUIT_LETTERS[kind // 9]}"


def format_tiles(tiles: Iterable[int], chinese: bool = False) -> str:
    """Canonical text of some tiles: sorted m, s, p then rank; ``123m45p`` or ``一万二万…``."""
    if chinese:
        return "".join(tile_name(k, True) for k in sorted(tiles))
    return format_counts(counts_of(tiles))


#: The rank digit of every kind, in kind order.
_DIGITS: Final = "123456789" * 3


def format_counts(counts: Sequence[int], chinese: bool = False) -> str:
    """Canonical text of a count vector."""
    if chinese:
        return format_tiles([k for k in range(NUM_KINDS) for _ in range(counts[k])], True)
    # each kind's rank digit repeated as often as the kind is held ("3" * 2 == "33", * 0 ==
    # ""), in one C-level pass over the 27 kinds; then each suit's digits and its letter, the
    # suits written out: every hand's end shows all three hands (HandEnded)
    ranks = list(map(mul, _DIGITS, counts))
    out = ""
    m = "".join(ranks[0:9])
    if m:
        out = m + "m"
    s = "".join(ranks[9:18])
    if s:
        out += s + "s"
    p = "".join(ranks[18:27])
    if p:
        out += p + "p"
    return out


class MeldKind(enum.IntEnum):
    """碰, 明杠 (点杠), 补杠 and 暗杠 (SDG §1.4, §4.3-§4.5)."""

    PENG = 0
    GANG = 1
    BUGANG = 2
    ANGANG = 3

    @property
    def size(self) -> int:
        """Tiles in the meld: 3 for 碰, 4 for a kong."""
        return 3 if self is MeldKind.PENG else 4

    @property
    def is_kong(self) -> bool:
        """Whether this meld is a kong (杠)."""
        return self is not MeldKind.PENG


#: Meld words of the hand description (SDG §1.4) with their kind.
MELD_WORDS: Final[dict[str, MeldKind]] = {
    "peng": MeldKind.PENG,
    "碰": MeldKind.PENG,
    "gang": MeldKind.GANG,
    "明杠": MeldKind.GANG,
    "点杠": MeldKind.GANG,
    "bugang": MeldKind.BUGANG,
    "补杠": MeldKind.BUGANG,
    "转弯杠": MeldKind.BUGANG,
    "加杠": MeldKind.BUGANG,
    "angang": MeldKind.ANGANG,
    "暗杠": MeldKind.ANGANG,
}
MELD_ASCII: Final = ("peng", "gang", "bugang", "angang")
MELD_CHINESE: Final = ("碰", "明杠", "补杠", "暗杠")


@dataclass(frozen=True, slots=True)
class Meld:
    """One meld: its kind, its tile kind, and the seat a claimed tile came from (``None``: own)."""

    kind: MeldKind
    tile: int
    source: int | None = None

    @property
    def size(self) -> int:
        """Tiles in the meld."""
        return self.kind.size

    def __str__(self) -> str:
        text = f"{MELD_ASCII[self.kind]}:{format_tiles([self.tile] * self.size)}"
        return text if self.source is None else f"{text}@{self.source}"

    def __repr__(self) -> str:
        return f"Meld.parse({str(self)!r})"

    @staticmethod
    def parse(text: str) -> Meld:
        """``peng:222p@1``, ``暗杠:7777s`` …"""
        word, sep, rest = text.partition(":")
        if not sep or (word.lower() not in MELD_WORDS and word not in MELD_WORDS):
            raise InvalidNotation(f"not a meld {quoted(text)}")
        kind = MELD_WORDS.get(word.lower(), MELD_WORDS.get(word))
        assert kind is not None
        return _meld(kind, rest, text)


def _seat(raw: str, text: str) -> int:
    if raw not in ("0", "1", "2"):
        raise InvalidNotation(f"seat {raw!r} is not 0, 1 or 2 in {quoted(text)}")
    return int(raw)


def _meld(kind: MeldKind, body: str, text: str) -> Meld:
    tiles_text, at, seat_text = body.partition("@")
    tiles = parse_tiles(tiles_text)
    if len(tiles) != kind.size or len(set(tiles)) != 1:
        raise InvalidNotation(
            f"{MELD_ASCII[kind]} takes {kind.size} identical tiles, not {tiles_text!r} "
            f"in {quoted(text)}"
        )
    source = _seat(seat_text, text) if at else None
    if source is not None and kind in (MeldKind.ANGANG,):
        raise InvalidNotation(f"an 暗杠 comes from no seat: {quoted(text)}")
    return Meld(kind, tiles[0], source)


Way = Literal["self", "other", "rob", "kong", "repao"]
WAYS: Final[tuple[Way, ...]] = ("self", "other", "rob", "kong", "repao")


@dataclass(frozen=True, slots=True)
class HandDescription:
    """A hand description (SDG §1.4): concealed counts (without the winning tile), melds, the
    winning tile (``None`` for a bare 14-tile list), how it was won, and 报听."""

    concealed: Counts
    melds: tuple[Meld, ...] = ()
    win: int | None = None
    way: Way = "self"
    baoting: bool = False

    def all_counts(self) -> Counts:
        """Concealed tiles plus the winning tile."""
        if self.win is None:
            return self.concealed
        c = list(self.concealed)
        c[self.win] += 1
        return tuple(c)

    def __str__(self) -> str:
        parts = [f"hand:{format_counts(self.concealed)}"] if any(self.concealed) else []
        parts += [str(m) for m in self.melds]
        if self.win is not None:
            parts.append(f"win:{tile_name(self.win)}")
        if self.way != "self":
            parts.append(f"--from {self.way}")
        if self.baoting:
            parts.append("--baoting")
        return " ".join(parts)


_HAND_WORDS: Final = frozenset({"hand", "手"})
_WIN_WORDS: Final = frozenset({"win", "胡"})


def parse_hand(text: str) -> HandDescription:
    """Parse a hand description (SDG §1.4); a bare 14-tile list is the concealed hand."""
    words = text.split()
    concealed: list[int] = []
    melds: list[Meld] = []
    win: int | None = None
    way: Way = "self"
    baoting = False
    segmented = False
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--baoting":
            baoting = True
        elif w == "--from" or w.startswith("--from="):
            value = (
                w.partition("=")[2] if "=" in w else (words[i + 1] if i + 1 < len(words) else "")
            )
            i += 0 if "=" in w else 1
            if value not in WAYS:
                raise InvalidNotation(
                    f"--from takes one of {WAYS}, not {value!r} in {quoted(text)}"
                )
            way = WAYS[WAYS.index(value)]
        elif ":" in w:
            segmented = True
            word, _, body = w.partition(":")
            key = word.lower() if word.isascii() else word
            if key in _HAND_WORDS:
                concealed += parse_tiles(body)
            elif key in _WIN_WORDS:
                if win is not None:
                    raise InvalidNotation(f"two winning tiles in {quoted(text)}")
                win = parse_tile(body.partition("@")[0])
            elif key in MELD_WORDS:
                melds.append(_meld(MELD_WORDS[key], body, text))
            else:
                raise InvalidNotation(f"unknown segment {word!r} in {quoted(text)}")
        elif w.startswith("--"):
            raise InvalidNotation(f"unknown flag {w!r} in {quoted(text)}")
        else:
            if segmented:
                raise InvalidNotation(f"tiles {w!r} outside a segment in {quoted(text)}")
            concealed += parse_tiles(w)
        i += 1
    tiles = concealed + [m.tile for m in melds for _ in range(m.size)]
    if win is not None:
        tiles.append(win)
    check_copies(tiles, text)
    total = len(concealed) + 3 * len(melds) + (win is not None)
    if total != 14:
        raise InvalidNotation(
            f"concealed + 3 × melds + win must be 14, not {total} in {quoted(text)}"
        )
    return HandDescription(counts_of(concealed), tuple(melds), win, way, baoting)


WinWay = Literal["dianpao", "zimo", "gangshanghua", "qianggang", "repao"]
#: Win ways (SDG §6.4) with their words in a table description.
WIN_WAYS: Final[dict[str, WinWay]] = {
    "dianpao": "dianpao",
    "点炮": "dianpao",
    "zimo": "zimo",
    "自摸": "zimo",
    "gangshanghua": "gangshanghua",
    "杠上花": "gangshanghua",
    "qianggang": "qianggang",
    "抢杠": "qianggang",
    "repao": "repao",
    "热炮": "repao",
}
#: Win ways on another seat's tile (the winner names the seat it came from).
FROM_OTHER: Final = frozenset({"dianpao", "qianggang", "repao"})
ClaimWay = Literal["peng", "gang", "hu"]


@dataclass(frozen=True, slots=True)
class FirstChicken:
    """The first fixed chicken discarded (SDG §7.4, §7.5): tile, discarder, and how it was
    claimed (``None``: nobody claimed it, so it is 冲锋鸡)."""

    tile: int
    seat: int
    claim: ClaimWay | None = None
    claimant: int | None = None

    def __str__(self) -> str:
        text = f"first:{tile_name(self.tile)}@{self.seat}"
        if self.claim is not None:
            text += f">{self.claim}" + ("" if self.claimant is None else f"@{self.claimant}")
        return text


@dataclass(frozen=True, slots=True)
class Winner:
    """One winner: seat, winning tile, way (SDG §6.4), the seat the tile came from, and
    ``early``: won before the seat's first discard with no claim made (天胡 for the dealer, 地胡
    for another seat; options of SDG §6.2)."""

    seat: int
    tile: int
    way: WinWay
    source: int | None = None
    early: bool = False


@dataclass(frozen=True, slots=True)
class SeatDescription:
    """One seat at the end of a hand: concealed counts (without a winning tile), melds, the
    discard row that stayed on the table, 报听."""

    concealed: Counts
    melds: tuple[Meld, ...] = ()
    discards: tuple[int, ...] = ()
    baoting: bool = False
    #: The declared lacking suit (定缺, SDG §2.4): 0 万, 1 条, 2 筒; -1 when none.
    que: int = -1
    #: 原缺: the seat was dealt no tile of some suit (SDG §9.4).
    yuanque: bool = False


@dataclass(frozen=True, slots=True)
class TableDescription:
    """A table at the end of a hand (SDG §1.5): what settlement needs, and nothing else."""

    seats: tuple[SeatDescription, SeatDescription, SeatDescription]
    winners: tuple[Winner, ...] = ()
    dealer: int = 0
    streak: int = 1
    flip: int | None = None
    firsts: tuple[FirstChicken, ...] = ()
    #: The kong that made a 热炮 (its kind; its owner is the discarder).
    repao_kong: MeldKind | None = None

    @property
    def huang(self) -> bool:
        """Whether the hand ended 荒庄 (no winner)."""
        return not self.winners

    def __str__(self) -> str:
        head = [f"dealer:{self.dealer}", f"streak:{self.streak}"]
        head.append(f"end:{'huang' if self.huang else 'win'}")
        if self.flip is not None:
            head.append(f"flip:{tile_name(self.flip)}")
        head += [str(f) for f in self.firsts]
        if self.repao_kong is not None:
            head.append(f"repao:{MELD_ASCII[self.repao_kong]}")
        lines = [" ".join(head)]
        for i, s in enumerate(self.seats):
            parts = [f"s{i}"]
            if any(s.concealed):
                parts.append(f"hand:{format_counts(s.concealed)}")
            parts += [str(m) for m in s.melds]
            for w in self.winners:
                if w.seat == i:
                    src = "" if w.source is None else f"@{w.source}"
                    parts += [f"win:{tile_name(w.tile)}{src}", f"way:{w.way}"]
                    if w.early:
                        parts.append("early")
            if s.discards:
                parts.append("discards:" + "".join(tile_name(t) for t in s.discards))
            if s.baoting:
                parts.append("baoting")
            if s.que >= 0:
                parts.append(f"que:{SUIT_LETTERS[s.que]}")
            if s.yuanque:
                parts.append("yuanque")
            lines.append(" ".join(parts))
        return "\n".join(lines)


def _first(body: str, text: str) -> FirstChicken:
    head, arrow, claim_text = body.partition(">")
    tile_text, at, seat_text = head.partition("@")
    if not at:
        raise InvalidNotation(f"first chicken needs its discarder (1s@2) in {quoted(text)}")
    tile = parse_tile(tile_text)
    seat = _seat(seat_text, text)
    if not arrow:
        return FirstChicken(tile, seat)
    how, at2, who = claim_text.partition("@")
    if how not in ("peng", "gang", "hu"):
        raise InvalidNotation(
            f"first chicken claimed by peng, gang or hu, not {how!r}: {quoted(text)}"
        )
    claimant = _seat(who, text) if at2 else None
    if how != "hu" and claimant is None:
        raise InvalidNotation(f"a {how} of the first chicken needs its claimant in {quoted(text)}")
    return FirstChicken(tile, seat, how, claimant)  # type: ignore[arg-type]


def parse_table(text: str) -> TableDescription:
    """Parse a table description (SDG §1.5): a header line, then one line per seat ``s0 …``.

    Lines are separated by newlines or ``;``. Header keys: ``dealer:0 streak:1 end:win|huang
    flip:4m first:1s@2[>peng@1] repao:bugang``; a seat line holds hand-description segments
    plus ``win:4p@2 way:dianpao discards:7s2m baoting``.
    """
    lines = [ln.strip() for ln in text.replace(";", "\n").splitlines() if ln.strip()]
    dealer, streak, flip = 0, 1, None
    end: str | None = None
    firsts: list[FirstChicken] = []
    repao: MeldKind | None = None
    seats: dict[int, SeatDescription] = {}
    winners: list[Winner] = []
    for line in lines:
        words = line.split()
        if words[0] in ("s0", "s1", "s2"):
            seat = int(words[0][1])
            if seat in seats:
                raise InvalidNotation(f"seat {seat} described twice in {quoted(text)}")
            desc, win = _seat_line(seat, words[1:], text)
            seats[seat] = desc
            if win is not None:
                winners.append(win)
            continue
        for w in words:
            key, sep, value = w.partition(":")
            if not sep:
                raise InvalidNotation(f"not key:value {w!r} in {quoted(text)}")
            if key == "dealer":
                dealer = _seat(value, text)
            elif key == "streak":
                if not value.isdigit() or not 1 <= int(value) <= 1000:
                    raise InvalidNotation(f"streak must be 1..1000, not {value!r}: {quoted(text)}")
                streak = int(value)
            elif key == "end":
                if value not in ("win", "huang"):
                    raise InvalidNotation(f"end is win or huang, not {value!r}: {quoted(text)}")
                end = value
            elif key == "flip":
                flip = None if value == "none" else parse_tile(value)
            elif key == "first":
                firsts.append(_first(value, text))
            elif key == "repao":
                if value not in ("angang", "bugang", "gang"):
                    raise InvalidNotation(f"repao kong is angang, bugang or gang: {quoted(text)}")
                repao = MELD_WORDS[value]
            else:
                raise InvalidNotation(f"unknown key {key!r} in {quoted(text)}")
    if sorted(seats) != [0, 1, 2]:
        raise InvalidNotation(f"a table describes seats s0, s1 and s2: {quoted(text)}")
    if (end == "huang" and winners) or (end == "win" and not winners):
        raise InvalidNotation(f"end:{end} disagrees with the winners in {quoted(text)}")
    if any(w.way == "repao" for w in winners) != (repao is not None):
        raise InvalidNotation(f"a 热炮 win and repao:KIND go together: {quoted(text)}")
    table = TableDescription(
        (seats[0], seats[1], seats[2]),
        tuple(winners),
        dealer,
        streak,
        flip,
        tuple(firsts),
        repao,
    )
    _check_table(table, text)
    return table


def _seat_line(seat: int, words: list[str], text: str) -> tuple[SeatDescription, Winner | None]:
    concealed: list[int] = []
    melds: list[Meld] = []
    discards: list[int] = []
    baoting = False
    win: int | None = None
    source: int | None = None
    way: WinWay | None = None
    early = False
    que = -1
    yuanque = False
    for w in words:
        if w in ("baoting", "报听"):
            baoting = True
            continue
        if w == "early":
            early = True
            continue
        if w in ("yuanque", "原缺"):
            yuanque = True
            continue
        word, sep, body = w.partition(":")
        key = word.lower() if word.isascii() else word
        if not sep:
            raise InvalidNotation(f"not a segment {w!r} in {quoted(text)}")
        if key in _HAND_WORDS:
            concealed += parse_tiles(body)
        elif key in MELD_WORDS:
            melds.append(_meld(MELD_WORDS[key], body, text))
        elif key in _WIN_WORDS:
            if win is not None:
                raise InvalidNotation(f"seat {seat} has two winning tiles in {quoted(text)}")
            tile_text, at, src = body.partition("@")
            win = parse_tile(tile_text)
            source = _seat(src, text) if at else None
            if source == seat:
                raise InvalidNotation(f"seat {seat} cannot win on its own discard: {quoted(text)}")
        elif key in ("way", "胡法"):
            if body not in WIN_WAYS:
                raise InvalidNotation(f"unknown way {body!r} in {quoted(text)}")
            way = WIN_WAYS[body]
        elif key in ("discards", "出"):
            discards += parse_tiles(body)
        elif key in ("que", "缺"):
            if body.lower() not in _SUIT or len(body) != 1:
                raise InvalidNotation(f"que names a suit (m, s, p), not {body!r}: {quoted(text)}")
            que = _SUIT[body.lower()]
        else:
            raise InvalidNotation(f"unknown segment {word!r} in {quoted(text)}")
    n = len(concealed) + 3 * len(melds)
    if n != 13:
        raise InvalidNotation(
            f"seat {seat} holds {n} tiles (concealed + 3 × melds must be 13) in {quoted(text)}"
        )
    winner = None
    if win is not None:
        if way is None:
            way = "dianpao" if source is not None else "zimo"
        if (way in FROM_OTHER) != (source is not None):
            raise InvalidNotation(
                f"seat {seat}: way {way} and win source disagree in {quoted(text)}"
            )
        winner = Winner(seat, win, way, source, early)
    elif way is not None or early:
        raise InvalidNotation(f"seat {seat} has a way but no win: {quoted(text)}")
    desc = SeatDescription(
        counts_of(concealed), tuple(melds), tuple(discards), baoting, que, yuanque
    )
    return desc, winner


def _check_table(table: TableDescription, text: str) -> None:
    tiles: list[int] = []
    for s in table.seats:
        tiles += [k for k in range(NUM_KINDS) for _ in range(s.concealed[k])]
        tiles += [m.tile for m in s.melds for _ in range(m.size)]
        tiles += s.discards
    # Several winners on one discard take the same physical tile (SDG §3.1.2).
    shared = {(w.tile, w.source) for w in table.winners}
    tiles += [t for t, _ in shared]
    if table.flip is not None:
        tiles.append(table.flip)
    check_copies(tiles, text)
    sources = {w.source for w in table.winners}
    if (len(shared) != len(table.winners) and None in sources) or (
        len(shared) > 1 and len(table.winners) > 1
    ):
        raise InvalidNotation(f"several winners must win on the same tile: {quoted(text)}")
