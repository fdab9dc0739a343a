"""Exactly-once tool calls on DynamoDB Local (Powertools' DynamoDB layer): shared by containers and processes,
one execution under concurrent retries, claims that die with their invocation, expiry, per-caller keys, the
item's shape and cost, and a store outage answered with a retryable error instead of a second execution."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from typing import Any

import pytest
from tests.support.exactly_once import (
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
from tests.support.wire import POST_HEADERS, modern_headers

from mcp_lambda.composition import build_runtime
from mcp_lambda.lambda_adapter import lambda_handler
from mcp_lambda.settings import Settings
from mcp_lambda.stores.exactly_once import DynamoDBIdempotencyStore
from mcp_lambda.testing import McpTestClient
from mcp_lambda_dev import services
from mcp_lambda_dev.aws_counters import DynamoDBCalls
from mcp_lambda_dev.local.events import LocalContext
from mcp_lambda_dev.services import LocalService

Container = Callable[[], tuple[McpTestClient, DynamoDBIdempotencyStore]]


@pytest.fixture
def ledger() -> Ledger:
    return Ledger()


@pytest.fixture
def container(idempotency_env: dict[str, str], ledger: Ledger) -> Container:
    """Each call is a fresh Lambda container: settings from the environment, a new app, store and boto3 client."""
    business = exactly_once_business(ledger)

    def fresh() -> tuple[McpTestClient, DynamoDBIdempotencyStore]:
        settings = Settings.from_env({**os.environ, "BUSINESS": business.name})
        runtime = build_runtime(settings, business)
        store = runtime.idempotency
        assert isinstance(store, DynamoDBIdempotencyStore)
        return McpTestClient.over_handler(lambda_handler(runtime)), store

    return fresh


def _items(dynamodb_client: Any, table: str) -> list[dict[str, Any]]:
    return dynamodb_client.scan(TableName=table, ConsistentRead=True)["Items"]  # type: ignore[no-any-return]


# --- one key, many containers -----------------------------------------------------------------------------------


def test_a_retry_on_another_container_gets_the_first_result(container: Container, ledger: Ledger) -> None:
    first_client, first_store = container()
    first_calls = DynamoDBCalls().watch(first_store.client)
    first = call(first_client, "charge", {"amount": 5}, "call-1")

    retry_client, retry_store = container()
    retry_calls = DynamoDBCalls().watch(retry_store.client)
    retry = call(retry_client, "charge", {"amount": 5}, "call-1")

    assert ledger.executions["charge"] == 1
    # The stored bytes, the first run's execution id (stored with them: these containers have no shared log
    # key), and the replay marker.
    assert set(replay_marker(first, retry)) == {"firstFinishedAt"}
    # A first call: one conditional write claims the key, one write completes it, no read.
    assert dict(first_calls.operations) == {"PutItem": 1, "UpdateItem": 1}
    # A replay: the refused claim returns the stored item itself, so no read either.
    assert dict(retry_calls.operations) == {"PutItem": 1}


def test_a_retry_on_another_container_names_the_first_request_and_carries_its_trace(
    container: Container, ledger: Ledger
) -> None:
    first_trace, retry_trace = "4bf92f3577b34da6a3ce929d0e0e4736", "0af7651916cd43dd8448eb211c80319c"

    def traced(client: McpTestClient, trace_id: str) -> None:
        body = keyed_request("charge", {"amount": 5}, "call-traced")
        body["params"]["_meta"]["traceparent"] = f"00-{trace_id}-00f067aa0ba902b7-01"
        assert client.post(body, modern_headers("tools/call", "charge")).status == 200

    with captured_lines("oncebiz") as lines:
        traced(container()[0], first_trace)
        traced(
            container()[0], retry_trace
        )  # another container: what it knows of the first came from the table
    first, retry = [line for line in lines if line["event"] == "mcp_tool_call_finished"]

    assert (first["outcome"], retry["outcome"]) == ("success", "replayed") and ledger.executions[
        "charge"
    ] == 1
    assert retry["execution_id"] == first["execution_id"]
    assert retry["first_request_id"] == first["request_id"] != retry["request_id"]
    assert (retry["trace_id"], retry["own_trace_id"]) == (first_trace, retry_trace)


def test_other_arguments_on_another_container_get_40900(container: Container, ledger: Ledger) -> None:
    call(container()[0], "charge", {"amount": 5}, "call-1")
    other = tool_result(call(container()[0], "charge", {"amount": 6}, "call-1"))["structuredContent"]

    assert other["code"] == 40900 and other["retryable"] is False
    assert other["suggested_action"] == "fix_arguments"
    assert ledger.executions["charge"] == 1


def test_the_item_holds_hashes_and_the_result_never_the_key(
    container: Container, dynamodb_client: Any, idempotency_table: str
) -> None:
    client, _ = container()
    before = int(time.time())
    call(client, "charge", {"amount": 5}, header_key="order-for-jane@example.com")

    (item,) = _items(dynamodb_client, idempotency_table)
    assert item["id"]["S"].startswith("mcp-oncebiz#")
    assert item["status"]["S"] == "COMPLETED"
    assert before + 600 <= int(item["expiration"]["N"]) <= int(time.time()) + 600
    assert json.loads(json.loads(item["data"]["S"])["result"])["structuredContent"]["amount"] == 5
    assert "jane" not in json.dumps(item)
    assert len(item["validation"]["S"]) == 64  # the sha256 of the arguments, for the 40900 check


def test_business_errors_are_stored_and_failures_and_read_only_calls_are_not(
    container: Container, ledger: Ledger, dynamodb_client: Any, idempotency_table: str
) -> None:
    for _ in range(2):
        call(container()[0], "decline", {"amount": 5}, "call-1")
        call(container()[0], "flaky", {}, "call-2")
        call(container()[0], "lookup", {"query": "q"}, "call-3")

    assert ledger.executions == {"decline": 1, "flaky": 2, "lookup": 2}
    statuses = sorted(item["status"]["S"] for item in _items(dynamodb_client, idempotency_table))
    assert statuses == ["COMPLETED", "COMPLETED"]  # decline's error result and flaky's second (good) run


def test_keys_are_scoped_per_caller_principal(container: Container, ledger: Ledger) -> None:
    mine = tool_result(call(container()[0], "charge", {"amount": 5}, "call-1", authorizer=USER_1))
    theirs = tool_result(call(container()[0], "charge", {"amount": 5}, "call-1", authorizer=USER_2))
    mine_again = tool_result(call(container()[0], "charge", {"amount": 5}, "call-1", authorizer=USER_1))

    assert mine_again == mine != theirs
    assert ledger.executions["charge"] == 2


def test_an_expired_record_runs_again(
    container: Container, ledger: Ledger, dynamodb_client: Any, idempotency_table: str
) -> None:
    call(container()[0], "charge", {"amount": 5}, "call-1")
    (item,) = _items(dynamodb_client, idempotency_table)
    # IDEMPOTENCY_TTL_SECONDS have passed (DynamoDB's TTL deletes lazily; the expiry is what counts).
    dynamodb_client.update_item(
        TableName=idempotency_table,
        Key={"id": item["id"]},
        UpdateExpression="SET expiration = :past",
        ExpressionAttributeValues={":past": {"N": str(int(time.time()) - 1)}},
    )

    again = tool_result(call(container()[0], "charge", {"amount": 5}, "call-1"))

    assert again["structuredContent"]["charge_id"] == "charge-2"
    assert ledger.executions["charge"] == 2


# --- concurrent calls ------------------------------------------------------------------------------------------


def test_two_concurrent_identical_calls_run_once_the_other_gets_40910_then_the_result(
    container: Container, ledger: Ledger
) -> None:
    first_client, _ = container()
    join = start_in_another_container(
        first_client.handler, keyed_request("hold", {}, "call-1"), LocalContext()
    )
    assert ledger.started.wait(10)

    second_client, _ = container()
    busy = tool_result(call(second_client, "hold", {}, "call-1"))
    ledger.release.set()
    first = join()
    after = tool_result(call(second_client, "hold", {}, "call-1"))

    error = busy["structuredContent"]
    assert busy["isError"] is True and error["code"] == 40910
    assert error["retryable"] is True and error["suggested_action"] == "wait_and_retry"
    assert error["retry_after_ms"] == 1000
    assert "still running" in error["message"]
    assert after["structuredContent"] == first["structuredContent"] == {"run_id": "hold-1"}
    assert ledger.executions["hold"] == 1


class EndingInvocation(LocalContext):
    """An invocation that Lambda ends (a timeout, a crash) while its tool runs: the request's deadline is read
    while there is time left, the claim's lifetime once none is left."""

    reads = 0

    def get_remaining_time_in_millis(self) -> int:
        self.reads += 1
        return 10_000 if self.reads == 1 else 0


def test_the_claim_of_a_dead_invocation_expires_with_it(container: Container, ledger: Ledger) -> None:
    first_client, _ = container()
    ended = EndingInvocation()
    join = start_in_another_container(first_client.handler, keyed_request("hold", {}, "call-1"), ended)
    assert ledger.started.wait(10)
    try:
        retry = tool_result(call(container()[0], "hold", {}, "call-1"))
    finally:
        ledger.release.set()
        join()

    assert retry["structuredContent"] == {"run_id": "hold-2"}  # not 40910 until the whole TTL has passed


class LongFunction(LocalContext):
    """An HTTP invocation of a function whose timeout is 900 s (the template's, for task workers)."""

    def get_remaining_time_in_millis(self) -> int:
        return 900_000


def test_a_claim_lives_until_its_requests_deadline_not_the_functions_timeout(
    container: Container, ledger: Ledger, dynamodb_client: Any, idempotency_table: str
) -> None:
    first_client, _ = container()
    before = time.time()
    join = start_in_another_container(
        first_client.handler, keyed_request("hold", {}, "call-1"), LongFunction()
    )
    assert ledger.started.wait(10)
    try:
        (item,) = _items(dynamodb_client, idempotency_table)
    finally:
        ledger.release.set()
        join()

    assert item["status"]["S"] == "INPROGRESS"
    in_progress_until = int(item["in_progress_expiration"]["N"]) / 1000
    # REQUEST_DEADLINE_MS (29 s) less the answer margin, plus the claim's 2 s of grace: not 900 s.
    assert before + 25 < in_progress_until < time.time() + 32, in_progress_until - before


# --- the store down ----------------------------------------------------------------------------------------------


def test_an_unreachable_store_answers_a_retryable_error_and_runs_nothing(
    container: Container,
    ledger: Ledger,
    dynamodb_local: LocalService,
    dynamodb_client: Any,
    idempotency_table: str,
) -> None:
    client, _ = container()
    dynamodb_local.stop()
    try:
        down = call(client, "charge", {"amount": 5}, "call-1")
    finally:
        dynamodb_local.start()
        # DynamoDB Local runs in memory: the restarted server has no tables, as after a disaster recovery.
        services.create_idempotency_table(dynamodb_client, idempotency_table)

    assert down.status == 200
    error = tool_result(down)["structuredContent"]
    assert error["code"] == 50030 and error["retryable"] is True
    assert error["suggested_action"] == "wait_and_retry" and error["retry_after_ms"] >= 0
    assert "did not run" in error["message"]
    assert b"127.0.0.1" not in down.raw and b"Endpoint" not in down.raw
    assert ledger.executions["charge"] == 0

    recovered = tool_result(call(client, "charge", {"amount": 5}, "call-1"))  # the same container, store back
    assert recovered["structuredContent"]["charge_id"] == "charge-1"


# --- two real server processes ------------------------------------------------------------------------------------


def test_a_retry_on_another_server_process_gets_the_first_result(idempotency_env: dict[str, str]) -> None:
    from mcp_lambda_dev.local.process import running_server

    arguments = {"product_id": "p-1004", "alert": "restock"}
    with running_server("demo") as first, running_server("demo") as second:
        original = _post(first, "subscribe_product", arguments, "call-A1")
        retried = _post(second, "subscribe_product", arguments, "call-A1")
        unkeyed = _post(second, "subscribe_product", arguments, None)

    subscription = original["structuredContent"]["subscription_id"]
    assert retried == original
    assert subscription in original["content"][0]["text"]
    assert unkeyed["structuredContent"]["subscription_id"] != subscription  # B does run calls of its own


def _post(url: str, tool: str, arguments: dict[str, Any], key: str | None) -> dict[str, Any]:
    body = keyed_request(tool, arguments, key)
    headers = {**POST_HEADERS, **modern_headers("tools/call", tool)}
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=15) as response:
            raw = response.read()
    except urllib.error.HTTPError as exc:
        raise AssertionError(f"HTTP {exc.code}: {exc.read()!r}") from None
    result = json.loads(raw)["result"]
    return {key: result[key] for key in ("content", "structuredContent", "isError") if key in result}
