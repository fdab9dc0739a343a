"""Tokens from the local authorization server (dev/mcp_lambda_dev/oauth_server.mjs, a real oauth2-mock-server process), and
the forged ones an attacker would try."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from mcp_lambda_dev.services import LocalService


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _post(url: str, data: bytes, content_type: str) -> dict[str, Any]:
    request = urllib.request.Request(url, data=data, method="POST", headers={"content-type": content_type})
    with urllib.request.urlopen(request, timeout=10) as response:
        return json.loads(response.read())  # type: ignore[no-any-return]


@dataclass
class Issuer:
    """One running authorization server: its issuer URL and ways to get tokens from it."""

    service: LocalService

    @property
    def url(self) -> str:
        return self.service.endpoint_url

    def token(self, subject: str, scope: str = "", resource: str = "https://localhost/mcp") -> str:
        """An access token from /token (password grant): `sub` = subject, `aud` = resource (RFC 8707)."""
        form = {"grant_type": "password", "username": subject, "scope": scope, "resource": resource}
        body = urllib.parse.urlencode(form).encode()
        return str(_post(f"{self.url}/token", body, "application/x-www-form-urlencoded")["access_token"])

    def sign(self, kid: str = "rs256", **claims: Any) -> str:
        """A token signed by the issuer's key `kid`, its default claims overridden (None removes one)."""
        body = json.dumps({"kid": kid, "claims": claims}).encode()
        return str(_post(f"{self.url}/test/sign", body, "application/json")["token"])

    def valid_claims(self, subject: str = "alice", scope: str = "") -> dict[str, Any]:
        return {"sub": subject, "aud": "https://localhost/mcp", "scope": scope}

    def jwks(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"{self.url}/jwks", timeout=10) as response:
            return json.loads(response.read())  # type: ignore[no-any-return]


def unsigned(claims: dict[str, Any]) -> str:
    """`alg: none`: a token with no signature at all."""
    header = _b64(json.dumps({"alg": "none", "typ": "JWT"}).encode())
    return f"{header}.{_b64(json.dumps(claims).encode())}."


def hs256_with_public_key(claims: dict[str, Any], public_key_pem: bytes, kid: str = "rs256") -> str:
    """The algorithm-confusion attack: HMAC-SHA256 keyed with the issuer's *public* RSA key (which anyone has)."""
    header = _b64(json.dumps({"alg": "HS256", "typ": "JWT", "kid": kid}).encode())
    body = _b64(json.dumps(claims).encode())
    signature = hmac.new(public_key_pem, f"{header}.{body}".encode(), hashlib.sha256).digest()
    return f"{header}.{body}.{_b64(signature)}"


def with_bad_signature(token: str) -> str:
    """The same header and claims, a signature over something else."""
    header, body, signature = token.split(".")
    raw = bytearray(base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)))
    raw[len(raw) // 2] ^= 0xFF
    return f"{header}.{body}.{_b64(bytes(raw))}"


def claims_of(token: str) -> dict[str, Any]:
    body = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(body + "=" * (-len(body) % 4)))  # type: ignore[no-any-return]


def now() -> int:
    return int(time.time())
