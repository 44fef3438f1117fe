"""Actions of 三丁拐 and their notation (SDG §3, §4, §10).

Inside the engine an action is a small int (OpenSpiel-like): 出 0..26 by kind, 出 with 报听
27..53, 胡 54, 暗杠 55..81, 补杠 82..108, 碰 109, 明杠 110, 过 111, 定缺 112..114 by suit (万, 条,
筒; option ``dingque``). :class:`Action` is the typed form at the boundary, with a notation that
round-trips (``出5p``, ``报听9s``, ``暗杠7s``, ``定缺万``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from weimaque.errors import InvalidNotation, quoted
from weimaque.games.sandingguai.notation import parse_tile, tile_name
from weimaque.games.sandingguai.tiles import NUM_KINDS, SUIT_CHARS

DISCARD: Final = 0
TING: Final = DISCARD + NUM_KINDS
HU: Final = TING + NUM_KINDS
ANGANG: Final = HU + 1
BUGANG: Final = ANGANG + NUM_KINDS
PENG: Final = BUGANG + NUM_KINDS
GANG: Final = PENG + 1
PASS: Final = GANG + 1
QUE: Final = PASS + 1
NUM_ACTIONS: Final = QUE + 3

ActionKind = Literal["discard", "ting", "hu", "angang", "bugang", "peng", "gang", "pass", "que"]
_TILED: Final[dict[ActionKind, int]] = {
    "discard": DISCARD,
    "ting": TING,
    "angang": ANGANG,
    "bugang": BUGANG,
}
_PLAIN: Final[dict[ActionKind, int]] = {"hu": HU, "peng": PENG, "gang": GANG, "pass": PASS}
_CHINESE: Final[dict[ActionKind, str]] = {
    "discard": "出",
    "ting": "报听",
    "hu": "胡",
    "angang": "暗杠",
    "bugang": "补杠",
    "peng": "碰",
    "gang": "明杠",
    "pass": "过",
    "que": "定缺",
}
_WORDS: Final[dict[str, ActionKind]] = {
    **{v: k for k, v in _CHINESE.items()},
    **{k: k for k in _CHINESE},
    "d": "discard",
    "杠": "gang",
    "點杠": "gang",
    "过": "pass",
    "過": "pass",
    "聽": "ting",
    "缺": "que",
}


@dataclass(frozen=True, slots=True)
class Action:
    """One decision; ``tile`` names the kind for 出, 报听, 暗杠 and 补杠, the suit (0 万, 1 条,
    2 筒) for 定缺."""

    kind: ActionKind
    tile: int | None = None

    @property
    def id(self) -> int:
        """The integer id of this action."""
        if self.kind in _TILED:
            assert self.tile is not None
            return _TILED[self.kind] + self.tile
        if self.kind == "que":
            assert self.tile is not None
            return QUE + self.tile
        return _PLAIN[self.kind]

    @staticmethod
    def from_id(action_id: int) -> Action:
        """The action with this id."""
        if isinstance(action_id, bool) or not isinstance(action_id, int):
            raise InvalidNotation(f"action id must be an int, not {quoted(action_id)}")
        if not 0 <= action_id < NUM_ACTIONS:
            raise InvalidNotation(f"action id {action_id!r} out of range 0..{NUM_ACTIONS - 1}")
        for kind, base in _TILED.items():
            if base <= action_id < base + NUM_KINDS:
                return Action(kind, action_id - base)
        if action_id >= QUE:
            return Action("que", action_id - QUE)
        return Action(next(k for k, v in _PLAIN.items() if v == action_id))

    def __str__(self) -> str:
        word = _CHINESE[self.kind]
        if self.kind == "que":
            assert self.tile is not None
            return word + SUIT_CHARS[self.tile]
        return word if self.tile is None else word + tile_name(self.tile)

    def __repr__(self) -> str:
        return f"Action.parse({str(self)!r})"

    @staticmethod
    def parse(text: str) -> Action:
        """Parse ``出5p``, ``discard 5p``, ``报听9s``, ``暗杠7s``, ``碰``, ``胡``, ``过`` …"""
        raw = text.strip()
        for word in sorted(_WORDS, key=len, reverse=True):
            if raw.lower().startswith(word):
                kind, rest = _WORDS[word], raw[len(word) :].strip()
                break
        else:
            raise InvalidNotation(f"unknown action {quoted(text)}")
        if kind in _PLAIN:
            if rest:
                raise InvalidNotation(f"{_CHINESE[kind]} takes no tile: {quoted(text)}")
            return Action(kind)
        if not rest:
            raise InvalidNotation(f"{_CHINESE[kind]} needs a tile: {quoted(text)}")
        if kind == "que":
            suit = _SUITS.get(rest.lower())
            if suit is None:
                raise InvalidNotation(f"定缺 names a suit (万/条/筒 or m/s/p): {quoted(text)}")
            return Action("que", suit)
        return Action(kind, parse_tile(rest))


_SUITS: Final = {
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
}

#: Every action by id, made once.
ACTIONS: Final = tuple(Action.from_id(i) for i in range(NUM_ACTIONS))
