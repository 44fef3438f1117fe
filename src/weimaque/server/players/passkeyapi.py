"""Passkeys (WebAuthn, with the ``webauthn`` library): a signed-in player adds one, and a device
signs in with it instead of a transfer code (docs/protocol.md §7.1). The library (and the
cryptography under it) is loaded at the first ceremony, not with the server.

Each ceremony is two requests: the options (with a challenge kept in the store for a minute,
under a ticket, so that any process of a cluster answers the second, docs/scale.md) and the
browser's answer to them. The relying party is the host the page was served from, its origin's
scheme the request's (a trusted balancer's ``X-Forwarded-Proto``, docs/scale.md); a passkey
needs a domain name (``localhost`` included), never an IP address. A player sees, names and
removes their passkeys (``/api/me/passkeys``).
"""

from __future__ import annotations

import ipaddress
import json
import secrets
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from weimaque.server.edge.context import Server, server_of
from weimaque.server.edge.context import error_response as _error
from weimaque.server.players.playerapi import (
    body,
    checked_name,
    new_device,
    signed_in_response,
    with_player,
    write,
)
from weimaque.server.store import accounts
from weimaque.server.store.accounts import Player
from weimaque.server.table.options import quoted
from weimaque.server.wire.common import PROTOCOL_VERSION

#: How long a ceremony's challenge is good.
CHALLENGE_SECONDS: Final = 60.0
RP_NAME: Final = "安乡偎麻雀"


def _party(request: Request) -> tuple[str, str] | JSONResponse:
    """(relying party id, origin) of the page's host, or the 400 for an IP address."""
    host = request.url.hostname or ""
    try:
        ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return host, f"{request.url.scheme}://{request.url.netloc}"
    return _error(400, "no_passkeys", f"passkeys need a domain name, not the address {host!r}")


async def _keep(s: Server, challenge: bytes, player: str | None) -> str | JSONResponse:
    """Keep a ceremony's challenge in the store (under its ticket's SHA-256, as every secret
    there, docs/protocol.md §4); its ticket (or the 503 of a store that cannot write)."""
    ticket = secrets.token_urlsafe(16)
    kept = accounts.digest(ticket)
    failed = await write(
        s, lambda db: accounts.keep_ceremony(db, kept, challenge, player, CHALLENGE_SECONDS)
    )
    return ticket if failed is None else failed


async def _take(s: Server, ticket: Any, player: str | None) -> bytes | JSONResponse | None:
    """The challenge of a ticket (spent now, whichever process kept it), if it is good and is
    ``player``'s ceremony."""
    if not isinstance(ticket, str) or len(ticket) > 64:
        return None
    found: list[tuple[bytes, str | None] | None] = []
    kept = accounts.digest(ticket)
    failed = await write(s, lambda db: found.append(accounts.take_ceremony(db, kept)))
    if failed is not None:
        return failed
    if not found or found[0] is None:
        return None
    challenge, owner = found[0]
    return challenge if owner == player else None


def _credential(raw: dict[str, Any]) -> dict[str, Any] | JSONResponse:
    """The answer's ``credential``: a JSON object with a text ``id``, or the 400 quoting it."""
    credential = raw["credential"]
    if not isinstance(credential, dict) or not isinstance(credential.get("id"), str):
        return _error(
            400,
            "bad_passkey",
            f"credential must be a passkey's toJSON() object, not {quoted(credential, 60)}",
        )
    if len(credential["id"]) > 1400:
        return _error(400, "bad_passkey", "the credential's id is longer than a passkey's")
    return credential


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
    if len(have) >= accounts.MAX_PASSKEYS:
        return _error(409, "too_many", f"a player has at most {accounts.MAX_PASSKEYS} passkeys")
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
    ticket = await _keep(s, options.challenge, player.id)
    return ticket if isinstance(ticket, JSONResponse) else _options(options, ticket)


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
    credential = _credential(raw)
    if isinstance(credential, JSONResponse):
        return credential
    from webauthn import verify_registration_response
    from webauthn.helpers import bytes_to_base64url
    from webauthn.helpers.exceptions import WebAuthnException

    challenge = await _take(s, raw["ticket"], player.id)
    if isinstance(challenge, JSONResponse):
        return challenge
    if challenge is None:
        return _error(400, "bad_ticket", "that ceremony is over or was never started")
    try:
        made = verify_registration_response(
            credential=credential,
            expected_challenge=challenge,
            expected_rp_id=rp_id,
            expected_origin=origin,
        )
    except (WebAuthnException, ValueError, TypeError, KeyError, AttributeError) as exc:
        return _error(400, "bad_passkey", f"the passkey was not accepted: {str(exc)[:200]}")
    made_id = bytes_to_base64url(made.credential_id)
    key, count = made.credential_public_key, made.sign_count
    name = accounts.device_label(request.headers.get("user-agent", ""))[: accounts.MAX_NAME]
    kept: list[bool] = []
    failed = await write(
        s, lambda db: kept.append(accounts.add_passkey(db, made_id, player.id, key, count, name))
    )
    if failed is not None:
        return failed
    if not kept or not kept[0]:
        return _error(409, "passkey_known", "this passkey is already registered on this site")
    passkey = {"id": made_id, "name": name}
    return JSONResponse({"v": PROTOCOL_VERSION, "passkey": passkey}, status_code=201)


@with_player
async def list_passkeys(request: Request, s: Server, player: Player) -> Response:
    """``GET /api/me/passkeys``: the player's passkeys (docs/protocol.md §7.1)."""
    found = await s.read(lambda db: accounts.passkeys_of(db, player.id))
    return JSONResponse({"v": PROTOCOL_VERSION, "passkeys": found})


@with_player
async def rename_passkey(request: Request, s: Server, player: Player) -> Response:
    """``PATCH /api/me/passkeys/{id} {"name"}``: the passkey named."""
    credential = str(request.path_params["passkey"])[:1400]
    raw = await body(request, frozenset({"name"}), frozenset({"name"}))
    if isinstance(raw, JSONResponse):
        return raw
    name = checked_name(raw["name"])
    if isinstance(name, JSONResponse):
        return name
    done: list[int] = []
    failed = await write(
        s, lambda db: done.append(accounts.rename_passkey(db, player.id, credential, name))
    )
    if failed is not None:
        return failed
    if not done or not done[0]:
        return _error(404, "not_found", f"no passkey {quoted(credential, 60)}")
    return JSONResponse({"v": PROTOCOL_VERSION, "passkey": {"id": credential, "name": name}})


@with_player
async def remove_passkey(request: Request, s: Server, player: Player) -> Response:
    """``DELETE /api/me/passkeys/{id}``: the passkey signs nobody in again (the devices it
    signed in stay, each signed out on its own or all at once, §7.1)."""
    credential = str(request.path_params["passkey"])[:1400]
    done: list[int] = []
    failed = await write(
        s, lambda db: done.append(accounts.remove_passkey(db, player.id, credential))
    )
    if failed is not None:
        return failed
    if not done or not done[0]:
        return _error(404, "not_found", f"no passkey {quoted(credential, 60)}")
    return JSONResponse({"v": PROTOCOL_VERSION, "removed": credential})


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
    ticket = await _keep(s, options.challenge, None)
    return ticket if isinstance(ticket, JSONResponse) else _options(options, ticket)


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

    credential = _credential(raw)
    if isinstance(credential, JSONResponse):
        return credential
    cred_id = str(credential["id"])
    challenge = await _take(s, raw["ticket"], None)
    if isinstance(challenge, JSONResponse):
        return challenge
    if challenge is None:
        return _error(400, "bad_passkey", "that ceremony is over or was never started")
    found = await s.read(lambda db: accounts.passkey(db, cred_id))
    if found is None:
        return _error(404, "bad_passkey", "this site knows no such passkey")
    # A wrong answer for a known passkey is a guess at that player too (docs/protocol.md §7.6).
    refused = await s.guessed_at(found[0])
    if refused is not None:
        return refused
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
    except (WebAuthnException, ValueError, TypeError, KeyError, AttributeError) as exc:
        return _error(400, "bad_passkey", f"the passkey was not accepted: {str(exc)[:200]}")
    await s.right_guess(request, found[0])
    key, device = new_device(request)
    signed: list[str | None] = []
    new_count = checked.new_sign_count
    failed = await write(
        s, lambda db: signed.append(accounts.passkey_used(db, cred_id, new_count, device))
    )
    if failed is not None:
        return failed
    player_id = signed[0] if signed else None
    if player_id is None:  # removed while the ceremony went on
        return _error(404, "bad_passkey", "this site knows no such passkey")
    row = await s.read(lambda db: accounts.player_row(db, player_id))
    assert row is not None
    return signed_in_response(request, {"id": row["id"], "name": row["name"]}, key)


__all__ = [
    "list_passkeys",
    "register",
    "register_options",
    "remove_passkey",
    "rename_passkey",
    "sign_in",
    "sign_in_options",
]
