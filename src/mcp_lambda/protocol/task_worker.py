"""A task's worker invocation: claim the run, run the tool, record what came of it (the tasks extension).

`TaskWorker.work(task_id, run)` is what the asynchronous invocation of this same function does for a task that
`tasks.TaskMethods` stored: it claims the run (a run already claimed, or a task that moved on, is skipped), runs
the tool with the function's full timeout, and writes the outcome: `completed` with the tool's result (an error
result included), `failed` with a JSON-RPC error (the tool crashed, asked for too many rounds, or asked for what
the client cannot give), or `input_required` with opaque input-request ids that `tasks/update` answers. An outcome
for a task that was cancelled or reaped meanwhile is dropped. `StoreTaskControl` is the running tool's
`ctx.cancelled()` and `ctx.report_status()`.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable
from typing import Any

from ..calls.error_table import ToolCrashed
from ..calls.executor import ToolExecutor
from ..deadlines import cancellable
from ..stores.tasks import Task, TaskStore, TaskStoreUnavailable, TaskTooLarge, change
from ..tools import Business, InputRequired, ToolResult
from ..wire import INTERNAL_ERROR, INVALID_PARAMS, MISSING_CLIENT_CAPABILITY
from .contexts import ContextFactory
from .rounds import missing_capabilities

MAX_STATUS_MESSAGE = 500
# Rounds a task may go through inside one worker invocation when a tool asks again with state only.
MAX_STATE_ONLY_ROUNDS = 16


def log_task(logger: Any, event: str, task: Task, **fields: Any) -> None:
    """One INFO line about `task`: the event, its id, tool and status, and `fields`."""
    extra = {
        "event": event,
        "task_id": task.task_id,
        "tool_name": task.tool,
        "status": task.status,
        **fields,
    }
    logger.info(event, extra=extra)


class StoreTaskControl:
    """`ctx.cancelled()` and `ctx.report_status()` for a tool running as a task, over the task store.

    `cancelled()` reads the task at most every `check_interval` seconds (a tool may ask in a tight loop), and a
    store hiccup never fails the tool: it keeps the last answer.
    """

    def __init__(
        self, store: TaskStore, task_id: str, run: int, logger: Any, check_interval: float = 0.5
    ) -> None:
        self.store = store
        self.task_id = task_id
        self.run = run
        self.logger = logger
        self.check_interval = check_interval
        self._checked = float("-inf")
        self._ended = False

    def cancelled(self) -> bool:
        now = time.monotonic()
        if self._ended or now - self._checked < self.check_interval:
            return self._ended
        self._checked = now
        try:
            task = self.store.get(self.task_id)
        except TaskStoreUnavailable:
            return self._ended
        self._ended = task is None or task.status != "working" or task.claimed_run != self.run
        return self._ended

    def report_status(self, message: str) -> None:
        text = message[:MAX_STATUS_MESSAGE]
        try:
            change(self.store, self.task_id, lambda task: task.report(self.run, text, time.time()))
        except (TaskStoreUnavailable, TaskTooLarge):
            self.logger.warning(
                "mcp_task_status_not_saved",
                extra={"event": "mcp_task_status_not_saved", "task_id": self.task_id},
            )


class TaskWorker:
    """Runs a stored task's tool in the worker invocation and records the outcome in the task store.

    Args:
        business: The business whose tools a task may name.
        store: The task store.
        executor: Runs the tool (under the worker invocation's deadline).
        contexts: Builds the tool's context for a task run.
        worker_timeout_seconds: How long a claimed run may take before it reads as failed.
    """

    def __init__(
        self,
        business: Business,
        store: TaskStore,
        executor: ToolExecutor,
        contexts: ContextFactory,
        worker_timeout_seconds: int,
    ) -> None:
        self.business = business
        self.store = store
        self.executor = executor
        self.contexts = contexts
        self.worker_timeout_seconds = worker_timeout_seconds
        self.logger = contexts.services.logger

    async def work(self, task_id: str, run: int, invocation_id: str | None = None) -> dict[str, Any]:
        """Run `run` of the task (the asynchronous invocation); what happened, for the invocation's log."""
        timeout = self.worker_timeout_seconds
        task, claimed = change(self.store, task_id, lambda current: current.claim(run, timeout, time.time()))
        if task is None or not claimed:
            status = task.status if task is not None else "unknown"
            self.logger.warning(
                "mcp_task_run_skipped",
                extra={"event": "mcp_task_run_skipped", "task_id": task_id, "run": run, "status": status},
            )
            return {"taskId": task_id, "run": run, "ran": False, "status": status}
        spec = self.business.tool(task.tool) if task.business == self.business.name else None
        if spec is None:
            error = {"code": INVALID_PARAMS, "message": f"Unknown tool: {task.tool}"}
            return self._settle(task, run, error=error)
        control = StoreTaskControl(self.store, task_id, run, self.logger)
        answers, state = task.answers, task.state
        for _round in range(MAX_STATE_ONLY_ROUNDS):
            ctx = self.contexts.for_task(task, control, answers, state, invocation_id)
            try:
                with cancellable(control.cancelled):  # ctx.http stops waiting once the task is cancelled
                    outcome = await self.executor.run(spec, task.arguments, ctx, crash_raises=True)
            except ToolCrashed as crash:
                error = {
                    "code": INTERNAL_ERROR,
                    "message": crash.message,
                    "data": {"errorId": crash.error_id},
                }
                return self._settle(task, run, error=error)
            if isinstance(outcome, ToolResult):
                result = {"resultType": "complete", **outcome.to_wire()}
                return self._settle(task, run, result=result)
            if outcome.requests:
                return self._ask(task, run, outcome)
            answers, state = {}, dict(outcome.state or {})  # state only: the tool wants another round at once
        error = {"code": INTERNAL_ERROR, "message": f"Tool '{spec.name}' asked for too many rounds."}
        return self._settle(task, run, error=error)

    def _ask(self, task: Task, run: int, asked: InputRequired) -> dict[str, Any]:
        missing = missing_capabilities(asked, task.client_capabilities)
        if missing:
            error = {
                "code": MISSING_CLIENT_CAPABILITY,
                "message": f"Missing required client capability: {', '.join(missing)}",
                "data": {"requiredCapabilities": {name: {} for name in missing}},
            }
            return self._settle(task, run, error=error)
        # Opaque, never reused over the task's life (the spec's rule): the tool's own keys may repeat.
        pending = {
            secrets.token_urlsafe(9): {"key": key, "request": request.to_wire()}
            for key, request in asked.requests.items()
        }
        return self._record(task, run, lambda t: t.park(run, time.time(), pending, asked.state))

    def _settle(
        self,
        task: Task,
        run: int,
        *,
        result: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        return self._record(
            task, run, lambda current: current.settle(run, time.time(), result=result, error=error)
        )

    def _record(self, task: Task, run: int, transition: Callable[[Task], Task | None]) -> dict[str, Any]:
        """Write the run's outcome, unless the task moved on meanwhile (cancelled, reaped): then drop it."""
        try:
            updated, changed = change(self.store, task.task_id, transition)
        except TaskTooLarge:
            error = {"code": INTERNAL_ERROR, "message": "The task's result is too large to store."}
            updated, changed = change(
                self.store, task.task_id, lambda t: t.settle(run, time.time(), error=error)
            )
        status = updated.status if updated is not None else "unknown"
        if not changed:
            log_task(self.logger, "mcp_task_outcome_dropped", task, run=run, status=status)
            return {"taskId": task.task_id, "run": run, "ran": True, "status": status}
        assert updated is not None
        log_task(
            self.logger,
            "mcp_task_settled" if updated.terminal else "mcp_task_input_required",
            updated,
            run=run,
        )
        return {"taskId": task.task_id, "run": run, "ran": True, "status": status}
