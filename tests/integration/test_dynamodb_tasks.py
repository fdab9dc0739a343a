"""Tasks on DynamoDB Local: the store's item shape, conditional writes and TTL; caller binding through the handler;
and real `make run` processes sharing one table: a task created on one completes in that process's worker (the
asynchronous self-invocation, through the local Invoke API) and is read on the other, is cancelled from the
other while it runs, and is reported failed once its worker dies with the process."""

from __future__ import annotations

import json
import math
import os
import time
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from tests.support.handlers import build_handler
from tests.support.task_business import CALLS, TASK_BUSINESS, TASKS_CAPABILITIES, RecordingInvoker

from mcp_lambda import trace_context
from mcp_lambda.settings import Settings
from mcp_lambda.stores.tasks import Task, TaskIdTaken, TaskTooLarge, open_task
from mcp_lambda.stores.tasks.dynamodb import DynamoDBTaskStore
from mcp_lambda.testing import MODERN, McpTestClient
from mcp_lambda.wire import modern_meta
from mcp_lambda_dev import services
from mcp_lambda_dev.local.process import running_server, server_process
from mcp_lambda_dev.services import LocalService

ALICE = {"jwt": {"claims": {"sub": "alice", "iss": "https://issuer.example"}, "scopes": None}}
MALLORY = {"jwt": {"claims": {"sub": "mallory", "iss": "https://issuer.example"}, "scopes": None}}
META = modern_meta({"extensions": {"io.modelcontextprotocol/tasks": {}}})
TERMINAL = ("completed", "failed", "cancelled")


def _task(**changes: Any) -> Task:
    task = open_task(
        business="taskbiz",
        tool="count_to",
        arguments={"n": 2, "ratio": 0.25, "text": "naïve ✓"},
        ttl_ms=3_600_000,
        worker_timeout_seconds=60,
        principal="jwt:https%3A%2F%2Fissuer.example:alice",
        client_capabilities={"extensions": {"io.modelcontextprotocol/tasks": {}}},
        trace=trace_context.parse(
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "rojo=00f067aa0ba902b7"
        ),
    )
    return task.model_copy(update=changes)


# --- the store ----------------------------------------------------------------------------------------------


@pytest.fixture
def store(dynamodb_tasks_env: dict[str, str]) -> DynamoDBTaskStore:
    return DynamoDBTaskStore(dynamodb_tasks_env["TASKS_TABLE"])


def test_a_task_round_trips_through_its_item_and_expires_at_is_the_ttl_attribute(
    dynamodb_client: Any, tasks_table: str, store: DynamoDBTaskStore
) -> None:
    task = _task()
    store.create(task)

    item = dynamodb_client.get_item(TableName=tasks_table, Key={"task_id": {"S": task.task_id}})["Item"]
    ttl = dynamodb_client.describe_time_to_live(TableName=tasks_table)["TimeToLiveDescription"]

    assert DynamoDBTaskStore(tasks_table).get(task.task_id) == task  # another container reads it back
    assert task.traceparent is not None and task.tracestate is not None  # the trace context made the trip too
    assert int(item["expires_at"]["N"]) == math.ceil(task.created_at + 3600)
    assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expires_at"}
    with pytest.raises(TaskIdTaken):
        store.create(task.model_copy(update={"tool": "another"}))  # another record under its id
    store.create(task)  # the very same record again: a retried write that finds its own item


def test_writes_are_conditional_on_the_version_read(store: DynamoDBTaskStore) -> None:
    task = _task()
    store.create(task)
    cancelled = task.cancel(time.time())
    assert cancelled is not None

    assert store.replace(cancelled, task.version) is True
    late = task.claim(1, 60, time.time())  # a worker that read the task before the cancel
    assert late is not None and store.replace(late, task.version) is False
    stored = store.get(task.task_id)
    assert stored is not None and stored.status == "cancelled"


def test_a_result_too_big_for_an_item_is_refused_as_such(store: DynamoDBTaskStore) -> None:
    task = _task()
    store.create(task)
    huge = task.model_copy(update={"result": {"content": [{"type": "text", "text": "x" * 500_000}]}})

    with pytest.raises(TaskTooLarge):
        store.replace(huge, task.version)


def test_a_task_past_its_ttl_is_not_read_even_before_dynamodb_deletes_it(store: DynamoDBTaskStore) -> None:
    task = _task(created_at=time.time() - 3601)
    store.create(task)

    assert store.get(task.task_id) is None


# --- through the handler: caller binding and the TTL a client sees ---------------------------------------------


@pytest.fixture
def containers(dynamodb_tasks_env: dict[str, str]) -> Iterator[Any]:
    """Fresh Lambda containers sharing the table: settings from the environment, a new app and store each."""
    CALLS.clear()
    invoker = RecordingInvoker()

    def fresh() -> McpTestClient:
        settings = Settings.from_env({**os.environ, "BUSINESS": TASK_BUSINESS.name})
        return McpTestClient.over_handler(build_handler(TASK_BUSINESS, settings, invoker=invoker))

    yield fresh, invoker


def test_a_task_is_bound_to_its_caller_on_every_container(containers: Any, tasks_table: str) -> None:
    fresh, invoker = containers
    alice = fresh().clone(era=MODERN, capabilities=TASKS_CAPABILITIES, authorizer=ALICE)
    created = alice.rpc("tools/call", {"name": "count_to", "arguments": {"n": 2}}).result
    task_id = created["taskId"]

    worker = fresh()
    invoker.deliver(worker.handler)  # the worker invocation lands on yet another container
    mallory = fresh().clone(era=MODERN, capabilities=TASKS_CAPABILITIES, authorizer=MALLORY)
    anonymous = fresh().clone(era=MODERN, capabilities=TASKS_CAPABILITIES)
    alice_elsewhere = fresh().clone(era=MODERN, capabilities=TASKS_CAPABILITIES, authorizer=ALICE)

    for other in (mallory, anonymous):
        for method in ("tasks/get", "tasks/cancel"):
            reply = other.rpc(method, {"taskId": task_id})
            assert (reply.status, reply.error["code"]) == (400, -32602), method
    done = alice_elsewhere.rpc("tasks/get", {"taskId": task_id}).result
    item = DynamoDBTaskStore(tasks_table).get(task_id)

    assert done["status"] == "completed" and done["result"]["content"][0]["text"] == "counted to 2"
    assert item is not None and item.principal == "jwt:https%3A%2F%2Fissuer.example:alice"
    assert CALLS == ["count_to"]


def test_the_ttl_a_client_is_told_is_the_one_the_table_enforces(
    containers: Any, dynamodb_client: Any, tasks_table: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("TASK_TTL_MS", "120000")
    monkeypatch.setenv("TASK_WORKER_TIMEOUT_SECONDS", "60")
    fresh, _invoker = containers
    client = fresh().clone(era=MODERN, capabilities=TASKS_CAPABILITIES)
    created = client.rpc("tools/call", {"name": "count_to", "arguments": {"n": 1}}).result

    item = dynamodb_client.get_item(TableName=tasks_table, Key={"task_id": {"S": created["taskId"]}})["Item"]
    store = DynamoDBTaskStore(tasks_table)
    task = store.get(created["taskId"])
    assert task is not None
    store.replace(task.model_copy(update={"created_at": task.created_at - 121}), task.version)
    expired = client.rpc("tasks/get", {"taskId": created["taskId"]})

    assert created["ttlMs"] == 120_000
    assert int(item["expires_at"]["N"]) == math.ceil(float(item["created_at"]["N"]) + 120)
    assert (expired.status, expired.error["code"]) == (400, -32602)


# --- real processes ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def shared_table(dynamodb_local: LocalService) -> Iterator[dict[str, str]]:
    """One tasks table for the module's server processes, and the environment that points them at it."""
    client = boto3.client("dynamodb", endpoint_url=dynamodb_local.endpoint_url)
    name = f"tasks-{uuid.uuid4().hex[:12]}"
    services.create_tasks_table(client, name)
    yield {
        "TASKS_STORE": "dynamodb",
        "TASKS_TABLE": name,
        "AWS_ENDPOINT_URL_DYNAMODB": dynamodb_local.endpoint_url,
        # Short, so a dead worker's task is reported failed within seconds (claim + 4 s + the store's slack).
        "TASK_WORKER_TIMEOUT_SECONDS": "4",
    }
    client.delete_table(TableName=name)


@pytest.fixture(scope="module")
def reader(shared_table: dict[str, str]) -> Iterator[str]:
    with running_server("conformance", **shared_table) as url:
        yield url


def _rpc(url: str, method: str, params: dict[str, Any]) -> dict[str, Any]:
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": META}}
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
    }
    name = params.get("name") if method == "tools/call" else params.get("taskId")
    if name:
        headers["mcp-name"] = name
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
    with urllib.request.urlopen(request, timeout=10) as response:
        answer: dict[str, Any] = json.loads(response.read())
    assert "result" in answer, answer
    return answer["result"]  # type: ignore[no-any-return]


def _poll(url: str, task_id: str, until: Any, timeout: float = 30.0) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        task = _rpc(url, "tasks/get", {"taskId": task_id})
        if until(task) or time.monotonic() > deadline:
            return task
        time.sleep(0.1)


def _running(task: dict[str, Any]) -> bool:
    # slow_compute reports a status as soon as it starts: the worker has claimed the task and is in the tool.
    return task["status"] != "working" or "statusMessage" in task


def test_created_on_one_process_completed_by_its_worker_read_on_another(
    shared_table: dict[str, str], reader: str
) -> None:
    with running_server("conformance", **shared_table) as creator:
        created = _rpc(creator, "tools/call", {"name": "slow_compute", "arguments": {"seconds": 0.5}})
        assert created["resultType"] == "task"
        seen = _rpc(reader, "tasks/get", {"taskId": created["taskId"]})  # durable: found at once, elsewhere
        done = _poll(reader, created["taskId"], lambda task: task["status"] in TERMINAL)

    assert seen["status"] == "working"
    assert done["status"] == "completed"
    assert done["result"]["content"][0]["text"] == "Computed a result in 0.5 s"


def test_cancelled_from_another_process_while_its_worker_runs(
    shared_table: dict[str, str], reader: str
) -> None:
    with running_server("conformance", **shared_table) as creator:
        created = _rpc(creator, "tools/call", {"name": "slow_compute", "arguments": {"seconds": 60}})
        running = _poll(reader, created["taskId"], _running)
        ack = _rpc(reader, "tasks/cancel", {"taskId": created["taskId"]})
        on_creator = _poll(creator, created["taskId"], lambda task: task["status"] in TERMINAL)

    assert running["status"] == "working" and running["statusMessage"].startswith("Computing")
    assert set(ack) == {"resultType", "_meta"}
    assert on_creator["status"] == "cancelled"
    assert _rpc(reader, "tasks/get", {"taskId": created["taskId"]})["status"] == "cancelled"


def test_a_worker_that_dies_mid_task_leaves_a_task_that_reads_failed_after_its_deadline(
    shared_table: dict[str, str], reader: str
) -> None:
    # 3 s of work would finish well inside the 4 s worker timeout: only the crash can make it fail.
    with server_process("conformance", **shared_table) as (creator, process):
        created = _rpc(creator, "tools/call", {"name": "slow_compute", "arguments": {"seconds": 3}})
        running = _poll(reader, created["taskId"], _running)
        process.kill()  # the container dies with its worker: nothing will ever finish the task
        process.wait()
    failed = _poll(reader, created["taskId"], lambda task: task["status"] in TERMINAL)

    assert running["status"] == "working"
    assert failed["status"] == "failed", failed
    assert failed["error"]["code"] == -32603 and "timed out or crashed" in failed["error"]["message"]
    assert "result" not in failed
