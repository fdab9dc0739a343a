"""The DynamoDB backend of every store kind passes its kind's contract (tests/contracts/stores.py), on DynamoDB
Local, built through the registry from the settings as the function builds it."""

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

from mcp_lambda.settings import STORE_FIELDS, Settings
from mcp_lambda.settings.sections.backends import TABLES
from mcp_lambda.stores import build_store
from mcp_lambda_dev.services import LocalService


def _dynamodb(kind: str, table: str, monkeypatch: pytest.MonkeyPatch, service: LocalService) -> Any:
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", service.endpoint_url)
    backend_field, table_field = STORE_FIELDS[kind], TABLES[kind]
    # A generous read timeout: DynamoDB Local's first writes after start-up are slow, and a timed-out conditional
    # write that is retried finds its own item (the contract is about the store, not the JVM's warm-up).
    settings = Settings(
        business="demo", aws_read_timeout_ms=10_000, **{backend_field: "dynamodb", table_field: table}
    )
    return build_store(kind, settings)  # type: ignore[call-overload]


class TestDynamoDBSessions(SessionStoreContract):
    @pytest.fixture
    def store(
        self, sessions_table: str, monkeypatch: pytest.MonkeyPatch, dynamodb_local: LocalService
    ) -> Any:
        return _dynamodb(self.kind, sessions_table, monkeypatch, dynamodb_local)


class TestDynamoDBExactlyOnce(ExactlyOnceStoreContract):
    @pytest.fixture
    def store(
        self, idempotency_table: str, monkeypatch: pytest.MonkeyPatch, dynamodb_local: LocalService
    ) -> Any:
        return _dynamodb(self.kind, idempotency_table, monkeypatch, dynamodb_local)


class TestDynamoDBTasks(TaskStoreContract):
    @pytest.fixture
    def store(self, tasks_table: str, monkeypatch: pytest.MonkeyPatch, dynamodb_local: LocalService) -> Any:
        return _dynamodb(self.kind, tasks_table, monkeypatch, dynamodb_local)


class TestDynamoDBQuotas(QuotaStoreContract):
    @pytest.fixture
    def store(
        self, protection_table: str, monkeypatch: pytest.MonkeyPatch, dynamodb_local: LocalService
    ) -> Any:
        return _dynamodb(self.kind, protection_table, monkeypatch, dynamodb_local)


class TestDynamoDBCircuits(CircuitStoreContract):
    @pytest.fixture
    def store(
        self, protection_table: str, monkeypatch: pytest.MonkeyPatch, dynamodb_local: LocalService
    ) -> Any:
        return _dynamodb(self.kind, protection_table, monkeypatch, dynamodb_local)


def test_every_dynamodb_backend_has_its_contract_test() -> None:
    covered(
        [
            TestDynamoDBSessions,
            TestDynamoDBExactlyOnce,
            TestDynamoDBTasks,
            TestDynamoDBQuotas,
            TestDynamoDBCircuits,
        ],
        "dynamodb",
    )
