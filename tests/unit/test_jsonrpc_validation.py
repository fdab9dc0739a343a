"""Malformed JSON-RPC objects: -32600 that echoes the request id when it has a usable one (both eras)."""

from __future__ import annotations

from typing import Any

import pytest
from tests.support.wire import check_error_shape, meta, modern_headers

from mcp_lambda.testing import McpTestClient

MALFORMED_WITH_ID: list[dict[str, Any]] = [
    {"jsonrpc": "1.0", "id": 5, "method": "tools/list"},
    {"id": 5, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 5},
    {"jsonrpc": "2.0", "id": 5, "method": 42},
    {"jsonrpc": "2.0", "id": 5, "method": ""},
    {"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": [1, 2]},
    {"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": "x"},
]
MALFORMED_WITHOUT_USABLE_ID: list[Any] = [
    {"jsonrpc": "2.0", "id": True, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": {"nested": 1}, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": 1.5, "method": "tools/list"},
    {"jsonrpc": "2.0", "id": None, "method": "tools/list"},
    "a string",
    42,
    None,
]


def _with_meta(message: Any) -> Any:
    if isinstance(message, dict) and isinstance(message.get("params", {}), dict):
        return {**message, "params": {**message.get("params", {}), "_meta": meta()}}
    return message


@pytest.mark.parametrize("message", MALFORMED_WITH_ID)
def test_malformed_legacy_request_gets_32600_echoing_its_id(
    legacy: McpTestClient, message: dict[str, Any]
) -> None:
    reply = legacy.post(message, legacy.request_headers())
    assert reply.status == 400
    assert reply.body["id"] == 5
    assert reply.error["code"] == -32600
    check_error_shape(reply.body)


@pytest.mark.parametrize("message", MALFORMED_WITH_ID)
def test_malformed_modern_request_gets_32600_echoing_its_id(
    client: McpTestClient, message: dict[str, Any]
) -> None:
    reply = client.post(_with_meta(message), modern_headers("tools/list"))
    assert reply.status == 400
    assert reply.body["id"] == 5
    assert reply.error["code"] == -32600
    check_error_shape(reply.body)


@pytest.mark.parametrize("message", MALFORMED_WITHOUT_USABLE_ID)
@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_malformed_request_without_usable_id_gets_32600_with_null_id(
    legacy: McpTestClient, message: Any, era: str
) -> None:
    headers = legacy.request_headers() if era == "legacy" else modern_headers("tools/list")
    body = message if era == "legacy" else _with_meta(message)
    reply = legacy.post(body, headers, raw="null" if message is None else None)
    assert reply.status == 400
    assert reply.body["id"] is None
    assert reply.error["code"] == -32600
    check_error_shape(reply.body)


def test_the_error_message_names_the_bad_field(legacy: McpTestClient) -> None:
    reply = legacy.post({"jsonrpc": "2.0", "id": 9, "method": 42}, legacy.request_headers())
    assert "method" in reply.error["message"]
