"""Integrity-protected `requestState` for multi round-trip results: HMAC-SHA256 over a JSON payload that names
the method and target it belongs to and when it expires. Opaque to clients; any change is detected."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from typing import Any

from .jsonrpc import INVALID_PARAMS, RpcError


class RequestStateCodec:
    def __init__(self, key: bytes, ttl_seconds: int = 900) -> None:
        if len(key) < 16:
            raise ValueError("the requestState key must have at least 16 bytes")
        self._key = key
        self.ttl_seconds = ttl_seconds

    def encode(
        self, method: str, target: str, state: Mapping[str, Any] | None, now: float | None = None
    ) -> str:
        issued = time.time() if now is None else now
        payload = {"m": method, "t": target, "x": int(issued + self.ttl_seconds), "s": dict(state or {})}
        body = _b64(json.dumps(payload, separators=(",", ":"), sort_keys=True).encode())
        return f"{body}.{_b64(self._sign(body))}"

    def decode(self, token: Any, method: str, target: str, now: float | None = None) -> dict[str, Any]:
        """The state, or -32602 when it is malformed, tampered with, expired or meant for another call."""
        if not isinstance(token, str) or token.count(".") != 1:
            raise _invalid("params.requestState is malformed")
        body, signature = token.split(".")
        try:
            valid = hmac.compare_digest(_unb64(signature), self._sign(body))
        except ValueError:
            valid = False
        if not valid:
            raise _invalid("params.requestState failed its integrity check")
        payload = json.loads(_unb64(body))
        if payload.get("m") != method or payload.get("t") != target:
            raise _invalid("params.requestState belongs to another request")
        if (time.time() if now is None else now) > payload.get("x", 0):
            raise _invalid("params.requestState has expired; start the call again")
        state = payload.get("s")
        return state if isinstance(state, dict) else {}

    def _sign(self, body: str) -> bytes:
        return hmac.new(self._key, body.encode(), hashlib.sha256).digest()


def _invalid(message: str) -> RpcError:
    return RpcError(INVALID_PARAMS, message)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except (ValueError, TypeError) as exc:
        raise ValueError("not base64") from exc
