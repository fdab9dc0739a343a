"""Regression tests for what a black-box probe of `make run` found (issue #10, section 4), through the handler.
The `make run` defects (Content-Length, listen backlog) are in tests/integration/test_local_server.py."""

from __future__ import annotations

import base64
import io
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from tests.support.business import TEST_BUSINESS
from tests.support.handlers import build_handler
from tests.support.wire import modern_headers, modern_request

from mcp_lambda.observability import get_logger
from mcp_lambda.settings import Settings
from mcp_lambda.testing import MODERN, McpTestClient
from mcp_lambda.tools import Business, ToolContext, ToolResult, execution_result, tool

DEEP = 900  # under the JSON parser's own limit, far over ours (64)


def _nested(depth: int) -> str:
    return '{"a":' * depth + "{}" + "}" * depth


# --- 4.1 a cursor that decodes to deeply nested JSON (fixed before; kept fixed) -------------------------------


def test_a_cursor_of_deeply_nested_json_is_32602_in_both_eras(
    legacy: McpTestClient, modern: McpTestClient
) -> None:
    cursor = base64.urlsafe_b64encode(b"[" * 180).decode().rstrip("=")

    old = legacy.rpc("tools/list", {"cursor": cursor})
    new = modern.rpc("tools/list", {"cursor": cursor})

    assert (old.status, old.error["code"]) == (200, -32602)
    assert (new.status, new.error["code"]) == (400, -32602)


# --- 4.2 a tools/call name that is not a string (fixed before; kept fixed) ------------------------------------


@pytest.mark.parametrize("name", [["echo"], {"n": "echo"}, 7, None])
def test_a_tool_name_that_is_not_a_string_is_32602_in_both_eras(
    legacy: McpTestClient, modern: McpTestClient, name: Any
) -> None:
    old = legacy.rpc("tools/call", {"name": name, "arguments": {}})
    new = modern.post(modern_request("tools/call", {"name": name}), modern_headers("tools/call", "echo"))

    assert (old.status, old.error["code"]) == (200, -32602)
    assert (new.status, new.error["code"]) == (400, -32602)


# --- 4.3 client values nested deeply enough to break re-encoding ----------------------------------------------


@pytest.mark.parametrize("field", ["capabilities", "clientInfo"])
def test_initialize_with_a_deeply_nested_client_value_is_32602(client: McpTestClient, field: str) -> None:
    params = {
        "protocolVersion": '"2025-03-26"',
        "capabilities": "{}",
        "clientInfo": '{"name":"x","version":"1"}',
    }
    params[field] = _nested(DEEP)
    fields = ",".join(f'"{key}":{value}' for key, value in params.items())
    raw = '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{' + fields + "}}"

    reply = client.post(raw=raw)

    assert reply.status == 200 and reply.error["code"] == -32602
    assert f"params.{field} is nested more than 64 levels deep" in reply.error["message"]
    assert "mcp-session-id" not in reply.headers


def test_tool_arguments_nested_too_deeply_are_32602_in_both_eras(
    legacy: McpTestClient, modern: McpTestClient
) -> None:
    body = '"name":"echo","arguments":{"message":' + _nested(DEEP) + "}"
    meta = json.dumps(modern_request("x")["params"]["_meta"])
    old = legacy.post(
        raw='{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{' + body + "}}",
        headers=legacy.request_headers(),
    )
    new = modern.post(
        raw='{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{' + body + ',"_meta":' + meta + "}}",
        headers=modern_headers("tools/call", "echo"),
    )

    for reply in (old, new):
        assert reply.error["code"] == -32602 and "params.arguments" in reply.error["message"]
        assert reply.body["id"] == 5


# --- 4.4 batch length and the size of the answer --------------------------------------------------------------


def _batch_client(**settings: Any) -> McpTestClient:
    session = McpTestClient.over_handler(
        build_handler(TEST_BUSINESS, Settings(business="testbiz", **settings)), era="2025-03-26"
    )
    session.initialize()
    return session


def test_a_batch_of_more_than_100_messages_is_refused() -> None:
    session = _batch_client()
    batch = [{"jsonrpc": "2.0", "id": n, "method": "tools/list"} for n in range(101)]

    refused = session.post(batch, session.request_headers())
    accepted = session.post(batch[:100], session.request_headers())

    assert refused.status == 400 and refused.error["code"] == -32600
    assert "at most 100 messages" in refused.error["message"]
    assert accepted.status == 200 and len(accepted.body) == 100


def test_a_batch_whose_answer_is_too_large_gets_an_error_per_request() -> None:
    session = _batch_client(max_response_bytes=4096)
    batch = [{"jsonrpc": "2.0", "id": n, "method": "tools/list"} for n in range(10)]

    reply = session.post(batch, session.request_headers())

    assert reply.status == 200
    assert [item["id"] for item in reply.body] == list(range(10))
    assert {item["error"]["code"] for item in reply.body} == {-32603}
    assert "Response too large" in reply.body[0]["error"]["message"]


@tool(description="Use to test the Lambda response limit: returns about 7 MB of text.")
def huge(ctx: ToolContext) -> ToolResult:
    return execution_result({"text": "x" * (7 * 1024 * 1024)}, text="huge")


@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_an_answer_over_the_lambda_response_limit_is_a_json_rpc_error(era: str) -> None:
    handler = build_handler(Business(name="huge", tools=[huge]), Settings(business="huge"))
    if era == "legacy":
        session = McpTestClient.over_handler(handler, era="2025-11-25")
        session.initialize()
        reply = session.rpc("tools/call", {"name": "huge", "arguments": {}})
    else:
        reply = McpTestClient.over_handler(handler, era=MODERN, capabilities={}).rpc(
            "tools/call", {"name": "huge", "arguments": {}}
        )

    assert reply.status == 200 and len(reply.raw) < 1024
    assert reply.error["code"] == -32603 and "6000000-byte response limit" in reply.error["message"]
    assert reply.body["id"] is not None


# --- 4.5 a Host header Mangum cannot read ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "headers",
    [{"host": "a:b:c"}, {"host": "[::1]:3501"}, {"host": "example.com:http"}, {"x-forwarded-port": "abc"}],
    ids=["two-colons", "ipv6-literal", "named-port", "forwarded-port"],
)
def test_a_host_the_adapter_cannot_read_is_400_not_a_failed_invocation(
    client: McpTestClient, headers: dict[str, str]
) -> None:
    for method in ("POST", "GET", "DELETE"):
        reply = client.send(method, {"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers)
        assert reply.status == 400, reply.raw
        assert reply.error["code"] == -32600 and "host[:port]" in reply.error["message"]


@pytest.mark.parametrize(
    "headers",
    [
        {"host": "example.com"},
        {"host": "example.com:8443"},
        {"Host": "a:b:c"},
        {"HOST": "example.com:http"},
        {"host": "example.com", "X-Forwarded-Port": "abc"},
        {"Host": "a:b:c", "host": "example.com"},  # Mangum lower-cases the names: the later one wins
        {"host": "example.com", "Host": "a:b:c"},
        {"ΣHOST": "x", "host": "example.com:1"},
        {},
    ],
)
def test_the_host_check_refuses_exactly_what_mangum_cannot_read(headers: dict[str, str]) -> None:
    from mangum.handlers import HTTPGateway

    from mcp_lambda.lambda_adapter import unreadable_host
    from mcp_lambda.testing.apigateway import LocalContext, http_event

    event = http_event("POST", "/mcp", {}, "{}")
    event["headers"] = dict(headers)
    config: Any = {"api_gateway_base_path": "/", "text_mime_types": [], "exclude_headers": []}
    try:
        assert HTTPGateway(event, LocalContext(), config).scope
    except ValueError:
        mangum_reads = False
    else:
        mangum_reads = True
    assert (unreadable_host(event) is None) is mangum_reads


# --- 4.7 a lone surrogate must not lose a log line ------------------------------------------------------------


@contextmanager
def strict_utf8_log(name: str) -> Iterator[io.BytesIO]:
    """The business logger writing through a strict UTF-8 stream, as Lambda's stdout does."""
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="utf-8", errors="strict", write_through=True)
    handler = logging.StreamHandler(stream)
    handler.setFormatter(get_logger(name).registered_formatter)
    logging.getLogger(name).addHandler(handler)
    try:
        yield raw
    finally:
        logging.getLogger(name).removeHandler(handler)
        stream.detach()  # keep `raw` open for the test to read


@pytest.mark.parametrize(
    ("params", "logged"),
    [
        ('{"name":"echo","arguments":{"message":"a\\ud800b"}}', ("arguments", {"message": "a\ud800b"})),
        (
            '{"name":"echo","arguments":{"message":"ok"},"_meta":{"tool_call_id":"call-\\udfff"}}',
            ("tool_call_id", "call-\udfff"),
        ),
    ],
    ids=["safe-argument", "tool-call-id"],
)
def test_a_lone_surrogate_never_loses_a_log_line(
    legacy: McpTestClient, params: str, logged: tuple[str, Any]
) -> None:
    with strict_utf8_log(TEST_BUSINESS.name) as raw:
        reply = legacy.post(
            raw='{"jsonrpc":"2.0","id":3,"method":"tools/call","params":' + params + "}",
            headers=legacy.request_headers(),
        )

    assert reply.status == 200
    lines = [json.loads(line) for line in raw.getvalue().decode("utf-8").splitlines()]
    events = [line.get("event") for line in lines if str(line.get("event")).startswith("mcp_tool_call")]
    # The started line and the one finishing line (pydantic refuses the surrogate argument: failed, 40000).
    assert events[0] == "mcp_tool_call_started" and len(events) == 2
    started = next(line for line in lines if line.get("event") == "mcp_tool_call_started")
    assert started[logged[0]] == logged[1]  # written as its JSON escape, read back as the same string
