"""`requestState` is bound to the caller it was issued to, and its keys rotate: REQUEST_STATE_KEYS is a ring whose
first key signs and whose every key verifies. Through the handler, with the conformance business's MRTR tool."""

from __future__ import annotations

from typing import Any

import pytest
from tests.support.handlers import build_handler

from businesses.conformance import BUSINESS
from mcp_lambda.protocol.jsonrpc import RpcError
from mcp_lambda.protocol.request_state import RequestStateCodec
from mcp_lambda.settings import Settings, SettingsError
from mcp_lambda.testing import McpTestClient

OLD, NEW = "old-key-" + "o" * 24, "new-key-" + "n" * 24
TOOL = "test_input_required_result_elicitation"
ANSWER = {"user_name": {"action": "accept", "content": {"name": "Lin"}}}


def _client(*keys: str) -> McpTestClient:
    return McpTestClient.over_handler(
        build_handler(BUSINESS, Settings(business="conformance", request_state_keys=keys))
    )


def _call(client: McpTestClient, extra: dict[str, Any], authorizer: dict[str, Any] | None = None) -> Any:
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
    }
    body = {
        "jsonrpc": "2.0",
        "id": 3,
        "method": "tools/call",
        "params": {"name": TOOL, "arguments": {}, **extra, "_meta": meta},
    }
    headers = {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": TOOL}
    return client.post(body, headers, authorizer=authorizer)


def _state(client: McpTestClient, authorizer: dict[str, Any] | None = None) -> str:
    first = _call(client, {}, authorizer)
    assert first.result["resultType"] == "input_required"
    return str(first.result["requestState"])


def test_a_state_signed_with_the_old_key_completes_after_the_new_key_is_put_first() -> None:
    state = _state(_client(OLD))
    finished = _call(_client(NEW, OLD), {"inputResponses": ANSWER, "requestState": state})
    assert finished.result["resultType"] == "complete"


def test_a_state_signed_with_a_retired_key_is_refused() -> None:
    state = _state(_client(OLD))
    refused = _call(_client(NEW), {"inputResponses": ANSWER, "requestState": state})
    assert refused.status == 400
    assert "integrity" in refused.error["message"]


def test_the_first_key_of_the_ring_signs() -> None:
    state = _state(_client(NEW, OLD))
    assert (
        _call(_client(NEW), {"inputResponses": ANSWER, "requestState": state}).result["resultType"]
        == "complete"
    )
    assert _call(_client(OLD), {"inputResponses": ANSWER, "requestState": state}).status == 400


def test_a_state_issued_to_one_caller_is_refused_to_another_and_to_no_caller() -> None:
    client = _client(NEW)
    alice = {"jwt": {"claims": {"sub": "alice", "iss": "https://idp"}, "scopes": None}}
    bob = {"jwt": {"claims": {"sub": "bob", "iss": "https://idp"}, "scopes": None}}
    state = _state(client, alice)
    for other in (bob, None):
        refused = _call(client, {"inputResponses": ANSWER, "requestState": state}, other)
        assert refused.status == 400
        assert "another caller" in refused.error["message"]
    assert (
        _call(client, {"inputResponses": ANSWER, "requestState": state}, alice).result["resultType"]
        == "complete"
    )


def test_the_codec_binds_the_principal() -> None:
    codec = RequestStateCodec([NEW.encode(), OLD.encode()])
    token = codec.encode("tools/call", "a", {"n": 1}, principal="jwt:x:alice")
    assert codec.decode(token, "tools/call", "a", principal="jwt:x:alice") == {"n": 1}
    with pytest.raises(RpcError, match="another caller"):
        codec.decode(token, "tools/call", "a", principal="jwt:x:bob")


def test_the_key_ring_is_comma_separated_and_every_key_long_enough() -> None:
    assert Settings.from_env({"REQUEST_STATE_KEYS": f"{NEW}, {OLD}"}).request_state_key_ring == (NEW, OLD)
    assert Settings.from_env({"REQUEST_STATE_KEY": OLD}).request_state_key_ring == (OLD,)
    with pytest.raises(SettingsError, match="REQUEST_STATE_KEYS") as caught:
        Settings.from_env({"REQUEST_STATE_KEYS": f"{NEW},short"})
    assert "short" not in str(caught.value).replace("REQUEST_STATE_KEYS", "")
