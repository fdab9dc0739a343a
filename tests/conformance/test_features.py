"""Resources, prompts, completion, logging and progress through the handler, in both eras."""

from __future__ import annotations

import json

from mcp_lambda.transport.sse import decode_sse

from .inprocess import Caller


def test_unknown_resource_is_32602_with_uri_at_2026() -> None:
    status, body = Caller().modern("resources/read", {"uri": "test://nope"})
    assert (status, body["error"]["code"], body["error"]["data"]) == (400, -32602, {"uri": "test://nope"})


def test_unknown_resource_is_32002_in_legacy_era() -> None:
    caller = Caller()
    session = caller.legacy_session()
    status, _, raw = caller.legacy(session, "resources/read", {"uri": "test://nope"})
    assert status == 200
    assert json.loads(raw)["error"]["code"] == -32002


def test_binary_resource_is_a_base64_blob_with_mime_type() -> None:
    _, body = Caller().modern("resources/read", {"uri": "test://static-binary"})
    (content,) = body["result"]["contents"]
    assert content["mimeType"] == "image/png" and content["uri"] == "test://static-binary" and content["blob"]
    assert body["result"]["cacheScope"] == "public" and isinstance(body["result"]["ttlMs"], int)


def test_template_substitutes_the_id() -> None:
    _, body = Caller().modern("resources/read", {"uri": "test://template/42/data"})
    assert json.loads(body["result"]["contents"][0]["text"])["id"] == "42"


def test_prompt_missing_argument_names_it() -> None:
    status, body = Caller().modern(
        "prompts/get", {"name": "test_prompt_with_arguments", "arguments": {"arg1": "a"}}
    )
    assert (status, body["error"]["code"]) == (400, -32602)
    assert "arg2" in body["error"]["message"]


def test_completion_filters_by_prefix() -> None:
    _, body = Caller().modern(
        "completion/complete",
        {
            "ref": {"type": "ref/prompt", "name": "test_simple_prompt"},
            "argument": {"name": "arg1", "value": "par"},
        },
    )
    assert body["result"]["completion"]["values"] == ["paris", "park", "party"]


def test_progress_streams_before_the_response_as_sse() -> None:
    caller = Caller()
    status, headers, raw = caller.raw(
        {
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call",
            "mcp-name": "test_tool_with_progress",
        },
        {
            "jsonrpc": "2.0",
            "id": 9,
            "method": "tools/call",
            "params": {
                "name": "test_tool_with_progress",
                "arguments": {},
                "_meta": {
                    "progressToken": "p1",
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                },
            },
        },
    )
    assert status == 200
    assert headers["content-type"].startswith("text/event-stream")
    assert headers["x-accel-buffering"] == "no"
    messages = decode_sse(raw)
    assert [m["params"]["progress"] for m in messages[:-1]] == [0, 50, 100]
    assert all(m["params"]["progressToken"] == "p1" for m in messages[:-1])
    assert messages[-1]["id"] == 9 and messages[-1]["result"]["resultType"] == "complete"


def test_no_log_notifications_unless_asked_at_2026() -> None:
    caller = Caller()
    _, headers, raw = caller.raw(
        {
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "tools/call",
            "mcp-name": "test_tool_with_logging",
        },
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {
                "name": "test_tool_with_logging",
                "arguments": {},
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                    "io.modelcontextprotocol/clientCapabilities": {},
                },
            },
        },
    )
    assert headers["content-type"].startswith("application/json")
    assert "notifications/message" not in raw.decode()


def test_legacy_set_level_persists_for_the_session() -> None:
    caller = Caller()
    session = caller.legacy_session()
    _, _, quiet = caller.legacy(session, "tools/call", {"name": "test_tool_with_logging"}, accept_sse=True)
    assert "notifications/message" not in quiet.decode()
    status, _, raw = caller.legacy(session, "logging/setLevel", {"level": "info"})
    assert (status, json.loads(raw)["result"]) == (200, {})
    _, _, loud = caller.legacy(session, "tools/call", {"name": "test_tool_with_logging"}, accept_sse=True)
    logs = [m for m in decode_sse(loud) if m.get("method") == "notifications/message"]
    assert [m["params"]["data"] for m in logs] == [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ]


def test_mcp_param_header_must_mirror_the_argument() -> None:
    caller = Caller()
    params = {"name": "test_x_mcp_header", "arguments": {"region": "eu-west"}}
    status, body = caller.modern("tools/call", params)
    assert (status, body["error"]["code"]) == (400, -32020)
    status, body = caller.modern(
        "tools/call", params, headers={"mcp-param-region": "=?base64?ZXUtd2VzdA==?="}
    )
    assert status == 200 and body["result"]["content"][0]["text"] == "region=eu-west"


def test_subscriptions_listen_is_not_served() -> None:
    status, body = Caller().modern("subscriptions/listen", {"notifications": {"toolsListChanged": True}})
    assert (status, body["error"]["code"]) == (404, -32601)


def test_capabilities_match_what_is_served() -> None:
    _, body = Caller().modern("server/discover")
    caps = body["result"]["capabilities"]
    assert set(caps) == {"tools", "resources", "prompts", "completions", "extensions"}
    assert "subscribe" not in caps["resources"]
    # The fixtures have task tools and skills (the sep-2640 scenarios read a nested directory).
    assert caps["extensions"] == {
        "io.modelcontextprotocol/tasks": {},
        "io.modelcontextprotocol/skills": {"directoryRead": True},
    }


def test_oversized_client_capabilities_are_refused_not_stored() -> None:
    caller = Caller()
    status, headers, raw = caller.raw(
        {},
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2024-11-05",
                "capabilities": {"x": "y" * 20_000},
                "clientInfo": {"name": "c"},
            },
        },
    )
    body = json.loads(raw)
    assert status == 200 and "mcp-session-id" not in headers
    assert body["error"]["code"] == -32602 and "params.capabilities" in body["error"]["message"]
