"""The legacy era (2024-11-05 … 2025-11-25): initialize, Mcp-Session-Id sessions, ping, batches."""

from __future__ import annotations

import re

import pytest
from tests.support.wire import check_legacy, meta

from mcp_lambda.stores.sessions import MemorySessionStore
from mcp_lambda.testing import McpTestClient
from mcp_lambda.wire import LEGACY_REVISIONS


def _initialize(client: McpTestClient, version: str, request_id: int = 1) -> dict:
    reply = client.post(
        {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "initialize",
            "params": {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"},
            },
        }
    )
    assert reply.status == 200, reply.raw
    check_legacy(reply.body, "initialize")
    return {"reply": reply, "result": reply.result, "session_id": reply.headers.get("mcp-session-id")}


def test_initialize_mints_a_visible_ascii_session_id(client: McpTestClient) -> None:
    session_id = _initialize(client, "2025-11-25")["session_id"]
    assert session_id and re.fullmatch(r"[\x21-\x7e]{16,}", session_id)


def test_each_initialize_mints_a_new_session(client: McpTestClient) -> None:
    assert _initialize(client, "2025-11-25")["session_id"] != _initialize(client, "2025-11-25")["session_id"]


def test_initialize_result_describes_the_server(client: McpTestClient) -> None:
    result = _initialize(client, "2025-11-25")["result"]
    assert result["serverInfo"] == {"name": "testbiz", "version": "9.9.9", "title": "Test business"}
    assert result["capabilities"]["tools"] == {"listChanged": False}
    assert result["instructions"] == "A business for unit tests."


@pytest.mark.parametrize("version", LEGACY_REVISIONS)
def test_supported_legacy_version_is_echoed(client: McpTestClient, version: str) -> None:
    assert _initialize(client, version)["result"]["protocolVersion"] == version


@pytest.mark.parametrize("requested", ["1999-01-01", "2026-07-28", "draft"])
def test_unsupported_version_is_answered_with_the_latest_legacy_version(
    client: McpTestClient, requested: str
) -> None:
    assert _initialize(client, requested)["result"]["protocolVersion"] == "2025-11-25"


def test_server_title_is_left_out_before_2025_06_18(client: McpTestClient) -> None:
    assert "title" not in _initialize(client, "2024-11-05")["result"]["serverInfo"]


def test_initialize_without_protocol_version_gets_32602(client: McpTestClient) -> None:
    reply = client.post({"jsonrpc": "2.0", "id": 3, "method": "initialize", "params": {"capabilities": {}}})
    assert reply.body["id"] == 3
    assert reply.error["code"] == -32602
    assert "mcp-session-id" not in reply.headers


def test_initialized_notification_gets_202_with_empty_body_and_no_content_type(client: McpTestClient) -> None:
    session = client.clone(era="2025-11-25")
    session.initialize()
    reply = session.notify("notifications/initialized")
    assert reply.status == 202
    assert reply.raw == b""
    assert "content-type" not in reply.headers


def test_client_response_message_gets_202(legacy: McpTestClient) -> None:
    reply = legacy.post({"jsonrpc": "2.0", "id": 99, "result": {}}, legacy.request_headers())
    assert reply.status == 202
    assert reply.raw == b""


def test_request_without_session_id_gets_400(legacy: McpTestClient) -> None:
    reply = legacy.rpc("tools/list", mcp_session_id=None)
    assert reply.status == 400
    assert reply.body["id"] == legacy.last_id


def test_notification_without_session_id_gets_400(client: McpTestClient) -> None:
    reply = client.post({"jsonrpc": "2.0", "method": "notifications/initialized"})
    assert reply.status == 400


def test_unknown_session_id_gets_404(legacy: McpTestClient) -> None:
    reply = legacy.rpc("tools/list", mcp_session_id="no-such-session")
    assert reply.status == 404
    check_legacy(reply.body)


def test_delete_ends_the_session_and_later_use_gets_404(legacy: McpTestClient) -> None:
    assert legacy.delete().status == 200
    assert legacy.rpc("tools/list").status == 404
    assert legacy.notify("notifications/initialized").status == 404
    assert legacy.delete().status == 404


def test_delete_without_session_id_gets_400(client: McpTestClient) -> None:
    assert client.send("DELETE").status == 400


def test_deleting_one_session_leaves_the_others(client: McpTestClient) -> None:
    first, second = client.clone(era="2025-11-25"), client.clone(era="2025-11-25")
    first.initialize()
    second.initialize()
    first.delete()
    assert second.rpc("ping").status == 200


def test_expired_session_gets_404() -> None:
    from tests.support.business import TEST_BUSINESS
    from tests.support.handlers import build_handler

    from mcp_lambda.settings import Settings

    store = MemorySessionStore(ttl_seconds=60)
    client = McpTestClient.over_handler(build_handler(TEST_BUSINESS, Settings(business="testbiz"), store))
    session = client.clone(era="2025-11-25")
    session.initialize()
    stored = store.get(session.session_id or "")
    assert stored is not None
    store._sessions[stored.session_id] = stored.model_copy(update={"expires_at": 0})
    assert session.rpc("ping").status == 404


def test_session_bound_to_another_principal_gets_404(client: McpTestClient) -> None:
    alice = {"jwt": {"claims": {"sub": "alice", "iss": "https://idp"}, "scopes": []}}
    bob = {"jwt": {"claims": {"sub": "bob", "iss": "https://idp"}, "scopes": []}}
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    session_id = client.post(init, authorizer=alice).headers["mcp-session-id"]
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    headers = {"mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"}
    assert client.post(ping, headers, authorizer=alice).status == 200
    assert client.post(ping, headers, authorizer=bob).status == 404
    assert client.post(ping, headers).status == 404


def test_get_gets_405_with_allow(legacy: McpTestClient) -> None:
    reply = legacy.send("GET", headers={**legacy.request_headers(), "accept": "text/event-stream"})
    assert reply.status == 405
    assert "POST" in reply.headers["allow"]


def test_ping_answers_exactly_an_empty_object(legacy: McpTestClient) -> None:
    reply = legacy.rpc("ping")
    assert reply.status == 200
    assert reply.result == {}
    check_legacy(reply.body, "ping")


def test_ping_without_params_and_with_null_params_is_served(legacy: McpTestClient) -> None:
    reply = legacy.post(
        {"jsonrpc": "2.0", "id": "p", "method": "ping", "params": None}, legacy.request_headers()
    )
    assert reply.body == {"jsonrpc": "2.0", "id": "p", "result": {}}


def test_set_level_answers_an_empty_object(legacy: McpTestClient) -> None:
    reply = legacy.rpc("logging/setLevel", {"level": "debug"})
    assert reply.result == {}


def test_set_level_with_an_unknown_level_gets_32602(legacy: McpTestClient) -> None:
    assert legacy.rpc("logging/setLevel", {"level": "loud"}).error["code"] == -32602


def test_unknown_method_gets_32601_in_a_200(legacy: McpTestClient) -> None:
    reply = legacy.rpc("no/such/method")
    assert reply.status == 200
    assert reply.error["code"] == -32601
    assert reply.body["id"] == legacy.last_id


def test_server_discover_is_not_a_legacy_method(legacy: McpTestClient) -> None:
    assert legacy.rpc("server/discover").error["code"] == -32601


def test_legacy_tools_list_has_no_2026_fields(legacy: McpTestClient) -> None:
    reply = legacy.rpc("tools/list")
    check_legacy(reply.body, "tools/list")
    assert [tool["name"] for tool in reply.result["tools"]] == ["echo", "add", "explode", "slow_count"]
    assert "_meta" not in reply.result


def test_legacy_tools_call_has_no_2026_fields(legacy: McpTestClient) -> None:
    reply = legacy.rpc("tools/call", {"name": "echo", "arguments": {"message": "hi"}})
    check_legacy(reply.body, "tools/call")
    assert reply.result["structuredContent"] == {"echo": "hi"}
    assert "mcp-session-id" not in reply.headers


@pytest.mark.parametrize("header", ["2099-01-01", "garbage", "2025-11-25, 2025-06-18"])
def test_unsupported_protocol_version_header_after_initialize_gets_400(
    legacy: McpTestClient, header: str
) -> None:
    reply = legacy.rpc("tools/list", mcp_protocol_version=header)
    assert reply.status == 400
    assert "error" in reply.body


def test_modern_shaped_body_without_version_header_is_not_served_statelessly(client: McpTestClient) -> None:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta()}}
    reply = client.post(body)
    assert reply.status == 400
    assert "mcp-session-id" not in reply.headers


class TestBatches:
    """JSON-RPC batches exist only at 2025-03-26."""

    @pytest.fixture
    def old(self, client: McpTestClient) -> McpTestClient:
        session = client.clone(era="2025-03-26")
        session.initialize()
        return session

    def test_batch_of_requests_gets_an_array_of_responses_in_order(self, old: McpTestClient) -> None:
        batch = [
            {"jsonrpc": "2.0", "id": "a", "method": "ping"},
            {
                "jsonrpc": "2.0",
                "method": "notifications/progress",
                "params": {"progressToken": 1, "progress": 1},
            },
            {"jsonrpc": "2.0", "id": "b", "method": "tools/list"},
            {"jsonrpc": "2.0", "id": "c", "method": "no/such"},
        ]
        reply = old.post(batch, old.request_headers())
        assert reply.status == 200
        assert isinstance(reply.body, list)
        assert [item["id"] for item in reply.body] == ["a", "b", "c"]
        assert reply.body[0]["result"] == {}
        assert reply.body[2]["error"]["code"] == -32601
        check_legacy(reply.body)

    def test_batch_of_only_notifications_gets_202(self, old: McpTestClient) -> None:
        batch = [
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 1, "result": {}},
        ]
        reply = old.post(batch, old.request_headers())
        assert reply.status == 202
        assert reply.raw == b""
        assert "content-type" not in reply.headers

    def test_batch_with_an_explicit_2025_03_26_header_is_served(self, old: McpTestClient) -> None:
        reply = old.post(
            [{"jsonrpc": "2.0", "id": 1, "method": "ping"}],
            old.request_headers(mcp_protocol_version="2025-03-26"),
        )
        assert reply.body == [{"jsonrpc": "2.0", "id": 1, "result": {}}]

    def test_malformed_item_gets_its_own_error_and_the_rest_is_served(self, old: McpTestClient) -> None:
        batch = [{"jsonrpc": "2.0", "id": 1, "method": 5}, {"jsonrpc": "2.0", "id": 2, "method": "ping"}]
        reply = old.post(batch, old.request_headers())
        assert reply.body[0]["id"] == 1 and reply.body[0]["error"]["code"] == -32600
        assert reply.body[1] == {"jsonrpc": "2.0", "id": 2, "result": {}}

    def test_initialize_inside_a_batch_is_rejected(self, old: McpTestClient) -> None:
        batch = [
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-03-26"}}
        ]
        reply = old.post(batch, old.request_headers())
        assert reply.body[0]["error"]["code"] == -32600
        assert "mcp-session-id" not in reply.headers

    def test_empty_batch_gets_400(self, old: McpTestClient) -> None:
        assert old.post([], old.request_headers()).status == 400

    def test_batch_without_session_gets_400(self, old: McpTestClient) -> None:
        assert old.post([{"jsonrpc": "2.0", "id": 1, "method": "ping"}]).status == 400

    def test_batch_at_a_later_version_gets_400(self, legacy: McpTestClient) -> None:
        reply = legacy.post([{"jsonrpc": "2.0", "id": 1, "method": "ping"}], legacy.request_headers())
        assert reply.status == 400
        assert reply.error["code"] == -32600
