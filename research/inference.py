"""Reading the opponents' play: how well a sampled hand explains what an opponent did.

An experiment, not part of the product: ``mcts`` once had an option (``infer=N``) that sampled
its worlds from a Metropolis chain over the hidden deal (research/chain.py) weighted by
:func:`seat_loglik`, and it
scored 3.2 per hand below uniform worlds over 1,200 hands against greedy (bots-log.md). Here: each
opponent's discards scored by the rollout policy's valuation
(:mod:`weimaque.games.maque.bots.policy`) as a softmax, the 碰 it let go, and the 胡 it could not
have let go (the bots take every 胡).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from weimaque.games.maque.analysis.arrange import triple_xi
from weimaque.games.maque.analysis.decompose import completions
from weimaque.games.maque.bots.base import BotView
from weimaque.games.maque.bots.determinize import Knowledge
from weimaque.games.maque.bots.history import Chi, Discard, Peng, Wei
from weimaque.games.maque.bots.policy import half_value, position_value
from weimaque.games.maque.game.state import NUM_SEATS, discardable, win_check
from weimaque.games.maque.notation import Meld, Source

#: Sharpness of the discard model that reads the opponents' play: the chance of discarding a face
#: is proportional to ``exp(BETA * value left)``. The best of a grid for greedy's discards in its
#: self-play (``research/discard_model.py --hands 150``: mean log-likelihood -0.99 per discard at
#: 12, -2.12 for a uniform pick, over 1,616 discards).
BETA = 12.0
#: Log-probability that an opponent lets a 碰 go by: greedy declines 14-15% of the 碰 it is
#: offered (``research/discard_model.py``: 130 of 894 offers in 150 hands of its self-play).
_PENG_PASS = math.log(0.14)
#: Log-likelihood of a discard the sampled hand could not have made (a face then held three
#: times, a 砍, or banned; RULES §4.4, §5.2).
_IMPOSSIBLE = -30.0


@dataclass(frozen=True, slots=True)
class Outflow:
    """Cards that left one seat's concealed hand at one event: a discard of ``discard``, or the
    hand cards ``taken`` into its meld number ``meld`` (empty for a face-down 偎: the sampled
    face twice), which bans ``claimed`` from its discards (RULES §5.2)."""

    discard: int | None
    taken: tuple[int, ...] = ()
    meld: int = -1
    claimed: int | None = None


def outflow(view: BotView) -> list[list[Outflow]]:
    """Per seat, in order, every card that left its concealed hand (a discard, the two hand cards
    of a 碰/吃/偎), read from the seat's event history: a sampled hand of now can be walked back to
    the hand each earlier discard was chosen from (hands only shrink, RULES §3.1.1)."""
    out: list[list[Outflow]] = [[] for _ in range(NUM_SEATS)]
    melds = [0] * NUM_SEATS
    for ev in view.history:
        s = ev.seat
        if isinstance(ev, Discard):
            out[s].append(Outflow(ev.card))
        elif isinstance(ev, Wei):
            card = ev.card
            out[s].append(Outflow(None, () if card is None else (card, card), melds[s]))
            melds[s] += 1
        elif isinstance(ev, Peng):
            face = ev.card
            out[s].append(Outflow(None, (face, face), melds[s], face))
            melds[s] += 1
        elif isinstance(ev, Chi):
            face = ev.card
            rest = [f for f in ev.faces if f != face]
            out[s].append(Outflow(None, tuple(rest), melds[s], face))
            melds[s] += 1
    return out


#: The last knowledge :func:`outflow_of` read, with its outflow (a chain asks at every step).
_LAST: list[tuple[Knowledge, list[list[Outflow]]]] = []


def outflow_of(k: Knowledge) -> list[list[Outflow]]:
    """:func:`outflow` of ``k``'s view, read once per ``Knowledge``."""
    if not (_LAST and _LAST[0][0] is k):
        _LAST[:] = [(k, outflow(k.view))]
    return _LAST[0][1]


def seat_loglik(
    k: Knowledge,
    s: int,
    hand: list[int],
    wei_faces: dict[tuple[int, int], int],
    beta: float = BETA,
) -> float:
    """Log-likelihood of seat ``s``'s play so far, given its sampled concealed hand of now.

    - Discards: the hand is walked back through :func:`outflow` (hands only shrink,
      RULES §3.1.1) to the hand each discard was chosen from, and the discard is scored by the
      rollout policy's valuation as a softmax over that hand's legal discards (RULES §5.2).
    - 碰 let go: a 碰 window on a face the hand holds twice went by (:data:`_PENG_PASS`).
    - 胡 let go: a drawn card that would have made the hand win went by since the hand last
      changed; the bots take every 胡, so such a hand is all but ruled out (RULES §4.7).
    """
    min_xi = k.view.rules.min_xi
    total = 0.0
    # A 碰 window on a face it holds twice went by (hands only shrink: it held two then).
    for face in k.peng_seen[s]:
        if hand[face] >= 2:
            total += _PENG_PASS
    # A drawn card it could have won on went by since its hand last changed (RULES §4.7).
    if k.passed[s] and not k.dead[s]:
        waits = _waits(tuple(hand))
        if waits and any(face in waits for face, _ in k.passed[s]):
            melds = [
                Meld(slot.kind, slot.faces if slot.faces is not None else (wei_faces[(s, i)],) * 3)
                for i, slot in enumerate(k.melds[s])
            ]
            rules = k.view.rules
            for face, drawer in k.passed[s]:
                source: Source = "self" if drawer == s else "other"
                if face in waits and (
                    win_check(melds, hand, face, source, False, rules, False) is not None
                ):
                    total += _IMPOSSIBLE
    gone = outflow_of(k)[s]
    if not gone:
        return total
    h = list(hand)
    xis = [
        triple_xi(slot.kind, slot.faces[0] if slot.faces is not None else wei_faces[(s, i)])
        for i, slot in enumerate(k.melds[s])
    ]
    n = len(xis)
    mxi = sum(xis)
    banned = set(k.no_discard[s])
    for out in reversed(gone):
        if out.discard is None:
            taken = out.taken or (wei_faces[(s, out.meld)],) * 2
            for f in taken:
                h[f] += 1
            n -= 1
            mxi -= xis[out.meld]
            if out.claimed is not None:
                banned.discard(out.claimed)
            continue
        f = out.discard
        h[f] += 1
        faces = discardable(h, banned)
        if f not in faces:
            total += _IMPOSSIBLE
            continue
        if len(faces) < 2:
            continue
        total += _discard_logp(h, faces, f, n, mxi, min_xi, beta)
    return total


@functools.lru_cache(maxsize=1 << 16)
def _waits(hand: tuple[int, ...]) -> frozenset[int]:
    """The faces one more card of which makes ``hand`` groups + 麻雀 (RULES §6.1)."""
    return frozenset(completions(hand))


@functools.lru_cache(maxsize=1 << 18)
def _drops(half: tuple[int, ...]) -> tuple[tuple[float, float], ...]:
    """``half_value`` of ``half`` with one card of each of its faces removed (a face it does not
    hold gets the unchanged half's value; it is never asked for)."""
    out = []
    for i in range(10):
        if half[i]:
            h = list(half)
            h[i] -= 1
            out.append(half_value(tuple(h)))
        else:
            out.append(half_value(half))
    return tuple(out)


def _discard_logp(
    h: list[int], faces: list[int], f: int, n: int, mxi: float, min_xi: int, beta: float
) -> float:
    """Log-probability that a seat holding ``h`` discards ``f`` among ``faces`` (the softmax of
    the rollout policy's values of what each discard leaves, :func:`discard_values`)."""
    small_t = tuple(h[:10])
    big_t = tuple(h[10:])
    small = half_value(small_t)
    big = half_value(big_t)
    drop_small = _drops(small_t)
    drop_big = _drops(big_t)
    values = []
    chosen = 0.0
    for g in faces:
        a, b = (drop_small[g], big) if g < 10 else (small, drop_big[g - 10])
        v = position_value(a, b, n, mxi, min_xi)
        values.append(v)
        if g == f:
            chosen = v
    top = max(values)
    z = sum(math.exp(beta * (v - top)) for v in values)
    return beta * (chosen - top) - math.log(z)
