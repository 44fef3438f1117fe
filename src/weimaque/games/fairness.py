"""Deals nobody can rig, and anyone can check (docs/fairness.md): the commit–reveal scheme every
game's hands are dealt under, and the check of one hand record of any game.

Before a hand the server publishes a **commitment**: the SHA-256 of a fresh random secret and
the hand's seed. The deal follows from the seed alone (RULES §2.2 [D], SDG §2.2). When the hand
is over the server reveals the secret and the seed; the record then holds both, with the deal
itself. :func:`verify_hand_record` checks one hand of any game through the seam; a game with the
``"verify"`` capability (:class:`~weimaque.games.protocol.RecordChecker`) checks its whole
match records itself (偎麻雀: :mod:`weimaque.games.maque.verify`).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from weimaque.errors import RecordError, WeimaqueError, quoted

if TYPE_CHECKING:
    from weimaque.games.protocol import Game

SCHEME: Final = "sha256-v1"
_PREFIX: Final = "weimaque-deal-v1"


def new_secret() -> str:
    """A fresh 256-bit secret from the OS CSPRNG, as 64 hex digits."""
    return secrets.token_hex(32)


def commitment(secret: str, seed: int) -> str:
    """The published commitment to a hand: ``sha256("weimaque-deal-v1:<secret>:<seed>")``."""
    return hashlib.sha256(f"{_PREFIX}:{secret}:{seed}".encode()).hexdigest()


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
    #: Whether the record held its match seed, and every hand's seed followed from it.
    match_seed: bool = False


def check_commitment(where: str, hand: dict[str, Any], seed: Any) -> bool:
    """Check the hand's revealed secret against its commitment; whether it had one."""
    block = hand.get("fairness")
    if block is None:
        return False
    if not isinstance(block, dict) or block.get("scheme") != SCHEME:
        raise VerifyError(f"{where}: unknown fairness block {quoted(block)}")
    secret, committed, revealed = block.get("secret"), block.get("commitment"), block.get("seed")
    if not isinstance(committed, str):
        raise VerifyError(f"{where}: no commitment")
    if not isinstance(secret, str) or type(revealed) is not int:
        raise VerifyError(f"{where}: commitment {quoted(committed[:16])}… was never revealed")
    if revealed != seed or block.get("seed_text", str(seed)) != str(seed):
        raise VerifyError(
            f"{where}: revealed seed {quoted(revealed)} is not the hand's seed {quoted(seed)}"
        )
    if not hmac.compare_digest(commitment(secret, revealed).encode(), committed.encode()):
        raise VerifyError(
            f"{where}: commitment {quoted(committed[:16])}… does not match the revealed secret "
            "and seed"
        )
    return True


def verify_hand_record(
    game: Game, hand: dict[str, Any], require_commitment: bool = True
) -> Verified:
    """Check a hand record of ``game`` as docs/fairness.md says: its commitment (a hand without
    one fails unless ``require_commitment`` is off), the deal it shows is the deal of its seed,
    and the game's replay (``Game.replay``: every action legal, the result as recorded).
    ``VerifyError`` with the first thing that does not hold."""
    where = "hand 1"
    seed = hand.get("seed")
    if hand.get("fairness") is None and hand.get("commitment") is not None:
        raise VerifyError(f"{where}: commitment never revealed")
    committed = check_commitment(where, hand, seed)
    if not committed and require_commitment:
        raise VerifyError(
            f"{where}: no deal commitment, so nothing shows its deal was fixed before play "
            "(--without-commitments checks the rest)"
        )
    try:
        replayed = game.replay(hand)
    except RecordError as exc:
        raise VerifyError(f"{where}: {exc}") from exc
    deal = hand.get("deal")
    if deal is not None and deal != replayed.deal():
        raise VerifyError(f"{where}: the deal in the record is not the deal of seed {seed}")
    actions = hand.get("actions")
    return Verified(1, len(actions) if isinstance(actions, list) else 0, int(committed))


__all__ = [
    "SCHEME",
    "Verified",
    "VerifyError",
    "check_commitment",
    "commitment",
    "new_secret",
    "reveal",
    "verify_hand_record",
]
