"""``policy``: the rollout policy of ``mcts``, its hand valuation and its choices.

The default policy takes every 胡, values a position by the best split of each case's cards into
groups, pairs (with their expected 硬息 from a later 碰/偎), run shapes and singles, minus a cost
for 硬息 still missing below ``min_xi`` (RULES §4.7, §6.4), and discards or claims (碰/吃 then the
best discard) whatever leaves the best value. Its choices are memoised: the paired rollouts of one
world revisit the same positions. It plays every seat of the search's rollouts
(:mod:`weimaque.games.maque.bots.mcts`) and plays on its own as the bot ``policy``.
"""

from __future__ import annotations

import functools
import random

from weimaque.games.maque.analysis.arrange import melds_xi, triple_xi
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.determinize import Knowledge
from weimaque.games.maque.cards import NUM_FACES, RED_FACES
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.game.state import HU, PASS, PENG, GameState, claim_into, discardable

#: The discard action of each face, and whether each face is red (RULES §1).
DISCARD_ACTIONS = tuple(Action.discard(f) for f in range(NUM_FACES))
IS_RED = tuple(f in RED_FACES for f in range(NUM_FACES))


#: Hand-shape values of the default policy: a complete group, a pair, a two-card run shape, one
#: 硬息 point, and the cost per point still missing below ``min_xi`` (RULES §4.7, §6.4).
GROUP = 1.0
PAIR = 0.6
SHAPE = 0.35
XI = 0.06
XI_SHORT = 0.08
#: Expected 硬息 of a pair that may still become a 碰 or 偎, or stay a red 麻雀 (RULES §6.4).
_PAIR_XI = (1.4, 2.0)


@functools.lru_cache(maxsize=1 << 18)
def half_value(half: tuple[int, ...]) -> tuple[float, float]:
    """Best (value, 硬息) split of one case's 10 counts into groups, pairs, shapes and singles."""
    i = next((k for k, n in enumerate(half) if n), -1)
    if i < 0:
        return (0.0, 0.0)
    c = half[i]
    red = IS_RED[i]
    best = (-1e9, 0.0)
    options: list[tuple[float, float, tuple[int, ...]]] = []

    def take(*idx: int) -> tuple[int, ...]:
        r = list(half)
        for k in idx:
            r[k] -= 1
        return tuple(r)

    if c >= 3:
        kan = triple_xi("kan", i)  # a half's index i has the redness of small face i
        options.append((GROUP + XI * kan, kan, take(i, i, i)))
    if i <= 7 and half[i + 1] and half[i + 2]:
        options.append((GROUP, 0.0, take(i, i + 1, i + 2)))
    if c >= 2:
        pxi = _PAIR_XI[red]
        options.append((PAIR + XI * pxi, pxi, take(i, i)))
    if i <= 8 and half[i + 1]:
        options.append((SHAPE * (1.0 if 0 < i < 8 else 0.6), 0.0, take(i, i + 1)))
    if i <= 7 and half[i + 2]:
        options.append((SHAPE * 0.6, 0.0, take(i, i + 2)))
    options.append((0.0, 0.0, take(i)))
    for v, xi, rest in options:
        rv, rxi = half_value(rest)
        if v + rv > best[0]:
            best = (v + rv, xi + rxi)
    return best


def position_value(
    small: tuple[float, float], big: tuple[float, float], n_melds: int, mxi: float, min_xi: int
) -> float:
    """Value of a position from its two halves' (value, 硬息) and its melds."""
    xi = small[1] + big[1] + mxi
    return small[0] + big[0] + GROUP * n_melds + XI * mxi - XI_SHORT * max(0.0, min_xi - xi)


def discard_faces(state: GameState, seat: int) -> list[int]:
    """The faces ``seat`` may 出 now (RULES §5.2), without building error messages."""
    return discardable(state.hands[seat], state.no_discard[seat])


def discard_values(
    hand: list[int], faces: list[int], n_melds: int, mxi: float, min_xi: int
) -> list[tuple[float, int]]:
    """(value of the position left, face) for each discard among ``faces``."""
    small_t = tuple(hand[:10])
    big_t = tuple(hand[10:])
    small = half_value(small_t)
    big = half_value(big_t)
    out: list[tuple[float, int]] = []
    for f in faces:
        if f < 10:
            h = list(small_t)
            h[f] -= 1
            out.append((position_value(half_value(tuple(h)), big, n_melds, mxi, min_xi), f))
        else:
            h = list(big_t)
            h[f - 10] -= 1
            out.append((position_value(small, half_value(tuple(h)), n_melds, mxi, min_xi), f))
    return out


def best_discard(
    hand: list[int], faces: list[int], n_melds: int, mxi: float, min_xi: int
) -> tuple[float, int]:
    """The discard among ``faces`` leaving the best position, with that position's value."""
    return _best_discard(tuple(hand), tuple(faces), n_melds, mxi, min_xi)


@functools.lru_cache(maxsize=1 << 16)
def _best_discard(
    hand: tuple[int, ...], faces: tuple[int, ...], n_melds: int, mxi: float, min_xi: int
) -> tuple[float, int]:
    # Rollouts of one world revisit the same positions (paired candidates share their seed).
    return max(discard_values(list(hand), list(faces), n_melds, mxi, min_xi))


def policy_discard(state: GameState, seat: int) -> int:
    """The default policy's discard: the face leaving the best-valued hand."""
    melds = state.melds[seat]
    faces = discard_faces(state, seat)
    hand = state.hands[seat]
    return best_discard(hand, faces, len(melds), melds_xi(melds), state.rules.min_xi)[1]


def claim_value(
    hand: list[int],
    n_melds: int,
    mxi: float,
    banned: set[int] | frozenset[int],
    card: int,
    run: int | None,
    min_xi: int,
) -> float | None:
    """Value after 碰 (``run`` None) or 吃 into ``run`` of ``card`` and the best discard."""
    h = list(hand)
    claim_into(h, card, run)
    xi = mxi + triple_xi("peng", card) if run is None else mxi
    faces = [f for f in discardable(h, banned) if f != card]
    if not faces:
        return None  # a claim that leaves no discard makes the seat 死手 (RULES §4.1)
    return best_discard(h, faces, n_melds + 1, xi, min_xi)[0]


def claim_choice(
    hand: list[int],
    n_melds: int,
    mxi: float,
    banned: set[int],
    card: int,
    peng: bool,
    runs: list[int],
    min_xi: int,
) -> int | None:
    """The default policy's claim: -1 for 碰, a run start for 吃, None for 过 (胡 comes first)."""
    return _claim_choice(
        tuple(hand), n_melds, mxi, frozenset(banned), card, peng, tuple(runs), min_xi
    )


@functools.lru_cache(maxsize=1 << 16)
def _claim_choice(
    hand_t: tuple[int, ...],
    n_melds: int,
    mxi: float,
    banned: frozenset[int],
    card: int,
    peng: bool,
    runs: tuple[int, ...],
    min_xi: int,
) -> int | None:
    hand = list(hand_t)
    best: int | None = None
    best_v = position_value(
        half_value(tuple(hand[:10])), half_value(tuple(hand[10:])), n_melds, mxi, min_xi
    )
    if peng:
        v = claim_value(hand, n_melds, mxi, banned, card, None, min_xi)
        if v is not None and v > best_v:
            best, best_v = -1, v
    for run in runs:
        v = claim_value(hand, n_melds, mxi, banned, card, run, min_xi)
        if v is not None and v > best_v:
            best, best_v = run, v
    return best


def policy_claim(state: GameState, seat: int, options: list[Action]) -> Action:
    """The default policy's answer in a claim window: 胡, else the best-valued claim or 过."""
    if HU in options:
        return HU
    w = state.window
    assert w is not None
    melds = state.melds[seat]
    choice = claim_choice(
        state.hands[seat],
        len(melds),
        melds_xi(melds),
        state.no_discard[seat],
        w.card,
        PENG in options,
        [a.face for a in options if a.kind == "chi" and a.face is not None],
        state.rules.min_xi,
    )
    if choice is None:
        return PASS
    return PENG if choice < 0 else Action.chi(choice)


class PolicyBot:
    """``policy``: the rollout policy of ``mcts`` as a bot (how good the rollouts' players are)."""

    name = "policy"

    def act(self, view: BotView, rng: random.Random) -> Action:
        """Take any 胡; else the default policy's discard or claim on the seat's own cards."""
        obvious = view.obvious()
        if obvious is not None:
            return obvious
        legal = view.legal
        state = Knowledge.of(view).sample(rng)  # only the seat's own cards are read
        if state.phase == "discard":
            return DISCARD_ACTIONS[policy_discard(state, view.seat)]
        return policy_claim(state, view.seat, list(legal))
