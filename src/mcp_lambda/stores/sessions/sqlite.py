"""SQLite SessionStore: legacy sessions in one database file, shared by the processes of one machine.

For local use (`SESSION_STORE=sqlite make run WORKERS=4`: a session minted by one worker is served by another),
never for a fleet: the file is on one machine. One row per session, the session as JSON beside its expiry; each
operation opens its own connection (a process, a thread or a fork each gets its own) and is one statement, so two
processes never interleave a read and a write. A locked or unreadable database raises `SessionStoreUnavailable`.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...settings import seconds
from .base import MAX_CANCELLED, Session, SessionIdTaken, SessionStoreUnavailable

if TYPE_CHECKING:
    from .. import StoreConfig

SCHEMA = "CREATE TABLE IF NOT EXISTS sessions (session_id TEXT PRIMARY KEY, session TEXT NOT NULL, expires_at REAL NOT NULL)"


class SQLiteSessionStore:
    """Sessions in the SQLite database at `path` (created, with its folder, when missing).

    Args:
        path: The database file.
        ttl_seconds: Idle session lifetime.
        timeout_seconds: How long a statement waits for another process's write before the store is unavailable.
    """

    def __init__(self, path: str | Path, ttl_seconds: int = 3600, timeout_seconds: float = 5.0) -> None:
        self.path = Path(path)
        self.ttl_seconds = ttl_seconds
        self.timeout_seconds = timeout_seconds
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with self._database() as database:
            database.execute(SCHEMA)

    @contextmanager
    def _database(self) -> Iterator[sqlite3.Connection]:
        try:
            with closing(sqlite3.connect(self.path, timeout=self.timeout_seconds)) as database, database:
                yield database  # `with database`: one transaction, committed unless the block raised
        except sqlite3.IntegrityError:
            raise
        except sqlite3.Error as exc:
            raise SessionStoreUnavailable(f"session store unavailable: {type(exc).__name__}") from None

    def create(self, session: Session) -> None:
        try:
            with self._database() as database:
                database.execute(
                    "INSERT INTO sessions VALUES (?, ?, ?)",
                    (session.session_id, session.model_dump_json(), session.expires_at),
                )
        except sqlite3.IntegrityError:
            raise SessionIdTaken("session id already exists") from None

    def get(self, session_id: str) -> Session | None:
        with self._database() as database:
            row = database.execute(
                "SELECT session FROM sessions WHERE session_id = ? AND expires_at > ?",
                (session_id, time.time()),
            ).fetchone()
        return None if row is None else Session.model_validate_json(row[0])

    def touch(self, session: Session) -> Session:
        now = time.time()
        if not session.needs_refresh(self.ttl_seconds, now):
            return session
        refreshed = session.model_copy(update={"last_seen": now, "expires_at": now + self.ttl_seconds})
        self._update(session.session_id, {"last_seen": now, "expires_at": refreshed.expires_at})
        return refreshed

    def delete(self, session_id: str) -> bool:
        with self._database() as database:
            deleted = database.execute("DELETE FROM sessions WHERE session_id = ?", (session_id,)).rowcount
        return deleted > 0

    def set_log_level(self, session_id: str, level: str) -> None:
        self._update(session_id, {"log_level": level})

    def cancel_request(self, session_id: str, request_key: str) -> None:
        # One statement: the key is appended unless it is there already or the session holds MAX_CANCELLED.
        with self._database() as database:
            database.execute(
                "UPDATE sessions SET session = json_set(session, '$.cancelled_requests', "
                "json_insert(coalesce(json_extract(session, '$.cancelled_requests'), json('[]')), '$[#]', ?)) "
                "WHERE session_id = ? "
                "AND json_array_length(coalesce(json_extract(session, '$.cancelled_requests'), '[]')) < ? "
                "AND NOT EXISTS (SELECT 1 FROM json_each(session, '$.cancelled_requests') WHERE value = ?)",
                (request_key, session_id, MAX_CANCELLED, request_key),
            )

    def _update(self, session_id: str, fields: dict[str, Any]) -> None:
        # One statement (json_set), so a concurrent update of another field is never lost.
        # Each value as JSON text through json(): a float keeps every digit (a bound REAL would be printed shorter).
        paths = ", ".join("?, json(?)" for _ in fields)
        values = [part for name, value in fields.items() for part in (f"$.{name}", json.dumps(value))]
        expires_at = fields.get("expires_at")
        with self._database() as database:
            database.execute(
                f"UPDATE sessions SET session = json_set(session, {paths}), "
                "expires_at = coalesce(?, expires_at) WHERE session_id = ?",
                (*values, expires_at, session_id),
            )


def build(config: StoreConfig) -> Any:
    """The registry's door (`mcp_lambda.stores.build_store("sessions", settings)`)."""
    return SQLiteSessionStore(config.settings.sqlite_path, ttl_seconds=seconds(config.settings.session_ttl))
