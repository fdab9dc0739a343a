"""A tool, prompt or resource that asks the client for input: one documented answer per era and kind.

Sessions (2024-11-05 … 2025-11-25) have no multi round-trip results: a tool answers an error *result* 40010 (a
tool's failures are results the model can read), a prompt or resource a JSON-RPC -32602 error (neither has a
result form for failure). At 2026-07-28 all three answer an InputRequiredResult.
"""

from __future__ import annotations

import pytest
from tests.support.handlers import build_handler
from tests.support.wire import meta

from mcp_lambda.stores.sessions import MemorySessionStore
from mcp_lambda.testing import McpTestClient
from mcp_lambda.tools import (
    Business,
    ToolContext,
    ToolResult,
    elicit,
    execution_result,
    input_required,
    prompt,
    resource,
    tool,
)

ASK = {"name": {"type": "string"}}


@tool(description="Use to greet someone whose name it asks for.")
def greet(ctx: ToolContext) -> ToolResult | object:
    if "who" in ctx.input_responses:
        return execution_result({"greeting": "hello"})
    return input_required(who=elicit("Your name?", ASK))


@prompt(description="A prompt that asks for the user's name first.")
def welcome(ctx: ToolContext) -> object:
    return input_required(who=elicit("Your name?", ASK))


@resource("test://asks", name="asks", description="A resource that asks for the user's name first.")
def asks(ctx: ToolContext) -> object:
    return input_required(who=elicit("Your name?", ASK))


BUSINESS = Business(name="asking", tools=[greet], prompts=[welcome], resources=[asks])


@pytest.fixture
def client() -> McpTestClient:
    return McpTestClient.over_handler(build_handler(BUSINESS, sessions=MemorySessionStore()))


@pytest.fixture
def session(client: McpTestClient) -> McpTestClient:
    legacy = client.clone(era="2025-11-25")
    legacy.initialize()
    return legacy


def test_in_a_session_a_tool_asking_for_input_answers_error_result_40010(session: McpTestClient) -> None:
    reply = session.rpc("tools/call", {"name": "greet", "arguments": {}})
    assert reply.status == 200
    assert reply.result["isError"] is True
    assert reply.result["structuredContent"]["code"] == 40010


@pytest.mark.parametrize(
    ("method", "params"), [("prompts/get", {"name": "welcome"}), ("resources/read", {"uri": "test://asks"})]
)
def test_in_a_session_a_prompt_or_resource_asking_for_input_answers_32602(
    session: McpTestClient, method: str, params: dict[str, str]
) -> None:
    reply = session.rpc(method, params)
    assert reply.status == 200
    assert reply.error["code"] == -32602
    assert "2026-07-28" in reply.error["message"]


@pytest.mark.parametrize(
    ("method", "params"),
    [
        ("tools/call", {"name": "greet", "arguments": {}}),
        ("prompts/get", {"name": "welcome"}),
        ("resources/read", {"uri": "test://asks"}),
    ],
)
def test_at_2026_07_28_every_kind_answers_an_input_required_result(
    client: McpTestClient, method: str, params: dict[str, object]
) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 5,
        "method": method,
        "params": {**params, "_meta": meta(capabilities={"elicitation": {}})},
    }
    name = params.get("uri", params.get("name"))
    reply = client.post(
        body, {"mcp-protocol-version": "2026-07-28", "mcp-method": method, "mcp-name": str(name)}
    )
    assert reply.status == 200, reply.raw
    assert reply.result["resultType"] == "input_required"
    assert set(reply.result["inputRequests"]) == {"who"}
