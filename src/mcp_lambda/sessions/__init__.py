"""Legacy-era MCP sessions: the SessionStore contract and its implementations."""

from __future__ import annotations

from ..settings import Settings
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
    "build_session_store",
    "new_session_id",
    "open_session",
]


def build_session_store(settings: Settings) -> SessionStore:
    """The store the settings select: `memory` (embedded default) or `dynamodb`."""
    if settings.session_store == "dynamodb":
        from ..aws import AwsBudget
        from .dynamodb import DynamoDBSessionStore  # imported lazily: boto3 costs cold-start time

        assert settings.sessions_table is not None
        return DynamoDBSessionStore(
            settings.sessions_table,
            ttl_seconds=settings.session_ttl_seconds,
            budget=AwsBudget.from_settings(settings),
        )
    return MemorySessionStore(ttl_seconds=settings.session_ttl_seconds)
