"""Per-seat views of a hand: the only place hidden information is filtered (RULES §2.1, §4.3).

A seat sees its own hand, every meld (others' 偎 face down unless 明偎; a 吃 with the card it
``claimed``), the discard rows, the stock count, the dealer, the open claim (card, origin), whether
it must decide and its own legal actions, and ``bans``: per seat the faces it may not 出, 吃 or 碰
(RULES §5.2, §5.3), complete for itself and, for the others, only what follows from what everyone
saw (a 碰'd or 吃-claimed face, a face the seat or its 上家 discarded or released; their 碰 bans are
None). The 守醒 view adds the three hands and every seat's complete bans, or under
``shouxing_sees = "dealer"`` (RULES §2.1.2) the dealer's hand and bans only (the others' hands
are None, their face-down 偎 hidden as from a spectator); ``scores`` are the match points before
this hand.
No view contains the stock order, and no seat's view contains
another seat's hand or face-down 偎.

The flat array (``observation_array``) has ``OBS_SIZE`` float32 entries, seat-relative (index 0 =
the viewer, 1 = its 下家, 2 = its 上家). One layout serves every table: with two players (RULES
§2.5) index 1 is the opponent (both 下家 and 上家) and the blocks of index 2 stay zero, and the
stock is counted against the deal's stock (22, or 41 with the third hand added, RULES §2.5.2):

====================  =====  ==============================================================
block                 size   content
====================  =====  ==============================================================
hand                  20     own concealed count per face
melds_visible × 3     60     face-up meld cards per face, per relative seat (own 偎 included)
wei_hidden × 3        3      face-down 偎 of that seat not visible to the viewer (count)
rows × 3              60     discard-row count per face, per relative seat
dead × 3              3      1 where that seat is 死手
stock                 1      stock cards left / the deal's stock (22 or 41)
dealer                3      one-hot relative seat of the dealer
phase                 3      one-hot: discard, claim, over
claim_card            20     one-hot face of the card under claim
claim_origin          5      one-hot: deal, discard, draw, wei, release
claim_from            3      one-hot relative seat that discarded or drew it
to_act                1      1 when the viewer must decide now
legal                 39     legal-action mask by action id
(:mod:`weimaque.games.maque.game.actions`) ban_discard × 3       60     1 per face that seat may not
出 (others: the public bans only) ban_chi × 3           60     1 per face that seat may not 吃
(others: the public bans only) ban_peng              20     1 per face the viewer may not 碰 (its
碰-过张) ====================  =====  ==============================================================

``OBS_SIZE`` is 361.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

from weimaque.games.maque.analysis.arrange import triple_xi
from weimaque.games.maque.cards import COPIES, NUM_FACES, faces_str
from weimaque.games.maque.game.actions import NUM_ACTIONS, Action
from weimaque.games.maque.game.events import ShouxingOf, Viewer, sees_hand
from weimaque.games.maque.game.state import GameState, TableMeld
from weimaque.games.maque.notation import MeldKind

ORIGINS: Final = ("deal", "discard", "draw", "wei", "release")
PHASES: Final = ("discard", "claim", "over")
OBS_SIZE: Final = (
    NUM_FACES
    + 3 * NUM_FACES
    + 3
    + 3 * NUM_FACES
    + 3
    + 1
    + 3
    + 3
    + NUM_FACES
    + 5
    + 3
    + 1
    + NUM_ACTIONS
    + 3 * NUM_FACES
    + 3 * NUM_FACES
    + NUM_FACES
)


def meld_visible(meld: TableMeld, owner: int, viewer: Viewer) -> bool:
    """Whether a viewer may see a meld's faces: face-down 偎 only by its owner (and 守醒)."""
    return not meld.face_down or sees_hand(viewer, owner)


@dataclass(frozen=True, slots=True)
class MeldView:
    """A meld as a viewer sees it: its faces, or None for a face-down 偎 hidden from it."""

    kind: MeldKind
    #: Sorted, as on the table (``TableMeld.faces``); None for a 偎 face down to the viewer.
    faces: tuple[int, int, int] | None
    face_down: bool
    #: A 吃's claimed card (public: it decides others' bans, RULES §5.2, §5.3).
    claimed: int | None = None

    def to_json(self) -> dict[str, Any]:
        """``{"kind", "cards", "face_down"}`` (and ``claimed`` for a 吃), faces as characters."""
        if self.faces is None:
            return {"kind": "wei", "cards": None, "face_down": True}
        out: dict[str, Any] = {
            "kind": self.kind,
            "cards": faces_str(self.faces),
            "face_down": self.face_down,
        }
        if self.claimed is not None:
            out["claimed"] = faces_str((self.claimed,))
        return out


@dataclass(frozen=True, slots=True)
class BansView:
    """A seat's 出 / 吃 / 碰 bans as a viewer may know them (RULES §5.2, §5.3); ``peng`` is
    None for another seat's (its 碰-过张 are its own)."""

    discard: tuple[int, ...]
    chi: tuple[int, ...]
    peng: tuple[int, ...] | None

    def to_json(self) -> dict[str, Any]:
        return {
            "discard": faces_str(self.discard),
            "chi": faces_str(self.chi),
            "peng": None if self.peng is None else faces_str(self.peng),
        }


@dataclass(frozen=True, slots=True)
class ClaimView:
    """The open claim window: its card (None: a face-down 偎 the viewer may not see), where the
    card came from and from whom."""

    card: int | None
    origin: str
    from_seat: int

    def to_json(self) -> dict[str, Any]:
        card = None if self.card is None else faces_str((self.card,))
        return {"card": card, "origin": self.origin, "from": self.from_seat}


@dataclass(frozen=True, slots=True)
class Observation:
    """What a viewer sees of a hand (the module's docstring), faces as ints; ``to_json`` is its
    form on the wire, in records and for programs (cards as characters)."""

    viewer: Viewer
    rules: str
    dealer: int
    phase: str
    stock_left: int
    #: The seat to 出 in the discard phase, else None.
    turn: int | None
    claim: ClaimView | None
    hand_sizes: tuple[int, ...]
    melds: tuple[tuple[MeldView, ...], ...]
    rows: tuple[tuple[int, ...], ...]
    dead: tuple[bool, ...]
    bans: tuple[BansView, ...]
    scores: tuple[int, ...]
    #: A seat's own hand (its faces in order); None for any other viewer.
    hand: tuple[int, ...] | None = None
    to_act: bool = False
    legal_actions: tuple[str, ...] = ()
    #: The three hands, for the 守醒 (and the all-seeing replay); else None. A 守醒 who may
    #: see some seats only (RULES §2.1.2) has None for each of the others.
    hands: tuple[tuple[int, ...] | None, ...] | None = None
    #: The hand's result once it is over (its JSON form).
    result: Mapping[str, Any] | None = None

    def seen_counts(self) -> list[int]:
        """How many copies of each face the viewer can see, by face: its own hand, every meld
        shown face up, the rows, and the card under claim while it lies on the table (a 偎's
        card is already in its meld, RULES §4.3, and is counted there once)."""
        seen = [0] * NUM_FACES
        for f in self.hand or ():
            seen[f] += 1
        for seat_melds in self.melds:
            for m in seat_melds:
                for f in m.faces or ():
                    seen[f] += 1
        for row in self.rows:
            for f in row:
                seen[f] += 1
        claim = self.claim
        if claim is not None and claim.card is not None and claim.origin != "wei":
            seen[claim.card] += 1
        return seen

    def unseen_counts(self) -> list[int]:
        """How many copies of each face the viewer cannot see (four of each, RULES §1.1, less
        :meth:`seen_counts`): in other hands, face-down 偎, the stock or the buried cards."""
        return [max(0, COPIES - n) for n in self.seen_counts()]

    def to_json(self) -> dict[str, Any]:
        """The JSON form: the dict views, records and programs read (docs/protocol.md §2.2)."""
        out: dict[str, Any] = {
            "viewer": "shouxing" if isinstance(self.viewer, ShouxingOf) else self.viewer,
            "rules": self.rules,
            "dealer": self.dealer,
            "phase": self.phase,
            "stock_left": self.stock_left,
            "turn": self.turn,
            "claim": None if self.claim is None else self.claim.to_json(),
            "hand_sizes": list(self.hand_sizes),
            "melds": [[m.to_json() for m in seat] for seat in self.melds],
            "rows": [faces_str(r) for r in self.rows],
            "dead": list(self.dead),
            "bans": [b.to_json() for b in self.bans],
            "scores": list(self.scores),
        }
        if isinstance(self.viewer, int):
            out["hand"] = faces_str(self.hand or ())
            out["to_act"] = self.to_act
            out["legal_actions"] = list(self.legal_actions)
        elif self.hands is not None:
            out["hands"] = [None if h is None else faces_str(h) for h in self.hands]
        if self.result is not None:
            out["result"] = dict(self.result)
        return out


def _meld_view(meld: TableMeld, owner: int, viewer: Viewer) -> MeldView:
    if not meld_visible(meld, owner, viewer):
        return MeldView("wei", None, True)
    claimed = meld.card if meld.kind == "chi" else None
    return MeldView(meld.kind, meld.faces, meld.face_down, claimed)


def shown_xi(melds: Sequence[MeldView]) -> int:
    """明息 of a seat's melds as a view shows them: the 硬息 of every meld whose cards are
    shown; a face-down 偎 the viewer may not see counts nothing (RULES §6.4)."""
    return sum(triple_xi(m.kind, m.faces[0]) for m in melds if m.faces is not None)


def bans_view(state: GameState, seat: int, viewer: Viewer) -> BansView:
    """A seat's 出 / 吃 / 碰 bans as a viewer may know them (RULES §5.2, §5.3)."""
    if sees_hand(viewer, seat):
        discard, chi, peng = state.bans(seat)
        return BansView(tuple(discard), tuple(chi), tuple(peng))
    discard, chi = state.public_bans(seat)
    return BansView(tuple(discard), tuple(chi), None)


def _claim_visible(state: GameState, viewer: Viewer) -> bool:
    """The card under claim is face up, except a face-down 偎 (RULES §4.3)."""
    w = state.window
    assert w is not None
    return w.origin != "wei" or state.rules.wei_face_up or sees_hand(viewer, w.from_seat)


def shouxing_viewer(state: GameState) -> Viewer:
    """The 守醒 of this hand as a viewer (RULES §2.1.2): ``"shouxing"``, who sees the three
    hands, or under ``shouxing_sees = "dealer"`` one who sees the dealer's only."""
    if state.rules.shouxing_sees == "dealer":
        return ShouxingOf((state.dealer,))
    return "shouxing"


def view_of(state: GameState, viewer: Viewer) -> Observation:
    """The view of a seat (0..2), a spectator (``"public"``), the 守醒 (``"shouxing"``, who sees
    what ``shouxing_sees`` lets him, RULES §2.1.2) or an all-seeing replay (``"all"``), typed;
    :func:`observation` is its JSON form."""
    if viewer == "shouxing":
        viewer = shouxing_viewer(state)
    w = state.window
    seats = range(state.n)
    claim = None
    if w is not None and w.origin != "deal":
        card = w.card if _claim_visible(state, viewer) else None
        claim = ClaimView(card, w.origin, w.from_seat)
    hand = None
    to_act = False
    legal: tuple[str, ...] = ()
    hands: tuple[tuple[int, ...] | None, ...] | None = None
    if isinstance(viewer, int):
        hand = tuple(state.hand_faces(viewer))
        to_act = viewer in state.to_act()
        legal = tuple(str(a) for a in state.legal_actions(viewer))
    elif viewer in ("shouxing", "all"):
        hands = tuple(tuple(state.hand_faces(s)) for s in seats)
    elif isinstance(viewer, ShouxingOf):
        hands = tuple(tuple(state.hand_faces(s)) if s in viewer.seats else None for s in seats)
    result = None
    if state.result is not None:
        r = state.result
        result = {
            "winner": r.winner,
            "chou": r.chou,
            "card": None if r.card is None else faces_str((r.card,)),
            "source": r.source,
            "deal_pattern": r.deal_pattern,
            "haidi": r.haidi,
            "breakdown": None if r.breakdown is None else r.breakdown.to_dict(),
        }
    return Observation(
        viewer=viewer,
        rules=state.rules.id,
        dealer=state.dealer,
        phase=state.phase,
        stock_left=state.stock_left,
        turn=state.turn if state.phase == "discard" else None,
        claim=claim,
        hand_sizes=tuple(sum(state.hands[s]) for s in seats),
        melds=tuple(tuple(_meld_view(m, s, viewer) for m in state.melds[s]) for s in seats),
        rows=tuple(tuple(state.rows[s]) for s in seats),
        dead=tuple(state.dead),
        bans=tuple(bans_view(state, s, viewer) for s in seats),
        scores=tuple(state.scores),
        hand=hand,
        to_act=to_act,
        legal_actions=legal,
        hands=hands,
        result=result,
    )


def settled(state: GameState, viewer: Viewer) -> bool:
    """Whether ``viewer`` may be shown the position now (RULES §3.1.5, docs/protocol.md §2.3).

    A claim window is opened only when some seat may claim; a card nobody may claim is resolved
    at once. So that what a viewer without an option is shown never depends on whether another
    seat had one, a viewer is *settled* when it has nothing hidden to wait for: no window is
    open, or it has an option in the open one itself (the 守醒 and an all-seeing replay, who see
    every hand, always are; one who sees some seats only, RULES §2.1.2, is settled when one of
    them is, as he learns no more than they do). A viewer that is not is shown the position it
    was last shown, with its own answer since (:func:`answered_view`), until it is settled again.
    """
    if viewer == "shouxing":
        viewer = shouxing_viewer(state)
    if state.phase != "claim" or viewer in ("shouxing", "all"):
        return True
    if isinstance(viewer, ShouxingOf):
        return any(state._must_act(s) for s in viewer.seats)
    return isinstance(viewer, int) and state._must_act(viewer)


def dealt_view(state: GameState, viewer: Viewer) -> Observation:
    """The view of a fresh deal as if no seat could declare a deal pattern (the dealer to 出):
    what a viewer the deal's window keeps waiting is shown meanwhile (see :func:`settled`)."""
    view = view_of(state, viewer)
    return dataclasses.replace(
        view, phase="discard", turn=state.dealer, claim=None, to_act=False, legal_actions=()
    )


def answered_view(view: Observation, action: Action) -> Observation:
    """A seat's view once it has answered the decision ``view`` shows with ``action``, as far as
    it alone knows: the decision is gone and, for a 出, the card has left its hand and lies in
    the middle, as it lies whether or not another seat may claim it (see :func:`settled`)."""
    seat = view.viewer
    if view.hand is None or not isinstance(seat, int):
        return view
    face = action.face
    if action.kind != "discard" or face is None or face not in view.hand:
        return dataclasses.replace(view, to_act=False, legal_actions=())
    hand = list(view.hand)
    hand.remove(face)
    return dataclasses.replace(
        view,
        hand=tuple(hand),
        hand_sizes=tuple(n - 1 if s == seat else n for s, n in enumerate(view.hand_sizes)),
        claim=ClaimView(face, "discard", seat),
        phase="claim",
        turn=None,
        to_act=False,
        legal_actions=(),
    )


def observation(state: GameState, viewer: Viewer) -> dict[str, Any]:
    """The view of a viewer in its JSON form (:meth:`Observation.to_json`): what the wire,
    records and programs carry."""
    return view_of(state, viewer).to_json()


def observation_text(state: GameState, viewer: Viewer) -> str:
    """The view as a few lines of text."""
    obs = observation(state, viewer)
    lines = [f"rules {obs['rules']}  dealer {obs['dealer']}  stock {obs['stock_left']}"]
    for s in range(state.n):
        melds = " ".join(
            (m["cards"] if m["cards"] else "??? ") + ("(偎)" if m["kind"] == "wei" else "")
            for m in obs["melds"][s]
        )
        dead = " 死手" if obs["dead"][s] else ""
        lines.append(
            f"seat {s}: {obs['hand_sizes'][s]} in hand | {melds} | rows {obs['rows'][s]}{dead}"
        )
    if "hand" in obs:
        lines.append(f"your hand: {obs['hand']}")
    if "hands" in obs:
        lines.extend(f"hand {s}: {h}" for s, h in enumerate(obs["hands"]))
    if obs["claim"]:
        c = obs["claim"]
        lines.append(f"claim open on {c['card']} ({c['origin']} by seat {c['from']})")
    if obs.get("to_act"):
        lines.append("your options: " + " ".join(obs["legal_actions"]))
    if "result" in obs:
        r = obs["result"]
        lines.append(
            "臭" if r["chou"] else f"seat {r['winner']} 胡, total {r['breakdown']['total']}"
        )
    return "\n".join(lines)


def observation_array(state: GameState, seat: int) -> npt.NDArray[np.float32]:
    """The seat's view as one flat float32 array (layout in this module's docstring).

    Filled as a Python list and converted once (writing numpy elements one by one is slow).
    """
    out = [0.0] * OBS_SIZE
    n = state.n
    rel = [(seat + k) % n for k in range(n)]  # two seats: the third block stays empty
    out[:NUM_FACES] = state.hands[seat]
    i = NUM_FACES
    for k, s in enumerate(rel):
        base = i + k * NUM_FACES
        for m in state.melds[s]:
            if meld_visible(m, s, seat):
                for f in m.faces:
                    out[base + f] += 1
            else:
                out[i + 3 * NUM_FACES + k] += 1
    i += 3 * NUM_FACES + 3
    for k, s in enumerate(rel):
        base = i + k * NUM_FACES
        for f in state.rows[s]:
            out[base + f] += 1
    i += 3 * NUM_FACES
    for k, s in enumerate(rel):
        out[i + k] = float(state.dead[s])
    i += 3
    out[i] = state.stock_left / state.stock_size
    i += 1
    out[i + rel.index(state.dealer)] = 1
    i += 3
    out[i + PHASES.index(state.phase)] = 1
    i += 3
    w = state.window
    if w is not None and w.origin != "deal" and _claim_visible(state, seat):
        out[i + w.card] = 1
    i += NUM_FACES
    if w is not None:
        out[i + ORIGINS.index(w.origin)] = 1
        out[i + 5 + rel.index(w.from_seat)] = 1
    i += 5 + 3
    out[i] = float(seat in state.to_act())
    i += 1
    for a in state.legal_actions(seat):
        out[i + a.id] = 1
    i += NUM_ACTIONS
    own_discard, own_chi, own_peng = state.bans(seat)
    for k, s in enumerate(rel):
        if s == seat:
            discard, chi = own_discard, own_chi
        else:
            discard, chi = state.public_bans(s)
        for f in discard:
            out[i + k * NUM_FACES + f] = 1
        for f in chi:
            out[i + 3 * NUM_FACES + k * NUM_FACES + f] = 1
    i += 6 * NUM_FACES
    for f in own_peng:
        out[i + f] = 1
    return np.array(out, dtype=np.float32)
