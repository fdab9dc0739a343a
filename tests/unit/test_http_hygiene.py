"""Transport-level checks that run before any JSON-RPC: Origin/Host, Accept, Content-Type, size, parsing."""

from __future__ import annotations

import json

import pytest
from tests.support.business import TEST_BUSINESS
from tests.support.handlers import build_handler
from tests.support.wire import check_error_shape, modern_headers, modern_request

from mcp_lambda.settings import Settings
from mcp_lambda.testing import McpTestClient

PING = {"jsonrpc": "2.0", "id": 7, "method": "ping"}
DISCOVER = modern_request("server/discover", request_id=7)
DISCOVER_HEADERS = modern_headers("server/discover")


@pytest.mark.parametrize("origin", ["https://evil.example.com", "null", "http://localhost.evil.com"])
def test_disallowed_origin_gets_403(client: McpTestClient, origin: str) -> None:
    reply = client.post(DISCOVER, {**DISCOVER_HEADERS, "origin": origin})
    assert reply.status == 403
    check_error_shape(reply.body)


@pytest.mark.parametrize("request_id", [7, "req-7"])
def test_a_refused_origin_or_host_echoes_the_request_id(request_id: int | str) -> None:
    settings = Settings(business=TEST_BUSINESS.name, allowed_hosts=("localhost",))
    client = McpTestClient.over_handler(build_handler(TEST_BUSINESS, settings))
    request = {**DISCOVER, "id": request_id}
    origin = client.post(request, {**DISCOVER_HEADERS, "origin": "https://evil.example.com"})
    host = client.post(request, {**DISCOVER_HEADERS, "host": "evil.example.com"})
    for reply in (origin, host):
        assert reply.status == 403 and reply.body["id"] == request_id
        check_error_shape(reply.body)


@pytest.mark.parametrize(
    "raw", ['{"jsonrpc": "2.0", "id": 7', '{"jsonrpc": "2.0", "id": true, "method": "ping"}', "[1, 2]"]
)
def test_a_refused_request_without_a_readable_id_gets_null(client: McpTestClient, raw: str) -> None:
    reply = client.post(headers={**DISCOVER_HEADERS, "origin": "https://evil.example.com"}, raw=raw)
    assert reply.status == 403 and reply.body["id"] is None


def test_a_refused_request_too_big_to_peek_at_gets_null(client: McpTestClient) -> None:
    big = modern_request("server/discover", {"padding": "x" * 70_000}, request_id=7)
    reply = client.post(big, {**DISCOVER_HEADERS, "origin": "https://evil.example.com"})
    assert reply.status == 403 and reply.body["id"] is None


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_disallowed_origin_gets_403_on_every_method(client: McpTestClient, method: str) -> None:
    assert client.send(method, headers={"origin": "https://evil.example.com"}).status == 403


@pytest.mark.parametrize("origin", ["http://localhost:6274", "http://127.0.0.1:3000", None])
def test_local_or_absent_origin_is_allowed(client: McpTestClient, origin: str | None) -> None:
    reply = client.post(DISCOVER, {**DISCOVER_HEADERS, "origin": origin} if origin else DISCOVER_HEADERS)
    assert reply.status == 200


def test_configured_origin_allow_list_is_honoured() -> None:
    settings = Settings(business=TEST_BUSINESS.name, allowed_origins=("https://chat.example.com",))
    client = McpTestClient.over_handler(build_handler(TEST_BUSINESS, settings))
    allowed = client.post(DISCOVER, {**DISCOVER_HEADERS, "origin": "https://chat.example.com"})
    denied = client.post(DISCOVER, {**DISCOVER_HEADERS, "origin": "http://localhost:3000"})
    assert (allowed.status, denied.status) == (200, 403)


def test_host_outside_the_allow_list_gets_403() -> None:
    settings = Settings(business=TEST_BUSINESS.name, allowed_hosts=("localhost:*", "127.0.0.1:*"))
    client = McpTestClient.over_handler(build_handler(TEST_BUSINESS, settings))
    assert client.post(DISCOVER, {**DISCOVER_HEADERS, "host": "evil.example.com"}).status == 403
    assert client.post(DISCOVER, {**DISCOVER_HEADERS, "host": "localhost:3000"}).status == 200


@pytest.mark.parametrize("accept", ["text/event-stream", "text/html", "application/xml"])
def test_accept_without_json_gets_406(client: McpTestClient, accept: str) -> None:
    reply = client.post(DISCOVER, {**DISCOVER_HEADERS, "accept": accept})
    assert reply.status == 406
    check_error_shape(reply.body)


@pytest.mark.parametrize(
    "accept", ["application/json", "*/*", "application/*", "text/event-stream, application/json;q=0.9"]
)
def test_accept_allowing_json_is_served(client: McpTestClient, accept: str) -> None:
    assert client.post(DISCOVER, {**DISCOVER_HEADERS, "accept": accept}).status == 200


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", None])
def test_content_type_not_json_gets_415(client: McpTestClient, content_type: str | None) -> None:
    reply = client.post(DISCOVER, {**DISCOVER_HEADERS, "content-type": content_type})
    assert reply.status == 415
    check_error_shape(reply.body)


def test_json_content_type_with_charset_is_served(client: McpTestClient) -> None:
    headers = {**DISCOVER_HEADERS, "content-type": "application/json; charset=utf-8"}
    assert client.post(DISCOVER, headers).status == 200


def test_body_over_the_default_1_mib_limit_gets_413(client: McpTestClient) -> None:
    padding = "x" * (1024 * 1024)
    reply = client.post(modern_request("server/discover", {"padding": padding}), DISCOVER_HEADERS)
    assert reply.status == 413
    check_error_shape(reply.body)


def test_body_over_a_configured_limit_gets_413_and_one_under_it_is_served() -> None:
    client = McpTestClient.over_handler(
        build_handler(TEST_BUSINESS, Settings(business=TEST_BUSINESS.name, max_body_bytes=2048))
    )
    big = modern_request("server/discover", {"padding": "x" * 2100})
    small = modern_request("server/discover", {"padding": "x" * 1000})
    assert client.post(big, DISCOVER_HEADERS).status == 413
    assert client.post(small, DISCOVER_HEADERS).status == 200


def test_declared_content_length_over_the_limit_gets_413(client: McpTestClient) -> None:
    headers = {**DISCOVER_HEADERS, "content-length": str(2 * 1024 * 1024)}
    assert client.post(DISCOVER, headers).status == 413


@pytest.mark.parametrize("raw", ["{not json", '{"jsonrpc": "2.0", "id": 1,', "", b"\xff\xfe\x00", "[1,"])
@pytest.mark.parametrize("era_headers", [{}, DISCOVER_HEADERS], ids=["legacy", "modern"])
def test_invalid_json_gets_parse_error_with_null_id(
    client: McpTestClient, raw: str | bytes, era_headers: dict[str, str]
) -> None:
    reply = client.post(headers=era_headers, raw=raw)
    assert reply.status == 400
    assert reply.body["id"] is None
    assert reply.error["code"] == -32700
    check_error_shape(reply.body)


def test_error_bodies_are_json_with_json_content_type(client: McpTestClient) -> None:
    reply = client.post(headers=DISCOVER_HEADERS, raw="{")
    assert reply.headers["content-type"].startswith("application/json")
    assert json.loads(reply.raw)["jsonrpc"] == "2.0"


def test_other_paths_are_not_the_endpoint() -> None:
    client = McpTestClient.over_handler(build_handler(TEST_BUSINESS), path="/other")
    assert client.post(DISCOVER, DISCOVER_HEADERS).status == 404


def test_a_trailing_slash_is_served_like_the_endpoint_without_a_redirect() -> None:
    handler = build_handler(TEST_BUSINESS)
    plain = McpTestClient.over_handler(handler).post(DISCOVER, DISCOVER_HEADERS)
    slashed = McpTestClient.over_handler(handler, path="/mcp/").post(DISCOVER, DISCOVER_HEADERS)
    assert slashed.status == 200 and "location" not in slashed.headers
    assert slashed.body == plain.body
    session = McpTestClient.over_handler(handler, path="/mcp/").post(
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    )  # fmt: skip
    assert session.status == 200 and session.headers["mcp-session-id"]


def test_paths_below_the_endpoint_are_not_the_endpoint() -> None:
    client = McpTestClient.over_handler(build_handler(TEST_BUSINESS), path="/mcp/other")
    assert client.post(DISCOVER, DISCOVER_HEADERS).status == 404
