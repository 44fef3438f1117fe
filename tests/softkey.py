"""A software passkey: WebAuthn's registration and sign-in answers built in Python (a P-256 key,
"none" attestation), so that tests drive passkey ceremonies against a real server without a
browser (docs/protocol.md §7.1). The browser tests use Chromium's virtual authenticator."""

from __future__ import annotations

import hashlib
import json
import struct
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from webauthn.helpers import base64url_to_bytes, bytes_to_base64url

#: Flags of the authenticator data (WebAuthn §6.1): user present, user verified, credential.
UP, UV, AT = 0x01, 0x04, 0x40


class SoftKey:
    """One passkey of one site, made from ``seed`` (the same seed, the same credential)."""

    def __init__(self, seed: int) -> None:
        digest = hashlib.sha256(f"softkey {seed}".encode()).digest()
        self.key = ec.derive_private_key(int.from_bytes(digest, "big") % (2**255), ec.SECP256R1())
        self.credential = hashlib.sha256(b"credential " + digest).digest()[:20]
        self.count = 0
        self.user: bytes = b""

    @property
    def id(self) -> str:
        """The credential's id as the server lists it (base64url)."""
        return bytes_to_base64url(self.credential)

    def _client_data(self, kind: str, options: dict[str, Any], origin: str) -> bytes:
        data = {"type": kind, "challenge": options["challenge"], "origin": origin}
        return json.dumps({**data, "crossOrigin": False}).encode()

    def _auth_data(self, rp_id: str, flags: int, extra: bytes = b"") -> bytes:
        self.count += 1
        rp_hash = hashlib.sha256(rp_id.encode()).digest()
        return rp_hash + bytes([flags]) + struct.pack(">I", self.count) + extra

    def register(self, options: dict[str, Any], origin: str) -> dict[str, Any]:
        """The credential's ``toJSON()`` answering registration ``options`` from ``origin``."""
        numbers = self.key.public_key().public_numbers()
        cose = {
            1: 2,
            3: -7,
            -1: 1,
            -2: numbers.x.to_bytes(32, "big"),
            -3: numbers.y.to_bytes(32, "big"),
        }
        attested = bytes(16) + struct.pack(">H", len(self.credential)) + self.credential
        auth = self._auth_data(options["rp"]["id"], UP | UV | AT, attested + cbor2.dumps(cose))
        self.user = base64url_to_bytes(options["user"]["id"])
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth})
        client = self._client_data("webauthn.create", options, origin)
        return {
            "id": self.id,
            "rawId": self.id,
            "type": "public-key",
            "response": {
                "clientDataJSON": bytes_to_base64url(client),
                "attestationObject": bytes_to_base64url(attestation),
                "transports": ["internal"],
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }

    def sign_in(self, options: dict[str, Any], origin: str) -> dict[str, Any]:
        """The credential's ``toJSON()`` answering sign-in ``options`` from ``origin``."""
        auth = self._auth_data(options["rpId"], UP | UV)
        client = self._client_data("webauthn.get", options, origin)
        signed = auth + hashlib.sha256(client).digest()
        signature = self.key.sign(signed, ec.ECDSA(hashes.SHA256()))
        return {
            "id": self.id,
            "rawId": self.id,
            "type": "public-key",
            "response": {
                "clientDataJSON": bytes_to_base64url(client),
                "authenticatorData": bytes_to_base64url(auth),
                "signature": bytes_to_base64url(signature),
                "userHandle": bytes_to_base64url(self.user),
            },
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }
