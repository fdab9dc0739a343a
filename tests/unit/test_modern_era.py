"""The 2026-07-28 era: stateless requests with `_meta`, checked in the order the 2026-07-28 transport specifies."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from tests.support.business import TEST_BUSINESS
from tests.support.handlers import build_handler
from tests.support.wire import (
    META_CAPABILITIES,
    META_CLIENT_INFO,
    META_VERSION,
    check_modern,
    meta,
    modern_headers,
    modern_request,
)

from mcp_lambda.settings import Settings
from mcp_lambda.testing import MODERN, McpTestClient

REMOVED_METHODS = ["initialize", "ping", "logging/setLevel", "resources/subscribe", "resources/unsubscribe"]


def _b64(value: str) -> str:
    return "=?base64?" + base64.b64encode(value.encode()).decode() + "?="


def _call(name: str = "echo", arguments: dict[str, Any] | None = None, request_id: int = 3) -> dict[str, Any]:
    return modern_request(
        "tools/call", {"name": name, "arguments": arguments or {"message": "hi"}}, request_id
    )


def test_discover_describes_the_server(modern: McpTestClient) -> None:
    reply = modern.rpc("server/discover")
    assert reply.status == 200
    check_modern(reply.body, "server/discover")
    result = reply.result
    assert "2026-07-28" in result["supportedVersions"]
    assert result["capabilities"]["tools"] == {"listChanged": False}
    assert result["resultType"] == "complete"
    assert result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "testbiz"
    assert isinstance(result["ttlMs"], int) and result["cacheScope"] in ("public", "private")


def test_discover_does_not_advertise_legacy_only_capabilities(modern: McpTestClient) -> None:
    assert "logging" not in modern.rpc("server/discover").result["capabilities"]


@pytest.mark.parametrize("method", ["server/discover", "tools/list"])
def test_cacheable_results_carry_cache_hints(modern: McpTestClient, method: str) -> None:
    result = modern.rpc(method).result
    assert result["ttlMs"] >= 0 and result["cacheScope"] == "public"


def test_tools_call_result_has_result_type_and_no_cache_hints(modern: McpTestClient) -> None:
    reply = modern.rpc("tools/call", {"name": "echo", "arguments": {"message": "hi"}})
    check_modern(reply.body, "tools/call")
    assert reply.result["resultType"] == "complete"
    assert "ttlMs" not in reply.result
    assert reply.result["structuredContent"] == {"echo": "hi"}


def test_client_info_is_not_required(client: McpTestClient) -> None:
    body = modern_request("tools/list")
    del body["params"]["_meta"][META_CLIENT_INFO]
    assert client.post(body, modern_headers("tools/list")).status == 200


def test_modern_responses_never_carry_a_session_id(client: McpTestClient) -> None:
    replies = [
        client.post(modern_request("server/discover"), modern_headers("server/discover")),
        client.post(modern_request("tools/list"), modern_headers("tools/list")),
        client.post(_call(), modern_headers("tools/call", "echo")),
        client.post(modern_request("initialize"), modern_headers("initialize")),
        client.post({"jsonrpc": "2.0", "method": "notifications/initialized"}, modern_headers("x")),
        client.send("GET", headers=modern_headers("x")),
    ]
    assert [r for r in replies if "mcp-session-id" in r.headers] == []


def test_session_id_header_sent_by_the_client_is_ignored(client: McpTestClient) -> None:
    headers = {**modern_headers("tools/list"), "mcp-session-id": "stale-or-forged"}
    assert client.post(modern_request("tools/list"), headers).status == 200


class TestMissingMeta:
    @pytest.mark.parametrize(
        "params",
        [
            {},
            {"_meta": None},
            {"_meta": "x"},
            {"_meta": {META_CAPABILITIES: {}}},
            {"_meta": {META_VERSION: "2026-07-28"}},
            {"_meta": {META_VERSION: "2026-07-28", META_CAPABILITIES: []}},
            {"_meta": {META_VERSION: 20260728, META_CAPABILITIES: {}}},
        ],
        ids=["none", "null", "string", "no-version", "no-capabilities", "capabilities-array", "version-int"],
    )
    def test_missing_meta_fields_get_32602_echoing_the_id(
        self, client: McpTestClient, params: dict[str, Any]
    ) -> None:
        body = {"jsonrpc": "2.0", "id": "m-1", "method": "tools/list", "params": params}
        reply = client.post(body, modern_headers("tools/list"))
        assert reply.status == 400
        assert reply.body["id"] == "m-1"
        assert reply.error["code"] == -32602
        check_modern(reply.body)

    def test_missing_params_gets_32602(self, client: McpTestClient) -> None:
        reply = client.post({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, modern_headers("tools/list"))
        assert (reply.status, reply.error["code"]) == (400, -32602)

    def test_meta_is_checked_before_the_headers(self, client: McpTestClient) -> None:
        body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}
        reply = client.post(body, {"mcp-protocol-version": "2026-07-28", "mcp-method": "other"})
        assert reply.error["code"] == -32602


class TestHeaderMismatch:
    def _assert_mismatch(self, client: McpTestClient, body: dict[str, Any], headers: dict[str, str]) -> None:
        reply = client.post(body, headers)
        assert reply.status == 400
        assert reply.error["code"] == -32020
        assert reply.body["id"] == body["id"]
        check_modern(reply.body)

    def test_version_header_differing_from_meta_gets_32020(self, client: McpTestClient) -> None:
        body = modern_request("tools/list", version="v999.0.0")
        self._assert_mismatch(client, body, modern_headers("tools/list"))

    def test_missing_method_header_gets_32020(self, client: McpTestClient) -> None:
        self._assert_mismatch(client, modern_request("tools/list"), {"mcp-protocol-version": "2026-07-28"})

    def test_method_header_differing_from_body_gets_32020(self, client: McpTestClient) -> None:
        self._assert_mismatch(client, modern_request("tools/list"), modern_headers("server/discover"))

    def test_method_header_value_is_case_sensitive(self, client: McpTestClient) -> None:
        self._assert_mismatch(client, modern_request("tools/list"), modern_headers("Tools/List"))

    def test_missing_name_header_on_tools_call_gets_32020(self, client: McpTestClient) -> None:
        self._assert_mismatch(client, _call(), modern_headers("tools/call"))

    def test_name_header_differing_from_body_gets_32020(self, client: McpTestClient) -> None:
        self._assert_mismatch(client, _call("echo"), modern_headers("tools/call", "add"))

    def test_base64_name_header_with_another_value_gets_32020(self, client: McpTestClient) -> None:
        self._assert_mismatch(client, _call("echo"), modern_headers("tools/call", _b64("add")))

    @pytest.mark.parametrize("bad", ["=?base64?%%%?=", "=?base64?ZWNo?=", "=?base64?//79?="])
    def test_invalid_base64_name_header_gets_32020(self, client: McpTestClient, bad: str) -> None:
        self._assert_mismatch(client, _call("echo"), modern_headers("tools/call", bad))

    def test_base64_name_header_matching_the_body_is_served(self, client: McpTestClient) -> None:
        reply = client.post(_call("echo"), modern_headers("tools/call", _b64("echo")))
        assert reply.status == 200
        assert reply.result["structuredContent"] == {"echo": "hi"}

    def test_header_names_are_case_insensitive_and_values_are_trimmed(self, client: McpTestClient) -> None:
        headers = {"MCP-Protocol-Version": " 2026-07-28 ", "MCP-METHOD": "tools/call ", "mcp-NAME": " echo"}
        assert client.post(_call("echo"), headers).status == 200

    def test_header_mismatch_is_checked_before_the_version(self, client: McpTestClient) -> None:
        body = modern_request("tools/list", version="v999.0.0")
        reply = client.post(body, modern_headers("server/discover", version="v999.0.0"))
        assert reply.error["code"] == -32020


class TestUnsupportedVersion:
    @pytest.mark.parametrize("version", ["v999.0.0", "2027-01-01", "2025-11-25x"])
    def test_unsupported_version_gets_32022_with_supported_and_requested(
        self, client: McpTestClient, version: str
    ) -> None:
        body = modern_request("tools/list", request_id=11, version=version)
        reply = client.post(body, modern_headers("tools/list", version=version))
        assert reply.status == 400
        assert reply.body["id"] == 11
        assert reply.error["code"] == -32022
        assert reply.error["data"]["requested"] == version
        assert "2026-07-28" in reply.error["data"]["supported"]
        check_modern(reply.body)

    def test_supported_list_is_a_subset_of_discover(
        self, client: McpTestClient, modern: McpTestClient
    ) -> None:
        supported = modern.rpc("server/discover").result["supportedVersions"]
        body = modern_request("tools/list", version="v999.0.0")
        reply = client.post(body, modern_headers("tools/list", version="v999.0.0"))
        assert set(reply.error["data"]["supported"]) <= set(supported)

    def test_legacy_version_in_meta_with_a_modern_header_is_a_mismatch(self, client: McpTestClient) -> None:
        reply = client.post(modern_request("tools/list", version="2025-11-25"), modern_headers("tools/list"))
        assert reply.error["code"] == -32020


@pytest.mark.parametrize("method", REMOVED_METHODS)
def test_removed_methods_get_404_and_32601(client: McpTestClient, method: str) -> None:
    params = {"protocolVersion": "2026-07-28", "capabilities": {}} if method == "initialize" else {}
    if method == "logging/setLevel":
        params = {"level": "debug"}
    if method.startswith("resources/"):
        params = {"uri": "test://x"}
    reply = client.post(modern_request(method, params, 21), modern_headers(method))
    assert reply.status == 404
    assert reply.body["id"] == 21
    assert reply.error["code"] == -32601
    assert "mcp-session-id" not in reply.headers
    check_modern(reply.body)


def test_unknown_method_gets_404_and_32601(client: McpTestClient) -> None:
    reply = client.post(modern_request("no/such", {}, 22), modern_headers("no/such"))
    assert (reply.status, reply.error["code"]) == (404, -32601)


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_get_and_delete_get_405_allow_post(client: McpTestClient, method: str) -> None:
    reply = client.send(method, headers={"mcp-protocol-version": "2026-07-28", "accept": "text/event-stream"})
    assert reply.status == 405
    assert reply.headers["allow"] == "POST"


def test_batches_are_rejected(client: McpTestClient) -> None:
    batch = [modern_request("tools/list", request_id=1), modern_request("server/discover", request_id=2)]
    reply = client.post(batch, modern_headers("tools/list"))
    assert reply.status == 400
    assert reply.error["code"] == -32600


@pytest.mark.parametrize(
    "method", ["notifications/cancelled", "notifications/initialized", "notifications/whatever"]
)
def test_notifications_get_202_with_empty_body_and_no_content_type(
    client: McpTestClient, method: str
) -> None:
    body = {"jsonrpc": "2.0", "method": method, "params": {"requestId": 1, "_meta": meta()}}
    reply = client.post(body, modern_headers(method))
    assert reply.status == 202
    assert reply.raw == b""
    assert "content-type" not in reply.headers


def test_posted_jsonrpc_response_gets_400(client: McpTestClient) -> None:
    reply = client.post({"jsonrpc": "2.0", "id": 5, "result": {}}, modern_headers("x"))
    assert reply.status == 400


class TestPagination:
    @pytest.fixture
    def paged(self) -> McpTestClient:
        settings = Settings(business=TEST_BUSINESS.name, tools_page_size=1)
        return McpTestClient.over_handler(build_handler(TEST_BUSINESS, settings), era=MODERN, capabilities={})

    def test_pages_walk_every_tool_once_in_declaration_order(self, paged: McpTestClient) -> None:
        names, cursors, cursor = [], [], None
        for _ in range(10):
            result = paged.rpc("tools/list", {"cursor": cursor} if cursor else {}).result
            assert len(result["tools"]) == 1
            assert result["cacheScope"] == "public"
            names += [tool["name"] for tool in result["tools"]]
            cursor = result.get("nextCursor")
            if cursor is None:
                break
            cursors.append(cursor)
        assert names == [tool.name for tool in TEST_BUSINESS.tools]
        assert all(isinstance(c, str) and not c.isdigit() for c in cursors)
        assert len(set(cursors)) == len(cursors)

    def test_the_same_cursor_gives_the_same_page(self, paged: McpTestClient) -> None:
        cursor = paged.rpc("tools/list").result["nextCursor"]
        first = paged.rpc("tools/list", {"cursor": cursor}).result["tools"]
        assert paged.rpc("tools/list", {"cursor": cursor}).result["tools"] == first

    @pytest.mark.parametrize("cursor", ["not-a-cursor", "", "eyJvIjogLTF9", "eyJvIjogOTk5fQ", 5, ["x"]])
    def test_invalid_cursor_gets_32602(self, paged: McpTestClient, cursor: Any) -> None:
        reply = paged.rpc("tools/list", {"cursor": cursor})
        assert reply.status == 400
        assert reply.error["code"] == -32602
        check_modern(reply.body)

    def test_legacy_pagination_uses_the_same_cursors(self) -> None:
        settings = Settings(business=TEST_BUSINESS.name, tools_page_size=1)
        session = McpTestClient.over_handler(build_handler(TEST_BUSINESS, settings), era="2025-11-25")
        session.initialize()
        first = session.rpc("tools/list").result
        second = session.rpc("tools/list", {"cursor": first["nextCursor"]}).result
        assert [t["name"] for t in first["tools"] + second["tools"]] == ["echo", "add"]
        assert session.rpc("tools/list", {"cursor": "bogus"}).error["code"] == -32602


class TestStreaming:
    def _progress_call(self, client: McpTestClient, accept: str) -> Any:
        body = modern_request("tools/call", {"name": "slow_count", "arguments": {}})
        body["params"]["_meta"]["progressToken"] = "tok-1"
        return client.post(body, {**modern_headers("tools/call", "slow_count"), "accept": accept})

    def test_progress_streams_as_sse_before_the_response(self, client: McpTestClient) -> None:
        reply = self._progress_call(client, "application/json, text/event-stream")
        assert reply.status == 200
        assert reply.headers["content-type"].startswith("text/event-stream")
        messages = reply.messages
        assert [m["params"]["progress"] for m in messages[:-1]] == [0, 50, 100]
        assert all(m["params"]["progressToken"] == "tok-1" for m in messages[:-1])
        assert messages[-1]["result"]["content"][0]["text"] == "counted"
        for message in messages:
            check_modern(message, "tools/call")

    def test_progress_is_dropped_when_the_client_only_accepts_json(self, client: McpTestClient) -> None:
        reply = self._progress_call(client, "application/json")
        assert reply.headers["content-type"].startswith("application/json")
        assert reply.result["content"][0]["text"] == "counted"
