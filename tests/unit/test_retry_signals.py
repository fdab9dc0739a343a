"""What a call tells the agent that retries it (issue 35, seed 001 sections 2.2-2.4), asked as a client asks, over the
Lambda handler: the execution id every result and both log lines carry, the same for every retry of a
tool_call_id; a replay's lines naming the first attempt and carrying on its trace; the retry hints of every error;
and `result_status` on a search that found nothing."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

import pytest
from tests.support.exactly_once import Ledger, exactly_once_business, keyed_request, tool_result
from tests.support.log_capture import captured_lines
from tests.support.wire import modern_headers

from businesses.demo import BUSINESS as DEMO
from mcp_lambda.composition import build_runtime
from mcp_lambda.lambda_adapter import lambda_handler
from mcp_lambda.manifest.check import ToolCheck
from mcp_lambda.manifest.loader import load_manifest
from mcp_lambda.settings import Settings
from mcp_lambda.stores.exactly_once import MemoryIdempotencyStore
from mcp_lambda.stores.sessions import MemorySessionStore
from mcp_lambda.testing import Identity, McpTestClient
from mcp_lambda.tools import entities
from mcp_lambda.tools.results import META_EXECUTION_ID, META_REPLAY

FIRST_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
RETRY_TRACE = "0af7651916cd43dd8448eb211c80319c"


def traceparent(trace_id: str) -> str:
    return f"00-{trace_id}-00f067aa0ba902b7-01"


@pytest.fixture
def once() -> McpTestClient:
    business = exactly_once_business(Ledger())
    settings = Settings(business=business.name, log_fingerprint_key="log-fingerprint-key-of-these-tests")
    runtime = build_runtime(settings, business, MemorySessionStore(), MemoryIdempotencyStore())
    return McpTestClient.over_handler(lambda_handler(runtime))


@pytest.fixture
def demo() -> McpTestClient:
    # A caller of its own: the demo's alerts are per caller, and other tests create some for theirs.
    caller = Identity(
        f"retry-signals-{uuid.uuid4().hex}", scopes=("subscriptions:read", "subscriptions:write")
    )
    return McpTestClient(DEMO, "2026-07-28", caller=caller)


def _traced_call(client: McpTestClient, key: str, trace_id: str) -> dict[str, Any]:
    body = keyed_request("charge", {"amount": 5}, key)
    body["params"]["_meta"]["traceparent"] = traceparent(trace_id)
    return tool_result(client.post(body, modern_headers("tools/call", "charge")))


def test_a_replay_joins_the_first_attempt_by_execution_id_request_id_and_trace_id(
    once: McpTestClient,
) -> None:
    with captured_lines("oncebiz") as lines:
        _traced_call(once, "call-7", FIRST_TRACE)
        _traced_call(once, "call-7", RETRY_TRACE)
    calls = [line for line in lines if line["event"].startswith("mcp_tool_call_")]
    first_started, first_finished, retry_started, retry_finished = calls

    assert [line["outcome"] for line in (first_finished, retry_finished)] == ["success", "replayed"]
    assert len({line["execution_id"] for line in calls}) == 1 and calls[0]["execution_id"].startswith("exe_")
    assert first_started["trace_id"] == first_finished["trace_id"] == FIRST_TRACE
    assert "first_request_id" not in first_finished and "own_trace_id" not in first_finished
    for line in (retry_started, retry_finished):
        assert line["first_request_id"] == first_finished["request_id"] != line["request_id"]
        assert line["trace_id"] == FIRST_TRACE  # carried on from the first attempt
        assert line["own_trace_id"] == RETRY_TRACE


def test_every_retry_of_a_tool_call_id_shares_one_execution_id_even_a_read_only_one(
    demo: McpTestClient,
) -> None:
    def search(meta: dict[str, Any] | None) -> dict[str, Any]:
        answer, _, _ = demo.request(
            "tools/call", {"name": "search_products", "arguments": {"keyword": "cup"}}, meta=meta
        )
        result: dict[str, Any] = answer["result"]
        return result

    first, retry = search({"tool_call_id": "tc-search-1"}), search({"tool_call_id": "tc-search-1"})
    other, unkeyed, unkeyed_again = search({"tool_call_id": "tc-search-2"}), search(None), search(None)

    assert first["_meta"][META_EXECUTION_ID] == retry["_meta"][META_EXECUTION_ID]
    assert len({r["_meta"][META_EXECUTION_ID] for r in (first, other, unkeyed, unkeyed_again)}) == 4
    # A read-only tool is not stored, so its retry runs again: no replay marker.
    assert META_REPLAY not in retry["_meta"]


def test_an_error_an_agent_must_fix_says_so_with_retry_after_0(demo: McpTestClient) -> None:
    answer, _, _ = demo.request(
        "tools/call", {"name": "search_products", "arguments": {"keyword": "cup", "limit": 500}}
    )
    error = answer["result"]["structuredContent"]

    assert answer["result"]["isError"] is True and error["code"] == 40000
    assert error["suggested_action"] == "fix_arguments" and error["retryable"] is False
    assert error["retry_after_ms"] == 0 and "retry_strategy" not in error
    assert answer["result"]["_meta"][META_EXECUTION_ID].startswith("exe_")


def test_a_search_that_finds_nothing_says_no_match_found(demo: McpTestClient) -> None:
    none, _, _ = demo.request("tools/call", {"name": "search_products", "arguments": {"keyword": "zebra"}})
    some, _, _ = demo.request("tools/call", {"name": "search_products", "arguments": {"keyword": "cup"}})
    alerts, _, _ = demo.request("tools/call", {"name": "list_subscriptions", "arguments": {}})

    assert none["result"]["structuredContent"]["result_status"] == "NO_MATCH_FOUND"
    assert none["result"].get("isError") is not True
    assert "result_status" not in some["result"]["structuredContent"]
    assert alerts["result"]["structuredContent"]["result_status"] == "NO_MATCH_FOUND"
    schema = next(tool for tool in demo.list_tools() if tool["name"] == "search_products")["outputSchema"]
    assert schema["anyOf"][0]["properties"]["result_status"]["enum"] == ["NO_MATCH_FOUND"]


MANIFEST = """
tools:
  find: {output: {kind: entities, entity_types: [item], result_statuses: [PARTIAL]}}
  plain: {output: {kind: entities, entity_types: [item]}}
entities:
  item:
    schema:
      item_id: {type: string, is_entity_id: true}
"""


def test_a_result_status_the_manifest_does_not_bless_is_a_violation(tmp_path: Path) -> None:
    path = tmp_path / "statuses.yaml"
    path.write_text(MANIFEST, "utf-8")
    manifest = load_manifest(path)
    nothing = entities([], "none", result_status="NO_MATCH_FOUND")
    partial = entities([], "part", result_status="PARTIAL")

    assert ToolCheck.compile(manifest, "find")(partial) == []
    assert "'NO_MATCH_FOUND' is not in output.result_statuses of this tool (declared: PARTIAL)" in " ".join(
        ToolCheck.compile(manifest, "find")(nothing)
    )
    assert "(declared: none)" in " ".join(ToolCheck.compile(manifest, "plain")(partial))
    with pytest.raises(ValueError, match="result_status must be one of"):
        entities([], "x", result_status="EMPTY")


def test_a_manifest_status_the_toolkit_does_not_know_is_refused_at_load(tmp_path: Path) -> None:
    path = tmp_path / "statuses.yaml"
    path.write_text(MANIFEST.replace("[PARTIAL]", "[EMPTY]"), "utf-8")
    with pytest.raises(Exception, match="result_statuses"):
        load_manifest(path)


def test_the_manifest_knows_every_status_the_toolkit_offers() -> None:
    from typing import get_args

    from mcp_lambda.manifest.models import ResultStatusName
    from mcp_lambda.tools import ResultStatus

    assert set(get_args(ResultStatusName)) == {status.value for status in ResultStatus}
