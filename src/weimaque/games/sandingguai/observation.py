"""What each seat may see (SDG §10): the only place hidden information is filtered.

:func:`observe` builds one typed :class:`View` per seat: its own concealed tiles, the tile it
just drew and its own 过水 locks; for every seat the melds (another seat's 暗杠 face down, kind
hidden until the hand ends, unless ``angang_public``), the discard row in order with claimed
tiles marked, the concealed count, 报听 and the match score; the dealer and his streak, the
wall count, the open claim, the fates of the first chicken once announced, whether the viewer
must decide and its legal actions; at the end every hand, the flipped tile and every transfer.
No view holds the wall's order or another seat's concealed tiles. :func:`observe_table` builds
the spectator's view (nobody's concealed tiles) and the all-seeing replay's (every hand).
:func:`settled` and :func:`answered_view` are the claim-window rule (docs/protocol.md §2.3): a
viewer without an option in an open claim or rob window is not shown that it opened.

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

import dataclasses
from dataclasses import dataclass
from typing import Any, Final, Literal

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


def _seat_views(
    state: State, sees: int | Literal["all"] | None, scores: tuple[int, int, int]
) -> tuple[SeatView, SeatView, SeatView]:
    """Every seat as ``sees`` sees it (a seat, everything, or nobody's own tiles): another
    seat's 暗杠 stays face down (SDG §10) unless ``angang_public``, the hand is over, or the
    viewer sees everything."""
    public_angang = state.rules.angang_public or state.is_terminal() or sees == "all"
    seats = []
    for s in range(NUM_SEATS):
        melds = tuple(
            MeldView(
                m.kind,
                None if m.kind is MeldKind.ANGANG and s != sees and not public_angang else m.tile,
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
    return seats[0], seats[1], seats[2]


def _end_view(state: State) -> EndView | None:
    """The end of the hand, once it is over (SDG §10: shown to everyone)."""
    if not state.is_terminal() or state.result is None:
        return None
    settlement = state.result.settlement
    return EndView(
        state.result.table.huang,
        state.result.table.flip,
        (tuple(state.hands[0]), tuple(state.hands[1]), tuple(state.hands[2])),
        tuple((t.payer, t.payee, t.amount, t.reason) for t in settlement.transfers),
        settlement.net,
    )


def observe(state: State, viewer: int, scores: tuple[int, int, int] = (0, 0, 0)) -> View:
    """The view of seat ``viewer`` (``scores``: the match points before this hand)."""
    if viewer not in (0, 1, 2):
        raise ValueError(f"viewer must be seat 0, 1 or 2, not {viewer!r}")
    mode = state.rules.pass_lock
    own_turn = state.phase == SELF and state.turn == viewer
    window = state.phase in (CLAIMS, ROB)
    return View(
        viewer,
        tuple(state.hands[viewer]),
        state.drawn if own_turn else None,
        tuple(sorted(state.locks[viewer])) if mode == "same_face" else (),
        state.lock_any[viewer] if mode == "any" else False,
        _seat_views(state, viewer, scores),
        state.dealer,
        state.streak,
        state.wall_left,
        PHASE_NAMES[state.phase],
        state.claim_from if window else state.turn,
        state.claim_tile if window else None,
        tuple(state.firsts),
        viewer in state.players_to_act(),
        tuple(state.legal_actions(viewer)),
        _end_view(state),
    )


@dataclass(frozen=True, slots=True)
class TableView:
    """The view of a spectator (``"public"``: nobody's concealed tiles, every 暗杠 face down
    until the hand ends) or of an all-seeing replay (``"all"``: every hand, the drawn tile and
    every 暗杠 face up); neither ever holds the wall's order (SDG §10)."""

    viewer: Literal["public", "all"]
    hands: tuple[Counts, Counts, Counts] | None
    drawn: int | None
    seats: tuple[SeatView, SeatView, SeatView]
    dealer: int
    streak: int
    wall_left: int
    phase: str
    turn: int
    claim_tile: int | None
    chickens: tuple[FirstChicken, ...]
    end: EndView | None

    def to_dict(self) -> dict[str, Any]:
        """The JSON document (a spectator's has no ``hands`` and no ``drawn``)."""
        doc: dict[str, Any] = {"viewer": self.viewer}
        if self.hands is not None:
            doc["hands"] = [format_counts(h) for h in self.hands]
            doc["drawn"] = None if self.drawn is None else tile_name(self.drawn)
        doc |= {
            "seats": [s.to_dict() for s in self.seats],
            "dealer": self.dealer,
            "streak": self.streak,
            "wall_left": self.wall_left,
            "phase": self.phase,
            "turn": self.turn,
            "claim": None if self.claim_tile is None else tile_name(self.claim_tile),
            "chickens": [str(c) for c in self.chickens if c.claim != "hu"],
            "end": None if self.end is None else self.end.to_dict(),
        }
        return doc


def observe_table(
    state: State, viewer: Literal["public", "all"], scores: tuple[int, int, int] = (0, 0, 0)
) -> TableView:
    """The view of a spectator (``"public"``) or an all-seeing replay (``"all"``)."""
    if viewer not in ("public", "all"):
        raise ValueError(f"a table viewer is 'public' or 'all', not {viewer!r}")
    sees_all = viewer == "all"
    window = state.phase in (CLAIMS, ROB)
    return TableView(
        viewer,
        (tuple(state.hands[0]), tuple(state.hands[1]), tuple(state.hands[2])) if sees_all else None,
        state.drawn if sees_all and state.phase == SELF else None,
        _seat_views(state, "all" if sees_all else None, scores),
        state.dealer,
        state.streak,
        state.wall_left,
        PHASE_NAMES[state.phase],
        state.claim_from if window else state.turn,
        state.claim_tile if window else None,
        tuple(state.firsts),
        _end_view(state),
    )


# The claim-window rule (docs/protocol.md §2.3, as RULES §3.1.5 for 偎麻雀). SDG §10 shows every
# seat the open claim but is silent on windows nobody is asked in; the engine opens a claim
# (出) or rob (补杠) window only when some seat may 胡, 碰 or 杠 the tile (SDG §3 CLAIMS 3, ROB),
# so a window shown to everyone tells a seat without an option that another holds a pair of the
# tile or wins on it, and its quiet close that the holder declined. A viewer is therefore shown
# the position only when it is *settled*; otherwise it keeps the view of its last delivery with
# its own answers since (:func:`answered_view`), until the window resolves.


def settled(state: State, viewer: int | Literal["public", "all"]) -> bool:
    """Whether ``viewer`` may be shown the position now: no claim or rob window is open, or it
    has an option in the open one (the all-seeing replay always is; a spectator never is inside
    a window). The 定缺 window (SDG §2.4) asks every seat, so it hides nothing."""
    if state.phase not in (CLAIMS, ROB) or viewer == "all":
        return True
    return isinstance(viewer, int) and viewer in state.options


def answered_view(view: View, action: int) -> View:
    """A seat's view once it answered the decision ``view`` shows with ``action``, as far as it
    alone knows (see :func:`settled`): the decision is gone; after a 出 (with or without 报听)
    the tile has left its hand for its discard row and lies under claim, after a 补杠 it has
    left its hand and lies in the rob window, exactly as the seat's view shows either while
    another seat decides on it."""
    kind = ACTIONS[action].kind if 0 <= action < NUM_ACTIONS else None
    tile = ACTIONS[action].tile if kind is not None else None
    if kind not in ("discard", "ting", "bugang") or tile is None or view.hand[tile] == 0:
        return dataclasses.replace(view, to_act=False, legal=())
    seat = view.viewer
    hand = list(view.hand)
    hand[tile] -= 1
    mine = view.seats[seat]
    if kind == "bugang":
        mine = dataclasses.replace(mine, concealed=mine.concealed - 1)
        phase = PHASE_NAMES[ROB]
    else:
        mine = dataclasses.replace(
            mine,
            discards=(*mine.discards, (tile, False)),
            concealed=mine.concealed - 1,
            baoting=mine.baoting or kind == "ting",
        )
        phase = PHASE_NAMES[CLAIMS]
    seats = list(view.seats)
    seats[seat] = mine
    return dataclasses.replace(
        view,
        hand=tuple(hand),
        drawn=None,
        seats=(seats[0], seats[1], seats[2]),
        phase=phase,
        turn=seat,
        claim_tile=tile,
        to_act=False,
        legal=(),
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
