"""The tasks extension (SEP-2663, 2026-07-28) through the Lambda handler: API Gateway events for the HTTP side,
the internal task event for the worker invocation (captured by a recording invoker and delivered by the test)."""

from __future__ import annotations

import json
import logging
import threading
import time
from typing import Any

import pytest
from tests.support.business import SECRET_FAILURE_TEXT, TEST_BUSINESS
from tests.support.handlers import build_handler
from tests.support.task_business import CALLS, TASK_BUSINESS, TASKS_CAPABILITIES, RecordingInvoker

from mcp_lambda.calls.task_invoke import parse_task_event, task_event
from mcp_lambda.settings import Settings
from mcp_lambda.stores.tasks import MemoryTaskStore, Task
from mcp_lambda.testing import MODERN, McpTestClient, invoke
from mcp_lambda.tools import Business, ToolResult, content_result, text, tool
from mcp_lambda.tools.business import BusinessDefinitionError

EXTENSION = "io.modelcontextprotocol/tasks"
SETTINGS = Settings(business=TASK_BUSINESS.name, task_poll_interval_ms=500, task_ttl_ms=3_600_000)


def jwt(sub: str) -> dict[str, Any]:
    return {"jwt": {"claims": {"sub": sub, "iss": "https://issuer.example"}, "scopes": []}}


class Harness:
    def __init__(self) -> None:
        self.store = MemoryTaskStore()
        self.invoker = RecordingInvoker()
        self.handler = build_handler(TASK_BUSINESS, SETTINGS, tasks=self.store, invoker=self.invoker)
        self.http = McpTestClient.over_handler(self.handler)
        self.tasks = self.http.clone(era=MODERN, capabilities=TASKS_CAPABILITIES)
        self.plain = self.http.clone(era=MODERN, capabilities={"elicitation": {}})

    def create(
        self, name: str, arguments: dict[str, Any] | None = None, client: McpTestClient | None = None
    ) -> str:
        reply = (client or self.tasks).rpc("tools/call", {"name": name, "arguments": arguments or {}})
        assert reply.status == 200, reply.raw
        assert reply.result["resultType"] == "task", reply.result
        return str(reply.result["taskId"])

    def get(self, task_id: str, client: McpTestClient | None = None) -> dict[str, Any]:
        reply = (client or self.tasks).rpc("tasks/get", {"taskId": task_id})
        assert reply.status == 200, reply.raw
        return reply.result

    def work(self) -> list[Any]:
        return self.invoker.deliver(self.handler)


@pytest.fixture
def harness() -> Harness:
    CALLS.clear()
    return Harness()


def test_discover_advertises_the_extension_only_when_a_tool_can_run_as_a_task(harness: Harness) -> None:
    capabilities = harness.tasks.rpc("server/discover").result["capabilities"]
    plain = (
        McpTestClient.over_handler(build_handler(TEST_BUSINESS), era=MODERN, capabilities={})
        .rpc("server/discover")
        .result
    )

    assert capabilities["extensions"] == {EXTENSION: {}}
    assert "tasks" not in capabilities, "the v1 capabilities.tasks slot is never used"
    assert "extensions" not in plain["capabilities"]


def test_a_task_is_created_durably_worked_by_the_worker_invocation_and_read_back(harness: Harness) -> None:
    reply = harness.tasks.rpc("tools/call", {"name": "count_to", "arguments": {"n": 3}})
    created = reply.result
    task_id = created["taskId"]

    assert set(created) == {
        "resultType",
        "taskId",
        "status",
        "createdAt",
        "lastUpdatedAt",
        "ttlMs",
        "pollIntervalMs",
        "_meta",
    }
    assert (created["status"], created["ttlMs"], created["pollIntervalMs"]) == ("working", 3_600_000, 500)
    assert harness.invoker.started == [(task_id, 1)] and CALLS == [], "the tool runs in the worker, not here"
    assert harness.get(task_id)["status"] == "working"  # found at once, before the worker ran

    (outcome,) = harness.work()
    done = harness.get(task_id)

    assert outcome == {"taskId": task_id, "run": 1, "ran": True, "status": "completed"}
    assert CALLS == ["count_to"]
    assert done["status"] == "completed" and done["resultType"] == "complete"
    assert done["result"]["content"] == [{"type": "text", "text": "counted to 3"}]
    assert "pollIntervalMs" not in done and "statusMessage" not in done


def test_without_the_extension_an_optional_tool_answers_at_once_and_a_required_one_is_refused(
    harness: Harness,
) -> None:
    sync = harness.plain.rpc("tools/call", {"name": "count_to", "arguments": {"n": 2}})
    refused = harness.plain.rpc("tools/call", {"name": "export_report", "arguments": {}})

    assert sync.result["resultType"] == "complete" and "taskId" not in sync.result
    assert sync.result["content"] == [{"type": "text", "text": "counted to 2"}]
    assert (refused.status, refused.error["code"]) == (400, -32021)
    assert refused.error["data"] == {"requiredCapabilities": {"extensions": {EXTENSION: {}}}}
    assert CALLS == ["count_to"] and harness.invoker.started == [], "the required tool never ran"


def test_a_legacy_v1_task_param_neither_fails_nor_turns_a_sync_tool_into_a_task(harness: Harness) -> None:
    reply = harness.tasks.rpc(
        "tools/call", {"name": "ping_sync", "arguments": {}, "task": {"ttl": 60000, "pollInterval": 100}}
    )

    assert reply.result["resultType"] == "complete" and reply.result["content"][0]["text"] == "pong"


def test_session_clients_get_jobs_never_tasks_even_when_they_declare_the_extension() -> None:
    CALLS.clear()
    invoker = RecordingInvoker()
    handler = build_handler(TASK_BUSINESS, SETTINGS, tasks=MemoryTaskStore(), invoker=invoker)
    session = McpTestClient.over_handler(handler, era="2025-11-25")
    session.initialize(capabilities={"extensions": {EXTENSION: {}}})

    optional = session.rpc("tools/call", {"name": "count_to", "arguments": {"n": 1}}).result
    required = session.rpc("tools/call", {"name": "export_report", "arguments": {}}).result
    advertised = session.initialize_reply.result["capabilities"] if session.initialize_reply else {}

    for started in (optional, required):
        assert "resultType" not in started or started["resultType"] != "task"
        assert started["structuredContent"]["state"] == "working" and started["structuredContent"]["job_id"]
    assert "extensions" not in advertised and "tasks" not in advertised, "not defined at 2025-11-25"
    assert len(invoker.started) == 2 and CALLS == []  # both wait for their worker invocations
    assert session.rpc("tasks/get", {"taskId": "x"}).error["code"] == -32601


def test_task_methods_need_the_extension_and_the_v1_methods_are_gone(harness: Harness) -> None:
    task_id = harness.create("count_to", {"n": 1})

    for method, params in (
        ("tasks/get", {"taskId": task_id}),
        ("tasks/update", {"taskId": task_id, "inputResponses": {}}),
        ("tasks/cancel", {"taskId": task_id}),
    ):
        reply = harness.plain.rpc(method, params)
        assert (reply.status, reply.error["code"]) == (400, -32021), method
        assert reply.error["data"]["requiredCapabilities"] == {"extensions": {EXTENSION: {}}}
    for method in ("tasks/result", "tasks/list"):
        reply = harness.tasks.rpc(method, {"taskId": task_id} if method == "tasks/result" else {})
        assert (reply.status, reply.error["code"]) == (404, -32601), method
    assert harness.get(task_id)["status"] == "working", "nothing above touched the task"


@pytest.mark.parametrize("mcp_name", [None, "another-task-id"])
def test_the_task_methods_need_mcp_name_equal_to_the_task_id(harness: Harness, mcp_name: str | None) -> None:
    task_id = harness.create("count_to", {"n": 1})
    body = {"jsonrpc": "2.0", "id": 9, "method": "tasks/get", "params": {"taskId": task_id}}
    body["params"]["_meta"] = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": TASKS_CAPABILITIES,
    }
    headers = {"mcp-protocol-version": "2026-07-28", "mcp-method": "tasks/get", "mcp-name": mcp_name}

    reply = harness.http.post(body, headers)

    assert (reply.status, reply.error["code"]) == (400, -32020)


def test_unknown_task_ids_are_invalid_params(harness: Harness) -> None:
    for method, params in (
        ("tasks/get", {}),
        ("tasks/update", {"inputResponses": {}}),
        ("tasks/cancel", {}),
    ):
        reply = harness.tasks.rpc(method, {"taskId": "no-such-task", **params})
        assert (reply.status, reply.error["code"]) == (400, -32602), method


def test_a_tool_error_completes_and_a_crash_fails_with_an_internal_error(
    harness: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    errored = harness.create("export_report")
    crashed = harness.create("crash")
    with caplog.at_level(logging.INFO):
        harness.work()

    completed, failed = harness.get(errored), harness.get(crashed)
    (line,) = [r for r in caplog.records if getattr(r, "event", None) == "mcp_tool_call_failed"]

    assert completed["status"] == "completed" and completed["result"]["isError"] is True
    assert completed["result"]["structuredContent"]["code"] == 50301
    assert failed["status"] == "failed" and "result" not in failed
    assert failed["error"]["code"] == -32603 and failed["statusMessage"] == failed["error"]["message"]
    error_id = failed["error"]["data"]["errorId"]
    assert f"error id {error_id}" in failed["error"]["message"]
    assert SECRET_FAILURE_TEXT not in json.dumps(failed), "the exception text never reaches the client"
    assert (line.error_id, line.task_id, line.tool_name) == (error_id, crashed, "crash")  # type: ignore[attr-defined]


def test_a_task_waiting_for_input_takes_answers_in_parts_then_resumes_in_a_new_invocation(
    harness: Harness,
) -> None:
    task_id = harness.create("approve")
    harness.work()
    waiting = harness.get(task_id)
    first, second = sorted(waiting["inputRequests"])

    assert (
        waiting["status"] == "input_required" and waiting["statusMessage"] == "Waiting for the two approvals"
    )
    assert {first, second}.isdisjoint({"a", "b"}), "the server mints opaque ids, not the tool's keys"
    assert waiting["inputRequests"][first]["method"] == "elicitation/create"

    ack = harness.tasks.rpc(
        "tasks/update",
        {
            "taskId": task_id,
            "inputResponses": {first: {"action": "accept", "content": {"ok": True}}, "x": {}},
        },
    )
    partial = harness.get(task_id)
    assert set(ack.result) == {"resultType", "_meta"} and ack.result["resultType"] == "complete"
    assert partial["status"] == "input_required" and list(partial["inputRequests"]) == [second]
    assert harness.invoker.started == [], "not resumed while a request is still pending"

    harness.tasks.rpc(
        "tasks/update",
        {"taskId": task_id, "inputResponses": {second: {"action": "accept", "content": {"ok": False}}}},
    )
    assert harness.invoker.started == [(task_id, 2)] and harness.get(task_id)["status"] == "working"
    harness.work()

    done = harness.get(task_id)
    messages = {request["params"]["message"] for request in waiting["inputRequests"].values()}
    assert messages == {"Approve A?", "Approve B?"}
    assert done["status"] == "completed" and done["result"]["content"][0]["text"].startswith("approvals: [")
    assert CALLS == ["approve", "approve"]


def test_an_answer_that_is_not_an_object_is_invalid_params(harness: Harness) -> None:
    task_id = harness.create("approve")
    harness.work()
    pending = next(iter(harness.get(task_id)["inputRequests"]))

    reply = harness.tasks.rpc("tasks/update", {"taskId": task_id, "inputResponses": {pending: 12345}})
    missing = harness.tasks.rpc("tasks/update", {"taskId": task_id})

    assert (reply.status, reply.error["code"]) == (400, -32602)
    assert (missing.status, missing.error["code"]) == (400, -32602)
    assert harness.get(task_id)["status"] == "input_required"


def test_asking_for_a_capability_the_creating_request_lacked_fails_the_task(harness: Harness) -> None:
    task_id = harness.create("needs_sampling")
    harness.work()
    failed = harness.get(task_id)

    assert failed["status"] == "failed" and failed["error"]["code"] == -32021
    assert failed["error"]["data"] == {"requiredCapabilities": {"sampling": {}}}


def test_cancel_settles_a_task_cancelled_is_idempotent_and_a_late_worker_changes_nothing(
    harness: Harness,
) -> None:
    task_id = harness.create("count_to", {"n": 5})

    first = harness.tasks.rpc("tasks/cancel", {"taskId": task_id})
    again = harness.tasks.rpc("tasks/cancel", {"taskId": task_id})
    (late,) = harness.work()
    cancelled = harness.get(task_id)

    assert set(first.result) == set(again.result) == {"resultType", "_meta"}
    assert cancelled["status"] == "cancelled" and "result" not in cancelled and "error" not in cancelled
    assert late == {"taskId": task_id, "run": 1, "ran": False, "status": "cancelled"}
    assert CALLS == [], "a cancelled task's worker does not run the tool"


def test_a_tool_sees_the_cancellation_and_its_outcome_is_dropped(harness: Harness) -> None:
    task_id = harness.create("count_to", {"n": 50})
    original = harness.store.get(task_id)
    assert original is not None

    def cancel_while_running(self: Any) -> bool:
        # A tasks/cancel served meanwhile by another container (here: another thread) while the tool runs.
        other = threading.Thread(target=harness.tasks.rpc, args=("tasks/cancel", {"taskId": task_id}))
        other.start()
        other.join()
        return bool(real(self))

    from mcp_lambda.protocol.tasks import StoreTaskControl

    real = StoreTaskControl.cancelled
    StoreTaskControl.cancelled = cancel_while_running  # type: ignore[method-assign]
    try:
        (outcome,) = harness.work()
    finally:
        StoreTaskControl.cancelled = real  # type: ignore[method-assign]

    assert outcome == {"taskId": task_id, "run": 1, "ran": True, "status": "cancelled"}
    assert harness.get(task_id)["status"] == "cancelled"


def test_a_worker_event_delivered_twice_runs_the_tool_once(harness: Harness) -> None:
    task_id = harness.create("count_to", {"n": 1})
    event = task_event(task_id, 1)

    first = invoke(harness.handler, event)
    second = invoke(harness.handler, event)

    assert (first["ran"], second["ran"]) == (True, False) and CALLS == ["count_to"]


def test_a_working_task_past_its_deadline_reads_as_failed(harness: Harness) -> None:
    task_id = harness.create("count_to", {"n": 1})
    task = harness.store.get(task_id)
    assert task is not None
    harness.store.replace(task.model_copy(update={"deadline": time.time() - 1}), task.version)

    failed = harness.get(task_id)
    (late,) = harness.work()

    assert failed["status"] == "failed" and failed["error"]["code"] == -32603
    assert "timed out or crashed" in failed["error"]["message"]
    assert late["ran"] is False and CALLS == []


def test_tasks_are_bound_to_their_caller(harness: Harness) -> None:
    alice = harness.http.clone(era=MODERN, capabilities=TASKS_CAPABILITIES, authorizer=jwt("alice"))
    mallory = harness.http.clone(era=MODERN, capabilities=TASKS_CAPABILITIES, authorizer=jwt("mallory"))
    task_id = harness.create("count_to", {"n": 1}, client=alice)

    for client in (mallory, harness.tasks):  # another principal, and an anonymous caller
        for method, params in (
            ("tasks/get", {}),
            ("tasks/cancel", {}),
            ("tasks/update", {"inputResponses": {}}),
        ):
            reply = client.rpc(method, {"taskId": task_id, **params})
            assert (reply.status, reply.error["code"]) == (400, -32602), method
    assert harness.get(task_id, client=alice)["status"] == "working"


def test_a_task_past_its_ttl_is_gone(harness: Harness) -> None:
    task_id = harness.create("count_to", {"n": 1})
    task = harness.store.get(task_id)
    assert task is not None
    stale = task.model_copy(update={"created_at": time.time() - 3601})
    harness.store.replace(stale, task.version)

    reply = harness.tasks.rpc("tasks/get", {"taskId": task_id})

    assert stale.expires_at == pytest.approx(stale.created_at + 3600, abs=1)
    assert (reply.status, reply.error["code"]) == (400, -32602)


def test_before_task_asks_first_then_the_task_gets_the_answers_and_state(harness: Harness) -> None:
    first = harness.tasks.rpc("tools/call", {"name": "greet_later", "arguments": {"who": "Ada"}}).result
    assert first["resultType"] == "input_required" and "taskId" not in first
    assert harness.invoker.started == [] and CALLS == []

    second = harness.tasks.rpc(
        "tools/call",
        {
            "name": "greet_later",
            "arguments": {"who": "Ada"},
            "inputResponses": {"sure": {"action": "accept", "content": {"ok": True}}},
            "requestState": first["requestState"],
        },
    ).result
    harness.work()

    assert second["resultType"] == "task" and "requestState" not in second and "inputRequests" not in second
    done = harness.get(second["taskId"])
    assert done["result"]["content"][0]["text"] == "hello Ada (confirmed=True, state={'who': 'Ada'})"


def test_bad_arguments_answer_at_once_and_create_no_task(harness: Harness) -> None:
    reply = harness.tasks.rpc("tools/call", {"name": "count_to", "arguments": {"n": 0}})

    assert reply.result["resultType"] == "complete" and reply.result["isError"] is True
    assert reply.result["structuredContent"]["code"] == 40000
    assert harness.invoker.started == [] and CALLS == []


def test_a_worker_that_cannot_be_started_fails_the_call_and_the_task(harness: Harness) -> None:
    harness.invoker.fail = True

    reply = harness.tasks.rpc("tools/call", {"name": "count_to", "arguments": {"n": 1}})

    # A throttled Invoke: retryable, so 503 with Retry-After (a configuration failure is not: test_task_start_failures).
    assert reply.status == 503 and reply.headers["retry-after"] == "1" and reply.error["code"] == -32003
    assert "could not be started" in reply.error["message"]


def test_only_the_internal_event_is_a_task_event_never_an_api_gateway_one(harness: Harness) -> None:
    forged = {"mcp_lambda.task": {"taskId": "x", "run": 1}}
    api_event_with_the_key = {"requestContext": {"requestId": "r"}, **forged}

    assert parse_task_event(task_event("abc", 2)) == ("abc", 2)
    assert parse_task_event(api_event_with_the_key) is None
    assert parse_task_event({"mcp_lambda.task": {"taskId": "x", "run": True}}) is None
    assert parse_task_event(forged) == ("x", 1)
    # Through API Gateway, the key can only ever be inside the body, where it is just an unknown JSON field.
    reply = harness.tasks.rpc("tools/list", {"mcp_lambda.task": {"taskId": "x", "run": 1}})
    assert reply.status == 200 and "tools" in reply.result


def test_the_stored_task_keeps_what_the_worker_needs_and_no_more(harness: Harness) -> None:
    task_id = harness.create("count_to", {"n": 2})
    task = harness.store.get(task_id)

    assert isinstance(task, Task)
    assert (task.tool, task.arguments, task.business, task.principal) == (
        "count_to",
        {"n": 2},
        "taskbiz",
        None,
    )
    assert task.client_capabilities == TASKS_CAPABILITIES
    assert task.expires_at >= task.created_at + 3600


def test_a_business_with_a_long_tool_may_not_take_the_job_tools_names() -> None:
    @tool(description="Use to see a job of this business's own.")
    def get_job_status(job_id: str) -> ToolResult:
        return content_result(text(job_id))

    business = Business(name="clash", tools=[*TASK_BUSINESS.tools, get_job_status])

    with pytest.raises(BusinessDefinitionError, match="rename its own get_job_status"):
        build_handler(business, Settings(business="clash"))
