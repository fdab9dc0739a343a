"""The Task record and the TaskStore contract (the 2026-07-28 `io.modelcontextprotocol/tasks` extension).

A task is written by the request that creates it, worked on by a separate (asynchronous) invocation of the same
function, and read by any container: nothing about it lives in memory. Every change is a pure transition
(`Task.claim`, `Task.settle`, `Task.cancel`, ...) applied by `change()`: read, transition, write back only if
nobody wrote in between (an optimistic `version` check), retry on a conflict. A transition refuses to touch a
task that is already terminal, so a cancelled (or reaped) task is never overwritten by a late worker.
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable, Mapping
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from ...caller import Caller
from ...errors import McpLambdaError, StoreUnavailable
from ...trace_context import TraceContext
from ...wire import INTERNAL_ERROR
from .identity import StoredCaller

TaskStatus = Literal["working", "input_required", "completed", "failed", "cancelled"]
TERMINAL: frozenset[str] = frozenset({"completed", "failed", "cancelled"})
# A created (or resumed) task must be picked up within this allowance: template.yaml's MaximumEventAgeInSeconds.
START_GRACE_SECONDS = 60
# Once a worker has claimed the task, Lambda stops it after the worker timeout; this covers the clock skew.
CLAIM_SLACK_SECONDS = 2
CHANGE_ATTEMPTS = 8


def new_task_id() -> str:
    """192 random bits, URL-safe (also safe in the `Mcp-Name` header): a task id is a bearer handle."""
    return secrets.token_urlsafe(24)


class TaskStoreUnavailable(StoreUnavailable):
    """The backing store is throttled or unreachable; the caller should answer 503 and may retry."""

    default_message = "task store unavailable"


class TaskIdTaken(McpLambdaError, ValueError):
    """`create` found a task with the same id; ids are never overwritten."""


class TaskTooLarge(McpLambdaError, ValueError):
    """The task (usually its result) exceeds what the store can hold in one record."""


class Task(BaseModel):
    """One task: who asked for what, where it stands, and its outcome. Timestamps are epoch seconds."""

    # Built on the first task request (or before a SnapStart snapshot): most containers never serve one.
    model_config = ConfigDict(frozen=True, defer_build=True)

    task_id: str
    business: str
    principal: str | None = None
    # Who created it, for the worker's `ctx.caller` (never the token; out of the repr, as claims are never
    # logged); None: anonymous, or stored before tasks kept their caller.
    caller: StoredCaller | None = Field(default=None, repr=False)
    tool: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    # What the creating request declared (`ctx.supports(...)` in the worker, the input requests it may ask).
    client_capabilities: dict[str, Any] = Field(default_factory=dict)
    status: TaskStatus = "working"
    status_message: str | None = None
    created_at: float
    updated_at: float
    ttl_ms: int
    # When a `working` task must have finished; past it, a read reports the task failed (its worker is gone).
    deadline: float | None = None
    # The invocation allowed to work on the task (bumped on every resume) and the last one that claimed it.
    run: int = 1
    claimed_run: int = 0
    version: int = 1
    result: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    # input_required: {opaque id: {"key": the tool's key, "request": the wire input request}} still unanswered.
    pending: dict[str, dict[str, Any]] = Field(default_factory=dict)
    # Answers received for this round's requests, by the tool's key (complete once nothing is pending).
    answers: dict[str, Any] = Field(default_factory=dict)
    # The tool's state between rounds (`ctx.request_state` of the next run).
    state: dict[str, Any] | None = None
    # The creating request's W3C trace context (validated), so the worker's log lines and downstream calls
    # continue the caller's trace; None when the request carried none.
    traceparent: str | None = None
    tracestate: str | None = None

    @property
    def expires_at(self) -> float:
        """Creation + ttlMs (the DynamoDB TTL attribute, in whole seconds, rounded up)."""
        return float(math.ceil(self.created_at + self.ttl_ms / 1000))

    @property
    def terminal(self) -> bool:
        return self.status in TERMINAL

    def caller_identity(self) -> Caller | None:
        """The caller who created the task, rebuilt; None when none was kept or it is not the task's principal."""
        if self.caller is None:
            return None
        caller = self.caller.rebuild()
        return caller if caller.principal == self.principal else None

    def is_expired(self, now: float | None = None) -> bool:
        return (time.time() if now is None else now) >= self.expires_at

    def is_overdue(self, now: float | None = None) -> bool:
        now = time.time() if now is None else now
        return self.status == "working" and self.deadline is not None and now > self.deadline

    # -- transitions: each returns the next version of the task, or None to leave it as it is --------------

    def _next(self, now: float, **changes: Any) -> Task:
        return self.model_copy(update={**changes, "updated_at": now, "version": self.version + 1})

    def claim(self, run: int, worker_timeout_seconds: int, now: float) -> Task | None:
        """The worker invocation `run` starts: only once, only while the task waits for exactly that run."""
        if self.status != "working" or run != self.run or self.claimed_run >= run or self.is_overdue(now):
            return None
        deadline = now + worker_timeout_seconds + CLAIM_SLACK_SECONDS
        return self._next(now, claimed_run=run, deadline=deadline)

    def settle(
        self,
        run: int,
        now: float,
        *,
        result: Mapping[str, Any] | None = None,
        error: Mapping[str, Any] | None = None,
    ) -> Task | None:
        """The run ended with a result (`completed`) or a JSON-RPC error (`failed`), unless the task moved on."""
        if self.status != "working" or self.claimed_run != run:
            return None
        if error is not None:
            return self._failed(now, error)
        return self._next(
            now, status="completed", result=dict(result or {}), error=None, status_message=None, deadline=None
        )

    def park(
        self, run: int, now: float, pending: Mapping[str, dict[str, Any]], state: Mapping[str, Any] | None
    ) -> Task | None:
        """The run asked the client for input: wait in `input_required` (no deadline: no worker is running)."""
        if self.status != "working" or self.claimed_run != run:
            return None
        return self._next(
            now,
            status="input_required",
            pending=dict(pending),
            answers={},
            state=dict(state or {}),
            deadline=None,
        )

    def answer(self, responses: Mapping[str, Any], worker_timeout_seconds: int, now: float) -> Task | None:
        """Record the answers to pending requests (unknown or answered ids are ignored); resume when none is left."""
        if self.status != "input_required":
            return None
        taken = {opaque: responses[opaque] for opaque in self.pending if opaque in responses}
        if not taken:
            return None
        pending = {opaque: item for opaque, item in self.pending.items() if opaque not in taken}
        answers = {**self.answers, **{self.pending[opaque]["key"]: value for opaque, value in taken.items()}}
        if pending:
            return self._next(now, pending=pending, answers=answers)
        deadline = now + START_GRACE_SECONDS + worker_timeout_seconds
        return self._next(
            now, status="working", pending={}, answers=answers, run=self.run + 1, deadline=deadline
        )

    def cancel(self, now: float) -> Task | None:
        """Cancelled at once (a running tool sees it through `ctx.cancelled()`); a terminal task stays as it is."""
        if self.terminal:
            return None
        return self._next(
            now, status="cancelled", status_message="Cancelled by the client.", pending={}, deadline=None
        )

    def reap(self, now: float) -> Task | None:
        """A `working` task past its deadline: its worker timed out or crashed, and nothing will finish it."""
        if not self.is_overdue(now):
            return None
        error = {
            "code": INTERNAL_ERROR,
            "message": "The task's worker stopped before it finished (it timed out or crashed).",
        }
        return self._failed(now, error)

    def fail(self, now: float, error: Mapping[str, Any]) -> Task | None:
        """Fail a non-terminal task outright (its worker could not be started, or its outcome not stored)."""
        if self.terminal:
            return None
        return self._failed(now, error)

    def _failed(self, now: float, error: Mapping[str, Any]) -> Task:
        message = str(error.get("message", ""))[:500] or None
        return self._next(
            now,
            status="failed",
            error=dict(error),
            result=None,
            pending={},
            status_message=message,
            deadline=None,
        )

    def report(self, run: int, message: str, now: float) -> Task | None:
        """A running tool's status message (`ctx.report_status`, `ctx.report_progress`)."""
        if self.status != "working" or self.claimed_run != run or message == self.status_message:
            return None
        return self._next(now, status_message=message)


def open_task(
    *,
    business: str,
    tool: str,
    arguments: Mapping[str, Any],
    ttl_ms: int,
    worker_timeout_seconds: int,
    principal: str | None = None,
    caller: Caller | None = None,
    client_capabilities: Mapping[str, Any] | None = None,
    answers: Mapping[str, Any] | None = None,
    state: Mapping[str, Any] | None = None,
    trace: TraceContext | None = None,
    now: float | None = None,
) -> Task:
    """A new `working` task waiting for its first worker; the caller stores it with `TaskStore.create`."""
    now = time.time() if now is None else now
    return Task(
        task_id=new_task_id(),
        business=business,
        principal=principal,
        caller=StoredCaller.of(caller) if caller is not None else None,
        tool=tool,
        arguments=dict(arguments),
        client_capabilities=dict(client_capabilities or {}),
        created_at=now,
        updated_at=now,
        ttl_ms=ttl_ms,
        deadline=now + START_GRACE_SECONDS + worker_timeout_seconds,
        answers=dict(answers or {}),
        state=dict(state) if state is not None else None,
        traceparent=trace.traceparent if trace is not None else None,
        tracestate=trace.tracestate if trace is not None else None,
    )


class TaskStore(Protocol):
    """Create / get / replace with a version check. All methods may raise TaskStoreUnavailable."""

    def create(self, task: Task) -> None:
        """Store a new task, durably (a `get` right after finds it); raises TaskIdTaken, never overwrites."""

    def get(self, task_id: str) -> Task | None:
        """The task with that id (strongly consistent), or None when it is unknown or past its TTL."""

    def replace(self, task: Task, expected_version: int) -> bool:
        """Write `task` if the stored one still has `expected_version`; False when someone wrote first.

        Raises TaskTooLarge when the store cannot hold the record.
        """


def change(
    store: TaskStore, task_id: str, transition: Callable[[Task], Task | None]
) -> tuple[Task | None, bool]:
    """Apply `transition` to the stored task, retrying on write conflicts: (the task as it now is, changed?).

    (None, False) when there is no such task.
    """
    for _attempt in range(CHANGE_ATTEMPTS):
        current = store.get(task_id)
        if current is None:
            return None, False
        updated = transition(current)
        if updated is None:
            return current, False
        if store.replace(updated, current.version):
            return updated, True
    raise TaskStoreUnavailable("task store: too many conflicting writes")
