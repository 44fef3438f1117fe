"""理牌 as a service (``POST /api/tidy``, docs/protocol.md): a hand grouped into 坎, 句 and pairs
(:mod:`weimaque.games.maque.analysis.tidy`), offered to a server through the seam
(``TableExtras.tidy``).

The browser's 自动理牌 asks it once per change of the hand; it is stateless and sees only the
faces it is sent.
"""

from __future__ import annotations

from typing import Any, Final

from weimaque.errors import TooManyCopies, UnknownCard, quoted
from weimaque.games.maque.analysis.decompose import PAIR, RUN, TRIPLE
from weimaque.games.maque.analysis.tidy import tidy
from weimaque.games.maque.cards import FACE_CHARS, counts_of, faces_str
from weimaque.games.maque.notation import check_copies
from weimaque.games.protocol import BadRequest

#: The most cards a hand holds: the dealer's 21 (RULES §2.2).
MAX_TIDY_CARDS: Final = 21
_FACE_INDEX: Final = {c: i for i, c in enumerate(FACE_CHARS)}
_KINDS: Final = {TRIPLE: "kan", RUN: "run", PAIR: "pair"}
_SIZES: Final = {TRIPLE: 3, RUN: 3, PAIR: 2}


def tidy_request(raw: Any) -> dict[str, Any]:
    """Group ``{"hand": "一一一二三四五五十"}``: its groups in face order and the loose cards."""
    if not isinstance(raw, dict):
        raise BadRequest(f"the body must be a JSON object, not {quoted(raw)}", "bad_request")
    unknown = sorted(quoted(k, 30) for k in set(raw) - {"hand"})
    if unknown:
        raise BadRequest(f"unknown fields {', '.join(unknown[:5])}; known: hand", "bad_request")
    hand = raw.get("hand")
    if not isinstance(hand, str):
        raise BadRequest(f"hand must be a string of faces, not {quoted(hand)}", "bad_request")
    if len(hand) > MAX_TIDY_CARDS:
        raise BadRequest(
            f"a hand holds at most {MAX_TIDY_CARDS} cards, not {len(hand)} in {hand[:30]!r}…",
            "too_many_cards",
        )
    bad = next((c for c in hand if c not in _FACE_INDEX), None)
    if bad is not None:
        raise BadRequest(
            str(UnknownCard(f"unknown card character {bad!r} in {hand!r}")), "unknown_card"
        )
    faces = [_FACE_INDEX[c] for c in hand]
    try:
        check_copies(faces, hand)
    except TooManyCopies as exc:
        raise BadRequest(str(exc), "too_many_copies") from exc
    found = tidy(counts_of(faces))
    groups = []
    for kind, face in found.groups:
        cards = (face, face + 1, face + 2) if kind == RUN else (face,) * _SIZES[kind]
        groups.append({"kind": _KINDS[kind], "cards": faces_str(cards)})
    return {"groups": groups, "loose": faces_str(found.loose)}


__all__ = ["MAX_TIDY_CARDS", "tidy_request"]
