"""The engine's fast step for rollouts: a hand played on to its end by a chooser, without events,
windows or views.

:func:`playout` takes a position at a seat's discard and plays the turn flow of RULES §3 on the
position's own lists with the engine's own rule predicates and a claim's effect on a hand
(:mod:`weimaque.games.maque.game.state`: ``discardable``, ``may_peng``, ``chi_runs``,
``claim_into``, ``GameState.win_on``): 偎 > 胡 > 碰 > 吃 (§5.1), 碰-过张 and 吃
bans (§5.3), 死手 (§4.1), a drawn card nobody takes released to the 下家's 吃 (§3.1.3). It asks the
chooser only for the decisions that are not forced, in the order the engine's windows resolve
them, and every seat takes every 胡 it is offered. Search calls it where ``GameState.apply``
would build a window, its options and events for every card: several times faster, the same
hand (tests/test_playout.py plays both from the same positions on every preset and turn-flow
option, and compares the returns and every hand, meld and set at the end).
"""

from __future__ import annotations

from typing import Protocol

from weimaque.games.maque.analysis.arrange import melds_xi, triple_xi
from weimaque.games.maque.game.state import (
    CHI_MELDS,
    PENG_MELDS,
    WEI_MELDS,
    GameState,
    chi_runs,
    claim_into,
    discardable,
    may_peng,
)
from weimaque.games.maque.notation import Source

#: Steps a playout may take before it is scored as it stands (a safety net; hands are shorter).
MAX_STEPS = 400


class Chooser(Protocol):
    """The decisions of a playout, each seat's: ``mxi`` is the 明息 of its melds (RULES §6.4)."""

    def discard(self, state: GameState, seat: int, faces: list[int], mxi: int) -> int:
        """The face ``seat`` discards among ``faces`` (never empty)."""
        ...

    def claim(
        self, state: GameState, seat: int, card: int, peng: bool, runs: list[int], mxi: int
    ) -> int | None:
        """``seat``'s claim on ``card``: -1 for 碰 (offered when ``peng``), a run start among
        ``runs`` for 吃, None for 过."""
        ...


def playout(state: GameState, seat: int, chooser: Chooser) -> list[int]:
    """Play from ``seat``'s discard to the end of the hand; the returns (RULES §8.3).

    ``state`` must be at ``seat``'s discard with no window open; its hands, melds and sets are
    played on in place (a copy the caller may spend), and no events or actions are recorded.
    """
    hands, melds = state.hands, state.melds
    thrown, peng_guo, no_discard, dead = state.thrown, state.peng_guo, state.no_discard, state.dead
    stock = state.stock
    holder_rule = state.rules.holder_may_not_chi
    mxi = [melds_xi(ms) for ms in melds]
    n = state.n
    released = state.released
    # RULES §2.5.4: with two seats and no 吃 of the opponent's discard, only his releases
    # make a face 吃-过张
    guo = state.table.guo_sets(thrown, released)
    chi_discard = not state.release_only

    def win(q: int, card: int, source: Source, last: bool) -> list[int] | None:
        b = state.win_on(q, card, source, last)
        if b is None:
            return None
        total = b.total
        return [(n - 1) * total if s == q else -total for s in range(n)]

    def runs_of(q: int, card: int) -> list[int]:
        return chi_runs(hands[q], card, thrown[q], guo[(q - 1) % n], holder_rule)

    def penger(card: int, seats: tuple[int, ...]) -> int | None:
        """The seat among ``seats`` that may 碰 ``card`` (at most one holds two)."""
        for q in seats:
            if may_peng(hands[q], card, peng_guo[q]):
                return q
        return None

    def meld(q: int, card: int, run: int | None, source: int) -> None:
        claim_into(hands[q], card, run)
        if run is None:
            melds[q].append(PENG_MELDS[card][source])
            mxi[q] += triple_xi("peng", card)
        else:
            melds[q].append(CHI_MELDS[run][card - run][source])
        no_discard[q].add(card)

    def discard(q: int) -> int | None:
        """``q`` discards; the seat that must discard next, or None: the 下家 draws."""
        hand = hands[q]
        faces = discardable(hand, no_discard[q])
        if not faces:  # 死手: the discard is skipped (RULES §4.1)
            dead[q] = True
            state.skipped[q] += 1
            return None
        card = chooser.discard(state, q, faces, mxi[q])
        hand[card] -= 1
        x = (q + 1) % n
        p = penger(card, (x, (q - 1) % n) if n == 3 else (x,))
        runs = runs_of(x, card) if chi_discard else []
        choice = None
        if p is not None:
            choice = chooser.claim(state, p, card, True, runs if p == x else [], mxi[p])
            if choice != -1:
                peng_guo[p].add(card)  # 碰-过张 (RULES §5.3)
        if p != x and runs:
            run = chooser.claim(state, x, card, False, runs, mxi[x])
        else:
            run = choice if p == x and choice is not None and choice >= 0 else None
        thrown[q].add(card)
        if choice == -1:
            assert p is not None
            meld(p, card, None, q)
            return p
        if run is not None:
            meld(x, card, run, q)
            return x
        return None

    discarding: int | None = seat
    drawer = seat
    for _ in range(MAX_STEPS):
        if discarding is not None:
            drawer = (discarding + 1) % n
            discarding = discard(discarding)
            continue
        # a draw (RULES §3 DRAW)
        d = drawer
        if state.pos >= len(stock):
            return [0] * n  # 臭 (RULES §8.1)
        card = stock[state.pos]
        state.pos += 1
        last = state.pos == len(stock)
        hand = hands[d]
        if hand[card] >= 2:  # the mandatory 偎, then the drawer may 胡 (RULES §4.3)
            returns = win(d, card, "self", last)
            if returns is not None:
                return returns
            hand[card] -= 2
            face_down = not state.rules.wei_face_up
            melds[d].append(WEI_MELDS[d][card][face_down])
            mxi[d] += triple_xi("wei", card)
            discarding = d
            continue
        x = (d + 1) % n
        y = (d - 1) % n  # with two seats the opponent again: asked once (RULES §2.5.3)
        won = win(d, card, "self", last) or win(x, card, "other", last)
        if won or (n == 3 and (won := win(y, card, "other", last))):
            return won
        p = penger(card, (x, y) if n == 3 else (x,))
        if p is not None:
            if chooser.claim(state, p, card, True, [], mxi[p]) == -1:
                meld(p, card, None, d)
                discarding = p
                continue
            peng_guo[p].add(card)
        runs = runs_of(d, card)
        run = chooser.claim(state, d, card, False, runs, mxi[d]) if runs else None
        if run is not None:
            meld(d, card, run, d)
            discarding = d
            continue
        # released: only the 下家 may 吃 it (RULES §3.1.3)
        runs = runs_of(x, card)
        run = chooser.claim(state, x, card, False, runs, mxi[x]) if runs else None
        thrown[d].add(card)
        released[d].add(card)
        if run is not None:
            meld(x, card, run, d)
            discarding = x
        else:
            drawer = x
    return [0] * n
