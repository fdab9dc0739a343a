"""Every cross-field rule of Settings holds however settings are built: `Settings(...)`, `Settings.from_env` and
the test kit's `make_settings` refuse the same combinations with the same sentence naming the variables."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from mcp_lambda.settings import Settings, SettingsError
from mcp_lambda.testing import KitError, make_settings
from mcp_lambda.tools import Business

BUSINESS = Business("rules", tools=[])

# (environment, the same as keyword arguments, the refusal's sentence)
RULES: list[Any] = [
    pytest.param(
        {"REQUEST_DEADLINE_MS": "500", "DEADLINE_MARGIN_MS": "500"},
        {"request_deadline_ms": 500, "deadline_margin_ms": 500},
        "DEADLINE_MARGIN_MS must be less than REQUEST_DEADLINE_MS",
        id="margin-inside-deadline",
    ),
    pytest.param(
        {"SESSION_STORE": "dynamodb"},
        {"session_store": "dynamodb"},
        "SESSIONS_TABLE is required when SESSION_STORE=dynamodb",
        id="sessions-table",
    ),
    pytest.param(
        {"IDEMPOTENCY_STORE": "dynamodb"},
        {"idempotency_store": "dynamodb"},
        "IDEMPOTENCY_TABLE is required when IDEMPOTENCY_STORE=dynamodb",
        id="idempotency-table",
    ),
    pytest.param(
        {"TASKS_STORE": "dynamodb"},
        {"tasks_store": "dynamodb"},
        "TASKS_TABLE is required when TASKS_STORE=dynamodb",
        id="tasks-table",
    ),
    pytest.param(
        {"PROTECTION_STORE": "dynamodb"},
        {"protection_store": "dynamodb"},
        "PROTECTION_TABLE is required when PROTECTION_STORE=dynamodb",
        id="protection-table",
    ),
    pytest.param(
        {"AUTH_MODE": "apigateway", "AUTH_ISSUER": ""},
        {"auth_mode": "apigateway", "auth_issuer": None},
        "AUTH_ISSUER is required when AUTH_MODE=apigateway",
        id="auth-issuer",
    ),
    pytest.param(
        {"TASK_TTL_MS": "900000", "TASK_WORKER_TIMEOUT_SECONDS": "900"},
        {"task_ttl_ms": 900_000, "task_worker_timeout_seconds": 900},
        "TASK_TTL_MS must be longer than TASK_WORKER_TIMEOUT_SECONDS",
        id="task-ttl-beyond-worker",
    ),
]


@pytest.mark.parametrize(("env", "arguments", "sentence"), RULES)
def test_from_env_refuses_with_the_sentence(
    env: dict[str, str], arguments: dict[str, Any], sentence: str
) -> None:
    with pytest.raises(SettingsError) as caught:
        Settings.from_env(env)
    assert str(caught.value) == f"invalid configuration: {sentence}"


@pytest.mark.parametrize(("env", "arguments", "sentence"), RULES)
def test_settings_built_in_code_refuse_the_same(
    env: dict[str, str], arguments: dict[str, Any], sentence: str
) -> None:
    with pytest.raises(ValidationError) as caught:
        Settings(**arguments)
    assert Settings.problems(caught.value) == sentence


@pytest.mark.parametrize(("env", "arguments", "sentence"), RULES)
def test_make_settings_refuses_the_same(
    env: dict[str, str], arguments: dict[str, Any], sentence: str
) -> None:
    with pytest.raises(KitError) as caught:
        make_settings(BUSINESS, arguments)
    assert str(caught.value) == f"invalid settings override: {sentence}"


@pytest.mark.parametrize(
    "arguments",
    [
        {"task_ttl": timedelta(minutes=15), "task_worker_timeout": timedelta(minutes=15)},
        {"request_deadline": timedelta(seconds=1), "deadline_margin": timedelta(seconds=2)},
    ],
)
def test_rules_hold_for_durations_given_as_timedeltas(arguments: dict[str, Any]) -> None:
    with pytest.raises(ValidationError, match=r"must be (longer|less) than"):
        Settings(**arguments)


def test_each_side_of_a_rule_alone_is_accepted() -> None:
    settings = Settings(
        request_deadline_ms=501,
        deadline_margin_ms=500,
        session_store="dynamodb",
        sessions_table="sessions",
        task_ttl_ms=900_001,
        auth_mode="jwt",
        auth_issuer="https://issuer.example/",
    )
    assert settings.request_deadline - settings.deadline_margin == timedelta(milliseconds=1)
    assert settings.task_ttl > settings.task_worker_timeout


def test_a_refusal_never_shows_a_value() -> None:
    key = "a-secret-hmac-key-of-some-length"
    with pytest.raises(ValidationError) as caught:
        Settings(request_state_key=key, session_store="dynamodb")
    with pytest.raises(KitError) as kit:
        make_settings(BUSINESS, {"request_state_keys": f"{key},short", "tasks_store": "dynamodb"})
    assert key not in str(caught.value) and key not in str(kit.value) and "short" not in str(kit.value)
    assert "REQUEST_STATE_KEYS: " in str(kit.value)
