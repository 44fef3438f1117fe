"""What each seat may see (SDG §10): the only place hidden information is filtered.

:func:`observe` builds one typed :class:`View` per seat: its own concealed tiles, the tile it
just drew and its own 过水 locks; for every seat the melds (another seat's 暗杠 face down, kind
hidden until the hand ends, unless ``angang_public``), the discard row in order with claimed
tiles marked, the concealed count, 报听 and the match score; the dealer and his streak, the
wall count, the open claim, the fates of the first chicken once announced, whether the viewer
must decide and its legal actions; at the end every hand, the flipped tile and every transfer.
No view holds the wall's order or another seat's concealed tiles.

:meth:`View.to_dict` is its JSON; :func:`observation_array` its flat float32 array,
seat-relative (index 0 = the viewer, 1 = its 下家, 2 = its 上家):

====================  =====  ==============================================================
block                 size   content
====================  =====  ==============================================================
hand                  27     own concealed count per kind
drawn                 27     one-hot of the tile the viewer just drew
melds × 3             81     face-up meld tiles per kind, per relative seat
hidden_angang × 3     3      face-down 暗杠 of that seat the viewer cannot see
kongs × 3             3      kongs of that seat (passports, SDG §5.1)
rows × 3              81     discard-row count per kind (tiles that stayed)
concealed × 3         3      concealed tiles / 14
baoting × 3           3      1 where that seat declared 报听
locks                 28     own 过水 faces, then 1 for a lock on any face
wall                  1      tiles left / 68
dealer                3      one-hot relative seat of the dealer
streak                1      the dealer's streak k / 10
phase                 5      one-hot: self, claims, rob, over, dingque
turn                  3      one-hot relative seat acting or whose tile is claimed
claim                 27     one-hot kind of the tile under claim
chickens              9      冲锋鸡 holder, 责任鸡 payer, 责任鸡 claimant (relative one-hots)
to_act                1      1 when the viewer must decide now
legal                 115    legal-action mask by action id (:mod:`.actions`)
scores                3      match points / 100
que × 3               9      one-hot declared lacking suit (定缺) of that seat
====================  =====  ==============================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from weimaque.games.sandingguai.actions import ACTIONS, NUM_ACTIONS
from weimaque.games.sandingguai.notation import (
    MELD_ASCII,
    FirstChicken,
    MeldKind,
    format_counts,
    tile_name,
)
from weimaque.games.sandingguai.state import CLAIMS, NUM_SEATS, PHASE_NAMES, ROB, SELF, State
from weimaque.games.sandingguai.tiles import NUM_KINDS, Counts

BLOCKS: Final = (
    ("hand", 27),
    ("drawn", 27),
    ("melds", 81),
    ("hidden_angang", 3),
    ("kongs", 3),
    ("rows", 81),
    ("concealed", 3),
    ("baoting", 3),
    ("locks", 28),
    ("wall", 1),
    ("dealer", 3),
    ("streak", 1),
    ("phase", 5),
    ("turn", 3),
    ("claim", 27),
    ("chickens", 9),
    ("to_act", 1),
    ("legal", NUM_ACTIONS),
    ("scores", 3),
    ("que", 9),
)
OBS_SIZE: Final = sum(n for _, n in BLOCKS)


@dataclass(frozen=True, slots=True)
class MeldView:
    """A meld as a viewer sees it: ``tile`` is None for another seat's face-down 暗杠."""

    kind: MeldKind
    tile: int | None
    source: int | None

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "kind": MELD_ASCII[self.kind],
            "tile": None if self.tile is None else tile_name(self.tile),
            "from": self.source,
        }


@dataclass(frozen=True, slots=True)
class SeatView:
    """What everyone sees of one seat."""

    seat: int
    melds: tuple[MeldView, ...]
    discards: tuple[tuple[int, bool], ...]
    concealed: int
    baoting: bool
    score: int
    que: int = -1

    def to_dict(self) -> dict[str, Any]:
        """JSON form: discards as ``[tile, claimed]`` pairs; ``que`` the declared lacking suit."""
        return {
            "seat": self.seat,
            "que": "msp"[self.que] if self.que >= 0 else None,
            "melds": [m.to_dict() for m in self.melds],
            "discards": [[tile_name(t), taken] for t, taken in self.discards],
            "concealed": self.concealed,
            "baoting": self.baoting,
            "score": self.score,
        }


@dataclass(frozen=True, slots=True)
class EndView:
    """The end of a hand, shown to everyone: hands, flip, transfers, net."""

    huang: bool
    flip: int | None
    hands: tuple[Counts, Counts, Counts]
    transfers: tuple[tuple[int, int, int, str], ...]
    net: tuple[int, int, int]

    def to_dict(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "huang": self.huang,
            "flip": None if self.flip is None else tile_name(self.flip),
            "hands": [format_counts(h) for h in self.hands],
            "transfers": [list(t) for t in self.transfers],
            "net": list(self.net),
        }


@dataclass(frozen=True, slots=True)
class View:
    """One seat's view of a hand (SDG §10)."""

    viewer: int
    hand: Counts
    drawn: int | None
    locks: tuple[int, ...]
    lock_any: bool
    seats: tuple[SeatView, SeatView, SeatView]
    dealer: int
    streak: int
    wall_left: int
    phase: str
    turn: int
    claim_tile: int | None
    chickens: tuple[FirstChicken, ...]
    to_act: bool
    legal: tuple[int, ...]
    end: EndView | None

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of this view (tiles in ASCII notation, actions in Chinese)."""
        return {
            "viewer": self.viewer,
            "hand": format_counts(self.hand),
            "drawn": None if self.drawn is None else tile_name(self.drawn),
            "locks": [tile_name(t) for t in self.locks],
            "lock_any": self.lock_any,
            "seats": [s.to_dict() for s in self.seats],
            "dealer": self.dealer,
            "streak": self.streak,
            "wall_left": self.wall_left,
            "phase": self.phase,
            "turn": self.turn,
            "claim": None if self.claim_tile is None else tile_name(self.claim_tile),
            "chickens": [str(c) for c in self.chickens if c.claim != "hu"],
            "to_act": self.to_act,
            "legal": [str(ACTIONS[a]) for a in self.legal],
            "end": None if self.end is None else self.end.to_dict(),
        }


def observe(state: State, viewer: int, scores: tuple[int, int, int] = (0, 0, 0)) -> View:
    """The view of seat ``viewer`` (``scores``: the match points before this hand)."""
    if viewer not in (0, 1, 2):
        raise ValueError(f"viewer must be seat 0, 1 or 2, not {viewer!r}")
    over = state.is_terminal()
    public_angang = state.rules.angang_public or over
    seats = []
    for s in range(NUM_SEATS):
        melds = tuple(
            MeldView(
                m.kind,
                None if m.kind is MeldKind.ANGANG and s != viewer and not public_angang else m.tile,
                m.source,
            )
            for m in state.melds[s]
        )
        seats.append(
            SeatView(
                s,
                melds,
                tuple(zip(state.discards[s], state.taken[s], strict=True)),
                sum(state.hands[s]),
                state.baoting[s],
                scores[s],
                state.que[s],
            )
        )
    acting = state.players_to_act()
    mode = state.rules.pass_lock
    end = None
    if over and state.result is not None:
        settlement = state.result.settlement
        end = EndView(
            state.result.table.huang,
            state.result.table.flip,
            (tuple(state.hands[0]), tuple(state.hands[1]), tuple(state.hands[2])),
            tuple((t.payer, t.payee, t.amount, t.reason) for t in settlement.transfers),
            settlement.net,
        )
    own_turn = state.phase == SELF and state.turn == viewer
    return View(
        viewer,
        tuple(state.hands[viewer]),
        state.drawn if own_turn else None,
        tuple(sorted(state.locks[viewer])) if mode == "same_face" else (),
        state.lock_any[viewer] if mode == "any" else False,
        (seats[0], seats[1], seats[2]),
        state.dealer,
        state.streak,
        state.wall_left,
        PHASE_NAMES[state.phase],
        state.claim_from if state.phase in (CLAIMS, ROB) else state.turn,
        state.claim_tile if state.phase in (CLAIMS, ROB) else None,
        tuple(state.firsts),
        viewer in acting,
        tuple(state.legal_actions(viewer)),
        end,
    )


def observation_array(view: View) -> npt.NDArray[np.float32]:
    """The flat float32 array of a view (the block table above)."""
    out = np.zeros(OBS_SIZE, dtype=np.float32)
    v = view.viewer

    def rel(seat: int) -> int:
        return (seat - v) % NUM_SEATS

    i = 0
    out[i : i + NUM_KINDS] = view.hand
    i += NUM_KINDS
    if view.drawn is not None:
        out[i + view.drawn] = 1
    i += NUM_KINDS
    melds_at, hidden_at, kongs_at = i, i + 81, i + 84
    rows_at, conc_at, bao_at = i + 87, i + 168, i + 171
    for s in view.seats:
        r = rel(s.seat)
        for m in s.melds:
            if m.tile is None:
                out[hidden_at + r] += 1
            else:
                out[melds_at + NUM_KINDS * r + m.tile] += m.kind.size
            if m.kind.is_kong:
                out[kongs_at + r] += 1
        for t, taken in s.discards:
            if not taken:
                out[rows_at + NUM_KINDS * r + t] += 1
        out[conc_at + r] = s.concealed / 14
        out[bao_at + r] = float(s.baoting)
    i += 174
    for t in view.locks:
        out[i + t] = 1
    out[i + NUM_KINDS] = float(view.lock_any)
    i += 28
    out[i] = view.wall_left / 68
    i += 1
    out[i + rel(view.dealer)] = 1
    i += 3
    out[i] = view.streak / 10
    i += 1
    out[i + PHASE_NAMES.index(view.phase)] = 1
    i += 5
    out[i + rel(view.turn)] = 1
    i += 3
    if view.claim_tile is not None:
        out[i + view.claim_tile] = 1
    i += NUM_KINDS
    for c in view.chickens:
        if c.claim is None:
            out[i + rel(c.seat)] = 1
        elif c.claim in ("peng", "gang") and c.claimant is not None:
            out[i + 3 + rel(c.seat)] = 1
            out[i + 6 + rel(c.claimant)] = 1
    i += 9
    out[i] = float(view.to_act)
    i += 1
    for a in view.legal:
        out[i + a] = 1
    i += NUM_ACTIONS
    for s in view.seats:
        out[i + rel(s.seat)] = s.score / 100
    i += 3
    for s in view.seats:
        if s.que >= 0:
            out[i + 3 * rel(s.seat) + s.que] = 1
    i += 9
    assert i == OBS_SIZE
    return out
