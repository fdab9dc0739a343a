"""The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663, at 2026-07-28): the methods a client calls.

A `tools/call` of a task tool from a client that declares the extension stores a task, queues an asynchronous
invocation of this same function and answers a flat `CreateTaskResult` at once. That invocation (`work`, run by
`task_worker.TaskWorker`) runs the tool with the function's full timeout and writes the outcome: `completed`,
`failed`, or `input_required` with opaque input-request ids that `tasks/update` answers, after which another
invocation resumes it. `tasks/get` reads the task from the store, on any container; `tasks/cancel` settles it
`cancelled`. `tasks/result` and `tasks/list` are not served (v1 methods, removed by the extension: -32601).
Status notifications (`notifications/tasks`) need a `subscriptions/listen` stream, which a Lambda invocation
cannot hold open: clients poll.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from ..calls.executor import ToolExecutor
from ..calls.task_invoke import TaskInvoker, TaskStartFailed
from ..stores.tasks import (
    StoredCaller,
    Task,
    TaskIdTaken,
    TaskStore,
    TaskStoreUnavailable,
    TaskTooLarge,
    change,
    open_task,
)
from ..tools import Business, InputRequired, ToolResult, ToolSpec
from ..tools.context import ToolContext
from ..wire import INTERNAL_ERROR, INVALID_PARAMS
from .contexts import NO_INPUTS, ContextFactory, RoundInputs
from .delivery import ResultDelivery
from .jsonrpc import RpcError, service_unavailable
from .params import required_string
from .scope import CallScope, Handler
from .task_extension import missing_tasks_extension
from .task_worker import StoreTaskControl, TaskWorker, log_task

__all__ = ["StoreTaskControl", "TaskMethods", "TaskSettings", "TaskWorker", "iso"]

# What a task keeps of the client's declarations (DynamoDB items stop at 400 KB): refuse, never truncate.
MAX_STORED_CAPABILITY_BYTES = 16 * 1024
CREATE_ATTEMPTS = 3  # a (192-bit) id collision just draws another
TASK_START_RETRY_AFTER_SECONDS = 1  # Lambda's throttling of asynchronous invocations clears within seconds
T = TypeVar("T")


def iso(timestamp: float) -> str:
    """ISO-8601 UTC with milliseconds: 2026-07-28T10:30:00.123Z."""
    moment = datetime.fromtimestamp(timestamp, UTC)
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


@dataclass(frozen=True)
class TaskSettings:
    ttl_ms: int
    poll_interval_ms: int
    worker_timeout_seconds: int


class TaskMethods:
    """tasks/get, tasks/update and tasks/cancel; task creation for tools/call; the worker invocation."""

    def __init__(
        self,
        business: Business,
        store: TaskStore,
        invoker: TaskInvoker,
        executor: ToolExecutor,
        contexts: ContextFactory,
        settings: TaskSettings,
        delivery: ResultDelivery | None = None,
    ) -> None:
        self.business = business
        self.delivery = delivery or ResultDelivery(business, None)
        self.store = store
        self.invoker = invoker
        self.executor = executor
        self.contexts = contexts
        self.settings = settings
        self.logger = contexts.services.logger
        self.worker = TaskWorker(business, store, executor, contexts, settings.worker_timeout_seconds)

    def handlers(self) -> dict[str, Handler]:
        return {
            "tasks/get": self.tasks_get,
            "tasks/update": self.tasks_update,
            "tasks/cancel": self.tasks_cancel,
        }

    # -- tools/call ---------------------------------------------------------------------------------------

    async def create(
        self,
        scope: CallScope,
        spec: ToolSpec,
        arguments: Mapping[str, Any],
        ctx: ToolContext,
        inputs: RoundInputs,
    ) -> dict[str, Any] | ToolResult | InputRequired:
        """The CreateTaskResult; or, when the call is refused or asks first, the tool's own answer to it."""
        admitted = await self.executor.admit(spec, arguments, ctx)
        if admitted is not None:
            return admitted
        task, _new = self.open(scope, spec, arguments, inputs)
        log_task(self.logger, "mcp_task_created", task, tool_name=spec.name, jsonrpc_id=scope.request_id)
        return {"resultType": "task", **self._wire(task)}

    def open(
        self,
        scope: CallScope,
        spec: ToolSpec,
        arguments: Mapping[str, Any],
        inputs: RoundInputs = NO_INPUTS,
        task_id: str | None = None,
    ) -> tuple[Task, bool]:
        """Store a new task for the call and start its worker: (the task, whether this call made it).

        With `task_id` (a job keyed by its tool_call_id) a task already stored under that id is returned as it
        is, not started again: a retried call finds the first one's task.
        """
        capabilities = dict(scope.client_capabilities)
        if len(json.dumps(capabilities, ensure_ascii=False)) > MAX_STORED_CAPABILITY_BYTES:
            raise RpcError(INVALID_PARAMS, "The client capabilities are too large to keep with a task")
        if scope.auth.caller is not None and StoredCaller.of(scope.auth.caller).too_large:
            raise RpcError(INVALID_PARAMS, "The caller's identity is too large to keep with a task")
        answers, state = inputs
        for _attempt in range(CREATE_ATTEMPTS):
            task = open_task(
                business=self.business.name,
                tool=spec.name,
                arguments=arguments,
                ttl_ms=self.settings.ttl_ms,
                worker_timeout_seconds=self.settings.worker_timeout_seconds,
                principal=scope.principal,
                caller=scope.auth.caller,
                client_capabilities=capabilities,
                answers=answers,
                state=state,
                trace=scope.trace,
            )
            if task_id is not None:
                task = task.model_copy(update={"task_id": task_id})
            try:
                self._store(self.store.create, task)
                break
            except TaskIdTaken:
                if task_id is None:
                    continue
                existing = self._store(self.store.get, task_id)
                if existing is not None:
                    return existing, False
            except TaskTooLarge:
                raise RpcError(
                    INVALID_PARAMS, "The call's arguments are too large to run as a task"
                ) from None
        else:
            raise _unavailable(TaskStoreUnavailable("could not mint a unique task id"))
        self._start(task)
        return task, True

    def load(self, scope: CallScope, task_id: str) -> Task:
        """The caller's task, with the reaper applied; -32602 for unknown, expired or another caller's."""
        return self._load(scope, task_id)

    def cancel(self, task_id: str) -> tuple[Task | None, bool]:
        """Settle the task `cancelled` (a running tool sees it): (the task as it now is, changed?)."""
        updated, changed = self._store(change, self.store, task_id, lambda task: task.cancel(time.time()))
        if changed and updated is not None:
            log_task(self.logger, "mcp_task_cancelled", updated)
        return updated, changed

    # -- the three methods --------------------------------------------------------------------------------

    async def tasks_get(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        self._require(scope, "tasks/get")
        task = self._load(scope, required_string(params, "taskId"))
        wire = self._wire(task)
        if task.status == "completed":
            wire["result"] = self.delivery.wire(scope, task.tool, task.result or {})
        elif task.status == "failed":
            wire["error"] = task.error or {"code": INTERNAL_ERROR, "message": "The task failed."}
        elif task.status == "input_required":
            wire["inputRequests"] = {opaque: item["request"] for opaque, item in task.pending.items()}
        return wire

    async def tasks_update(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        self._require(scope, "tasks/update")
        task_id = required_string(params, "taskId")
        responses = params.get("inputResponses")
        if not isinstance(responses, dict):
            raise RpcError(INVALID_PARAMS, "params.inputResponses must be an object")
        task = self._load(scope, task_id)
        for opaque in task.pending:
            if opaque in responses and not isinstance(responses[opaque], dict):
                raise RpcError(INVALID_PARAMS, f"params.inputResponses.{opaque} must be an object")
        # Keys that are not pending (never issued, answered already, or the task moved on) are ignored.
        timeout = self.settings.worker_timeout_seconds
        updated, changed = self._store(
            change, self.store, task_id, lambda current: current.answer(responses, timeout, time.time())
        )
        if changed and updated is not None and updated.status == "working":
            self._start(updated)
            log_task(self.logger, "mcp_task_resumed", updated)
        return {}

    async def tasks_cancel(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        self._require(scope, "tasks/cancel")
        task_id = required_string(params, "taskId")
        self._load(scope, task_id)
        self.cancel(task_id)
        return {}  # the same empty ack for a task that had already ended

    async def work(self, task_id: str, run: int, invocation_id: str | None = None) -> dict[str, Any]:
        """Run `run` of the task (the asynchronous invocation); what happened, for the invocation's log."""
        return await self.worker.work(task_id, run, invocation_id)

    # -- internals ----------------------------------------------------------------------------------------

    def _require(self, scope: CallScope, method: str) -> None:
        if not scope.era.tasks_negotiated(scope):
            raise missing_tasks_extension(method)

    def _load(self, scope: CallScope, task_id: str) -> Task:
        """The caller's task, with the reaper applied; -32602 for unknown, expired or another caller's."""
        task = self._store(self.store.get, task_id)
        if task is None or task.principal != scope.principal or task.business != self.business.name:
            # Another caller's task answers exactly like one that does not exist.
            raise RpcError(INVALID_PARAMS, "Task not found (unknown or expired taskId)")
        if task.is_overdue():
            reaped, changed = self._store(
                change, self.store, task_id, lambda current: current.reap(time.time())
            )
            if reaped is None:
                raise RpcError(INVALID_PARAMS, "Task not found (unknown or expired taskId)")
            if changed:
                self.logger.warning(
                    "mcp_task_reaped",
                    extra={"event": "mcp_task_reaped", "task_id": task_id, "tool_name": task.tool},
                )
            task = reaped
        return task

    def _start(self, task: Task) -> None:
        try:
            self.invoker.start(task.task_id, task.run)
        except TaskStartFailed as exc:
            self.logger.error(
                "mcp_task_start_failed",
                extra={
                    "event": "mcp_task_start_failed",
                    "task_id": task.task_id,
                    "reason": str(exc),
                    "retryable": exc.retryable,
                },
            )
            error = {"code": INTERNAL_ERROR, "message": "The task's worker could not be started."}
            self._store(change, self.store, task.task_id, lambda current: current.fail(time.time(), error))
            raise _start_failure(exc) from None

    def _store(self, operation: Callable[..., T], *args: Any) -> T:
        try:
            return operation(*args)
        except TaskStoreUnavailable as exc:
            raise _unavailable(exc) from None

    def _wire(self, task: Task) -> dict[str, Any]:
        wire: dict[str, Any] = {
            "taskId": task.task_id,
            "status": task.status,
            "createdAt": iso(task.created_at),
            "lastUpdatedAt": iso(task.updated_at),
            "ttlMs": task.ttl_ms,
        }
        if not task.terminal:
            wire["pollIntervalMs"] = self.settings.poll_interval_ms
        if task.status_message:
            wire["statusMessage"] = task.status_message
        return wire


def _start_failure(exc: TaskStartFailed) -> RpcError:
    """What the client is told when a task's worker could not be started: 503 with Retry-After when calling again
    may succeed (throttled, unreachable); otherwise -32603 saying it will not, and what the server needs."""
    if exc.retryable:
        return service_unavailable(
            "The task could not be started (its worker was throttled or unreachable); try again later",
            TASK_START_RETRY_AFTER_SECONDS,
        )
    return RpcError(
        INTERNAL_ERROR,
        f"The task could not be started and will not succeed on retry: this server cannot start task workers "
        f"({exc}). Its operator must fix the configuration.",
    )


def _unavailable(exc: TaskStoreUnavailable) -> RpcError:
    """503 with Retry-After: the task store is throttled or unreachable, and the client may retry."""
    return service_unavailable("Task store temporarily unavailable; retry later", exc.retry_after_seconds)
