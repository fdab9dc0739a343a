"""Every AWS client of the function takes its timeouts and attempts from one place (mcp_lambda.aws.AwsBudget),
built from the settings: sessions, secrets, the exactly-once store, the task store and the task invoker."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_lambda import deadlines
from mcp_lambda.aws import AwsBudget, AwsCallTimedOut
from mcp_lambda.calls.task_invoke import LambdaInvoker
from mcp_lambda.deadlines import Deadline
from mcp_lambda.secrets import build_secret_source
from mcp_lambda.settings import Settings
from mcp_lambda.stores import build_store

SETTINGS = Settings(
    session_store="dynamodb",
    sessions_table="s",
    idempotency_store="dynamodb",
    idempotency_table="i",
    tasks_store="dynamodb",
    tasks_table="t",
    secret_id="x",
    aws_connect_timeout_ms=321,
    aws_read_timeout_ms=654,
    aws_max_attempts=3,
)


@pytest.fixture(autouse=True)
def _region(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "testing")  # signing happens before an attempt is sent
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "testing")


def _clients() -> dict[str, Any]:
    return {
        "sessions": build_store("sessions", SETTINGS).client,  # type: ignore[attr-defined]
        "secrets": build_secret_source(SETTINGS).provider.client,  # type: ignore[attr-defined]
        "idempotency": build_store("exactly_once", SETTINGS).client,  # type: ignore[attr-defined]
        "tasks": build_store("tasks", SETTINGS).client,  # type: ignore[attr-defined]
        "invoker": LambdaInvoker("f", budget=AwsBudget.from_settings(SETTINGS)).client,
    }


def test_every_aws_client_has_the_settings_budget() -> None:
    budget = AwsBudget.from_settings(SETTINGS)
    for name, client in _clients().items():
        config = client.meta.config
        assert (config.connect_timeout, config.read_timeout) == (
            budget.connect_seconds,
            budget.read_seconds,
        ), name
        assert config.retries["total_max_attempts"] == 3, name


def test_no_aws_client_starts_an_attempt_after_the_deadline() -> None:
    # Nothing listens on this port: were an attempt started, the call would fail with a connection error instead.
    endpoints = {"endpoint_url": "http://127.0.0.1:9"}
    budget = AwsBudget.from_settings(SETTINGS)
    calls = {
        "dynamodb": lambda c: c.describe_table(TableName="t"),
        "secretsmanager": lambda c: c.get_secret_value(SecretId="x"),
        "lambda": lambda c: c.invoke(FunctionName="f", InvocationType="Event"),
    }
    with deadlines.active(Deadline.after_ms(0)):
        for service, call in calls.items():
            with pytest.raises(AwsCallTimedOut, match="deadline"):
                call(budget.client(service, **endpoints))
