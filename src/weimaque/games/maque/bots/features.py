"""Per-candidate features for the learned bot, computed from the seat's :class:`BotView` only.

Every non-胡 legal action is turned into the 19-card position it leads to (for a 碰 or 吃, after
greedy's best discard), and that position is described by the greedy heuristic's terms
(:class:`weimaque.games.maque.bots.greedy.Parts`), the action's kind, the cost of feeding the
discarded face and a few facts about the table (stock, the opponents' visible melds). Nothing here
reads a state: the input is the view, so a learned bot can never be given hidden information.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.greedy import _Table
from weimaque.games.maque.cards import RED_FACES, Counts
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.game.observation import shown_xi
from weimaque.games.maque.game.state import claim_into
from weimaque.games.maque.notation import Meld

#: Names of the feature columns, in order.
NAMES: Final = (
    "value",
    "value_gap",
    "greedy_choice",
    "is_discard",
    "is_peng",
    "is_chi",
    "is_pass",
    "feed",
    "shape",
    "xi",
    "xi_short",
    "mingtang",
    "waiting",
    "live_waits",
    "wait_ev",
    "melds",
    "red",
    "pairs",
    "face_red",
    "face_unseen",
    "face_seen",
    "stock",
    "next_melds",
    "prev_melds",
    "next_xi",
    "prev_xi",
    "next_size",
    "prev_size",
    "claim_own_draw",
    "bias",
)
NUM_FEATURES: Final = len(NAMES)
_KINDS: Final = ("discard", "peng", "chi", "pass")


def _after(table: _Table, action: Action) -> tuple[tuple[Meld, ...], Counts, int | None, float]:
    """The position an action leads to: melds, hand, the face it shows, the feeding cost."""
    hand = list(table.hand)
    if action.kind == "discard":
        assert action.face is not None
        hand[action.face] -= 1
        return table.melds, tuple(hand), action.face, table.feed(action.face)
    card = table.claim_card
    if action.kind == "pass" or card is None:
        claim = table.view.obs.claim
        own = claim is not None and claim.origin == "draw" and claim.from_seat == table.seat
        feed = table.feed(card, peng=False) if own and card is not None else 0.0
        return table.melds, tuple(hand), None, feed
    meld = claim_into(hand, card, action.face)
    melds = (*table.melds, meld)
    _, face = table.best_discard(melds, tuple(hand), {*table.no_discard, card})
    if face is None:
        return melds, tuple(hand), None, 0.0
    feed = table.feed(face)
    hand[face] -= 1
    return melds, tuple(hand), face, feed


def candidate_features(view: BotView, actions: Sequence[Action]) -> npt.NDArray[np.float64]:
    """One row of :data:`NAMES` per action (none of them 胡), from the view alone."""
    table = _Table(view)
    obs = view.obs
    seat = view.seat
    n = view.rules.players  # with two seats the opponent is both (RULES §2.5.1)
    nxt, prv = (seat + 1) % n, (seat - 1) % n
    claim = obs.claim
    own_draw = float(claim is not None and claim.origin == "draw" and claim.from_seat == seat)
    common = (
        obs.stock_left / 22,
        len(obs.melds[nxt]) / 6,
        len(obs.melds[prv]) / 6,
        shown_xi(obs.melds[nxt]) / 10,
        shown_xi(obs.melds[prv]) / 10,
        obs.hand_sizes[nxt] / 20,
        obs.hand_sizes[prv] / 20,
        own_draw,
        1.0,
    )
    out = np.zeros((len(actions), NUM_FEATURES))
    for k, a in enumerate(actions):
        melds, hand, face, feed = _after(table, a)
        p = table.parts(melds, hand)
        red = sum(hand[f] for f in RED_FACES) + sum(
            1 for m in melds for f in m.faces if f in RED_FACES
        )
        pairs = sum(1 for n in hand if n == 2)
        row = [
            p.value - feed,
            0.0,
            0.0,
            *(float(a.kind == kind) for kind in _KINDS),
            feed,
            p.shape,
            p.xi / 10,
            p.short,
            p.ming,
            float(p.live > 0),
            p.live / 10,
            p.ev / 100,
            len(melds) / 6,
            red / 10,
            pairs / 5,
            float(face is not None and face in RED_FACES),
            0.0 if face is None else table.unseen[face] / 4,
            float(face is not None and face in table.face_up),
            *common,
        ]
        out[k] = row
    best = out[:, 0].max()
    out[:, 1] = out[:, 0] - best
    out[int(np.argmax(out[:, 0])), 2] = 1.0
    return out
