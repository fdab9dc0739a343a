"""Client mistakes never produce a 5xx, and a bad request never disturbs the next one."""

from __future__ import annotations

from typing import Any

import pytest
from tests.support.wire import modern_headers, modern_request

from mcp_lambda.testing import MODERN, McpTestClient
from mcp_lambda.tools.results import META_EXECUTION_ID

DISCOVER_HEADERS = modern_headers("server/discover")
META = '"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'

# (description, raw body, extra headers): one client mistake each.
MISTAKES: list[tuple[str, str, dict[str, str]]] = [
    ("parse error", "{", DISCOVER_HEADERS),
    ("not an object", "[1, 2, 3]", DISCOVER_HEADERS),
    ("empty object", "{}", DISCOVER_HEADERS),
    ("wrong jsonrpc", '{"jsonrpc": 2, "id": 1, "method": "tools/list"}', DISCOVER_HEADERS),
    ("no meta", '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}', modern_headers("tools/list")),
    (
        "unknown version",
        '{"jsonrpc":"2.0","id":1,"method":"x","params":{}}',
        modern_headers("x", version="1.0"),
    ),
    ("legacy no session", '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', {}),
    ("legacy unknown session", '{"jsonrpc":"2.0","id":1,"method":"tools/list"}', {"mcp-session-id": "nope"}),
    (
        "legacy bad initialize",
        '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":7}}',
        {},
    ),
    ("legacy initialize params array", '{"jsonrpc":"2.0","id":1,"method":"initialize","params":[]}', {}),
    ("legacy batch no session", '[{"jsonrpc":"2.0","id":1,"method":"ping"}]', {}),
    ("huge id", '{"jsonrpc":"2.0","id":' + "9" * 400 + ',"method":"ping"}', {}),
    ("float id", '{"jsonrpc":"2.0","id":1e400,"method":"ping"}', {}),
    (
        "non-ascii method",
        '{"jsonrpc":"2.0","id":1,"method":"工具/列表","params":{' + META + "}}",
        modern_headers("x"),
    ),
    (
        "unknown tool",
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"nope",' + META + "}}",
        modern_headers("tools/call", "nope"),
    ),
    (
        "deeply nested arguments",
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":'
        + "[" * 500
        + "]" * 500
        + "},"
        + META
        + "}}",
        modern_headers("tools/call", "echo"),
    ),
]


@pytest.mark.parametrize("raw,headers", [(m[1], m[2]) for m in MISTAKES], ids=[m[0] for m in MISTAKES])
def test_client_mistake_never_gets_a_5xx(client: McpTestClient, raw: str, headers: dict[str, str]) -> None:
    reply = client.post(headers=headers, raw=raw)
    assert reply.status < 500, reply.raw


def test_deeply_nested_json_body_is_a_client_error_not_a_crash(client: McpTestClient) -> None:
    # 100 000 levels fit in 200 KB, well under MAX_BODY_BYTES; json.loads raises RecursionError on them.
    reply = client.post(headers=DISCOVER_HEADERS, raw="[" * 100_000 + "]" * 100_000)
    assert reply.status == 400, reply.raw
    assert reply.error["code"] in (-32700, -32600)


# (id, era, raw body): `"\ud800"` is valid JSON text, but the decoded string cannot be encoded back to UTF-8.
SURROGATES = [
    ("legacy-id", "legacy", '{"jsonrpc":"2.0","id":"\\ud800","method":"ping"}'),
    ("legacy-method", "legacy", '{"jsonrpc":"2.0","id":1,"method":"no/such\\ud800"}'),
    (
        "legacy-tool-name",
        "legacy",
        '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x\\ud800"}}',
    ),
    ("modern-id", "modern", '{"jsonrpc":"2.0","id":"\\udfff","method":"tools/list","params":{' + META + "}}"),
]


@pytest.mark.parametrize("era,raw", [s[1:] for s in SURROGATES], ids=[s[0] for s in SURROGATES])
def test_lone_surrogate_escapes_echoed_back_are_not_a_crash(
    legacy: McpTestClient, era: str, raw: str
) -> None:
    headers = legacy.request_headers() if era == "legacy" else modern_headers("tools/list")
    reply = legacy.post(headers=headers, raw=raw)
    assert reply.status < 500, reply.raw


def test_lone_surrogate_in_a_tool_argument_is_not_a_crash(modern: McpTestClient) -> None:
    reply = modern.post(
        headers=modern_headers("tools/call", "echo"),
        raw='{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"message":"a\\ud800"},'
        + META
        + "}}",
    )
    assert reply.status < 500, reply.raw


def _bad_requests(client: McpTestClient, session: McpTestClient) -> list[Any]:
    return [
        client.post(headers={**DISCOVER_HEADERS, "origin": "https://evil.example.com"}, raw="{}"),
        client.post(headers={**DISCOVER_HEADERS, "accept": "text/html"}, raw="{}"),
        client.post(headers={**DISCOVER_HEADERS, "content-type": "text/plain"}, raw="{}"),
        client.post(headers=DISCOVER_HEADERS, raw="{"),
        client.post({"jsonrpc": "2.0", "id": 1, "method": 3}, DISCOVER_HEADERS),
        client.post(modern_request("tools/list"), modern_headers("server/discover")),
        session.rpc("tools/list", mcp_session_id="bogus"),
        session.rpc("no/such"),
        session.rpc("tools/call", {"name": "explode", "arguments": {}}),
        session.rpc("tools/call", {"name": "add", "arguments": {"a": "x"}}),
        client.send("GET", headers=modern_headers("x")),
    ]


def _without_execution_id(reply: Any) -> dict[str, Any]:
    """The call's result but its `_meta` execution id, which is each call's own (no tool_call_id joins them)."""
    result: dict[str, Any] = reply.result
    assert result.pop("_meta")[META_EXECUTION_ID].startswith("exe_")
    return result


def test_bad_requests_do_not_disturb_the_next_good_ones(client: McpTestClient) -> None:
    modern = client.clone(era=MODERN, capabilities={})
    session = client.clone(era="2025-11-25")
    session.initialize()
    baseline_list = modern.rpc("tools/list").result["tools"]
    baseline_call = _without_execution_id(
        session.rpc("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
    )
    for bad in _bad_requests(client, session):
        assert bad.status < 500
        assert modern.rpc("tools/list").result["tools"] == baseline_list
        again = session.rpc("tools/call", {"name": "add", "arguments": {"a": 1, "b": 2}})
        assert _without_execution_id(again) == baseline_call
        assert session.rpc("ping").result == {}
