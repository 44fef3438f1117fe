"""Deals nobody can rig, and anyone can check (docs/fairness.md).

Before a hand the server publishes a **commitment**: the SHA-256 of a fresh random secret and
the hand's seed. The deal follows from the seed alone (RULES §2.2 [D]). When the hand is over
the server reveals the secret and the seed; the record then holds both, with the deal itself.
:func:`verify_document` checks a record the way ``wmq verify`` does: each commitment, each deal
recomputed from its seed, every action legal when it was taken, the result, and for a match the
dealer rotation and the ledger.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import Any, Final

from weimaque.cards import faces_str
from weimaque.errors import WeimaqueError
from weimaque.game.actions import Action
from weimaque.game.record import hand_record, start_from_record
from weimaque.game.state import GameState
from weimaque.match import Match
from weimaque.rules.registry import rules_with

SCHEME: Final = "sha256-v1"
_PREFIX: Final = "weimaque-deal-v1"


def new_secret() -> str:
    """A fresh 256-bit secret from the OS CSPRNG, as 64 hex digits."""
    return secrets.token_hex(32)


def new_seed() -> int:
    """A fresh match seed from the OS CSPRNG (63 bits, so SQLite stores it)."""
    return secrets.randbits(63)


def commitment(secret: str, seed: int) -> str:
    """The published commitment to a hand: ``sha256("weimaque-deal-v1:<secret>:<seed>")``."""
    return hashlib.sha256(f"{_PREFIX}:{secret}:{seed}".encode()).hexdigest()


def deal_json(state: GameState) -> dict[str, Any]:
    """A hand's deal as dealt: the three hands and the stock in draw order (RULES §2.2)."""
    return {
        "hands": [faces_str(h) for h in state.initial_hands],
        "stock": faces_str(state.stock),
    }


def reveal(secret: str, seed: int) -> dict[str, Any]:
    """The ``fairness`` block of a finished hand's record."""
    return {
        "scheme": SCHEME,
        "commitment": commitment(secret, seed),
        "secret": secret,
        "seed": seed,
        # The seed as text too: JavaScript numbers lose digits past 2^53.
        "seed_text": str(seed),
    }


class VerifyError(WeimaqueError):
    """The first thing in a record that does not hold."""


@dataclass(frozen=True, slots=True)
class Verified:
    """What a successful check covered."""

    hands: int
    actions: int
    commitments: int


def _hands_of(doc: Any) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The hand records of a document, and the match record around them (if any)."""
    if not isinstance(doc, dict):
        raise VerifyError("not a record: expected a JSON object")
    if isinstance(doc.get("record"), dict):  # GET /api/rooms/{id}/hands/{n}
        return [doc["record"]], None
    if isinstance(doc.get("hands"), list):  # a match record (wmq play --save, the server)
        hands = doc["hands"]
        if not all(isinstance(h, dict) for h in hands):
            raise VerifyError("not a match record: every hand must be an object")
        return hands, doc
    if "actions" in doc:
        return [doc], None
    raise VerifyError("not a record: no hand, hands or actions")


def _check_commitment(where: str, hand: dict[str, Any], seed: Any) -> bool:
    """Check the hand's revealed secret against its commitment; whether it had one."""
    block = hand.get("fairness")
    if block is None:
        return False
    if not isinstance(block, dict) or block.get("scheme") != SCHEME:
        raise VerifyError(f"{where}: unknown fairness block {str(block)[:80]!r}")
    secret, committed, revealed = block.get("secret"), block.get("commitment"), block.get("seed")
    if not isinstance(committed, str):
        raise VerifyError(f"{where}: no commitment")
    if not isinstance(secret, str) or not isinstance(revealed, int):
        raise VerifyError(f"{where}: commitment {committed[:16]}… was never revealed")
    if revealed != seed or block.get("seed_text", str(seed)) != str(seed):
        raise VerifyError(f"{where}: revealed seed {revealed} is not the hand's seed {seed}")
    if not hmac.compare_digest(commitment(secret, revealed), committed):
        raise VerifyError(
            f"{where}: commitment {committed[:16]}… does not match the revealed secret and seed"
        )
    return True


def verify_hand(where: str, hand: dict[str, Any]) -> tuple[GameState, int, bool]:
    """Check one hand record; the replayed hand, its action count, whether it had a commitment."""
    seed = hand.get("seed")
    committed = _check_commitment(where, hand, seed)
    if hand.get("fairness") is None and hand.get("commitment") is not None:
        raise VerifyError(f"{where}: commitment {str(hand['commitment'])[:16]}… never revealed")
    try:
        state = start_from_record(hand)
    except WeimaqueError as exc:
        raise VerifyError(f"{where}: {exc}") from exc
    deal = hand.get("deal")
    if seed is not None and deal is not None and deal != deal_json(state):
        raise VerifyError(
            f"{where}: the deal in the record is not the deal of seed {seed} (RULES §2.2)"
        )
    actions = hand.get("actions")
    if not isinstance(actions, list):
        raise VerifyError(f"{where}: no action list")
    for step, item in enumerate(actions, 1):
        try:
            seat, text = item
            state.apply(int(seat), Action.parse(str(text)))
        except (WeimaqueError, TypeError, ValueError) as exc:
            raise VerifyError(f"{where}, action {step} {str(item)[:40]}: {exc}") from exc
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
    return f"seat {result.get('winner')} 胡 for {result.get('total')} on {result.get('card')}"


def verify_document(doc: Any) -> Verified:
    """Check a hand or match record; raise ``VerifyError`` with the first failure."""
    hands, match_doc = _hands_of(doc)
    if not hands:
        raise VerifyError("the record holds no hand")
    match: Match | None = None
    if match_doc is not None:
        try:
            rules = rules_with(match_doc["rules"], match_doc.get("overrides") or {})
            seed = match_doc.get("seed")
            if seed is not None:
                match = Match.new(rules, int(seed))
            else:
                match = Match(rules, 0, int(hands[0]["dealer"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise VerifyError(f"not a match record: missing or bad {exc}") from exc
    total = committed = 0
    for number, hand in enumerate(hands, 1):
        where = f"hand {number}"
        state, count, had = verify_hand(where, hand)
        total += count
        committed += had
        if match is None:
            continue
        if state.dealer != match.dealer:
            raise VerifyError(f"{where}: dealer {state.dealer}, the rotation says {match.dealer}")
        if match_doc is not None and match_doc.get("seed") is not None:
            expected = match.hand_seed(number - 1)
            if hand.get("seed") != expected:
                raise VerifyError(f"{where}: seed {hand.get('seed')} is not the match's {expected}")
        if not state.is_terminal():
            raise VerifyError(f"{where}: the hand is not finished")
        match.current = state
        try:
            settlement = match.finish_hand()
        except WeimaqueError as exc:
            raise VerifyError(f"{where}: {exc}") from exc
        if "settlement" in hand and hand["settlement"] != settlement.to_dict():
            raise VerifyError(f"{where}: the settlement does not follow from the result")
    if match is not None and match_doc is not None and match_doc.get("ended_early"):
        match.end_early()  # 解散: the pool left is shared as at a normal end (RULES §8.5)
    ledger = None if match_doc is None else match_doc.get("ledger")
    if match is not None and ledger is not None and match.ledger() != ledger:
        raise VerifyError(f"match: the ledger {ledger} is not the replayed {match.ledger()}")
    return Verified(len(hands), total, committed)
