"""A software authenticator for the passkey tests: it makes and uses passkeys as a browser's would.

It answers WebAuthn's options (as the server gives them, JSON) with what a
browser sends back (``PublicKeyCredential.toJSON()``): ``none``
attestation, an ES256 key, a signature counter that goes up by one a use.
Each answer can be spoiled on purpose (another origin, another key, the
counter not moved) for the hostile tests.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct
from dataclasses import dataclass, field
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec

UP, UV, AT = 0x01, 0x04, 0x40  # authenticator data's flags: user present, user verified, credential data attached


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Passkey:
    """One credential: its id, its private key, the account's user handle, and its signature counter."""

    id: bytes
    key: ec.EllipticCurvePrivateKey
    user: bytes
    rp_id: str
    count: int = 0

    def cose_public_key(self) -> bytes:
        numbers = self.key.public_key().public_numbers()
        return cbor2.dumps({1: 2, 3: -7, -1: 1, -2: numbers.x.to_bytes(32, "big"), -3: numbers.y.to_bytes(32, "big")})


@dataclass
class Authenticator:
    """The passkeys it holds; it answers for the page at ``origin``."""

    origin: str
    held: list[Passkey] = field(default_factory=list)

    def create(self, options: dict[str, Any]) -> dict[str, Any]:
        """``navigator.credentials.create``: a new passkey for the options' site and user."""
        passkey = Passkey(
            os.urandom(32),
            ec.generate_private_key(ec.SECP256R1()),
            unb64url(options["user"]["id"]),
            options["rp"]["id"],
        )
        self.held.append(passkey)
        data = hashlib.sha256(passkey.rp_id.encode()).digest() + bytes([UP | UV | AT]) + struct.pack(">I", 0)
        data += bytes(16) + struct.pack(">H", len(passkey.id)) + passkey.id + passkey.cose_public_key()
        attestation = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": data})
        response = {
            "clientDataJSON": self.client_data("webauthn.create", options["challenge"]),
            "attestationObject": b64url(attestation),
        }
        return self.credential(passkey, response)

    def get(
        self,
        options: dict[str, Any],
        passkey: Passkey | None = None,
        *,
        origin: str | None = None,
        signer: ec.EllipticCurvePrivateKey | None = None,
        count: int | None = None,
    ) -> dict[str, Any]:
        """``navigator.credentials.get``: the passkey (the last made, unless told) signs the options' challenge."""
        passkey = passkey or self.held[-1]
        passkey.count += 1
        data = hashlib.sha256(passkey.rp_id.encode()).digest() + bytes([UP | UV])
        data += struct.pack(">I", passkey.count if count is None else count)
        client_data = self.client_data("webauthn.get", options["challenge"], origin)
        signed = data + hashlib.sha256(unb64url(client_data)).digest()
        signature = (signer or passkey.key).sign(signed, ec.ECDSA(hashes.SHA256()))
        response = {
            "clientDataJSON": client_data,
            "authenticatorData": b64url(data),
            "signature": b64url(signature),
            "userHandle": b64url(passkey.user),
        }
        return self.credential(passkey, response)

    def client_data(self, kind: str, challenge: str, origin: str | None = None) -> str:
        data = {"type": kind, "challenge": challenge, "origin": origin or self.origin, "crossOrigin": False}
        return b64url(json.dumps(data).encode())

    @staticmethod
    def credential(passkey: Passkey, response: dict[str, str]) -> dict[str, Any]:
        return {
            "id": b64url(passkey.id),
            "rawId": b64url(passkey.id),
            "type": "public-key",
            "response": response,
            "clientExtensionResults": {},
            "authenticatorAttachment": "platform",
        }
