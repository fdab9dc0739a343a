"""Legacy-era MCP sessions: the SessionStore contract and its implementations."""

from __future__ import annotations

from .base import (
    Session,
    SessionIdTaken,
    SessionStore,
    SessionStoreUnavailable,
    new_session_id,
    open_session,
)
from .memory import MemorySessionStore

__all__ = [
    "MemorySessionStore",
    "Session",
    "SessionIdTaken",
    "SessionStore",
    "SessionStoreUnavailable",
    "new_session_id",
    "open_session",
]
