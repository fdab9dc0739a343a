"""The memory backend of every store kind, and the SQLite backend of sessions, pass their kind's contract
(tests/contracts/stores.py); a backend setting the registry does not know is refused at cold start."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from tests.contracts.stores import (
    CircuitStoreContract,
    ExactlyOnceStoreContract,
    QuotaStoreContract,
    SessionStoreContract,
    TaskStoreContract,
    covered,
)

from mcp_lambda.composition import build_server, load_business
from mcp_lambda.settings import Settings, SettingsError
from mcp_lambda.stores import build_store
from mcp_lambda.stores.sessions import open_session


def _memory(kind: str) -> Any:
    return build_store(kind, Settings(business="demo"))  # type: ignore[call-overload]


class TestMemorySessions(SessionStoreContract):
    @pytest.fixture
    def store(self) -> Any:
        return _memory(self.kind)


class TestMemoryExactlyOnce(ExactlyOnceStoreContract):
    @pytest.fixture
    def store(self) -> Any:
        return _memory(self.kind)


class TestMemoryTasks(TaskStoreContract):
    @pytest.fixture
    def store(self) -> Any:
        return _memory(self.kind)


class TestMemoryQuotas(QuotaStoreContract):
    @pytest.fixture
    def store(self) -> Any:
        return _memory(self.kind)


class TestMemoryCircuits(CircuitStoreContract):
    @pytest.fixture
    def store(self) -> Any:
        return _memory(self.kind)


def test_every_memory_backend_has_its_contract_test() -> None:
    covered(
        [TestMemorySessions, TestMemoryExactlyOnce, TestMemoryTasks, TestMemoryQuotas, TestMemoryCircuits],
        "memory",
    )


class TestSQLiteSessions(SessionStoreContract):
    @pytest.fixture
    def store(self, tmp_path: Path) -> Any:
        return build_store(
            "sessions", Settings(business="demo", session_store="sqlite", sqlite_path=str(tmp_path / "s.db"))
        )


def test_every_sqlite_backend_has_its_contract_test() -> None:
    covered([TestSQLiteSessions], "sqlite")


def test_sqlite_sessions_are_shared_by_two_stores_on_one_file(tmp_path: Path) -> None:
    settings = Settings(
        business="demo", session_store="sqlite", sqlite_path=str(tmp_path / "nested" / "s.db")
    )
    one, other = build_store("sessions", settings), build_store("sessions", settings)  # two processes' stores
    session = open_session(
        protocol_version="2025-11-25", business="demo", ttl_seconds=600, now=time.time() - 590
    )
    one.create(session)
    touched = other.touch(session)  # under half its lifetime left: extended
    assert touched.expires_at > session.expires_at
    other.set_log_level(session.session_id, "error")
    found = one.get(session.session_id)
    assert found is not None and found.log_level == "error" and found.expires_at == touched.expires_at


def test_an_expired_sqlite_session_is_not_found(tmp_path: Path) -> None:
    store = build_store(
        "sessions", Settings(business="demo", session_store="sqlite", sqlite_path=str(tmp_path / "s.db"))
    )
    session = open_session(
        protocol_version="2025-11-25", business="demo", ttl_seconds=60, now=time.time() - 61
    )
    store.create(session)
    assert store.get(session.session_id) is None


def test_an_unknown_backend_is_refused_naming_the_setting() -> None:
    settings = Settings(business="demo").model_copy(update={"session_store": "redis"})
    with pytest.raises(SettingsError, match=r"SESSION_STORE='redis' is not a backend of the sessions store"):
        build_store("sessions", settings)


def test_an_unknown_backend_of_a_kind_built_later_is_refused_at_cold_start() -> None:
    # The circuits are built on the first outbound call: the name is checked when the server is built.
    settings = Settings(business="demo", protection_store="sqlite")
    with pytest.raises(
        SettingsError, match=r"PROTECTION_STORE='sqlite' is not a backend of the quotas store"
    ):
        build_server(settings, load_business("demo"))
