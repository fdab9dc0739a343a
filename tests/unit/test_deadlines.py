"""Every invocation has a deadline — the earlier of the Lambda context's remaining time and REQUEST_DEADLINE_MS,
less DEADLINE_MARGIN_MS — and a tool still running then is answered with error result 50400, through the handler."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
import time
from typing import Any

import pytest
from tests.support.handlers import build_handler
from tests.support.wire import modern_headers, modern_request

from mcp_lambda.settings import Settings, SettingsError
from mcp_lambda.testing import MODERN, McpTestClient, invoke
from mcp_lambda.tools import (
    Business,
    ToolContext,
    ToolResult,
    execution_result,
    prompt,
    resource,
    tool,
    user,
)
from mcp_lambda_dev.local.events import LocalContext, http_event

STATE: dict[str, Any] = {}
RELEASE = threading.Event()
FINISHED = threading.Event()


@tool(description="Use to test the deadline: an async tool that would wait far past it.")
async def waits_async(ctx: ToolContext) -> ToolResult:
    try:
        await asyncio.sleep(30)
    except asyncio.CancelledError:
        STATE["async_cancelled"] = True
        raise
    return execution_result({"done": True})


@tool(description="Use to test the deadline: a sync tool blocked until the test releases it.")
def waits_sync(ctx: ToolContext) -> ToolResult:
    STATE["sync_thread"] = threading.current_thread().name
    RELEASE.wait(10)
    FINISHED.set()
    return execution_result({"done": True})


@tool(description="Use to see how much of the request deadline is left.")
def remaining(ctx: ToolContext) -> ToolResult:
    return execution_result({"remaining_ms": ctx.remaining_ms()})


@tool(description="Use to test a tool that raises a timeout of its own.")
def own_timeout(ctx: ToolContext) -> ToolResult:
    raise TimeoutError("the socket timed out")


@tool(description="Use to test an async tool that waits a few times, then answers or fails.")
async def waits_then_answers(ctx: ToolContext, fail: bool = False, wait_ms: int = 0) -> ToolResult:
    loop = asyncio.get_running_loop()
    ready = loop.create_future()
    loop.call_soon(ready.set_result, 41)
    value = await ready  # a future another callback resolves
    await asyncio.sleep(0)  # a bare yield to the loop
    try:
        await asyncio.sleep(wait_ms / 1000)
    except asyncio.CancelledError:
        STATE["late_cancelled"] = True
        raise
    if fail:
        raise LookupError("after waiting")
    return execution_result({"value": value + 1})


@tool(description="Use to test an async tool that fails before it waits on anything.")
async def fails_at_once(ctx: ToolContext) -> ToolResult:
    raise TimeoutError("its own timeout, raised before any wait")


PROMPT_RELEASE = threading.Event()


@prompt(description="A prompt whose plain function blocks until the test releases it.")
def slow_prompt(ctx: ToolContext) -> list[dict[str, Any]]:
    STATE["prompt_thread"] = threading.current_thread().name
    PROMPT_RELEASE.wait(10)
    return [user("too late")]


@resource(
    "test://slow", name="slow", description="A resource whose async function waits far past the deadline."
)
async def slow_resource(ctx: ToolContext) -> str:
    try:
        await asyncio.sleep(30)
    except asyncio.CancelledError:
        STATE["resource_cancelled"] = True
        raise
    return "too late"


@resource("test://quick", name="quick", description="A resource that answers at once.")
def quick_resource(ctx: ToolContext) -> str:
    return f"{ctx.remaining_ms() > 0}"


def slow_completer(ref: dict[str, Any], name: str, value: str, arguments: dict[str, Any]) -> list[str]:
    PROMPT_RELEASE.wait(10)
    return ["too late"]


BUSINESS = Business(
    name="deadlines",
    tools=[waits_async, waits_sync, remaining, own_timeout, waits_then_answers, fails_at_once],
    prompts=[slow_prompt],
    resources=[slow_resource, quick_resource],
    completer=slow_completer,
)
SHORT = Settings(business="deadlines", request_deadline_ms=600, deadline_margin_ms=100)


@pytest.fixture
def modern() -> McpTestClient:
    return McpTestClient.over_handler(build_handler(BUSINESS, SHORT), era=MODERN, capabilities={})


def _failed_lines(caplog: pytest.LogCaptureFixture) -> list[Any]:
    return [r for r in caplog.records if getattr(r, "event", None) == "mcp_tool_call_failed"]


def test_an_async_tool_running_at_the_deadline_is_cancelled_and_answered_50400(
    modern: McpTestClient, caplog: pytest.LogCaptureFixture
) -> None:
    STATE.clear()
    with caplog.at_level(logging.INFO):
        reply = modern.rpc("tools/call", {"name": "waits_async", "arguments": {}})

    structured = reply.result["structuredContent"]
    assert reply.status == 200 and reply.result["isError"] is True
    assert structured["code"] == 50400
    assert structured["retryable"] is True and structured["suggested_action"] == "wait_and_retry"
    assert structured["retry_after_ms"] > 0
    assert STATE["async_cancelled"] is True
    (line,) = _failed_lines(caplog)
    assert (line.error_type, line.code, line.outcome) == ("DeadlineExceeded", 50400, "system_error")


def test_a_sync_tool_running_at_the_deadline_is_answered_50400_and_its_thread_abandoned(
    modern: McpTestClient, caplog: pytest.LogCaptureFixture
) -> None:
    RELEASE.clear()
    FINISHED.clear()
    with caplog.at_level(logging.INFO):
        reply = modern.rpc("tools/call", {"name": "waits_sync", "arguments": {}})
    assert reply.result["structuredContent"]["code"] == 50400
    assert STATE["sync_thread"] == "mcp-worker"  # off the event loop
    assert not FINISHED.is_set()  # answered while the tool was still running

    RELEASE.set()
    assert FINISHED.wait(5)  # abandoned, not killed: it ran to its end, and its result went nowhere
    assert [r.error_type for r in _failed_lines(caplog)] == ["DeadlineExceeded"]
    assert (
        "isError" not in modern.rpc("tools/call", {"name": "remaining", "arguments": {}}).result
    )  # the container serves on


def test_the_deadline_holds_in_the_session_revisions_too() -> None:
    session = McpTestClient.over_handler(build_handler(BUSINESS, SHORT), era="2025-03-26")
    session.initialize()
    assert (
        session.rpc("tools/call", {"name": "waits_async", "arguments": {}}).result["structuredContent"][
            "code"
        ]
        == 50400
    )


def test_a_tool_sees_the_request_deadline_less_the_margin(modern: McpTestClient) -> None:
    left = modern.rpc("tools/call", {"name": "remaining", "arguments": {}}).result["structuredContent"][
        "remaining_ms"
    ]
    assert 0 < left <= 500  # REQUEST_DEADLINE_MS=600, DEADLINE_MARGIN_MS=100


def test_the_lambda_context_wins_when_it_has_less_time_left() -> None:
    handler = build_handler(BUSINESS, Settings(business="deadlines", deadline_margin_ms=100))  # 29 s default
    body = modern_request("tools/call", {"name": "remaining", "arguments": {}})
    headers = {
        "host": "localhost",
        "content-type": "application/json",
        **modern_headers("tools/call", "remaining"),
    }
    context = LocalContext(deadline_ms=int(time.time() * 1000) + 1000)

    response = invoke(handler, http_event("POST", "/mcp", headers, json.dumps(body)), context)

    left = json.loads(response["body"])["result"]["structuredContent"]["remaining_ms"]
    assert 0 < left <= 900


def test_a_timeout_the_tool_raises_itself_is_an_internal_error_not_the_deadline(
    modern: McpTestClient,
) -> None:
    assert (
        modern.rpc("tools/call", {"name": "own_timeout", "arguments": {}}).result["structuredContent"]["code"]
        == 50000
    )


def test_the_margin_must_leave_time_before_the_deadline() -> None:
    with pytest.raises(SettingsError, match="DEADLINE_MARGIN_MS must be less than REQUEST_DEADLINE_MS"):
        Settings.from_env({"REQUEST_DEADLINE_MS": "500", "DEADLINE_MARGIN_MS": "500"})


def test_an_async_tool_that_waits_gets_what_it_waited_for(modern: McpTestClient) -> None:
    # Its first step runs at once; the rest runs under the deadline's timer, wake-ups passed through.
    assert modern.rpc("tools/call", {"name": "waits_then_answers", "arguments": {}}).result[
        "structuredContent"
    ] == {"value": 42}
    failed = modern.rpc("tools/call", {"name": "waits_then_answers", "arguments": {"fail": True}}).result[
        "structuredContent"
    ]
    assert failed["code"] == 50000  # an exception after a wait is the tool's own, logged with an error id


def test_an_async_tool_cancelled_at_the_deadline_after_its_first_waits(modern: McpTestClient) -> None:
    STATE.clear()
    reply = modern.rpc("tools/call", {"name": "waits_then_answers", "arguments": {"wait_ms": 30_000}})
    assert reply.result["structuredContent"]["code"] == 50400 and STATE["late_cancelled"] is True


def test_an_async_tool_failing_in_its_first_step_is_its_own_failure(modern: McpTestClient) -> None:
    assert (
        modern.rpc("tools/call", {"name": "fails_at_once", "arguments": {}}).result["structuredContent"][
            "code"
        ]
        == 50000
    )


def _timed_out(reply: Any, method: str, target: str) -> None:
    assert reply.status == 503 and reply.headers.get("retry-after") == "1"
    error = reply.body["error"]
    assert error["code"] == -32003
    # The body says what Retry-After says, and how to back off: an agent may read the body only.
    assert error["data"]["retryable"] is True and error["data"]["suggested_action"] == "wait_and_retry"
    assert error["data"]["retry_after_ms"] == 1000 and error["data"]["retry_strategy"]["base_ms"] == 1000
    assert f"{method} of '{target}' did not finish within the request deadline" in error["message"]


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_prompt_resource_or_completion_still_running_at_the_deadline_is_answered_503(
    era: str, caplog: pytest.LogCaptureFixture
) -> None:
    client = McpTestClient.over_handler(build_handler(BUSINESS, SHORT))
    if era == "legacy":
        session = client.clone(era="2025-11-25")
        session.initialize()
        request: Any = session.rpc
    else:
        request = client.clone(era=MODERN, capabilities={}).rpc
    STATE.clear()
    PROMPT_RELEASE.clear()
    with caplog.at_level(logging.INFO):
        _timed_out(request("prompts/get", {"name": "slow_prompt"}), "prompts/get", "slow_prompt")
        _timed_out(request("resources/read", {"uri": "test://slow"}), "resources/read", "test://slow")
        completion = {
            "ref": {"type": "ref/prompt", "name": "slow_prompt"},
            "argument": {"name": "city", "value": "b"},
        }
        _timed_out(request("completion/complete", completion), "completion/complete", "city")
    PROMPT_RELEASE.set()  # the abandoned prompt's thread finishes, unobserved
    assert STATE["prompt_thread"] == "mcp-worker" and STATE["resource_cancelled"] is True
    failed = [r for r in caplog.records if getattr(r, "event", None) == "mcp_request_failed"]
    assert [(r.method, r.error_type) for r in failed] == [  # type: ignore[attr-defined]
        ("prompts/get", "DeadlineExceeded"),
        ("resources/read", "DeadlineExceeded"),
        ("completion/complete", "DeadlineExceeded"),
    ]
    quick = request("resources/read", {"uri": "test://quick"})  # the container serves on, within the deadline
    assert quick.status == 200 and quick.body["result"]["contents"][0]["text"] == "True"
