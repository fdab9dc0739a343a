"""Signed `requestState` for multi round-trip results: HMAC-SHA256 over a JSON payload that names the method and
target it belongs to, the caller it was issued to and when it expires. Signed, not sealed: it is base64 JSON that
the client can read (the spec asks clients to treat it as opaque, not that it be secret), so it must never hold
what the caller may not read — a tool's `state` holds ids and progress, never secrets or other callers' data.
Any change is detected.

The keys are a ring: the first signs, every one verifies, so a key is replaced without breaking rounds in flight
(put the new key first, keep the old one until the state TTL has passed, then drop it).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Mapping, Sequence
from typing import Any

from ..wire import INVALID_PARAMS
from .jsonrpc import RpcError


class RequestStateCodec:
    def __init__(self, keys: bytes | Sequence[bytes], ttl_seconds: int = 900) -> None:
        ring = [keys] if isinstance(keys, bytes) else list(keys)
        if not ring:
            raise ValueError("the requestState key ring is empty")
        if any(len(key) < 16 for key in ring):
            raise ValueError("every requestState key must have at least 16 bytes")
        self._keys = ring
        self.ttl_seconds = ttl_seconds

    def encode(
        self,
        method: str,
        target: str,
        state: Mapping[str, Any] | None,
        now: float | None = None,
        principal: str | None = None,
    ) -> str:
        issued = time.time() if now is None else now
        payload = {
            "m": method,
            "t": target,
            "p": principal,
            "x": int(issued + self.ttl_seconds),
            "s": dict(state or {}),
        }
        body = _b64(json.dumps(payload, separators=(",", ":"), sort_keys=True).encode())
        return f"{body}.{_b64(_sign(self._keys[0], body))}"

    def decode(
        self,
        token: Any,
        method: str,
        target: str,
        now: float | None = None,
        principal: str | None = None,
    ) -> dict[str, Any]:
        """The state, or -32602 when it is malformed, tampered with, expired, meant for another call or issued to
        another caller."""
        # Every token this codec issues is base64url ASCII: anything else (a lone surrogate, a NUL) is not ours.
        if not isinstance(token, str) or not token.isascii() or token.count(".") != 1:
            raise _invalid("params.requestState is malformed")
        body, signature = token.split(".")
        try:
            presented = _unb64(signature)
        except ValueError:
            presented = b""
        if not any(hmac.compare_digest(presented, _sign(key, body)) for key in self._keys):
            raise _invalid("params.requestState failed its integrity check")
        payload = json.loads(_unb64(body))
        if payload.get("m") != method or payload.get("t") != target:
            raise _invalid("params.requestState belongs to another request")
        if payload.get("p") != principal:
            raise _invalid("params.requestState was issued to another caller")
        if (time.time() if now is None else now) > payload.get("x", 0):
            raise _invalid("params.requestState has expired; start the call again")
        state = payload.get("s")
        return state if isinstance(state, dict) else {}


def _sign(key: bytes, body: str) -> bytes:
    return hmac.new(key, body.encode(), hashlib.sha256).digest()


def _invalid(message: str) -> RpcError:
    return RpcError(INVALID_PARAMS, message)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError) as exc:
        raise ValueError("not base64") from exc
