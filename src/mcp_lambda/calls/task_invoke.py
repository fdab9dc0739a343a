"""Starting a task's worker: an asynchronous invocation of this same function with an internal event.

The event is `{"mcp_lambda.task": {"taskId": ..., "run": n}}`. API Gateway can never produce it (its events
always carry `requestContext`, and a client controls only the path, headers and body inside one), and only a
principal allowed to invoke the function can send it. It names a stored task and nothing else: the worker reads
the tool, its arguments and its caller from the store, and runs only a task still waiting for that very run.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ..aws import THROTTLE_CODES, AwsBudget, BudgetedClient, failure_reason
from ..downstream import DownstreamError

if TYPE_CHECKING:
    from mypy_boto3_lambda.client import LambdaClient
else:
    LambdaClient = Any

TASK_EVENT_KEY = "mcp_lambda.task"


# Refusals of the Invoke API that the next attempt may not meet: throttling, a function being updated or not
# ready yet. Any other 4xx (no permission, no such function, a bad parameter) stays until the deployment changes.
TRANSIENT_CODES = THROTTLE_CODES | {
    "TooManyRequestsException",
    "ResourceConflictException",
    "ResourceNotReadyException",
    "SnapStartNotReadyException",
}
# What to fix, by the Invoke API's refusal; the function's name or ARN is never repeated.
FIXES = {
    "AccessDeniedException": "grant the function's role lambda:InvokeFunction on the function itself",
    "ResourceNotFoundException": "AWS_LAMBDA_FUNCTION_NAME must name this function (Lambda sets it)",
}


class TaskStartFailed(DownstreamError):
    """The worker invocation could not be queued.

    `retryable` says whether the same call may succeed later (throttled, unreachable, a 5xx) or not until the
    deployment changes (no function to invoke, no permission): then the message says what to fix.
    """

    def __init__(self, message: str, *, retryable: bool = True) -> None:
        super().__init__(message)
        self.retryable = retryable


def task_event(task_id: str, run: int) -> dict[str, Any]:
    return {TASK_EVENT_KEY: {"taskId": task_id, "run": run}}


def parse_task_event(event: Any) -> tuple[str, int] | None:
    """(task id, run) when `event` is a task worker event; None for anything else (an API Gateway event)."""
    if not isinstance(event, Mapping) or "requestContext" in event:
        return None
    body = event.get(TASK_EVENT_KEY)
    if not isinstance(body, Mapping):
        return None
    task_id, run = body.get("taskId"), body.get("run")
    if not isinstance(task_id, str) or not task_id or isinstance(run, bool) or not isinstance(run, int):
        return None
    return task_id, run


class TaskInvoker(Protocol):
    def start(self, task_id: str, run: int) -> None:
        """Queue the worker invocation for `run` of the task; raises TaskStartFailed."""


class LambdaInvoker(BudgetedClient):
    """`lambda:InvokeFunction` with `InvocationType=Event` on the function itself (AWS_LAMBDA_FUNCTION_NAME).

    Lambda queues the event and runs it with the function's full timeout, independent of API Gateway's 30 s.
    Locally `make run` answers the same Invoke API (AWS_ENDPOINT_URL_LAMBDA) and runs it on a worker thread.
    """

    aws_service = "lambda"

    def __init__(
        self,
        function_name: str | None,
        *,
        client: LambdaClient | None = None,
        version: str | None = None,
        budget: AwsBudget | None = None,
    ) -> None:
        self.function_name = function_name
        # A published version (behind the alias) runs its workers on itself: the same code, the same snapshot.
        self.qualifier = version if version and version != "$LATEST" else None
        self.invocations = 0
        self._own_client(client, budget)  # made on first use: a container without tasks never pays for boto3

    def start(self, task_id: str, run: int) -> None:
        if not self.function_name:
            raise TaskStartFailed(
                "AWS_LAMBDA_FUNCTION_NAME is not set, so there is no function to run the task's worker: set it to "
                "this function's name (Lambda does), or serve with make run or make stdio, which run workers "
                "themselves",
                retryable=False,
            )
        from botocore.exceptions import BotoCoreError, ClientError

        self.invocations += 1
        try:
            response = self.client.invoke(
                FunctionName=self.function_name,
                InvocationType="Event",
                Payload=json.dumps(task_event(task_id, run)).encode(),
                **({"Qualifier": self.qualifier} if self.qualifier else {}),
            )
        except ClientError as exc:
            raise _refused(exc) from None
        except BotoCoreError as exc:
            raise TaskStartFailed(f"the task worker could not be invoked: {failure_reason(exc)}") from None
        if response.get("StatusCode") != 202:
            raise TaskStartFailed(f"the task worker invocation answered {response.get('StatusCode')}")


def _refused(exc: Any) -> TaskStartFailed:
    """The TaskStartFailed for the Invoke API's refusal `exc` (a botocore ClientError): retryable when throttled,
    a 5xx or a transient conflict; otherwise not, naming the error code and, where known, what to fix."""
    code = failure_reason(exc)
    status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
    if code in TRANSIENT_CODES or not isinstance(status, int) or not 400 <= status < 500:
        return TaskStartFailed(f"the task worker could not be invoked: {code}")
    fix = FIXES.get(code, "the function's configuration must change")
    return TaskStartFailed(f"the task worker invocation was refused ({code}): {fix}", retryable=False)
