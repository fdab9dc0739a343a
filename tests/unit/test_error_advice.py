"""Every error result tells the agent whether and when to retry, and what to do instead (docs/errors.md)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest
from tests.support.business import TEST_BUSINESS
from tests.support.handlers import build_handler

from mcp_lambda.calls.executor import ToolExecutor
from mcp_lambda.settings import Settings
from mcp_lambda.stores.sessions import MemorySessionStore
from mcp_lambda.testing import McpTestClient
from mcp_lambda.tools import (
    Business,
    ToolContext,
    ToolResult,
    business_error,
    elicit,
    execution_result,
    input_required,
    tool,
)
from mcp_lambda.tools.errors import SecretUnavailable
from mcp_lambda.tools.results import SUGGESTED_ACTIONS

LOG = logging.getLogger("test_error_advice")


class SecretsDown:
    def get(self, name: str) -> str:
        raise SecretUnavailable(name, "unavailable")


@tool(description="Use to test a secret that is not configured.")
def needs_secret(ctx: ToolContext) -> ToolResult:
    return execution_result({"key": ctx.secret("api_key")[:0]})


@tool(description="Use to test a tool that asks for input.")
def asks(ctx: ToolContext) -> Any:
    return input_required(who=elicit("Who?", {"who": {"type": "string"}}))


@tool(description="Use to test a result the manifest refuses.")
def off_contract(ctx: ToolContext) -> ToolResult:
    return execution_result({"x": 1})


ADVICE_BUSINESS = Business(name="advice", tools=[*TEST_BUSINESS.tools, needs_secret, asks, off_contract])


def _refuse(tool_name: str, result: ToolResult, scopes: Any) -> list[str]:
    return ["off_contract: nope"] if tool_name == "off_contract" else []


def _error(reply: Any) -> dict[str, Any]:
    result = reply.result
    assert result["isError"] is True, result
    structured: dict[str, Any] = result["structuredContent"]
    assert structured["suggested_action"] in SUGGESTED_ACTIONS
    assert isinstance(structured["retryable"], bool)
    if structured["retryable"]:
        assert isinstance(structured["retry_after_ms"], int) and structured["retry_after_ms"] >= 0
    return structured


@pytest.fixture
def session() -> McpTestClient:
    handler = build_handler(ADVICE_BUSINESS, Settings(business="advice"), MemorySessionStore())
    legacy = McpTestClient.over_handler(handler, era="2025-11-25")
    legacy.initialize()
    return legacy


@pytest.mark.parametrize(
    ("tool_name", "arguments", "code", "retryable", "action"),
    [
        ("add", {"a": "x", "b": 1}, 40000, False, "fix_arguments"),
        ("explode", {}, 50000, True, "wait_and_retry"),
        ("needs_secret", {}, 50020, False, "escalate_to_human"),
        ("asks", {}, 40010, False, "skip_and_continue"),
    ],
)
def test_every_framework_error_path_carries_its_advice(
    session: McpTestClient, tool_name: str, arguments: dict[str, Any], code: int, retryable: bool, action: str
) -> None:
    structured = _error(session.rpc("tools/call", {"name": tool_name, "arguments": arguments or {}}))
    assert (structured["code"], structured["retryable"], structured["suggested_action"]) == (
        code,
        retryable,
        action,
    )


def _run(spec: Any, ctx: ToolContext, check: Any = None) -> dict[str, Any]:
    result = asyncio.run(ToolExecutor(result_check=check).run(spec, {}, ctx))
    assert isinstance(result, ToolResult)
    return _error(type("HttpReply", (), {"result": result.to_wire()})())


def test_a_manifest_violation_says_escalate_to_human() -> None:
    structured = _run(off_contract, ToolContext(request_id=1, tool_name="off_contract", logger=LOG), _refuse)
    assert structured == {
        "code": 50010,
        "message": "off_contract: nope",
        "retryable": False,
        "suggested_action": "escalate_to_human",
        "retry_after_ms": 0,  # retrying will not help
    }


def test_an_unreachable_secret_service_is_retryable() -> None:
    ctx = ToolContext(request_id=1, tool_name="needs_secret", logger=LOG, secrets=SecretsDown())
    structured = _run(needs_secret, ctx)
    assert (structured["code"], structured["retryable"], structured["suggested_action"]) == (
        50020,
        True,
        "wait_and_retry",
    )
    assert structured["retry_after_ms"] == 1000


@pytest.mark.parametrize(
    ("code", "retryable", "action"),
    [
        (40001, False, "fix_arguments"),
        (40401, False, "ask_user"),
        (42901, True, "wait_and_retry"),
        (50301, True, "wait_and_retry"),
        (1234, False, "fix_arguments"),
    ],
)
def test_business_errors_take_their_family_defaults(code: int, retryable: bool, action: str) -> None:
    structured = business_error(code, "m").structured_content
    assert (structured["retryable"], structured["suggested_action"]) == (retryable, action)
    # Every error says how long to wait (0: retrying will not help); a retryable one also how to back off.
    assert structured["retry_after_ms"] == (1000 if retryable else 0)
    assert ("retry_strategy" in structured) is retryable


def test_a_business_error_can_say_exactly_what_to_do() -> None:
    structured = business_error(
        40920, "locked", retryable=True, retry_after_ms=250, suggested_action="wait_and_retry"
    ).structured_content
    assert structured == {
        "code": 40920,
        "message": "locked",
        "retryable": True,
        "suggested_action": "wait_and_retry",
        "retry_after_ms": 250,
        "retry_strategy": {"kind": "exponential_backoff", "base_ms": 250, "max_ms": 30000, "attempts": 5},
    }
    # A business may say how to back off, too.
    custom = business_error(
        50301, "busy", retry_strategy={"base_ms": 500, "max_ms": 4000, "attempts": 3, "kind": "fixed"}
    ).structured_content["retry_strategy"]
    assert custom == {"kind": "fixed", "base_ms": 500, "max_ms": 4000, "attempts": 3}
    # Overriding retryable alone changes the action with it.
    assert (
        business_error(50001, "m", retryable=False).structured_content["suggested_action"]
        == "escalate_to_human"
    )


@pytest.mark.parametrize(
    "kwargs",
    [
        {"suggested_action": "panic"},
        {"retry_after_ms": -1},
        {"retry_after_ms": True},
        {"retry_after_ms": 1.5},
        {"retry_strategy": {"base_ms": 2000, "max_ms": 1000}},
        {"retry_strategy": {"base_ms": 100, "max_ms": 1000, "kind": "jittery"}},
        {"retry_strategy": {"base_ms": 100, "max_ms": 1000, "attempts": 0}},
    ],
)
def test_bad_advice_is_refused_when_the_tool_is_written(kwargs: dict[str, Any]) -> None:
    with pytest.raises(ValueError):
        business_error(40001, "m", **kwargs)
