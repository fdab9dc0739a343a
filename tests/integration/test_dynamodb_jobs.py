"""Jobs on DynamoDB Local through the 2024-11-05 path (the Doubao platform's): a long tool called in a session
starts a job in the task table, the worker invocation (delivered as Lambda would, later) settles it, and
get_job_status / cancel_job follow it up on a fresh container each time — the result as the tool answers it, a
cancel, another caller, a retry of the starting call, a worker that fails."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import pytest
from tests.support.business import SECRET_FAILURE_TEXT
from tests.support.handlers import build_handler
from tests.support.task_business import CALLS, TASK_BUSINESS, RecordingInvoker

from mcp_lambda.lambda_adapter import LambdaHandler
from mcp_lambda.settings import Settings
from mcp_lambda.stores.tasks.dynamodb import DynamoDBTaskStore
from mcp_lambda.testing import McpTestClient

ALICE = {"jwt": {"claims": {"sub": "alice", "iss": "https://issuer.example"}, "scopes": None}}
MALLORY = {"jwt": {"claims": {"sub": "mallory", "iss": "https://issuer.example"}, "scopes": None}}
SESSION = "2024-11-05"


class Fleet:
    """Fresh Lambda containers sharing the session and task tables, and the queued worker invocations."""

    def __init__(self) -> None:
        self.invoker = RecordingInvoker()
        self.handlers: list[LambdaHandler] = []

    def container(self) -> LambdaHandler:
        settings = Settings.from_env({**os.environ, "BUSINESS": TASK_BUSINESS.name})
        handler = build_handler(TASK_BUSINESS, settings, invoker=self.invoker)
        self.handlers.append(handler)
        return handler

    def client(self, authorizer: dict[str, Any]) -> McpTestClient:
        return McpTestClient.over_handler(self.container()).clone(era=SESSION, authorizer=authorizer)

    def run_workers(self) -> list[Any]:
        """What Lambda does later with the asynchronous invocations: each on a container of its own."""
        return self.invoker.deliver(self.container())


@pytest.fixture
def fleet(dynamodb_tasks_env: dict[str, str], dynamodb_session_env: dict[str, str]) -> Iterator[Fleet]:
    CALLS.clear()
    yield Fleet()


@pytest.fixture
def alice(fleet: Fleet) -> Iterator[McpTestClient]:
    with fleet.client(ALICE) as client:
        yield client


def _started(client: McpTestClient, tool: str, arguments: dict[str, Any], key: str) -> str:
    result = client.call_tool(tool, arguments, tool_call_id=key)
    assert not result.is_error, result
    structured = result.structured_content
    assert structured["success"] is True and structured["state"] == "working"
    assert "get_job_status" in structured["message"] and structured["job_id"] in structured["message"]
    return str(structured["job_id"])


def _status(client: McpTestClient, job_id: str) -> Any:
    return client.call_tool("get_job_status", {"job_id": job_id})


def test_a_long_tool_in_a_session_runs_as_a_job_and_its_result_is_the_tools_own(
    fleet: Fleet, alice: McpTestClient, tasks_table: str
) -> None:
    listed = [tool.name for tool in alice.list_tools()]
    job_id = _started(alice, "count_to", {"n": 3}, "tc-count")

    waiting = _status(alice, job_id).structured_content
    assert CALLS == []  # nothing ran in the request: the work waits for its worker invocation
    fleet.run_workers()
    done = _status(alice, job_id)

    assert {"get_job_status", "cancel_job"} <= set(listed)
    assert waiting["state"] == "working" and waiting["success"] is True
    assert CALLS == ["count_to"]
    assert not done.is_error and done.text == "counted to 3"  # the tool's own result, as if inline
    assert DynamoDBTaskStore(tasks_table).get(job_id) is not None  # the job lives in the task table


def test_a_retry_of_the_starting_call_finds_the_first_job(fleet: Fleet, alice: McpTestClient) -> None:
    first = _started(alice, "count_to", {"n": 2}, "tc-retry")
    again = _started(alice, "count_to", {"n": 2}, "tc-retry")
    other_arguments = alice.call_tool("count_to", {"n": 5}, tool_call_id="tc-retry")
    runs = fleet.run_workers()

    assert again == first
    assert len(runs) == 1 and CALLS == ["count_to"]  # one job, one worker invocation
    assert other_arguments.is_error and other_arguments.structured_content["code"] == 40900
    assert _started(alice, "count_to", {"n": 2}, "tc-other") != first  # another key, another job


def test_a_cancelled_job_reports_cancelled_and_its_worker_does_not_run(
    fleet: Fleet, alice: McpTestClient
) -> None:
    job_id = _started(alice, "count_to", {"n": 2}, "tc-cancel")

    cancelled = alice.call_tool("cancel_job", {"job_id": job_id}).structured_content
    again = alice.call_tool("cancel_job", {"job_id": job_id}).structured_content
    fleet.run_workers()
    status = _status(alice, job_id).structured_content

    assert cancelled["state"] == "cancelled" and cancelled["success"] is True
    assert again["state"] == "cancelled"
    assert CALLS == []
    assert status["state"] == "cancelled" and status["success"] is False


def test_another_caller_gets_no_such_job(fleet: Fleet, alice: McpTestClient) -> None:
    job_id = _started(alice, "count_to", {"n": 2}, "tc-mine")

    with fleet.client(MALLORY) as mallory:
        peek = _status(mallory, job_id)
        stop = mallory.call_tool("cancel_job", {"job_id": job_id})
    unknown = _status(alice, "no-such-job-id")
    fleet.run_workers()

    for answer in (peek, stop, unknown):
        assert answer.is_error and answer.structured_content["code"] == 40000
        assert "No such job" in answer.structured_content["message"]
    assert not _status(alice, job_id).is_error  # untouched by the other caller: it completed
    assert CALLS == ["count_to"]


def test_a_failing_worker_reports_an_error_without_its_exception_text(
    fleet: Fleet, alice: McpTestClient
) -> None:
    job_id = _started(alice, "crash", {}, "tc-crash")
    fleet.run_workers()
    failed = _status(alice, job_id)

    assert failed.is_error
    assert failed.structured_content["code"] == 50000 and failed.structured_content["error_id"]
    assert SECRET_FAILURE_TEXT not in str(failed.result)


def test_a_tool_error_is_the_jobs_result_and_bad_arguments_answer_before_any_job(
    fleet: Fleet, alice: McpTestClient
) -> None:
    job_id = _started(alice, "export_report", {}, "tc-report")  # task support required: a job here
    bad = alice.call_tool("count_to", {"n": 0}, tool_call_id="tc-bad")
    fleet.run_workers()
    report = _status(alice, job_id)
    bad_job_tool = alice.call_tool("get_job_status", {"job": "x"})

    assert report.is_error and report.structured_content["code"] == 50301  # the business's own error
    assert bad.is_error and bad.structured_content["code"] == 40000 and fleet.invoker.started == []
    assert bad_job_tool.structured_content["code"] == 40000


def test_a_job_whose_worker_died_reads_as_failed(
    fleet: Fleet, alice: McpTestClient, tasks_table: str
) -> None:
    job_id = _started(alice, "count_to", {"n": 2}, "tc-died")
    store = DynamoDBTaskStore(tasks_table)
    task = store.get(job_id)
    assert task is not None
    # Its worker invocation never came (throttled away, or the container died): past its deadline.
    assert store.replace(
        task.model_copy(update={"deadline": time.time() - 1, "version": task.version + 1}), task.version
    )

    failed = _status(alice, job_id)
    fleet.run_workers()  # a late delivery finds the job settled: nothing runs

    assert failed.is_error and failed.structured_content["code"] == 50000
    assert "stopped before it finished" in failed.structured_content["message"]
    assert CALLS == []
