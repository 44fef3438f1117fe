"""Invariants of a hand, checked after every step by tests and ``wmq simulate --check``."""

from __future__ import annotations

from weimaque.games.maque.cards import COPIES, FACE_CHARS, NUM_FACES
from weimaque.games.maque.game.record import hand_record, replay
from weimaque.games.maque.game.state import GameState
from weimaque.games.maque.notation import HandDescription, Meld
from weimaque.games.maque.scoring.scorer import score_description

HAND_SIZE = 19


def check_step(state: GameState) -> list[str]:
    """Problems with the state as it stands; an empty list when all is well."""
    problems: list[str] = []
    total = [0] * NUM_FACES
    for f in state.buried:  # RULES §2.5.9: the buried cards count among the 80
        total[f] += 1
    for seat in range(state.n):
        for f in range(NUM_FACES):
            total[f] += state.hands[seat][f]
        for m in state.melds[seat]:
            for f in m.faces:
                total[f] += 1
        for f in state.rows[seat]:
            total[f] += 1
    for f in state.stock[state.pos :]:
        total[f] += 1
    w = state.window
    if w is not None and w.origin in ("discard", "draw", "release"):
        total[w.card] += 1
    r = state.result
    if r is not None and r.card is not None and r.origin != "wei":
        total[r.card] += 1
    for f in range(NUM_FACES):
        if total[f] != COPIES:
            problems.append(f"{FACE_CHARS[f]} accounted {total[f]} times, not {COPIES}")
    for seat in range(state.n):
        held = sum(state.hands[seat]) + 3 * len(state.melds[seat])
        extra = (state.phase == "discard" and state.turn == seat) or (
            w is not None and w.origin in ("wei", "deal") and w.from_seat == seat
        )
        extra = extra or (r is not None and r.origin in ("wei", "deal") and r.winner == seat)
        expected = (HAND_SIZE + 1 if extra else HAND_SIZE) + state.skipped[seat]
        if held != expected:
            problems.append(f"seat {seat} holds {held} cards (hand + melds), not {expected}")
    if not state.is_terminal():
        seats = state.to_act()
        if not seats:
            problems.append("nobody is to act, but the hand is not over")
        for seat in seats:
            if not state.legal_actions(seat):
                problems.append(f"seat {seat} must act but has no legal action")
    if w is not None:
        asked = [s for s in state.ask[w.from_seat] if s in w.options]
        if list(w.options) != asked:
            problems.append(f"options keyed {list(w.options)}, not in asking order {asked}")
    return problems


def check_end(state: GameState) -> list[str]:
    """Problems with a finished hand: re-scoring the win, and replaying its record."""
    problems: list[str] = []
    r = state.result
    if r is None:
        return ["the hand has no result"]
    if r.winner is not None and r.card is not None and r.breakdown is not None:
        seat = r.winner
        melds = [m.meld() for m in state.melds[seat]]
        hand = state.hand_faces(seat)
        if r.origin == "wei":
            melds.pop()  # the forced 偎 is derived by the calculator (RULES §1.4)
            hand += [r.card, r.card]
        desc = HandDescription(tuple(Meld(m.kind, m.faces) for m in melds), tuple(hand), r.card)
        again = score_description(
            desc, source=r.source or "self", last=state.stock_left == 0, rules=state.rules
        )
        zhe = sum(p.points for p in r.breakdown.patterns if p.key == "zhe")
        if again.total + zhe != r.breakdown.total:
            problems.append(
                f"re-scoring {desc} gives {again.total}, the hand recorded {r.breakdown.total}"
            )
    record = hand_record(state)
    try:
        again_state = replay(record)
    except Exception as exc:  # a replay failure is itself the finding
        return [*problems, f"replay failed: {exc}"]
    if again_state.events != state.events:
        problems.append("replay produced different events")
    return problems
