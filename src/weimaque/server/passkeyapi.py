"""Passkeys (WebAuthn, with the ``webauthn`` library): a signed-in player adds one, and a device
signs in with it instead of a transfer code (docs/protocol.md §7.1). The library (and the
cryptography under it) is loaded at the first ceremony, not with the server.

Each ceremony is two requests: the options (with a challenge the server keeps for a minute,
under a ticket) and the browser's answer to them. The relying party is the host the page was
served from; a passkey needs a domain name (``localhost`` included), never an IP address.
"""

from __future__ import annotations

import ipaddress
import json
import secrets
import time
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from weimaque.server import accounts
from weimaque.server.accounts import Player
from weimaque.server.context import Server, server_of
from weimaque.server.context import error_response as _error
from weimaque.server.playerapi import body, new_device, signed_in_response, with_player, write
from weimaque.server.protocol import PROTOCOL_VERSION

#: How long a ceremony's challenge is good.
CHALLENGE_SECONDS: Final = 60.0
#: Challenges kept at once (the oldest go first past this).
MAX_CHALLENGES: Final = 10_000
RP_NAME: Final = "安乡偎麻雀"
#: The fields of a ceremony's answer.
ANSWER: Final = frozenset({"ticket", "credential"})


def _party(request: Request) -> tuple[str, str] | JSONResponse:
    """(relying party id, origin) of the page's host, or the 400 for an IP address."""
    host = request.url.hostname or ""
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return host, f"{request.url.scheme}://{request.url.netloc}"
    return _error(400, "no_passkeys", f"passkeys need a domain name, not the address {host!r}")


def _keep(s: Server, challenge: bytes, player: str | None) -> str:
    """Keep a ceremony's challenge; its ticket."""
    now = time.monotonic()
    kept = s.challenges
    for ticket in [t for t, (_, _, at) in kept.items() if now - at > CHALLENGE_SECONDS]:
        del kept[ticket]
    while len(kept) >= MAX_CHALLENGES:
        kept.pop(next(iter(kept)))
    ticket = secrets.token_urlsafe(16)
    kept[ticket] = (challenge, player, now)
    return ticket


def _take(s: Server, ticket: Any, player: str | None) -> bytes | None:
    """The challenge of a ticket (spent now), if it is good and is ``player``'s ceremony."""
    if not isinstance(ticket, str):
        return None
    found = s.challenges.pop(ticket, None)
    if found is None:
        return None
    challenge, owner, at = found
    if owner != player or time.monotonic() - at > CHALLENGE_SECONDS:
        return None
    return challenge


def _options(options: Any, ticket: str) -> JSONResponse:
    from webauthn import options_to_json

    return JSONResponse(
        {"v": PROTOCOL_VERSION, "ticket": ticket, "options": json.loads(options_to_json(options))}
    )


@with_player
async def register_options(request: Request, s: Server, player: Player) -> Response:
    """``POST /api/me/passkeys/options``: what the browser needs to make a passkey."""
    party = _party(request)
    if isinstance(party, JSONResponse):
        return party
    rp_id, _ = party
    from webauthn import generate_registration_options
    from webauthn.helpers.structs import (
        AuthenticatorSelectionCriteria,
        ResidentKeyRequirement,
        UserVerificationRequirement,
    )

    have = await s.read(lambda db: accounts.passkeys_of(db, player.id))
    if len(have) >= 10:
        return _error(409, "too_many", "a player has at most 10 passkeys")
    options = generate_registration_options(
        rp_id=rp_id,
        rp_name=RP_NAME,
        user_id=player.id.encode(),
        user_name=player.name,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.PREFERRED,
        ),
    )
    return _options(options, _keep(s, options.challenge, player.id))


@with_player
async def register(request: Request, s: Server, player: Player) -> Response:
    """``POST /api/me/passkeys {"ticket", "credential"}``: the passkey made, kept."""
    raw = await body(
        request, frozenset({"ticket", "credential"}), frozenset({"ticket", "credential"})
    )
    if isinstance(raw, JSONResponse):
        return raw
    party = _party(request)
    if isinstance(party, JSONResponse):
        return party
    rp_id, origin = party
    from webauthn import verify_registration_response
    from webauthn.helpers import bytes_to_base64url
    from webauthn.helpers.exceptions import WebAuthnException

    challenge = _take(s, raw["ticket"], player.id)
    if challenge is None:
        return _error(400, "bad_ticket", "that ceremony is over or was never started")
    try:
        made = verify_registration_response(
            credential=raw["credential"],
            expected_challenge=challenge,
            expected_rp_id=rp_id,
            expected_origin=origin,
        )
    except (WebAuthnException, ValueError, TypeError, KeyError) as exc:  # any malformed answer
        return _error(400, "bad_passkey", f"the passkey was not accepted: {str(exc)[:200]}")
    credential = bytes_to_base64url(made.credential_id)
    key, count = made.credential_public_key, made.sign_count
    failed = await write(s, lambda db: accounts.add_passkey(db, credential, player.id, key, count))
    if failed is not None:
        return failed
    return JSONResponse({"v": PROTOCOL_VERSION, "passkey": {"id": credential}}, status_code=201)


async def sign_in_options(request: Request) -> Response:
    """``POST /api/players/passkey/options``: a challenge for any of this site's passkeys."""
    s = server_of(request)
    party = _party(request)
    if isinstance(party, JSONResponse):
        return party
    rp_id, _ = party
    from webauthn import generate_authentication_options
    from webauthn.helpers.structs import UserVerificationRequirement

    options = generate_authentication_options(
        rp_id=rp_id, user_verification=UserVerificationRequirement.PREFERRED
    )
    return _options(options, _keep(s, options.challenge, None))


async def sign_in(request: Request) -> Response:
    """``POST /api/players/passkey {"ticket", "credential"}``: this device signed in."""
    s = server_of(request)
    raw = await body(
        request, frozenset({"ticket", "credential"}), frozenset({"ticket", "credential"})
    )
    if isinstance(raw, JSONResponse):
        return raw
    refused = await s.guessed(request)
    if refused is not None:
        return refused
    party = _party(request)
    if isinstance(party, JSONResponse):
        return party
    rp_id, origin = party
    from webauthn import verify_authentication_response
    from webauthn.helpers.exceptions import WebAuthnException

    challenge = _take(s, raw["ticket"], None)
    credential = raw["credential"]
    cred_id = credential.get("id") if isinstance(credential, dict) else None
    if challenge is None or not isinstance(cred_id, str) or len(cred_id) > 1400:
        return _error(400, "bad_passkey", "that ceremony is over or its answer is not a passkey's")
    found = await s.read(lambda db: accounts.passkey(db, cred_id))
    if found is None:
        return _error(404, "bad_passkey", "this site knows no such passkey")
    _, public_key, count = found
    try:
        checked = verify_authentication_response(
            credential=credential,
            expected_challenge=challenge,
            expected_rp_id=rp_id,
            expected_origin=origin,
            credential_public_key=public_key,
            credential_current_sign_count=count,
        )
    except (WebAuthnException, ValueError, TypeError, KeyError) as exc:  # any malformed answer
        return _error(400, "bad_passkey", f"the passkey was not accepted: {str(exc)[:200]}")
    await s.right_guess(request)
    key, device = new_device(request)
    signed: list[str] = []
    new_count = checked.new_sign_count
    failed = await write(
        s, lambda db: signed.append(accounts.passkey_used(db, cred_id, new_count, device))
    )
    if failed is not None:
        return failed
    row = await s.read(lambda db: accounts.player_row(db, signed[0]))
    assert row is not None
    return signed_in_response(request, {"id": row["id"], "name": row["name"]}, key)


__all__ = ["register", "register_options", "sign_in", "sign_in_options"]
