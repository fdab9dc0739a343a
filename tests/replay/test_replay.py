"""Replay the saved API Gateway events of events/demo/ through mcp_lambda.handler.handler, in order, and
compare each response with its recording; every server message is also checked against the official wire types."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.replay import Step, check_step, load_conversation, substitute
from tests.support.wire import check_error_shape, check_legacy, check_modern

from mcp_lambda.settings import get_settings
from mcp_lambda.tasks import parse_task_event
from mcp_lambda_dev.local.events import LocalContext
from mcp_lambda_dev.local.lambda_service import LocalLambda

EVENTS = Path(__file__).resolve().parents[2] / "events" / "demo"
CONVERSATIONS = sorted(p.name for p in EVENTS.iterdir() if p.is_dir())


# Variables that would change what the recordings assume (demo business, its manifest, memory sessions).
SETTINGS_VARIABLES = (
    "BUSINESS",
    "SESSION_STORE",
    "SESSIONS_TABLE",
    "MANIFEST_DIR",
    "ALLOWED_ORIGINS",
    "ALLOWED_HOSTS",
    "MAX_BODY_BYTES",
    "TOOLS_PAGE_SIZE",
    "LIST_TTL_MS",
    "TASKS_STORE",
    "TASKS_TABLE",
    "TASK_TTL_MS",
    "TASK_POLL_INTERVAL_MS",
    "TASK_WORKER_TIMEOUT_SECONDS",
)


@pytest.fixture(scope="module")
def invoke_api() -> Iterator[LocalLambda]:
    """The Invoke API the handler starts task workers through; it records them, the replay delivers them."""
    service = LocalLambda("mcp-replay-demo", execute=False).start()
    yield service
    service.stop()


@pytest.fixture(scope="module")
def handler(invoke_api: LocalLambda) -> Iterator[Any]:
    """The real Lambda entry point, built fresh from the default settings (a cold start)."""
    module = importlib.import_module("mcp_lambda.handler")
    with pytest.MonkeyPatch.context() as patch:
        for name in SETTINGS_VARIABLES:
            patch.delenv(name, raising=False)
        environment: dict[str, str] = {}
        invoke_api.configure_environment(environment)
        for name, value in environment.items():
            patch.setenv(name, value)
        get_settings.cache_clear()
        yield importlib.reload(module).handler
    get_settings.cache_clear()
    importlib.reload(module)  # leave a handler built from the untouched environment for other tests


def _check_wire(step: Step, seen: dict[str, Any]) -> None:
    body = seen["body"]
    if body is None:
        return
    if seen["statusCode"] in (403, 406, 413, 415):
        check_error_shape(body)
    elif step.era == "modern":
        for message in body if isinstance(body, list) else [body]:
            check_modern(message, step.method)
    else:
        check_legacy(body, step.method)


def test_the_conversations_are_saved() -> None:
    saved = {"doubao_2024_11_05", "modern_2026_07_28", "four_cases", "bad_inputs", "tasks_2026_07_28"}
    assert saved <= set(CONVERSATIONS)


@pytest.mark.parametrize("conversation", CONVERSATIONS)
def test_conversation_replays_as_recorded(handler: Any, invoke_api: LocalLambda, conversation: str) -> None:
    steps = load_conversation(EVENTS / conversation)
    assert steps, f"no events in {conversation}"
    invoke_api.invocations.clear()
    bindings: dict[str, str] = {}
    for step in steps:
        event = substitute(step.event, bindings)
        if step.worker:
            # The event the earlier steps really queued through lambda:InvokeFunction is the recorded one.
            assert invoke_api.invocations, f"{step.name}: nothing invoked the task worker"
            assert invoke_api.invocations.pop(0) == event
        response = handler(event, LocalContext())
        seen = check_step(step, response, bindings)
        _check_wire(step, seen)
    assert not invoke_api.invocations, "every queued worker invocation is a recorded step"


@pytest.mark.parametrize("conversation", CONVERSATIONS)
def test_events_are_api_gateway_http_api_payload_2_0(conversation: str) -> None:
    for step in load_conversation(EVENTS / conversation):
        event = step.event
        if step.worker:
            assert parse_task_event(event) is not None and set(event) == {"mcp_lambda.task"}
            assert set(step.expected) == {"result"}
            continue
        assert event["version"] == "2.0"
        assert event["rawPath"] == "/mcp"
        assert event["requestContext"]["http"]["method"] in ("POST", "GET", "DELETE")
        assert all(name == name.lower() for name in event["headers"])
        assert set(step.expected) == {"statusCode", "headers", "body"}


def test_modern_conversation_never_sees_a_session_id() -> None:
    for step in load_conversation(EVENTS / "modern_2026_07_28"):
        assert step.expected["headers"]["mcp-session-id"] is None
