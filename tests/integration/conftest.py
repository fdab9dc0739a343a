"""Fixtures that run real local stand-ins: DynamoDB Local, moto server and an OAuth authorization server, started
once per session."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from botocore.exceptions import BotoCoreError, ClientError
from tests.support.oauth import Issuer

from mcp_lambda_dev import services
from mcp_lambda_dev.services import LocalService, ServiceError

FAKE_AWS_ENV = {
    "AWS_ACCESS_KEY_ID": "test",
    "AWS_SECRET_ACCESS_KEY": "test",
    "AWS_DEFAULT_REGION": "us-east-1",
    "AWS_REGION": "us-east-1",
    "AWS_EC2_METADATA_DISABLED": "true",
}
INTEGRATION_DIR = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if INTEGRATION_DIR in Path(str(item.path)).parents:
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
def fake_aws_credentials() -> Iterator[None]:
    """Fake credentials and region for boto3, set in this test process only; never real ones."""
    with pytest.MonkeyPatch.context() as patch:
        for name in ("AWS_PROFILE", "AWS_SESSION_TOKEN", "AWS_SECURITY_TOKEN", "AWS_ENDPOINT_URL"):
            patch.delenv(name, raising=False)
        for name, value in FAKE_AWS_ENV.items():
            patch.setenv(name, value)
        yield


def _started(service_factory: Callable[[], LocalService]) -> LocalService:
    try:
        return service_factory().start()
    except ServiceError as exc:
        pytest.fail(str(exc), pytrace=False)


@pytest.fixture(scope="session")
def dynamodb_local(fake_aws_credentials: None) -> Iterator[LocalService]:
    """DynamoDB Local on a free port: .endpoint_url, .port, .stop() and .start() (same port) for fault tests."""
    service = _started(services.dynamodb_local)
    yield service
    service.stop()


@pytest.fixture(scope="session")
def moto_server(fake_aws_credentials: None) -> Iterator[LocalService]:
    """moto server on a free port; point boto3 at .endpoint_url (Secrets Manager and friends)."""
    service = _started(services.moto_server)
    yield service
    service.stop()


@pytest.fixture
def dynamodb_client(dynamodb_local: LocalService) -> Any:
    if not dynamodb_local.running:
        dynamodb_local.start()  # a fault test before this one may have left it stopped
    return boto3.client("dynamodb", endpoint_url=dynamodb_local.endpoint_url)


@pytest.fixture
def secrets_client(moto_server: LocalService) -> Any:
    return boto3.client("secretsmanager", endpoint_url=moto_server.endpoint_url)


@contextlib.contextmanager
def _fresh_table(dynamodb_client: Any, prefix: str, create: Callable[[Any, str], None]) -> Iterator[str]:
    """A fresh table (template.yaml's key schema and TTL attribute, through `create`), deleted afterwards."""
    name = f"{prefix}-{uuid.uuid4().hex[:12]}"
    create(dynamodb_client, name)
    yield name
    # A fault test may have restarted the in-memory server, taking the table with it.
    with contextlib.suppress(BotoCoreError, ClientError):
        dynamodb_client.delete_table(TableName=name)


def _store_env(monkeypatch: pytest.MonkeyPatch, dynamodb_local: LocalService, **env: str) -> dict[str, str]:
    """Environment that makes the runtime use a DynamoDB store against DynamoDB Local."""
    env = {**env, "AWS_ENDPOINT_URL_DYNAMODB": dynamodb_local.endpoint_url}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env


@pytest.fixture
def sessions_table(dynamodb_client: Any) -> Iterator[str]:
    with _fresh_table(dynamodb_client, "sessions", services.create_sessions_table) as name:
        yield name


@pytest.fixture
def tasks_table(dynamodb_client: Any) -> Iterator[str]:
    with _fresh_table(dynamodb_client, "tasks", services.create_tasks_table) as name:
        yield name


@pytest.fixture
def idempotency_table(dynamodb_client: Any) -> Iterator[str]:
    with _fresh_table(dynamodb_client, "idempotency", services.create_idempotency_table) as name:
        yield name


@pytest.fixture
def protection_table(dynamodb_client: Any) -> Iterator[str]:
    with _fresh_table(dynamodb_client, "protection", services.create_protection_table) as name:
        yield name


@pytest.fixture
def dynamodb_tasks_env(
    monkeypatch: pytest.MonkeyPatch, dynamodb_local: LocalService, tasks_table: str
) -> dict[str, str]:
    return _store_env(monkeypatch, dynamodb_local, TASKS_STORE="dynamodb", TASKS_TABLE=tasks_table)


@pytest.fixture
def dynamodb_session_env(
    monkeypatch: pytest.MonkeyPatch, dynamodb_local: LocalService, sessions_table: str
) -> dict[str, str]:
    return _store_env(monkeypatch, dynamodb_local, SESSION_STORE="dynamodb", SESSIONS_TABLE=sessions_table)


@pytest.fixture
def idempotency_env(
    monkeypatch: pytest.MonkeyPatch, dynamodb_local: LocalService, idempotency_table: str
) -> dict[str, str]:
    return _store_env(
        monkeypatch, dynamodb_local, IDEMPOTENCY_STORE="dynamodb", IDEMPOTENCY_TABLE=idempotency_table
    )


@pytest.fixture(scope="session")
def oauth_issuer() -> Iterator[Issuer]:
    """A real OAuth/OIDC authorization server process (oauth2-mock-server) on a free port: discovery, JWKS, tokens."""
    service = _started(services.oauth_server)
    yield Issuer(service)
    service.stop()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """The fault matrix (fault x dependency -> status, code, time to answer), when its tests ran."""
    from tests.support.fault_matrix import ROWS, render

    if ROWS:
        terminalreporter.write_sep("=", "fault matrix (REQUEST_DEADLINE_MS=3000)")
        terminalreporter.write_line(render(ROWS))
