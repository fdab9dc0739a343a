"""`@tool(limits=CallLimits(rate=...))`: per caller, per tool, per container; over the rate is error result 42900 with
`retry_after_ms`, through the handler."""

from __future__ import annotations

import logging

import pytest
from tests.support.handlers import build_handler

from mcp_lambda.settings import Settings
from mcp_lambda.testing import MODERN, McpTestClient
from mcp_lambda.tools import Business, CallLimits, ToolContext, ToolResult, execution_result, tool
from mcp_lambda.tools.errors import ToolSignatureError

ALICE = {"jwt": {"claims": {"sub": "alice", "iss": "https://issuer.example"}}}
BOB = {"jwt": {"claims": {"sub": "bob", "iss": "https://issuer.example"}}}


@tool(
    description="Use to quote a price. Limited to two calls a minute per caller.",
    limits=CallLimits(rate="2/minute"),
)
def quote(ctx: ToolContext) -> ToolResult:
    return execution_result({"price": 3})


@tool(description="Use to ping. Not limited.")
def unlimited(ctx: ToolContext) -> ToolResult:
    return execution_result({"ok": True})


BUSINESS = Business(name="limited", tools=[quote, unlimited])


def _caller(handler: object, authorizer: dict[str, object] | None) -> McpTestClient:
    return McpTestClient.over_handler(handler, authorizer=authorizer, era=MODERN, capabilities={})  # type: ignore[arg-type]


def test_a_caller_over_the_rate_gets_42900_with_retry_after(caplog: pytest.LogCaptureFixture) -> None:
    alice = _caller(build_handler(BUSINESS, Settings(business="limited")), ALICE)
    with caplog.at_level(logging.INFO):
        answers = [alice.rpc("tools/call", {"name": "quote", "arguments": {}}).result for _ in range(3)]

    assert [a.get("isError", False) for a in answers] == [False, False, True]
    structured = answers[2]["structuredContent"]
    assert structured["code"] == 42900
    assert structured["retryable"] is True and structured["suggested_action"] == "wait_and_retry"
    assert 0 < structured["retry_after_ms"] <= 60_000
    failed = [r for r in caplog.records if getattr(r, "event", None) == "mcp_tool_call_failed"]
    assert [(r.error_type, r.outcome) for r in failed] == [("RateLimited", "rate_limited")]  # type: ignore[attr-defined]


def test_the_rate_is_counted_per_caller_and_per_tool() -> None:
    handler = build_handler(BUSINESS, Settings(business="limited"))
    alice, bob, anonymous = _caller(handler, ALICE), _caller(handler, BOB), _caller(handler, None)
    for _ in range(2):
        alice.rpc("tools/call", {"name": "quote", "arguments": {}})

    assert (
        alice.rpc("tools/call", {"name": "quote", "arguments": {}}).result["structuredContent"]["code"]
        == 42900
    )
    assert bob.rpc("tools/call", {"name": "quote", "arguments": {}}).result["structuredContent"] == {
        "price": 3
    }
    assert anonymous.rpc("tools/call", {"name": "quote", "arguments": {}}).result["structuredContent"] == {
        "price": 3
    }
    assert alice.rpc("tools/call", {"name": "unlimited", "arguments": {}}).result["structuredContent"] == {
        "ok": True
    }


def test_each_container_counts_its_own_calls() -> None:
    first = _caller(build_handler(BUSINESS, Settings(business="limited")), ALICE)
    second = _caller(build_handler(BUSINESS, Settings(business="limited")), ALICE)
    for _ in range(3):
        first.rpc("tools/call", {"name": "quote", "arguments": {}})
    assert second.rpc("tools/call", {"name": "quote", "arguments": {}}).result["structuredContent"] == {
        "price": 3
    }  # a guard, not the global limit


@pytest.mark.parametrize("rate", ["often", "5/fortnight", "-1/second"])
def test_a_rate_that_is_not_one_fails_at_import(rate: str) -> None:
    with pytest.raises(ToolSignatureError, match=r"limits\.rate"):

        @tool(description="Use to test a bad rate.", limits=CallLimits(rate=rate))
        def bad(ctx: ToolContext) -> ToolResult:
            return execution_result({})
