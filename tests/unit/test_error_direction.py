"""Errors that say what is wrong with the request as sent (issue 21, item 9): the header a 2026-07-28 body lacks,
both sides of a header mismatch, and the id of a request refused before it was parsed."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from tests.support.wire import modern_headers, modern_request

from mcp_lambda.protocol.jsonrpc import shown
from mcp_lambda.testing import McpTestClient


def _call(name: str = "echo") -> dict[str, Any]:
    return modern_request("tools/call", {"name": name, "arguments": {"message": "hi"}}, request_id="c-1")


# --- a 2026-07-28 body routed to the legacy era ----------------------------------------------------------


@pytest.mark.parametrize("method", ["tools/list", "tools/call", "server/discover"])
def test_a_2026_body_without_the_version_header_is_told_the_header_it_lacks(
    client: McpTestClient, method: str
) -> None:
    body = modern_request(method, {"name": "echo", "arguments": {}} if method == "tools/call" else None)
    headers = {k: v for k, v in modern_headers(method, "echo").items() if k != "mcp-protocol-version"}

    reply = client.post(body, headers)

    assert reply.status == 400 and reply.body["id"] == body["id"]
    assert reply.error["code"] == -32020
    message = reply.error["message"]
    assert "MCP-Protocol-Version header is required" in message and '"2026-07-28"' in message
    assert "Mcp-Session-Id" not in message


def test_a_2026_body_with_a_session_revision_header_is_told_the_two_disagree(client: McpTestClient) -> None:
    body = modern_request("tools/list")
    reply = client.post(body, modern_headers("tools/list", version="2025-11-25"))

    assert (reply.status, reply.error["code"]) == (400, -32020)
    assert reply.error["message"] == (
        'Header mismatch: MCP-Protocol-Version header "2025-11-25" does not match the body\'s '
        'params._meta protocol version "2026-07-28"'
    )


def test_a_session_era_body_without_a_session_is_still_asked_for_one(client: McpTestClient) -> None:
    reply = client.post({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {}})
    assert reply.error["message"] == "Bad Request: Mcp-Session-Id header is required"


# --- a header that does not match the body shows both values -------------------------------------------------


def test_an_mcp_name_mismatch_shows_the_header_and_the_body_value(client: McpTestClient) -> None:
    reply = client.post(_call("echo"), modern_headers("tools/call", "add"))

    assert (reply.status, reply.error["code"], reply.body["id"]) == (400, -32020, "c-1")
    assert reply.error["message"] == (
        'Header mismatch: Mcp-Name header "add" does not match the request body\'s "echo"'
    )


def test_a_missing_mcp_name_says_what_it_must_be(client: McpTestClient) -> None:
    reply = client.post(_call("echo"), modern_headers("tools/call"))
    assert reply.error["message"] == (
        'Header mismatch: Mcp-Name header is required and must equal the request body\'s "echo"'
    )


def test_a_decoded_base64_name_is_shown_decoded(client: McpTestClient) -> None:
    encoded = "=?base64?" + base64.b64encode(b"add").decode() + "?="
    reply = client.post(_call("echo"), modern_headers("tools/call", encoded))
    assert reply.error["message"].startswith('Header mismatch: Mcp-Name header "add" does not match')


def test_a_method_mismatch_shows_both_methods(client: McpTestClient) -> None:
    reply = client.post(modern_request("tools/list", request_id=5), modern_headers("server/discover"))
    assert reply.error["message"] == (
        'Header mismatch: Mcp-Method header "server/discover" does not match the request body\'s "tools/list"'
    )


def test_the_values_shown_are_bounded_and_escaped(client: McpTestClient) -> None:
    hostile = "x" * 500 + "\n\u0000\u202e"
    header = "=?base64?" + base64.b64encode(("evil\r\nline\u0007" + "y" * 500).encode()).decode() + "?="
    reply = client.post(_call(hostile), modern_headers("tools/call", header))

    message = reply.error["message"]
    assert reply.status == 400 and len(message) < 300
    assert message.isprintable()  # no newline, NUL, bell or bidi override reaches a client or a log
    assert '"evil\\r\\nline\\u0007yyy' in message and "…" in message


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("echo", '"echo"'),
        ('a"b\\c', '"a\\"b\\\\c"'),
        ("\ud800", '"\\ud800"'),
        ("中文", '"中文"'),
        ("\U000e0001", '"\\U000e0001"'),
        ("z" * 70, '"' + "z" * 64 + '"…'),
    ],
)
def test_shown_quotes_cuts_and_escapes(value: str, expected: str) -> None:
    assert shown(value) == expected


# --- a request refused before it is parsed echoes the id it carries --------------------------------------------


@pytest.mark.parametrize("request_id", [7, "req-7"])
@pytest.mark.parametrize(
    ("header", "value", "status"),
    [("content-type", "text/plain", 415), ("content-type", None, 415), ("accept", "text/html", 406)],
)
def test_a_415_or_406_echoes_the_readable_id(
    client: McpTestClient, request_id: int | str, header: str, value: str | None, status: int
) -> None:
    body = modern_request("tools/list", request_id=request_id)
    reply = client.post(body, {**modern_headers("tools/list"), header: value})
    assert reply.status == status and reply.body["id"] == request_id


def test_a_415_whose_body_is_not_json_gets_null(client: McpTestClient) -> None:
    reply = client.post(headers={**modern_headers("tools/list"), "content-type": "text/plain"}, raw="id=7")
    assert reply.status == 415 and reply.body["id"] is None
