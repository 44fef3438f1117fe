"""Arrangements of a winner's 20 cards: groups with their 硬息 and 团圆 (RULES §6).

An arrangement is one way to read the 20 cards as 6 groups + the 麻雀: the melds as they lie, the
concealed cards by one split of :mod:`weimaque.games.maque.analysis.decompose`, and the winning card
placed in one group that holds its face. Scoring chooses among them (RULES §6.2).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, Literal, Protocol

from weimaque.games.maque.analysis.decompose import PAIR, RUN, TRIPLE, splits
from weimaque.games.maque.cards import NUM_FACES, RED_FACES, Counts, faces_str
from weimaque.games.maque.notation import Meld, Source
from weimaque.games.maque.rules.config import RuleConfig

GroupKind = Literal["peng", "wei", "chi", "kan", "run", "maque", "tuanyuan"]
TuanyuanKind = Literal["ming", "an"]

#: Kinds that are triples; 碰-valued ones score 2/3, the others 3/4 (RULES §6.4).
TRIPLE_KINDS: Final = frozenset({"peng", "wei", "kan"})
RUN_KINDS: Final = frozenset({"chi", "run"})


@dataclass(frozen=True, slots=True)
class Group:
    """One group of a winning hand with its 硬息.

    ``tuanyuan`` marks the triple of a 团圆 (明 or 暗); ``win`` the group holding the winning card.
    Kind ``tuanyuan`` is the anxiang-old bonus line for a 团圆 whose copies form no triple.
    """

    kind: GroupKind
    faces: tuple[int, ...]
    xi: int
    tuanyuan: TuanyuanKind | None = None
    win: bool = False
    meld: bool = False

    @property
    def face(self) -> int:
        """The lowest face of the group."""
        return self.faces[0]

    @property
    def has_red(self) -> bool:
        """Whether the group holds a red card."""
        return any(f in RED_FACES for f in self.faces)

    def __str__(self) -> str:
        return f"{self.kind}:{faces_str(self.faces)}={self.xi}"


@dataclass(frozen=True, slots=True)
class Arrangement:
    """One reading of the 20 cards: 7 groups (plus any bonus lines) and what scoring needs."""

    groups: tuple[Group, ...]
    hard_xi: int
    tuanyuan: tuple[int, ...]
    pair: int
    #: the group holding the winning card; None for dealt cards that win as dealt (天胡)
    win_group: Group | None
    forced_wei: bool
    has_run: bool

    def sort_key(self) -> tuple[tuple[str, tuple[int, ...], bool], ...]:
        """A fixed canonical order, the last tie-break of RULES §6.2."""
        return tuple((g.kind, g.faces, g.win) for g in self.groups)


def triple_xi(kind: str, face: int) -> int:
    """硬息 of a meld or 坎 of ``face`` without 团圆: 吃 0, 碰 2/3, 偎 砍 3/4 (RULES §6.4).

    The one table of these numbers: the scorer, the bots and the views all read it here.
    """
    if kind == "chi":
        return 0
    red = face in RED_FACES
    if kind == "peng":
        return 3 if red else 2
    return 4 if red else 3


class _Triple(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def faces(self) -> tuple[int, ...]: ...


def melds_xi(melds: Iterable[_Triple]) -> int:
    """明息: the 硬息 of a seat's open melds (:func:`triple_xi` of each, RULES §6.4)."""
    return sum(triple_xi(m.kind, m.faces[0]) for m in melds)


def tuanyuan_bonus(face: int) -> int:
    """What a 团圆 adds: +3 black, +4 red (RULES §6.3, §6.4)."""
    return 4 if face in RED_FACES else 3


def maque_xi(face: int, total: Counts, rules: RuleConfig) -> int:
    """硬息 of the 麻雀: red 2, 转弯 black 2 (anxiang-old 1) / red 3 (RULES §6.4)."""
    red = face in RED_FACES
    if total[face] >= 3:
        return 3 if red else rules.maque_zhuanwan_black
    return 2 if red else 0


def arrangements(
    melds: Sequence[Meld],
    hand: Counts,
    win: int,
    source: Source,
    rules: RuleConfig,
) -> list[Arrangement]:
    """Every arrangement of melds + hand + winning card as 6 groups + 麻雀 (RULES §6.1, §6.4).

    ``hand`` is the concealed hand before the win (count vector). A winning card drawn by the
    winner himself while he holds two or more of it is a forced 偎 (RULES §6.1, §4.3).
    """
    total = list(hand)
    total[win] += 1
    for m in melds:
        for f in m.faces:
            total[f] += 1
    total_t = tuple(total)
    forced = source == "self" and hand[win] >= 2
    concealed = list(hand)
    fixed: list[Group] = [
        Group(m.kind, m.faces, triple_xi(m.kind, m.faces[0]), meld=True) for m in melds
    ]
    if forced:
        concealed[win] -= 2
        fixed.append(Group("wei", (win, win, win), triple_xi("wei", win), win=True))
    else:
        concealed[win] += 1
    out: list[Arrangement] = []
    for split in splits(tuple(concealed)):
        if forced:
            out.append(_build(fixed, split, None, source, total_t, rules, forced))
            continue
        seen: set[tuple[int, int]] = set()
        for kind, face in split:
            holds = face == win if kind != RUN else face <= win <= face + 2
            if holds and (kind, face) not in seen:
                seen.add((kind, face))
                out.append(_build(fixed, split, (kind, face), source, total_t, rules, forced))
    return out


def dealt_arrangements(hand: Counts, rules: RuleConfig) -> list[Arrangement]:
    """Every arrangement of a dealer's 20 dealt cards as they lie, with no card won (RULES §7.2).

    Used for 天胡: every triple held is a 砍 (RULES §2.3, §6.4) and no group holds a winning card.
    """
    return [_build([], split, None, "self", hand, rules, False) for split in splits(hand)]


def _build(
    fixed: list[Group],
    split: tuple[tuple[int, int], ...],
    win_at: tuple[int, int] | None,
    source: Source,
    total: Counts,
    rules: RuleConfig,
    forced: bool,
) -> Arrangement:
    groups = list(fixed)
    win_placed = forced
    pair = -1
    for kind, face in split:
        is_win = not win_placed and (kind, face) == win_at
        win_placed = win_placed or is_win
        if kind == PAIR:
            pair = face
            groups.append(Group("maque", (face, face), maque_xi(face, total, rules), win=is_win))
        elif kind == RUN:
            groups.append(Group("run", (face, face + 1, face + 2), 0, win=is_win))
        else:
            assert kind == TRIPLE
            # A concealed triple completed by another's draw scores as a 碰 (RULES §3.1.6, §6.4).
            tkind: GroupKind = "peng" if is_win and source == "other" else "kan"
            groups.append(Group(tkind, (face, face, face), triple_xi(tkind, face), win=is_win))
    tuanyuan: list[int] = []
    for f in range(NUM_FACES):
        if total[f] != 4:
            continue
        for i, g in enumerate(groups):
            if g.kind in TRIPLE_KINDS and g.faces[0] == f:
                # 团圆: a triple of the face with its 4th copy in a run (RULES §6.3).
                groups[i] = Group(
                    g.kind,
                    g.faces,
                    g.xi + tuanyuan_bonus(f),
                    "ming" if g.kind == "peng" else "an",
                    g.win,
                    g.meld,
                )
                tuanyuan.append(f)
                break
        else:
            if rules.tuanyuan_any_grouping:
                groups.append(Group("tuanyuan", (f, f, f, f), tuanyuan_bonus(f), "an"))
                tuanyuan.append(f)
    win_group = next((g for g in groups if g.win), None)
    return Arrangement(
        groups=tuple(groups),
        hard_xi=sum(g.xi for g in groups),
        tuanyuan=tuple(tuanyuan),
        pair=pair,
        win_group=win_group,
        forced_wei=forced,
        has_run=any(g.kind in RUN_KINDS for g in groups),
    )
