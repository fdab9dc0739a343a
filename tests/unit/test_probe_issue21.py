"""Regression tests for what a black-box probe found (issue #21), through the handler."""

from __future__ import annotations

import pytest
from tests.support.handlers import build_handler
from tests.support.wire import modern_headers, modern_request

from businesses.demo import BUSINESS
from mcp_lambda.settings import Settings
from mcp_lambda.testing import McpTestClient

SEARCH = {"name": "search_products", "arguments": {"keyword": "lamp"}}


@pytest.fixture
def demo() -> McpTestClient:
    return McpTestClient.over_handler(
        build_handler(BUSINESS, Settings(business="demo", request_state_key="k" * 32))
    )


# --- 1. a lone surrogate in params.requestState ----------------------------------------------------------------


@pytest.mark.parametrize("state", ["\ud800.\ud800", "\udfff", "a\x00.b", "é.é"])
def test_a_request_state_that_is_not_ascii_is_32602_with_the_id(demo: McpTestClient, state: str) -> None:
    reply = demo.post(
        modern_request("tools/call", {**SEARCH, "requestState": state}, request_id=21),
        modern_headers("tools/call", "search_products"),
    )

    assert (reply.status, reply.error["code"], reply.body["id"]) == (400, -32602, 21)
    assert "requestState" in reply.error["message"]


def test_a_session_request_ignores_a_lone_surrogate_request_state(demo: McpTestClient) -> None:
    session = demo.clone(era="2025-11-25")
    session.initialize()

    reply = session.rpc("tools/call", {**SEARCH, "requestState": "\ud800.\ud800"})

    assert reply.status == 200 and "structuredContent" in reply.result
