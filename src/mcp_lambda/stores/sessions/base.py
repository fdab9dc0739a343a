"""The SessionStore contract for legacy-era (initialize + Mcp-Session-Id) sessions.

Every implementation keeps all session state outside the process, so a request that lands on a fresh
container is served exactly like one that lands on the container that minted the session.
"""

from __future__ import annotations

import secrets
import time
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from ...errors import McpLambdaError, StoreUnavailable


def new_session_id() -> str:
    """A session id of 192 random bits in visible ASCII (URL-safe base64), as the transport requires."""
    return secrets.token_urlsafe(24)


class Session(BaseModel):
    """One legacy MCP session: what initialize negotiated, and who may use it."""

    # Built on the first legacy initialize: a container serving 2026-07-28 only never needs the validator.
    model_config = ConfigDict(frozen=True, defer_build=True)

    session_id: str
    protocol_version: str
    business: str
    client_info: dict[str, Any] = Field(default_factory=dict)
    client_capabilities: dict[str, Any] = Field(default_factory=dict)
    principal: str | None = None
    log_level: str | None = None
    # The JSON text of each request id the client cancelled (`notifications/cancelled`), at most MAX_CANCELLED.
    cancelled_requests: frozenset[str] = frozenset()
    created_at: float
    last_seen: float
    expires_at: float

    def is_expired(self, now: float | None = None) -> bool:
        return (time.time() if now is None else now) >= self.expires_at

    def needs_refresh(self, ttl_seconds: int, now: float | None = None) -> bool:
        """Sliding expiry without a write per request: refresh only once less than half the TTL remains."""
        now = time.time() if now is None else now
        return self.expires_at - now < ttl_seconds / 2


MAX_CANCELLED = 64  # cancelled requests kept per session (a session item stays small)


class SessionIdTaken(McpLambdaError, ValueError):
    """`create` found a session with the same id; ids are never overwritten (the caller mints a new one)."""


class SessionStoreUnavailable(StoreUnavailable):
    """The backing store is throttled or unreachable; the caller should answer 503 and may retry."""

    default_message = "session store unavailable"


class SessionStore(Protocol):
    """Create / get / touch / delete, with expiry. All methods may raise SessionStoreUnavailable."""

    ttl_seconds: int

    def create(self, session: Session) -> None:
        """Store a new session; never overwrites an existing id (raises SessionIdTaken instead)."""

    def get(self, session_id: str) -> Session | None:
        """The live session with that id, or None when it is unknown or expired."""

    def touch(self, session: Session) -> Session:
        """Record use; extends `expires_at` only when `needs_refresh` says so (at most one write)."""

    def delete(self, session_id: str) -> bool:
        """End the session; True when one was deleted."""

    def set_log_level(self, session_id: str, level: str) -> None:
        """Remember the client's `logging/setLevel` for the rest of the session."""

    def cancel_request(self, session_id: str, request_key: str) -> None:
        """Remember that the client cancelled the request `request_key` (its id's JSON text), so the call running
        it sees `ctx.cancelled()` on any container; past MAX_CANCELLED per session, nothing more is kept."""


def open_session(
    *,
    protocol_version: str,
    business: str,
    ttl_seconds: int,
    client_info: dict[str, Any] | None = None,
    client_capabilities: dict[str, Any] | None = None,
    principal: str | None = None,
    now: float | None = None,
) -> Session:
    """A new Session value with a fresh id and expiry; the caller stores it with `SessionStore.create`."""
    now = time.time() if now is None else now
    return Session(
        session_id=new_session_id(),
        protocol_version=protocol_version,
        business=business,
        client_info=client_info or {},
        client_capabilities=client_capabilities or {},
        principal=principal,
        created_at=now,
        last_seen=now,
        expires_at=now + ttl_seconds,
    )
