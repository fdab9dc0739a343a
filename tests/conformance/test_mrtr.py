"""Multi round-trip results: signed requestState, capability checks, re-asking, legacy fallback."""

from __future__ import annotations

import json

import pytest

from mcp_lambda.protocol.jsonrpc import RpcError
from mcp_lambda.protocol.request_state import RequestStateCodec

from .inprocess import Caller

KEY = "k" * 32


@pytest.fixture
def caller() -> Caller:
    return Caller(request_state_key=KEY)


def test_state_round_trips_and_binds_to_method_and_target() -> None:
    codec = RequestStateCodec(KEY.encode())
    token = codec.encode("tools/call", "a", {"step": 2})
    assert codec.decode(token, "tools/call", "a") == {"step": 2}
    with pytest.raises(RpcError, match="another request"):
        codec.decode(token, "tools/call", "b")


@pytest.mark.parametrize(
    "mutate", [lambda t: t + "-TAMPERED", lambda t: "x" + t[1:], lambda t: t.replace(".", ""), lambda t: 42]
)
def test_tampered_state_is_invalid_params(mutate) -> None:
    codec = RequestStateCodec(KEY.encode())
    with pytest.raises(RpcError) as caught:
        codec.decode(mutate(codec.encode("tools/call", "a", {})), "tools/call", "a")
    assert caught.value.code == -32602


def test_expired_state_is_rejected() -> None:
    codec = RequestStateCodec(KEY.encode(), ttl_seconds=10)
    token = codec.encode("tools/call", "a", {}, now=1000.0)
    with pytest.raises(RpcError, match="expired"):
        codec.decode(token, "tools/call", "a", now=1011.0)


def test_state_signed_with_another_key_is_rejected() -> None:
    token = RequestStateCodec(b"x" * 32).encode("tools/call", "a", {})
    with pytest.raises(RpcError, match="integrity"):
        RequestStateCodec(KEY.encode()).decode(token, "tools/call", "a")


def test_first_round_asks_then_answer_completes(caller: Caller) -> None:
    status, first = caller.modern(
        "tools/call", {"name": "test_input_required_result_elicitation", "arguments": {}}
    )
    assert status == 200
    result = first["result"]
    assert result["resultType"] == "input_required"
    assert result["inputRequests"]["user_name"]["method"] == "elicitation/create"
    assert "ttlMs" not in result
    _, second = caller.modern(
        "tools/call",
        {
            "name": "test_input_required_result_elicitation",
            "arguments": {},
            "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Lin"}}},
            "requestState": result["requestState"],
        },
    )
    assert second["result"]["resultType"] == "complete"
    assert second["result"]["content"][0]["text"] == "Hello, Lin!"


def test_undeclared_capability_is_32021_with_400(caller: Caller) -> None:
    status, body = caller.modern("tools/call", {"name": "test_missing_capability", "arguments": {}}, caps={})
    assert status == 400
    assert body["error"]["code"] == -32021
    assert body["error"]["data"] == {"requiredCapabilities": {"sampling": {}}}


def test_missing_answers_ask_again(caller: Caller) -> None:
    _, body = caller.modern(
        "tools/call",
        {
            "name": "test_input_required_result_elicitation",
            "arguments": {},
            "inputResponses": {"wrong_key": {"action": "accept"}},
        },
    )
    assert body["result"]["resultType"] == "input_required"


@pytest.mark.parametrize("responses", [None, 12345, {"user_name": 12345}])
def test_malformed_input_responses_are_invalid_params(caller: Caller, responses) -> None:
    status, body = caller.modern(
        "tools/call",
        {"name": "test_input_required_result_elicitation", "arguments": {}, "inputResponses": responses},
    )
    assert (status, body["error"]["code"]) == (400, -32602)
    assert "inputResponses" in body["error"]["message"]


def test_state_from_one_tool_is_refused_by_another(caller: Caller) -> None:
    _, first = caller.modern(
        "tools/call", {"name": "test_input_required_result_tampered_state", "arguments": {}}
    )
    status, body = caller.modern(
        "tools/call",
        {
            "name": "test_input_required_result_request_state",
            "arguments": {},
            "inputResponses": {"confirm": {"action": "accept", "content": {"ok": True}}},
            "requestState": first["result"]["requestState"],
        },
    )
    assert (status, body["error"]["code"]) == (400, -32602)


def test_prompt_can_ask_for_input(caller: Caller) -> None:
    _, first = caller.modern("prompts/get", {"name": "test_input_required_result_prompt"})
    assert first["result"]["resultType"] == "input_required"
    _, second = caller.modern(
        "prompts/get",
        {
            "name": "test_input_required_result_prompt",
            "inputResponses": {"user_context": {"action": "accept", "content": {"context": "travel"}}},
            "requestState": first["result"]["requestState"],
        },
    )
    assert second["result"]["messages"][0]["content"]["text"] == "Use this context: travel"


def test_legacy_era_gets_an_error_result_not_a_hang(caller: Caller) -> None:
    session = caller.legacy_session()
    status, _, raw = caller.legacy(session, "tools/call", {"name": "test_input_required_result_elicitation"})
    result = json.loads(raw)["result"]
    assert status == 200
    assert result["isError"] is True
    assert result["structuredContent"]["code"] == 40010
    assert "2026-07-28" in result["content"][0]["text"]
