"""听牌: which faces would win a 19-card position, and the best total for each (RULES §6, §7)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from weimaque.games.maque.analysis.decompose import completions, winning_faces
from weimaque.games.maque.cards import COPIES, FACE_CHARS, Counts
from weimaque.games.maque.notation import Meld
from weimaque.games.maque.rules.config import RuleConfig
from weimaque.games.maque.rules.registry import get_rules
from weimaque.games.maque.scoring.scorer import score_position


@dataclass(frozen=True, slots=True)
class Wait:
    """A face the position wins on, with the best total when drawn by oneself or by another.

    A total is None where that way of winning is not a win (e.g. the forced 偎 breaks the hand).
    """

    face: int
    self_total: int | None
    other_total: int | None

    @property
    def best(self) -> int:
        """The higher of the two totals."""
        return max(t for t in (self.self_total, self.other_total) if t is not None)

    def __str__(self) -> str:
        return f"{FACE_CHARS[self.face]}: self {self.self_total}, other {self.other_total}"


def _lone_singles(hand: Counts) -> list[int]:
    """Faces held once with no other card within two of them in their case (RULES §1.2).

    One added card cannot put such a card in a run (a run needs two more cards near it), so only
    a winning card of its own face saves it, as the 麻雀: two lone cards, and nothing wins.
    Taking cards away never gives a lone card company.
    """
    out = []
    for base in (0, 10):
        h = hand[base : base + 10]
        for i in range(10):
            if h[i] == 1 and not (
                (i >= 1 and h[i - 1])
                or (i >= 2 and h[i - 2])
                or (i <= 8 and h[i + 1])
                or (i <= 7 and h[i + 2])
            ):
                out.append(base + i)
    return out


def _may_form(hand: Counts) -> list[int]:
    """The faces with which the concealed cards split into groups + 麻雀 for some source.

    The same test :func:`weimaque.games.maque.analysis.arrange.arrangements` starts from: the card
    joins the hand (won from another, or drawn without a pair of it), or a drawn card with two of it
    in hand is a forced 偎 and the rest must split (RULES §6.1). For any other face no source wins
    and the scorer need not be asked: most faces of most positions end here.
    """
    return sorted(winning_faces(hand) | set(completions(hand, -2)))


def waits(
    melds: Sequence[Meld], hand: Counts, rules: RuleConfig | str = "anxiang", *, last: bool = False
) -> list[Wait]:
    """Every face that completes the 19 cards of melds + hand into a win, in face order."""
    config = get_rules(rules)
    held = list(hand)
    for m in melds:
        for f in m.faces:
            held[f] += 1
    out: list[Wait] = []
    lone = _lone_singles(hand)
    if len(lone) > 1:
        return out
    for face in _may_form(hand):
        if held[face] >= COPIES or (lone and face != lone[0]):
            continue
        totals: list[int | None] = []
        for source in ("self", "other"):
            b = score_position(melds, hand, face, source=source, last=last, rules=config)
            totals.append(b.total if b.winning else None)
        if totals[0] is not None or totals[1] is not None:
            out.append(Wait(face, totals[0], totals[1]))
    return out
