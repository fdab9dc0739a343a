"""The memory backend of every store kind passes its kind's contract (tests/contracts/stores.py)."""

from __future__ import annotations

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

from mcp_lambda.settings import Settings
from mcp_lambda.stores import build_store


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


def test_an_unknown_backend_is_refused_naming_the_setting() -> None:
    settings = Settings(business="demo").model_copy(update={"session_store": "redis"})
    with pytest.raises(Exception, match=r"SESSION_STORE='redis' is not a backend of the sessions store"):
        build_store("sessions", settings)
