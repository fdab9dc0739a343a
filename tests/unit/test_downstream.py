"""`ctx.http` through the handler, against a fake downstream service on 127.0.0.1: answers, retries only where a
retry is safe, what a tool that lets a failure go answers, deadline-capped timeouts, and the one log line."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from tests.support.fake_service import FakeService, Seen, fake_service
from tests.support.handlers import build_handler

from mcp_lambda.deadlines import Deadline
from mcp_lambda.downstream.retry import DeadlineRetry
from mcp_lambda.settings import Settings
from mcp_lambda.testing import MODERN, McpTestClient
from mcp_lambda.tools import (
    Business,
    ToolAnnotations,
    ToolContext,
    ToolResult,
    business_error,
    execution_result,
    tool,
)

TARGET = {"url": ""}
TOKEN = "tok-7c1d2e9f"


@tool(
    description="Use to read an item from the downstream service.",
    annotations=ToolAnnotations(read_only=True),
    safe_fields=("item",),
)
def read_item(item: str, ctx: ToolContext) -> ToolResult:
    answer = ctx.http.get(
        f"{TARGET['url']}/items/{item}",
        params={"phone": "13800138000"},
        headers={"authorization": f"Bearer {TOKEN}"},
        interface="items.get",
    )
    if answer.status == 404:
        return business_error(40401, "no such item")
    return execution_result({"status": answer.status, "body": answer.json()})


@tool(description="Use to create an order on the downstream service.")
def create_order(ctx: ToolContext) -> ToolResult:
    answer = ctx.http.post(f"{TARGET['url']}/orders", json_body={"n": 1}, interface="orders.create")
    return execution_result({"status": answer.status})


@tool(description="Use to upsert an order the downstream treats as idempotent.")
def upsert_order(ctx: ToolContext) -> ToolResult:
    answer = ctx.http.post(f"{TARGET['url']}/orders", json_body={"n": 1}, idempotent=True)
    return execution_result({"status": answer.status})


BUSINESS = Business(name="outbound", tools=[read_item, create_order, upsert_order], egress=["127.0.0.1"])


@pytest.fixture
def service() -> Iterator[FakeService]:
    with fake_service() as running:
        TARGET["url"] = running.url
        yield running


def _client(**settings: Any) -> McpTestClient:
    base: dict[str, Any] = {"http_timeout_ms": 2000, "http_max_attempts": 3}
    return McpTestClient.over_handler(
        build_handler(BUSINESS, Settings(business="outbound", **{**base, **settings})),
        era=MODERN,
        capabilities={},
    )


def _structured(reply: Any) -> dict[str, Any]:
    return reply.result["structuredContent"]  # type: ignore[no-any-return]


def test_a_call_returns_the_answer_and_logs_one_line_without_values(
    service: FakeService, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO):
        reply = _client().rpc("tools/call", {"name": "read_item", "arguments": {"item": "i-1"}})

    assert _structured(reply) == {"status": 200, "body": {"code": 0, "query": {"phone": "13800138000"}}}
    assert service.seen[0].headers["authorization"] == f"Bearer {TOKEN}"
    (line,) = [r for r in caplog.records if getattr(r, "event", None) == "downstream_call"]
    assert (line.interface, line.method, line.http_status, line.business_code) == ("items.get", "GET", 200, 0)
    assert (line.log_id, line.attempts, line.host) == ("L-1", 1, service.url)
    assert line.duration_ms >= 0
    text = " ".join(str(value) for value in vars(line).values())
    assert TOKEN not in text and "13800138000" not in text and "/items/" not in text


def test_a_4xx_answer_is_the_tools_to_read(service: FakeService) -> None:
    service.routes["/items/gone"] = lambda request: (404, {"code": 404})
    assert (
        _structured(_client().rpc("tools/call", {"name": "read_item", "arguments": {"item": "gone"}}))["code"]
        == 40401
    )


def test_an_idempotent_call_is_retried_on_a_5xx(service: FakeService) -> None:
    service.statuses = [503, 502]
    assert (
        _structured(_client().rpc("tools/call", {"name": "read_item", "arguments": {"item": "i-1"}}))[
            "status"
        ]
        == 200
    )
    assert [seen.method for seen in service.seen] == ["GET"] * 3


def test_a_post_is_not_retried_and_a_5xx_the_tool_lets_go_is_50300(service: FakeService) -> None:
    service.statuses = [503]
    structured = _structured(_client().rpc("tools/call", {"name": "create_order", "arguments": {}}))
    assert structured["code"] == 50300 and structured["retryable"] is True
    assert [seen.method for seen in service.seen] == ["POST"]


def test_a_post_marked_idempotent_is_retried(service: FakeService) -> None:
    service.statuses = [500]
    assert _structured(_client().rpc("tools/call", {"name": "upsert_order", "arguments": {}})) == {
        "status": 200
    }
    assert [seen.method for seen in service.seen] == ["POST", "POST"]


def test_an_unreachable_service_is_50300() -> None:
    TARGET["url"] = "http://127.0.0.1:9"  # discard: nobody listens
    structured = _structured(_client().rpc("tools/call", {"name": "read_item", "arguments": {"item": "i-1"}}))
    assert structured["code"] == 50300 and structured["suggested_action"] == "wait_and_retry"


def test_the_request_deadline_caps_a_longer_timeout_and_answers_50400(service: FakeService) -> None:
    release = threading.Event()

    def stall(request: Seen) -> tuple[int, Any]:
        release.wait(5)
        return 200, {"code": 0}

    service.routes["/items/slow"] = stall
    client = _client(http_timeout_ms=10_000, request_deadline_ms=1000, deadline_margin_ms=200)
    try:
        structured = _structured(
            client.rpc("tools/call", {"name": "read_item", "arguments": {"item": "slow"}})
        )
    finally:
        release.set()
    assert structured["code"] == 50400 and structured["retryable"] is True


def test_backoff_has_jitter_and_never_sleeps_past_the_deadline() -> None:
    retry = DeadlineRetry(total=5, backoff_factor=0.2)
    for _ in range(3):
        retry = retry.increment(method="GET", url="/", error=ConnectionError())  # type: ignore[arg-type]
    draws = {retry.get_backoff_time() for _ in range(50)}
    assert all(0 <= draw < 0.8 for draw in draws) and len(draws) > 1  # uniform in [0, 0.2 * 2**2)

    retry.deadline = Deadline(time.monotonic() + 0.01)
    assert max(retry.get_backoff_time() for _ in range(50)) <= 0.01
    retry.deadline = Deadline(time.monotonic() - 1)
    assert retry.is_exhausted()
