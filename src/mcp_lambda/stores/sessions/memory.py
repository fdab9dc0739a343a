"""In-memory SessionStore: the embedded default for `make run` and unit tests (one process only)."""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

from ...settings import seconds
from .base import MAX_CANCELLED, Session, SessionIdTaken

if TYPE_CHECKING:
    from .. import StoreConfig


class MemorySessionStore:
    def __init__(self, ttl_seconds: int = 3600) -> None:
        self.ttl_seconds = ttl_seconds
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def create(self, session: Session) -> None:
        with self._lock:
            if session.session_id in self._sessions:
                raise SessionIdTaken("session id already exists")
            self._sessions[session.session_id] = session

    def get(self, session_id: str) -> Session | None:
        with self._lock:
            session = self._sessions.get(session_id)
            if session is None:
                return None
            if session.is_expired():
                del self._sessions[session_id]
                return None
            return session

    def touch(self, session: Session) -> Session:
        now = time.time()
        if not session.needs_refresh(self.ttl_seconds, now):
            return session
        refresh = {"last_seen": now, "expires_at": now + self.ttl_seconds}
        with self._lock:  # onto the stored session: a cancellation written since `session` was read stays
            current = self._sessions.get(session.session_id)
            if current is not None:
                self._sessions[session.session_id] = current.model_copy(update=refresh)
        return session.model_copy(update=refresh)

    def delete(self, session_id: str) -> bool:
        with self._lock:
            return self._sessions.pop(session_id, None) is not None

    def set_log_level(self, session_id: str, level: str) -> None:
        with self._lock:
            session = self._sessions.get(session_id)
            if session is not None:
                self._sessions[session_id] = session.model_copy(update={"log_level": level})

    def cancel_request(self, session_id: str, request_key: str) -> None:
        with self._lock:
            session = self._sessions.get(session_id)
            if session is not None and len(session.cancelled_requests) < MAX_CANCELLED:
                cancelled = session.cancelled_requests | {request_key}
                self._sessions[session_id] = session.model_copy(update={"cancelled_requests": cancelled})


NEEDS_TABLE = False  # the registry's one rule: built only with the kind's table setting


def build(config: StoreConfig) -> Any:
    """The registry's door (`mcp_lambda.stores.build_store("sessions", settings)`)."""
    return MemorySessionStore(ttl_seconds=seconds(config.settings.session_ttl))
