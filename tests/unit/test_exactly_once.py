"""Exactly-once tool calls with the embedded (memory) store, through the Lambda handler: a retried key gets the
first call's result without running the tool again; what is stored, what is not, and how keys are scoped."""

from __future__ import annotations

import hashlib
import hmac
import json
import time
from datetime import UTC, datetime
from typing import Any

import pytest
from tests.support.exactly_once import (
    DECLINED,
    USER_1,
    USER_2,
    Ledger,
    call,
    exactly_once_business,
    keyed_request,
    replay_marker,
    start_in_another_container,
    tool_result,
)
from tests.support.log_capture import captured_lines
from tests.support.wire import META_CAPABILITIES, modern_headers

from mcp_lambda.composition import build_runtime
from mcp_lambda.lambda_adapter import lambda_handler
from mcp_lambda.settings import Settings
from mcp_lambda.stores.exactly_once import MemoryIdempotencyStore
from mcp_lambda.stores.sessions import MemorySessionStore
from mcp_lambda.testing import McpTestClient
from mcp_lambda.tools import ExactlyOnce, ToolAnnotations, ToolContext, ToolResult, execution_result, tool
from mcp_lambda.tools.errors import ToolSignatureError
from mcp_lambda.tools.results import META_REPLAY
from mcp_lambda_dev.local.events import LocalContext

LOG_KEY = "log-fingerprint-key-of-these-tests"


@pytest.fixture
def ledger() -> Ledger:
    return Ledger()


@pytest.fixture
def store() -> MemoryIdempotencyStore:
    return MemoryIdempotencyStore()


@pytest.fixture
def client(ledger: Ledger, store: MemoryIdempotencyStore) -> McpTestClient:
    business = exactly_once_business(ledger)
    settings = Settings(business=business.name, log_fingerprint_key=LOG_KEY)
    runtime = build_runtime(settings, business, MemorySessionStore(), store)
    return McpTestClient.over_handler(lambda_handler(runtime))


# --- the key's first use and its retries ----------------------------------------------------------------------


def test_same_key_twice_runs_once_and_answers_the_identical_result(
    client: McpTestClient, ledger: Ledger
) -> None:
    first = call(client, "charge", {"amount": 5}, "call-1")
    retry = call(client, "charge", {"amount": 5}, "call-1")

    assert ledger.executions["charge"] == 1
    assert tool_result(first)["structuredContent"]["charge_id"] == "charge-1"
    assert tool_result(retry) == tool_result(first)
    # Byte for byte but for `_meta`: the same execution id, and the replay marker with when the first finished.
    finished = replay_marker(first, retry)["firstFinishedAt"]
    assert finished.endswith("Z") and datetime.fromisoformat(finished) <= datetime.now(UTC)
    assert tool_result(call(client, "charge", {"amount": 5}, "call-2"))["structuredContent"]["charge_id"] == (
        "charge-2"
    )


def test_a_session_client_retry_is_replayed_too(client: McpTestClient, ledger: Ledger) -> None:
    legacy = client.clone(era="2024-11-05")
    legacy.initialize()
    params = {"name": "charge", "arguments": {"amount": 7}, "_meta": {"toolCallId": "doubao-call-1"}}

    first = legacy.rpc("tools/call", params)
    retry = legacy.rpc("tools/call", params)

    assert ledger.executions["charge"] == 1
    assert first.result["structuredContent"]["amount"] == 7
    replayed = retry.result
    marker = replayed["_meta"].pop(META_REPLAY)
    assert replayed == first.result and set(marker) == {"firstFinishedAt"}


def test_the_idempotency_key_header_is_a_key_when_meta_has_none(
    client: McpTestClient, ledger: Ledger
) -> None:
    first = call(client, "charge", {"amount": 1}, header_key='"order-42"')
    retry = call(client, "charge", {"amount": 1}, header_key="order-42")  # the sf-string quotes are optional
    meta_wins = call(client, "charge", {"amount": 1}, "call-9", header_key="order-42")

    assert tool_result(retry) == tool_result(first)
    assert tool_result(meta_wins) != tool_result(first)
    assert ledger.executions["charge"] == 2


def test_same_key_with_other_arguments_gets_40900_and_runs_nothing(
    client: McpTestClient, ledger: Ledger
) -> None:
    call(client, "charge", {"amount": 5}, "call-1")
    other = tool_result(call(client, "charge", {"amount": 500}, "call-1"))

    assert ledger.executions["charge"] == 1
    assert other["isError"] is True
    error = other["structuredContent"]
    assert error["code"] == 40900
    assert "tool_call_id was already used with other arguments" in error["message"]
    assert error["retryable"] is False and error["suggested_action"] == "fix_arguments"
    assert error["retry_after_ms"] == 0 and "retry_strategy" not in error
    assert other["content"] == [{"type": "text", "text": error["message"]}]


def test_the_same_key_for_another_tool_is_another_call(client: McpTestClient, ledger: Ledger) -> None:
    call(client, "charge", {"amount": 5}, "call-1")
    declined = tool_result(call(client, "decline", {"amount": 5}, "call-1"))

    assert declined["structuredContent"]["code"] == DECLINED
    assert ledger.executions == {"charge": 1, "decline": 1}


# --- what is stored --------------------------------------------------------------------------------------------


def test_a_business_error_is_stored_and_replayed(client: McpTestClient, ledger: Ledger) -> None:
    first = tool_result(call(client, "decline", {"amount": 5}, "call-1"))
    retry = tool_result(call(client, "decline", {"amount": 5}, "call-1"))

    assert first["isError"] is True and first["structuredContent"]["code"] == DECLINED
    assert retry == first and "attempt decline-1" in retry["structuredContent"]["message"]
    assert ledger.executions["decline"] == 1


def test_a_tool_exception_is_not_stored_so_the_retry_runs_again(
    client: McpTestClient, ledger: Ledger, store: MemoryIdempotencyStore
) -> None:
    failed = tool_result(call(client, "flaky", {}, "call-1"))
    assert failed["structuredContent"]["code"] == 50000 and store.records == {}

    retry = tool_result(call(client, "flaky", {}, "call-1"))
    again = tool_result(call(client, "flaky", {}, "call-1"))

    assert retry["structuredContent"] == {"run_id": "flaky-2"}
    assert again == retry
    assert ledger.executions["flaky"] == 2


def test_invalid_arguments_are_not_stored_so_the_fixed_call_runs(
    client: McpTestClient, ledger: Ledger
) -> None:
    invalid = tool_result(call(client, "charge", {"amount": "five"}, "call-1"))
    fixed = tool_result(call(client, "charge", {"amount": 5}, "call-1"))

    assert invalid["structuredContent"]["code"] == 40000
    assert fixed["structuredContent"]["charge_id"] == "charge-1"


def test_a_read_only_tool_is_not_stored(
    client: McpTestClient, ledger: Ledger, store: MemoryIdempotencyStore
) -> None:
    first = tool_result(call(client, "lookup", {"query": "q"}, "call-1"))
    second = tool_result(call(client, "lookup", {"query": "q"}, "call-1"))

    assert first["structuredContent"]["run_id"] != second["structuredContent"]["run_id"]
    assert ledger.executions["lookup"] == 2
    assert store.records == {}


def test_a_tool_may_opt_in_or_out(client: McpTestClient, ledger: Ledger) -> None:
    for _ in range(2):
        call(client, "pinned_lookup", {"query": "q"}, "call-1")
        call(client, "unguarded", {}, "call-1")

    assert ledger.executions == {"pinned_lookup": 1, "unguarded": 2}


def test_a_call_without_a_key_runs_every_time(client: McpTestClient, ledger: Ledger) -> None:
    first = tool_result(call(client, "charge", {"amount": 5}))
    second = tool_result(call(client, "charge", {"amount": 5}))

    assert first != second and ledger.executions["charge"] == 2


def test_a_dedupe_window_replays_key_less_calls_with_the_same_arguments(
    client: McpTestClient, ledger: Ledger
) -> None:
    first = tool_result(call(client, "deduped", {"amount": 5}))
    same = tool_result(call(client, "deduped", {"amount": 5}))
    other = tool_result(call(client, "deduped", {"amount": 6}))
    keyed = tool_result(call(client, "deduped", {"amount": 5}, "call-1"))

    assert same == first
    assert other["structuredContent"]["run_id"] == "deduped-2"
    assert keyed["structuredContent"]["run_id"] == "deduped-3"  # a key names its own call
    assert ledger.executions["deduped"] == 3


def test_input_required_rounds_are_not_stored_only_the_final_result(
    client: McpTestClient, ledger: Ledger
) -> None:
    def round_trip(extra: dict[str, Any]) -> Any:
        body = keyed_request("confirmed", {"amount": 5}, "call-1")
        body["params"]["_meta"][META_CAPABILITIES] = {"elicitation": {}}
        body["params"].update(extra)
        return client.post(body, modern_headers("tools/call", "confirmed")).result

    asked = round_trip({})
    asked_again = round_trip({})
    assert asked["resultType"] == asked_again["resultType"] == "input_required"

    answer = {"inputResponses": {"ok": {"action": "accept", "content": {"ok": True}}}}
    done = round_trip({**answer, "requestState": asked_again["requestState"]})
    replayed = round_trip({})  # a retry of the call, even without its answers, gets the final result

    assert done["structuredContent"] == {"run_id": "confirmed-3", "amount": 5}
    assert replayed["structuredContent"] == done["structuredContent"]
    assert ledger.executions["confirmed"] == 3


def test_an_expired_record_runs_again(
    client: McpTestClient, ledger: Ledger, store: MemoryIdempotencyStore
) -> None:
    call(client, "charge", {"amount": 5}, "call-1")
    (record,) = store.records.values()
    record.expiry_timestamp -= 601  # IDEMPOTENCY_TTL_SECONDS (600) have passed

    again = tool_result(call(client, "charge", {"amount": 5}, "call-1"))

    assert again["structuredContent"]["charge_id"] == "charge-2"
    assert ledger.executions["charge"] == 2


def test_the_record_lives_idempotency_ttl_seconds(ledger: Ledger, store: MemoryIdempotencyStore) -> None:
    business = exactly_once_business(ledger)
    settings = Settings.from_env({"BUSINESS": business.name, "IDEMPOTENCY_TTL_SECONDS": "5"})
    client = McpTestClient.over_handler(
        lambda_handler(build_runtime(settings, business, MemorySessionStore(), store))
    )

    before = int(time.time())
    call(client, "charge", {"amount": 5}, "call-1")
    after = int(time.time())

    (record,) = store.records.values()
    assert record.status == "COMPLETED"
    assert before + 5 <= record.expiry_timestamp <= after + 5


# --- a call still running, a store down ------------------------------------------------------------------------


def test_a_retry_while_the_first_call_runs_gets_40910_then_the_result(
    ledger: Ledger, store: MemoryIdempotencyStore
) -> None:
    business = exactly_once_business(ledger)

    def container() -> McpTestClient:  # two apps over one store: two containers of one process
        return McpTestClient.over_handler(
            lambda_handler(build_runtime(Settings(business="oncebiz"), business, None, store))
        )

    join = start_in_another_container(
        container().handler, keyed_request("hold", {}, "call-1"), LocalContext()
    )
    assert ledger.started.wait(10)
    other = container()
    busy = tool_result(call(other, "hold", {}, "call-1"))
    ledger.release.set()
    first = join()

    assert busy["structuredContent"] == {
        "code": 40910,
        "message": busy["structuredContent"]["message"],
        "retryable": True,
        "suggested_action": "wait_and_retry",
        "retry_after_ms": 1000,
        "retry_strategy": {"kind": "exponential_backoff", "base_ms": 1000, "max_ms": 30000, "attempts": 5},
    }
    assert tool_result(call(other, "hold", {}, "call-1"))["structuredContent"] == first["structuredContent"]
    assert ledger.executions["hold"] == 1


class _Unreachable(MemoryIdempotencyStore):
    """A store whose every write fails the way a sick table does (a fast unit stand-in for DynamoDB down)."""

    def layer(self, expires_after_seconds: int) -> Any:
        layer = super().layer(expires_after_seconds)

        def refuse(data_record: Any) -> None:
            raise ConnectionError("connect timeout on endpoint URL http://10.0.0.1")

        layer._put_record = refuse
        return layer


def test_a_store_that_cannot_be_reached_answers_50030_and_the_tool_does_not_run(ledger: Ledger) -> None:
    business = exactly_once_business(ledger)
    runtime = build_runtime(Settings(business="oncebiz"), business, None, _Unreachable())
    client = McpTestClient.over_handler(lambda_handler(runtime))

    with captured_lines("oncebiz") as lines:
        reply = call(client, "charge", {"amount": 5}, "call-1")
    unkeyed = tool_result(call(client, "charge", {"amount": 5}))

    error = tool_result(reply)["structuredContent"]
    assert reply.status == 200
    assert (
        error["code"] == 50030
        and error["retryable"] is True
        and error["suggested_action"] == "wait_and_retry"
    )
    assert error["retry_after_ms"] == 1000 and "did not run" in error["message"]
    assert b"10.0.0.1" not in reply.raw
    failed = next(line for line in lines if line["event"] == "mcp_tool_call_failed")
    assert (
        failed["error_type"] == "IdempotencyStoreUnavailable" and failed["store_error"] == "ConnectionError"
    )
    assert "10.0.0.1" not in json.dumps(lines)
    assert (
        unkeyed["structuredContent"]["charge_id"] == "charge-1"
    )  # calls without a key do not need the store
    assert ledger.executions["charge"] == 1


# --- keys are scoped per caller ---------------------------------------------------------------------------------


def test_keys_are_scoped_per_caller_principal(client: McpTestClient, ledger: Ledger) -> None:
    mine = tool_result(call(client, "charge", {"amount": 5}, "call-1", authorizer=USER_1))
    theirs = tool_result(call(client, "charge", {"amount": 5}, "call-1", authorizer=USER_2))
    theirs_other = tool_result(call(client, "charge", {"amount": 9}, "call-1", authorizer=USER_2))
    anonymous = tool_result(call(client, "charge", {"amount": 5}, "call-1"))
    mine_again = tool_result(call(client, "charge", {"amount": 5}, "call-1", authorizer=USER_1))

    assert mine_again == mine
    ids = {r["structuredContent"].get("charge_id") for r in (mine, theirs, anonymous)}
    assert len(ids) == 3  # nobody was handed another caller's result
    assert (
        theirs_other["structuredContent"]["code"] == 40900
    )  # their own key, used by them with other arguments
    assert ledger.executions["charge"] == 3


# --- visible ---------------------------------------------------------------------------------------------------


def test_a_replay_is_logged_as_replayed_with_a_fingerprint_and_never_the_key(
    client: McpTestClient, store: MemoryIdempotencyStore
) -> None:
    with captured_lines("oncebiz") as lines:
        call(client, "charge", {"amount": 5}, header_key="customer-jane@example.com")
        call(client, "charge", {"amount": 5}, header_key="customer-jane@example.com")
    finished = [line for line in lines if line["event"] == "mcp_tool_call_finished"]

    assert [line["outcome"] for line in finished] == ["success", "replayed"]
    fingerprints = {line["key_fingerprint"] for line in lines}
    assert len(fingerprints) == 1 and len(next(iter(fingerprints))) == 12
    (record_id,) = store.records
    assert record_id.startswith("mcp-oncebiz#")
    # Keyed (the key holds the principal): not the record hash's tail, but whoever holds the key finds the record.
    record_hash = record_id.removeprefix("mcp-oncebiz#")
    assert not record_id.endswith(next(iter(fingerprints)))
    assert fingerprints == {hmac.new(LOG_KEY.encode(), record_hash.encode(), hashlib.sha256).hexdigest()[:12]}
    assert all(line["key_source"] == "Idempotency-Key" for line in lines if "key_source" in line)
    assert "jane" not in json.dumps(lines) and "jane" not in record_id


def test_a_replay_counts_in_the_tool_replays_metric(
    client: McpTestClient, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    call(client, "charge", {"amount": 5}, "call-1")
    call(client, "charge", {"amount": 5}, "call-1")

    blobs = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith('{"_aws"')]
    assert [blob["ToolReplays"] for blob in blobs] == [[0.0], [1.0]]
    assert [blob["ToolCalls"] for blob in blobs] == [[1.0], [1.0]]


# --- declaring it ----------------------------------------------------------------------------------------------


def _plain(ctx: ToolContext) -> ToolResult:
    return execution_result({})


@pytest.mark.parametrize(
    ("options", "problem"),
    [
        ({"exactly_once": "yes"}, "exactly_once must be True, False, an ExactlyOnce"),
        (
            {"exactly_once": ExactlyOnce(dedupe_window_seconds=0)},
            "dedupe_window_seconds must be a whole number >= 1",
        ),
        (
            {"exactly_once": ExactlyOnce(dedupe_window_seconds=True)},
            "dedupe_window_seconds must be a whole number >= 1",
        ),
        (
            {"exactly_once": ExactlyOnce(dedupe_window_seconds=1.5)},
            "dedupe_window_seconds must be a whole number >= 1",
        ),
    ],
)
def test_bad_exactly_once_options_fail_at_import(options: dict[str, Any], problem: str) -> None:
    with pytest.raises(ToolSignatureError, match=problem):
        tool(description="Use to test.", **options)(_plain)


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({}, True),
        ({"annotations": ToolAnnotations(read_only=True)}, False),
        ({"annotations": ToolAnnotations(read_only=True), "exactly_once": True}, True),
        ({"annotations": ToolAnnotations(read_only=True), "exactly_once": ExactlyOnce()}, True),
        (
            {
                "annotations": ToolAnnotations(read_only=True),
                "exactly_once": ExactlyOnce(dedupe_window_seconds=60),
            },
            True,
        ),
        ({"exactly_once": False}, False),
    ],
)
def test_which_tools_run_exactly_once(options: dict[str, Any], expected: bool) -> None:
    spec = tool(description="Use to test.", **options)(_plain)
    assert spec.runs_exactly_once is expected
    assert "exactly" not in json.dumps(spec.to_wire())  # a server-side behaviour, not a wire field
