"""The recorded Doubao conversation (events/demo/doubao_2024_11_05) with SESSION_STORE=dynamodb, every request
answered by a freshly imported handler: a new "container" with its own settings, app, store and boto3 client."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import mcp_lambda.handler
from mcp_lambda.settings import get_settings
from mcp_lambda.testing.replay import check_step, load_conversation, substitute
from mcp_lambda_dev.aws_counters import DynamoDBCalls
from mcp_lambda_dev.local.events import LocalContext

CONVERSATION = Path(__file__).resolve().parents[2] / "events" / "demo" / "doubao_2024_11_05"
# DynamoDB requests per step of the conversation: (reads, writes).
EXPECTED_IO = {
    "initialize": (0, 1),
    "notifications_initialized": (1, 0),
    "tools_list": (1, 0),
    "tools_call": (1, 0),
    "delete_session": (1, 1),
}


@pytest.fixture
def fresh_container(monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[], ModuleType]]:
    monkeypatch.setenv("BUSINESS", "demo")

    def cold_start() -> ModuleType:
        get_settings.cache_clear()
        return importlib.reload(mcp_lambda.handler)

    yield cold_start
    monkeypatch.undo()
    cold_start()  # leave a handler built from the untouched environment for other tests


def _replay(cold_start: Callable[[], ModuleType]) -> list[tuple[str, int, Any]]:
    bindings: dict[str, str] = {}
    seen = []
    for step in load_conversation(CONVERSATION):
        container = cold_start()
        calls = DynamoDBCalls().watch(container.runtime.sessions.client)
        response = container.handler(substitute(step.event, bindings), LocalContext())
        seen.append((step.name, int(response["statusCode"]), (calls.reads, calls.writes)))
        check_step(step, response, bindings)
    return seen


def test_doubao_conversation_replays_with_each_request_on_a_fresh_container(
    dynamodb_session_env: dict[str, str], fresh_container: Callable[[], ModuleType]
) -> None:
    seen = _replay(fresh_container)

    assert [name.split("_", 1)[1] for name, _, _ in seen] == list(EXPECTED_IO)
    for name, _, io in seen:
        assert io == EXPECTED_IO[name.split("_", 1)[1]], name


def test_the_same_replay_fails_on_the_in_memory_store(
    monkeypatch: pytest.MonkeyPatch, fresh_container: Callable[[], ModuleType]
) -> None:
    # The control: without a shared store the second container has never heard of the session.
    monkeypatch.setenv("SESSION_STORE", "memory")
    steps = load_conversation(CONVERSATION)
    first = fresh_container().handler(steps[0].event, LocalContext())
    bindings = {"session_id": first["headers"]["mcp-session-id"]}

    second = fresh_container().handler(substitute(steps[1].event, bindings), LocalContext())

    assert second["statusCode"] == 404
