"""A task whose worker cannot be started: a condition that will not change on retry (no function to invoke, no
permission, no such function) is never answered "try again later" — it is not retryable and says what to fix —
while a throttled or unreachable Invoke API stays retryable (503, Retry-After). Through the Lambda handler, with
the runtime's own LambdaInvoker on a botocore client whose answers are stubbed."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from tests.support.handlers import build_handler
from tests.support.task_business import TASK_BUSINESS, TASKS_CAPABILITIES

from mcp_lambda.calls.task_invoke import LambdaInvoker, TaskStartFailed
from mcp_lambda.settings import Settings
from mcp_lambda.stores.tasks import MemoryTaskStore
from mcp_lambda.testing import MODERN, McpTestClient

SETTINGS = Settings(business=TASK_BUSINESS.name, aws_lambda_function_name=None)


def _call(store: MemoryTaskStore, invoker: LambdaInvoker | None = None, settings: Settings = SETTINGS) -> Any:
    handler = build_handler(TASK_BUSINESS, settings, tasks=store, invoker=invoker)
    return McpTestClient.over_handler(handler, era=MODERN, capabilities=TASKS_CAPABILITIES).rpc(
        "tools/call", {"name": "count_to", "arguments": {"n": 1}}
    )


def _stubbed(code: str, status: int) -> LambdaInvoker:
    client = boto3.client(
        "lambda", region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test"
    )
    stubber = Stubber(client)
    stubber.add_client_error("invoke", service_error_code=code, http_status_code=status)
    stubber.activate()
    return LambdaInvoker("mcp-fn", client=client)


def _failed_tasks(store: MemoryTaskStore) -> list[Any]:
    return [task for task in store._tasks.values() if task.status == "failed"]


def _not_retryable(reply: Any) -> str:
    assert reply.status != 503 and "retry-after" not in reply.headers, reply.raw
    assert reply.error["code"] == -32603, reply.raw
    message: str = reply.error["message"]
    assert "try again" not in message.lower() and "retry later" not in message.lower(), message
    assert "will not succeed on retry" in message, message
    return message


def test_no_function_name_is_not_retryable_and_names_the_variable_to_set() -> None:
    # What `make stdio` did before it ran its own workers: the default invoker, with no function to invoke.
    store = MemoryTaskStore()

    message = _not_retryable(_call(store))

    assert "AWS_LAMBDA_FUNCTION_NAME" in message
    assert len(_failed_tasks(store)) == 1  # the task is not left working


@pytest.mark.parametrize(
    ("code", "status", "names"),
    [
        ("AccessDeniedException", 403, "lambda:InvokeFunction"),
        ("ResourceNotFoundException", 404, "AWS_LAMBDA_FUNCTION_NAME"),
        ("InvalidParameterValueException", 400, "InvalidParameterValueException"),
    ],
)
def test_a_refused_invocation_is_not_retryable_and_says_what_to_fix(
    code: str, status: int, names: str
) -> None:
    store = MemoryTaskStore()

    message = _not_retryable(_call(store, _stubbed(code, status)))

    assert names in message and "mcp-fn" not in message  # what to fix, never the function's name or ARN
    assert len(_failed_tasks(store)) == 1


@pytest.mark.parametrize(
    ("code", "status"),
    [("TooManyRequestsException", 429), ("ServiceException", 500), ("ResourceConflictException", 409)],
)
def test_a_throttled_or_failing_invoke_api_stays_retryable(code: str, status: int) -> None:
    store = MemoryTaskStore()

    reply = _call(store, _stubbed(code, status))

    assert reply.status == 503 and reply.headers.get("retry-after", "").isdigit(), reply.raw
    assert reply.error["code"] == -32003 and "try again" in reply.error["message"].lower()
    assert len(_failed_tasks(store)) == 1


def test_the_invoker_says_which_failures_are_retryable() -> None:
    with pytest.raises(TaskStartFailed) as missing:
        LambdaInvoker(None).start("t", 1)
    with pytest.raises(TaskStartFailed) as throttled:
        _stubbed("TooManyRequestsException", 429).start("t", 1)

    assert missing.value.retryable is False and "AWS_LAMBDA_FUNCTION_NAME" in str(missing.value)
    assert throttled.value.retryable is True
