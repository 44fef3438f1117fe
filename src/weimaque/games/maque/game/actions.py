"""Typed player actions and their notation (RULES §4).

An action is one of 出 (discard a face), 碰, 吃 (naming the run), 胡, 过 (pass). Each has a fixed
integer id for research code: discards 0..19, 碰 20, 吃 21..36 (by run start), 胡 37, 过 38.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from weimaque.errors import InvalidNotation
from weimaque.games.maque.cards import FACE_CHARS, faces_str
from weimaque.games.maque.notation import parse_cards

ActionKind = Literal["discard", "peng", "chi", "hu", "pass"]

#: Faces a run may start at: 一..八 and 壹..捌.
RUN_STARTS: Final = tuple(list(range(8)) + list(range(10, 18)))
PENG_ID: Final = 20
CHI_BASE: Final = 21
HU_ID: Final = CHI_BASE + len(RUN_STARTS)
PASS_ID: Final = HU_ID + 1
NUM_ACTIONS: Final = PASS_ID + 1

_WORDS: Final[dict[str, ActionKind]] = {
    "出": "discard",
    "discard": "discard",
    "d": "discard",
    "碰": "peng",
    "peng": "peng",
    "吃": "chi",
    "chi": "chi",
    "胡": "hu",
    "hu": "hu",
    "过": "pass",
    "過": "pass",
    "pass": "pass",
    "p": "pass",
}


@dataclass(frozen=True, slots=True)
class Action:
    """One decision: ``face`` is the discarded face (出) or the lowest face of the run (吃)."""

    kind: ActionKind
    face: int | None = None

    @staticmethod
    def discard(face: int) -> Action:
        """出 a face."""
        return Action("discard", face)

    @staticmethod
    def chi(run_start: int) -> Action:
        """吃, making the run that starts at ``run_start``."""
        return Action("chi", run_start)

    def __str__(self) -> str:
        if self.kind == "discard":
            assert self.face is not None
            return f"出{FACE_CHARS[self.face]}"
        if self.kind == "chi":
            assert self.face is not None
            return f"吃{faces_str((self.face, self.face + 1, self.face + 2))}"
        return {"peng": "碰", "hu": "胡", "pass": "过"}[self.kind]

    def __repr__(self) -> str:
        return f"Action.parse({str(self)!r})"

    @property
    def id(self) -> int:
        """The fixed integer id of this action."""
        if self.kind == "discard":
            assert self.face is not None
            return self.face
        if self.kind == "chi":
            assert self.face is not None
            return CHI_BASE + RUN_STARTS.index(self.face)
        return {"peng": PENG_ID, "hu": HU_ID, "pass": PASS_ID}[self.kind]

    @staticmethod
    def from_id(action_id: int) -> Action:
        """The action with this integer id."""
        if not 0 <= action_id < NUM_ACTIONS:
            raise InvalidNotation(f"action id {action_id!r} out of range 0..{NUM_ACTIONS - 1}")
        if action_id < PENG_ID:
            return Action("discard", action_id)
        if action_id == PENG_ID:
            return Action("peng")
        if action_id < HU_ID:
            return Action("chi", RUN_STARTS[action_id - CHI_BASE])
        return Action("hu") if action_id == HU_ID else Action("pass")

    @staticmethod
    def parse(text: str) -> Action:
        """Parse ``出三``, ``出 3x``, ``碰``, ``吃一二三``, ``chi 123x``, ``胡``, ``过`` …"""
        raw = text.strip()
        if not raw:
            raise InvalidNotation(f"empty action {text!r}")
        word, rest = raw, ""
        for key in sorted(_WORDS, key=len, reverse=True):
            if raw.lower().startswith(key):
                word, rest = key, raw[len(key) :].strip()
                break
        else:
            raise InvalidNotation(f"unknown action {text!r}")
        kind = _WORDS[word]
        if kind in ("peng", "hu", "pass"):
            if rest:
                raise InvalidNotation(f"{word} takes no cards, got {rest!r} in {text!r}")
            return Action(kind)
        if not rest:
            raise InvalidNotation(f"{word} needs cards in {text!r}")
        faces = sorted(parse_cards(rest))
        if kind == "discard":
            if len(faces) != 1:
                raise InvalidNotation(f"出 takes one card, got {rest!r} in {text!r}")
            return Action("discard", faces[0])
        if (
            len(faces) != 3
            or faces[0] not in RUN_STARTS
            or faces != [faces[0] + i for i in range(3)]
        ):
            raise InvalidNotation(f"吃 takes the three cards of a run, not {rest!r} in {text!r}")
        return Action("chi", faces[0])
