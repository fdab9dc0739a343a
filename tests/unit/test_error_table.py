"""How a tool's failures reach the client: the executor's exception table, a business's own error map, and
results that are not JSON. Driven through the Lambda handler."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from tests.support.handlers import build_handler

from mcp_lambda.stores.sessions import MemorySessionStore
from mcp_lambda.testing import MODERN, McpTestClient
from mcp_lambda.tools import Business, ToolContext, ToolResult, execution_result, tool
from mcp_lambda.tools.business import BusinessDefinitionError


class OrderLocked(Exception):
    pass


class OrderLockedForAudit(OrderLocked):
    pass


@tool(description="Use to cancel an order. Not for refunds.")
def cancel_order(order_id: str, ctx: ToolContext) -> ToolResult:
    if order_id == "audit":
        raise OrderLockedForAudit("internal detail: audit lock row 7")
    raise OrderLocked("internal detail: lock row 3")


@tool(description="Use to test strict JSON: returns a price that is not a number.")
def bad_price(ctx: ToolContext) -> ToolResult:
    return execution_result({"items": [{"price": float("nan")}]}, text="price")


@tool(description="Use to test strict JSON: returns an object JSON cannot carry.")
def bad_type(ctx: ToolContext) -> ToolResult:
    return execution_result({"when": object()}, text="when")


BUSINESS = Business(
    name="errors",
    tools=[cancel_order, bad_price, bad_type],
    error_map={OrderLocked: (40920, "The order is locked; try another order.")},
)


@pytest.fixture
def client() -> McpTestClient:
    return McpTestClient.over_handler(build_handler(BUSINESS, sessions=MemorySessionStore()))


def _structured(reply: Any) -> dict[str, Any]:
    result = reply.result
    assert result["isError"] is True
    return result["structuredContent"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("order_id", ["o-1", "audit"])
def test_a_mapped_business_exception_becomes_its_error_result(client: McpTestClient, order_id: str) -> None:
    reply = client.clone(era=MODERN, capabilities={}).rpc(
        "tools/call", {"name": "cancel_order", "arguments": {"order_id": order_id}}
    )
    assert reply.status == 200
    structured = _structured(reply)
    assert structured["code"] == 40920  # a subclass finds its parent's row (looked up along the MRO)
    assert structured["message"] == "The order is locked; try another order."
    assert "internal detail" not in reply.raw.decode()


def test_a_mapped_exception_is_logged_as_a_finished_business_error(
    client: McpTestClient, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO):
        client.clone(era=MODERN, capabilities={}).rpc(
            "tools/call", {"name": "cancel_order", "arguments": {"order_id": "o-1"}}
        )
    finished = [r for r in caplog.records if getattr(r, "event", None) == "mcp_tool_call_finished"]
    assert len(finished) == 1
    assert finished[0].outcome == "business_error"  # type: ignore[attr-defined]
    assert finished[0].code == 40920  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("tool_name", "where"),
    [("bad_price", "structuredContent.items[0].price is nan"), ("bad_type", "structuredContent.when is a")],
)
@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_a_result_that_is_not_json_becomes_50010_naming_the_field(
    client: McpTestClient, caplog: pytest.LogCaptureFixture, tool_name: str, where: str, era: str
) -> None:
    if era == "legacy":
        session = client.clone(era="2025-11-25")
        session.initialize()
    else:
        session = client.clone(era=MODERN, capabilities={})
    with caplog.at_level(logging.INFO):
        reply = session.rpc("tools/call", {"name": tool_name, "arguments": {}})
    assert reply.status == 200
    assert b"NaN" not in reply.raw
    structured = _structured(reply)
    assert structured["code"] == 50010
    assert where in structured["message"]
    failed = [r for r in caplog.records if getattr(r, "event", None) == "mcp_tool_call_failed"]
    assert [r.error_type for r in failed] == ["ResultNotJson"]  # type: ignore[attr-defined]
    assert where in failed[0].reason  # type: ignore[attr-defined]


def test_an_error_map_row_must_be_an_exception_and_a_code_with_a_message() -> None:
    with pytest.raises(BusinessDefinitionError, match="not an exception"):
        Business(name="x", tools=[], error_map={"OrderLocked": (1, "m")})  # type: ignore[dict-item]
    with pytest.raises(BusinessDefinitionError, match=r"must be \(int, str\)"):
        Business(name="x", tools=[], error_map={OrderLocked: ("40920", "m")})  # type: ignore[dict-item]
