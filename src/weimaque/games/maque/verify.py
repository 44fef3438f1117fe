"""偎麻雀's records checked whole (``wmq verify``, docs/fairness.md): each hand's commitment, its
deal recomputed from its seed (RULES §2.2), every action legal when it was taken, the result,
and for a match the dealer rotation, the settlements and the ledger. A match record holding its
match seed is checked from it: every hand's seed must be the one the match seed gives
(``Match.hand_seed``). The seam offers it as the ``"verify"`` capability.
"""

from __future__ import annotations

from typing import Any

from weimaque.errors import RecordError, WeimaqueError, quoted
from weimaque.games.fairness import Verified, VerifyError, check_commitment
from weimaque.games.maque.cards import faces_str
from weimaque.games.maque.game.actions import Action
from weimaque.games.maque.game.record import check_hand_record, hand_record, start_from_record
from weimaque.games.maque.game.state import GameState
from weimaque.games.maque.match import Match, check_match_record
from weimaque.games.maque.rules.registry import rules_with


def deal_json(state: GameState) -> dict[str, Any]:
    """A hand's deal as dealt: the three hands and the stock in draw order (RULES §2.2)."""
    return {
        "hands": [faces_str(h) for h in state.initial_hands],
        "stock": faces_str(state.stock),
    }


def _hands_of(doc: Any) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The hand records of a document, and the match record around them (if any), checked."""
    if not isinstance(doc, dict):
        raise RecordError(f"not a record: expected a JSON object, not {quoted(doc)}")
    if isinstance(doc.get("record"), dict):  # GET /api/rooms/{id}/hands/{n}
        return [check_hand_record(doc["record"], "hand 1")], None
    if isinstance(doc.get("hands"), list):  # a match record (wmq play --save, the server)
        return check_match_record(doc)["hands"], doc
    if "actions" in doc:
        return [check_hand_record(doc, "hand 1")], None
    raise RecordError(f"not a record: no hand, hands or actions (keys: {quoted(sorted(doc))})")


def verify_hand(
    where: str, hand: dict[str, Any], require_commitment: bool = True
) -> tuple[GameState, int, bool]:
    """Check one hand record; the replayed hand, its action count, whether it had a commitment.

    A hand without a commitment fails unless ``require_commitment`` is off: its deal was never
    locked before play, so nothing shows that it was not chosen.
    """
    check_hand_record(hand, where)
    seed = hand.get("seed")
    committed = check_commitment(where, hand, seed)
    if hand.get("fairness") is None and hand.get("commitment") is not None:
        raise VerifyError(f"{where}: commitment {quoted(hand['commitment'])} never revealed")
    if not committed and require_commitment:
        raise VerifyError(
            f"{where}: no deal commitment, so nothing shows its deal was fixed before play "
            "(a record of `wmq play` has none: --without-commitments checks the rest)"
        )
    try:
        state = start_from_record(hand)
    except RecordError:
        raise
    except WeimaqueError as exc:
        raise VerifyError(f"{where}: {exc}") from exc
    deal = hand.get("deal")
    if seed is not None and deal is not None and deal != deal_json(state):
        raise VerifyError(
            f"{where}: the deal in the record is not the deal of seed {seed} (RULES §2.2)"
        )
    actions = hand["actions"]
    for step, (seat, text) in enumerate(actions, 1):
        try:
            state.apply(seat, Action.parse(text))
        except WeimaqueError as exc:
            raise VerifyError(f"{where}, action {step} {quoted([seat, text], 40)}: {exc}") from exc
    recorded = hand.get("result")
    if recorded is not None or state.is_terminal():
        replayed = hand_record(state)["result"]
        if replayed != recorded:
            raise VerifyError(
                f"{where}: the actions give {_result_text(replayed)}, "
                f"the record says {_result_text(recorded)}"
            )
    return state, len(actions), committed


def _result_text(result: Any) -> str:
    if not isinstance(result, dict):
        return "no result"
    if result.get("winner") is None:
        return "臭 (no winner)"
    return (
        f"seat {quoted(result.get('winner'))} 胡 for {quoted(result.get('total'))} "
        f"on {quoted(result.get('card'))}"
    )


def verify_document(doc: Any, require_commitments: bool = True) -> Verified:
    """Check a hand or match record; raise ``VerifyError`` with the first failure.

    A document that is no record at all raises ``RecordError``. A match record holding its
    match seed (a finished match; ``wmq play --save``) is checked from it: the first dealer and
    every hand's seed, hence every deal, follow from it as the server derives them
    (``Match.hand_seed``).
    """
    hands, match_doc = _hands_of(doc)
    if not hands:
        raise VerifyError("the record holds no hand")
    match: Match | None = None
    seeded = match_doc is not None and match_doc.get("seed") is not None
    if match_doc is not None:
        try:
            rules = rules_with(match_doc["rules"], match_doc.get("overrides") or {})
        except WeimaqueError as exc:
            raise RecordError(f"match: {exc}") from exc
        if seeded:
            match = Match.new(rules, match_doc["seed"])
        else:
            match = Match(rules, 0, hands[0]["dealer"])
    total = committed = 0
    for number, hand in enumerate(hands, 1):
        where = f"hand {number}"
        if match is not None and seeded:
            expected = match.hand_seed(number - 1)
            if hand.get("seed") != expected:
                raise VerifyError(
                    f"{where}: seed {quoted(hand.get('seed'))} is not the match seed's "
                    f"hand {number}, {expected}"
                )
        state, count, had = verify_hand(where, hand, require_commitments)
        total += count
        committed += had
        if match is None:
            continue
        if state.dealer != match.dealer:
            raise VerifyError(f"{where}: dealer {state.dealer}, the rotation says {match.dealer}")
        if not state.is_terminal():
            raise VerifyError(f"{where}: the hand is not finished")
        if match.is_over():
            raise VerifyError(f"{where}: the match was over before this hand")
        match.current = state
        try:
            settlement = match.finish_hand()
        except WeimaqueError as exc:
            raise VerifyError(f"{where}: {exc}") from exc
        if "settlement" in hand and hand["settlement"] != settlement.to_dict():
            raise VerifyError(f"{where}: the settlement does not follow from the result")
    if match is not None and match_doc is not None and match_doc.get("ended_early"):
        if match.is_over():
            raise VerifyError("match: ended early, yet its last hand had ended it")
        match.end_early()  # 解散: the pool left is shared as at a normal end (RULES §8.5)
    ledger = None if match_doc is None else match_doc.get("ledger")
    if match is not None and ledger is not None and match.ledger() != ledger:
        raise VerifyError(
            f"match: the ledger {quoted(ledger, 120)} is not the replayed {match.ledger()}"
        )
    return Verified(len(hands), total, committed, seeded)


__all__ = ["deal_json", "verify_document", "verify_hand"]
