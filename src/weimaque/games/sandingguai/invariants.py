"""The invariants of a 三丁拐 hand in progress (SDG §12, "invariants"), in words: what ``wmq
simulate --game sandingguai --check`` asks after every action (the seam's ``"invariants"``
capability) and the tests hold over random play.

They read the engine's state directly, the kept fast paths included: the 108 tiles conserved
(SDG §2.1), each seat's tile count (13, or 14 on its own turn, SDG §3), the per-seat keys, odd
and four bits and held kinds in step with its tiles, the kept 叫 equal to a full remake
(SDG §6.1), a legal action for every seat that must act; at the end a result whose net sums to
zero and whose transfers are positive amounts between two seats (SDG §9, §12).
"""

from __future__ import annotations

from weimaque.games.sandingguai.hands import four_bits, odd_bits, suit_keys
from weimaque.games.sandingguai.state import DINGQUE, SELF, State
from weimaque.games.sandingguai.tiles import NUM_KINDS

#: The seats of a 三丁拐 table (SDG §2.1).
SEATS = range(3)


def problems(state: State) -> list[str]:
    """What does not hold of ``state`` now (empty: all holds)."""
    out: list[str] = []
    tiles = state.rules.tiles
    if state.tile_count() != tiles:
        out.append(f"{state.tile_count()} tiles on the table, not {tiles} (SDG §2.1)")
    for seat in SEATS:
        hand = state.hands[seat]
        if any(n < 0 or n > 4 for n in hand):
            out.append(f"seat {seat} holds an impossible count: {hand}")
        n = sum(hand) + 3 * len(state.melds[seat])
        own = state.phase in (SELF, DINGQUE) and seat == state.turn and not state.is_terminal()
        want = 14 if own else 13
        if not state.is_terminal() and n != want:
            out.append(f"seat {seat} holds {n} tiles (melds as 3), not {want} (SDG §3)")
        if state.keys[seat] != list(suit_keys(hand)):
            out.append(f"seat {seat}'s suit keys are not those of its tiles")
        if state.odd[seat] != odd_bits(hand) or state.fours[seat] != four_bits(hand):
            out.append(f"seat {seat}'s odd or four bits are not those of its tiles")
        if state.held[seat] != [t for t in range(NUM_KINDS) if hand[t]]:
            out.append(f"seat {seat}'s held kinds are not those of its tiles")
        after_peng = own and state.drawn is None  # no 叫 until the discard after a 碰
        if (
            not state.is_terminal()
            and not after_peng
            and state.jiao[seat] != state._wait_bits(seat)
        ):
            out.append(f"seat {seat}'s kept 叫 is not a full remake (SDG §6.1)")
    if state.is_terminal():
        result = state.result
        if result is None:
            out.append("the hand is over without a result")
        else:
            if sum(result.net) != 0:
                out.append(f"the hand's net {result.net} does not sum to zero (SDG §12)")
            for t in result.settlement.transfers:
                if t.amount <= 0 or t.payer == t.payee or not {t.payer, t.payee} <= set(SEATS):
                    out.append(f"a transfer that is not a payment: {t}")
    else:
        acting = state.players_to_act()
        if not acting:
            out.append("nobody must act in a hand that is not over")
        for seat in acting:
            if not state.legal_actions(seat):
                out.append(f"seat {seat} must act and has no legal action")
    return out


__all__ = ["problems"]
