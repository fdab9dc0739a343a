"""`make stdio`'s task workers, in process: the stdio transport creates a task, the worker runs it on a thread of
its own while the transport answers `tasks/get`, and a crashed worker is logged, never silent."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any

import pytest
from tests.support.task_business import TASK_BUSINESS, TASKS_CAPABILITIES

from mcp_lambda.calls.task_invoke import TaskStartFailed
from mcp_lambda.composition import build_server
from mcp_lambda.observability import get_logger
from mcp_lambda.settings import Settings
from mcp_lambda.stores.sessions import MemorySessionStore
from mcp_lambda.stores.tasks import MemoryTaskStore
from mcp_lambda.wire import modern_meta
from mcp_lambda_dev.stdio import StdioTransport
from mcp_lambda_dev.task_workers import ThreadTaskWorkers

META = modern_meta(TASKS_CAPABILITIES)
SETTINGS = Settings(business=TASK_BUSINESS.name, aws_lambda_function_name=None, task_poll_interval_ms=100)


def _transport() -> tuple[StdioTransport, ThreadTaskWorkers]:
    logger = get_logger(TASK_BUSINESS.name)
    workers = ThreadTaskWorkers(logger)
    server = build_server(
        SETTINGS, TASK_BUSINESS, MemorySessionStore(), tasks=MemoryTaskStore(), invoker=workers
    )
    workers.bind(server)
    return StdioTransport(server, logger, SETTINGS.max_body_bytes), workers


def _answer(transport: StdioTransport, method: str, **params: Any) -> dict[str, Any]:
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"_meta": META, **params}})
    (answer,) = asyncio.run(transport.answer(line.encode()))
    return dict(answer)


def test_a_task_created_over_stdio_is_worked_on_a_thread_and_read_back() -> None:
    transport, _ = _transport()

    created = _answer(transport, "tools/call", name="count_to", arguments={"n": 2})["result"]
    assert created["resultType"] == "task", created
    deadline = time.monotonic() + 10
    polled = _answer(transport, "tasks/get", taskId=created["taskId"])["result"]
    while polled["status"] == "working" and time.monotonic() < deadline:
        time.sleep(0.02)
        polled = _answer(transport, "tasks/get", taskId=created["taskId"])["result"]

    assert polled["status"] == "completed", polled
    assert polled["result"]["content"] == [{"type": "text", "text": "counted to 2"}]


def test_unbound_workers_are_a_wiring_mistake_that_is_not_retryable() -> None:
    workers = ThreadTaskWorkers(get_logger(TASK_BUSINESS.name))
    with pytest.raises(TaskStartFailed) as refused:
        workers.start("t", 1)
    assert refused.value.retryable is False


def test_a_worker_that_fails_outside_the_tool_is_logged_with_an_error_id(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    transport, workers = _transport()

    async def broken(task_id: str, run: int, invocation_id: str | None = None) -> dict[str, Any]:
        raise RuntimeError("the task store went away")

    assert workers._server is not None
    monkeypatch.setattr(workers._server, "run_task", broken)
    _answer(transport, "tools/call", name="count_to", arguments={"n": 1})
    deadline = time.monotonic() + 10
    while not any(r.message == "task_worker_failed" for r in caplog.records) and time.monotonic() < deadline:
        time.sleep(0.02)

    (record,) = [r for r in caplog.records if r.message == "task_worker_failed"]
    assert record.exc_info is not None and getattr(record, "error_id", None)
