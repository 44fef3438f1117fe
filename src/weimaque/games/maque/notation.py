"""Strict parsing and printing of cards and hand descriptions (RULES §1.3, §1.4).

Anything that is not valid notation raises an :class:`~weimaque.errors.InvalidNotation`
subclass whose message quotes the offending text.

>>> format_cards(parse_cards("123x780d"))
'一二三柒捌拾'
>>> str(parse_hand("碰:七七七 手:一二三 胡:九", check_total=False))
'碰:七七七 手:一二三 胡:九'
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final, Literal

from weimaque.errors import (
    InvalidMeld,
    InvalidNotation,
    TooManyCopies,
    UnknownCard,
    WinningCardError,
    WrongCardCount,
)
from weimaque.games.maque.cards import COPIES, FACE_CHARS, NUM_FACES, counts_of, faces_str, is_run

MeldKind = Literal["peng", "wei", "chi"]
Source = Literal["self", "other"]

#: Accepted characters for each face; traditional and variant forms of big faces (RULES §1.3).
_CHAR_TO_FACE: Final[dict[str, int]] = {ch: i for i, ch in enumerate(FACE_CHARS)} | {
    "貳": 11,
    "參": 12,
    "陸": 15,
}

_KIND_ALIASES: Final[dict[str, str]] = {
    "peng": "peng",
    "碰": "peng",
    "wei": "wei",
    "偎": "wei",
    "栽": "wei",
    "煨": "wei",
    "chi": "chi",
    "吃": "chi",
    # RULES §7.4.4: a 吃 meld whose claimed card was the winner's own draw
    "zichi": "zichi",
    "自吃": "zichi",
    "hand": "hand",
    "手": "hand",
    "win": "win",
    "胡": "win",
}

#: The meld kinds by name, typed (``zichi`` is a 吃 with ``own``, RULES §7.4.4).
_MELD_KINDS: Final[dict[str, MeldKind]] = {"peng": "peng", "wei": "wei", "chi": "chi"}

_KIND_CHINESE: Final[dict[str, str]] = {
    "peng": "碰",
    "wei": "偎",
    "chi": "吃",
    "hand": "手",
    "win": "胡",
}

HAND_TOTAL: Final = 20


def parse_cards(text: str) -> list[int]:
    """Parse Chinese and/or ASCII card notation into faces, in written order.

    >>> parse_cards("一二三") == parse_cards("123x")
    True
    """
    if not text:
        raise InvalidNotation("empty card list ''")
    faces: list[int] = []
    digits = ""
    for ch in text:
        if ch in _CHAR_TO_FACE:
            if digits:
                raise InvalidNotation(f"digits {digits!r} not closed by 'x' or 'd' in {text!r}")
            faces.append(_CHAR_TO_FACE[ch])
        elif ch.isascii() and ch.isdigit():
            digits += ch
        elif ch in "xXdD":
            if not digits:
                raise InvalidNotation(f"case letter {ch!r} without digits before it in {text!r}")
            offset = 0 if ch in "xX" else 10
            faces.extend(offset + (int(d) - 1) % 10 for d in digits)
            digits = ""
        else:
            raise UnknownCard(f"unknown card character {ch!r} in {text!r}")
    if digits:
        raise InvalidNotation(f"digits {digits!r} not closed by 'x' or 'd' in {text!r}")
    return faces


def parse_card(text: str) -> int:
    """Parse exactly one card."""
    faces = parse_cards(text)
    if len(faces) != 1:
        raise InvalidNotation(f"expected one card, got {len(faces)} in {text!r}")
    return faces[0]


def format_cards(faces: Iterable[int]) -> str:
    """Print faces in Chinese, in the given order."""
    return faces_str(faces)


def format_cards_ascii(faces: Iterable[int]) -> str:
    """Print faces in ASCII notation, closing each same-case stretch with x or d.

    >>> format_cards_ascii([0, 1, 2, 15, 16])
    '123x67d'
    """
    out: list[str] = []
    pending = ""
    case = ""
    for f in faces:
        c = "d" if f >= 10 else "x"
        if pending and c != case:
            out.append(pending + case)
            pending = ""
        case = c
        pending += str((f % 10 + 1) % 10)
    if pending:
        out.append(pending + case)
    return "".join(out)


def check_copies(faces: Iterable[int], text: str) -> None:
    """Refuse a fifth copy of any face (RULES §1.3)."""
    counts = counts_of(faces)
    for f in range(NUM_FACES):
        if counts[f] > COPIES:
            raise TooManyCopies(
                f"{FACE_CHARS[f]} appears {counts[f]} times (at most {COPIES}) in {text!r}"
            )


@dataclass(frozen=True, slots=True)
class Meld:
    """A fixed group on the table: 碰, 偎 (face down) or 吃.

    ``own`` marks a 自吃: a 吃 of the winner's own drawn card (RULES §7.4.4).
    """

    kind: MeldKind
    faces: tuple[int, int, int]
    own: bool = False

    def __str__(self) -> str:
        kind = "自吃" if self.own else _KIND_CHINESE[self.kind]
        return f"{kind}:{format_cards(self.faces)}"

    def __repr__(self) -> str:
        return f"Meld.parse({str(self)!r})"

    @classmethod
    def make(cls, kind: str, faces: Iterable[int], text: str = "") -> Meld:
        """Build a meld, refusing anything that is not a valid group of its kind.

        Kind ``zichi`` is a 吃 of one's own draw (RULES §7.4.4).
        """
        fs = sorted(faces)
        quoted = text or f"{kind}:{format_cards(fs)}"
        own = kind == "zichi"
        if own:
            kind = "chi"
        meld_kind = _MELD_KINDS.get(kind)
        if meld_kind is None:
            raise InvalidMeld(f"unknown meld kind {kind!r} in {quoted!r}")
        if len(fs) != 3:
            raise InvalidMeld(f"a meld has exactly 3 cards, got {len(fs)} in {quoted!r}")
        if meld_kind == "chi":
            if not is_run(fs):
                raise InvalidMeld(f"吃 needs a run of one case, not {quoted!r}")
        elif not fs[0] == fs[1] == fs[2]:
            raise InvalidMeld(
                f"{_KIND_CHINESE[meld_kind]} needs three identical cards, not {quoted!r}"
            )
        return cls(meld_kind, (fs[0], fs[1], fs[2]), own)

    @classmethod
    def parse(cls, text: str) -> Meld:
        """Parse one ``kind:cards`` meld segment."""
        kind, cards = _split_segment(text)
        return cls.make(kind, parse_cards(cards), text)


def _split_segment(segment: str) -> tuple[str, str]:
    seg = segment.replace("：", ":")
    if seg.count(":") != 1:
        raise InvalidNotation(f"segment {segment!r} is not of the form kind:cards")
    raw_kind, cards = seg.split(":")
    kind = _KIND_ALIASES.get(raw_kind.lower() if raw_kind.isascii() else raw_kind)
    if kind is None:
        raise InvalidNotation(f"unknown segment kind {raw_kind!r} in {segment!r}")
    if not cards:
        raise InvalidNotation(f"segment {segment!r} has no cards")
    return kind, cards


def parse_declined(value: str, text: str = "") -> tuple[int, ...]:
    """The faces of ``--declined F…``: each face at most once, in face order (RULES §7.4.4)."""
    where = text or value
    if not value or value.startswith("--"):
        raise InvalidNotation(f"--declined takes the faces declined, e.g. '二五', in {where!r}")
    faces = parse_cards(value)
    for f in set(faces):
        if faces.count(f) > 1:
            raise InvalidNotation(
                f"--declined names {FACE_CHARS[f]} {faces.count(f)} times in {where!r}"
            )
    return tuple(sorted(faces))


@dataclass(frozen=True, slots=True)
class HandDescription:
    """A winner's 20 cards: melds, concealed hand and the winning card (RULES §1.4).

    ``source``, ``last`` and ``dealt_kan`` are set only where the text carried the flags itself.
    ``dealt_kan`` (圆圆丁) and ``declined`` (啫啫胡) are the facts of RULES §7.4.4.
    """

    melds: tuple[Meld, ...]
    hand: tuple[int, ...]
    win: int
    source: Source | None = None
    last: bool | None = None
    dealt_kan: bool | None = None
    declined: tuple[int, ...] = ()

    def __str__(self) -> str:
        parts = [str(m) for m in self.melds]
        parts.append(f"手:{format_cards(self.hand)}")
        parts.append(f"胡:{FACE_CHARS[self.win]}")
        if self.source is not None:
            parts.append(f"--from {self.source}")
        if self.last:
            parts.append("--last")
        if self.dealt_kan:
            parts.append("--dealt-kan")
        if self.declined:
            parts.append(f"--declined {format_cards(self.declined)}")
        return " ".join(parts)

    def __repr__(self) -> str:
        return f"parse_hand({str(self)!r})"

    def all_faces(self) -> list[int]:
        """Every card of the description: melds, hand, winning card."""
        out = [f for m in self.melds for f in m.faces]
        out.extend(self.hand)
        out.append(self.win)
        return out


def parse_hand(text: str, *, check_total: bool = True) -> HandDescription:
    """Parse a hand description (RULES §1.4), strictly.

    ``check_total`` (default on) requires exactly 20 cards.
    """
    melds: list[Meld] = []
    hand: list[int] = []
    wins: list[int] = []
    source: Source | None = None
    last: bool | None = None
    dealt_kan: bool | None = None
    declined: tuple[int, ...] = ()
    tokens = text.split()
    if not tokens:
        raise InvalidNotation(f"empty hand description {text!r}")
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        i += 1
        if tok == "--last":
            last = True
            continue
        if tok == "--dealt-kan":
            dealt_kan = True
            continue
        if tok == "--declined" or tok.startswith("--declined="):
            value = tok.partition("=")[2] if "=" in tok else (tokens[i] if i < len(tokens) else "")
            if "=" not in tok:
                i += 1
            declined = parse_declined(value, text)
            continue
        if tok == "--from" or tok.startswith("--from="):
            value = tok.partition("=")[2] if "=" in tok else (tokens[i] if i < len(tokens) else "")
            if "=" not in tok:
                i += 1
            if value not in ("self", "other"):
                raise InvalidNotation(f"--from takes 'self' or 'other', not {value!r} in {text!r}")
            source = "self" if value == "self" else "other"
            continue
        kind, cards = _split_segment(tok)
        faces = parse_cards(cards)
        if kind == "hand":
            hand.extend(faces)
        elif kind == "win":
            if wins:
                raise WinningCardError(f"more than one 胡: segment in {text!r}")
            if len(faces) != 1:
                raise WinningCardError(f"胡: takes exactly one card, not {tok!r}")
            wins.extend(faces)
        else:
            melds.append(Meld.make(kind, faces, tok))
    if not wins:
        raise WinningCardError(f"no 胡: (win:) segment in {text!r}")
    desc = HandDescription(
        tuple(melds), tuple(sorted(hand)), wins[0], source, last, dealt_kan, declined
    )
    all_faces = desc.all_faces()
    check_copies(all_faces, text)
    if check_total and len(all_faces) != HAND_TOTAL:
        raise WrongCardCount(f"a hand has {HAND_TOTAL} cards, got {len(all_faces)} in {text!r}")
    return desc
