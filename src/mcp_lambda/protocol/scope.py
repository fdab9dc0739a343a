"""Inbound/Outbound values between the transport and the protocol, and the per-request CallScope."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..sessions import Session
from .jsonrpc import RequestId


@dataclass(frozen=True)
class Inbound:
    """One HTTP request as the protocol sees it: lower-case header names, the parsed JSON body."""

    http_method: str
    headers: Mapping[str, str]
    body: Any = None
    principal: str | None = None
    correlation_id: str | None = None
    accepts_sse: bool = False

    def header(self, name: str) -> str | None:
        value = self.headers.get(name.lower())
        return value.strip() if isinstance(value, str) else None


@dataclass
class Outbound:
    """What to send back. `messages` set means an SSE stream: notifications first, then the response."""

    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    messages: list[dict[str, Any]] | None = None


@dataclass
class CallScope:
    """Everything a method handler may know about the request it serves."""

    era: str  # "legacy" | "modern"
    protocol_version: str
    request_id: RequestId
    correlation_id: str | None = None
    session: Session | None = None
    client_capabilities: Mapping[str, Any] = field(default_factory=dict)
    meta: Mapping[str, Any] = field(default_factory=dict)
    notifications: list[dict[str, Any]] = field(default_factory=list)
    log_level: str | None = None

    def notify(self, method: str, params: dict[str, Any]) -> None:
        """Buffer a request-scoped notification; the transport streams it before the response (SSE)."""
        self.notifications.append({"jsonrpc": "2.0", "method": method, "params": params})
