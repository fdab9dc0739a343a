"""Jobs: long work for a client without the tasks extension (a session client, as the Doubao platform is).

A tool that may run long (`TaskConfig`) called in a session runs as a **job**: the same task record, store and
worker invocation as a task (`tasks.TaskMethods`), answered at once with an `execution_result` that says the work
started, its `job_id`, and what to do next in `message` (the model reads it). The framework's tools
`get_job_status(job_id)` and `cancel_job(job_id)` follow it up: the state and progress, and once done the tool's
own result exactly as it would have answered inline (checked against the manifest in the worker, with its entities
and card bindings), or its error. A job is bound to its caller (another caller's job is "no such job"), and a
retry of the starting call with the same tool_call_id (or Idempotency-Key) finds the first call's job instead of
starting another: the job's id is derived from the business, the caller, the tool and that key.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Mapping
from typing import Any

from ..stores.tasks import Task
from ..tools import ToolResult, ToolSpec, execution_result
from ..tools.results import ResultCode, system_error
from ..wire import MISSING_CLIENT_CAPABILITY
from .contexts import caller_of
from .jsonrpc import RpcError
from .scope import CallScope
from .task_worker import log_task
from .tasks import TaskMethods

JOB_ID_BYTES = 24  # as long as a minted task id (192 bits)


def job_id_for(business: str, scope: CallScope, tool: str) -> str | None:
    """The job id a keyed call always gets (its tool_call_id or Idempotency-Key), or None for a fresh one."""
    key = caller_of(scope)
    if key.key is None:
        return None
    material = json.dumps([business, scope.principal, tool, key.key_source, key.key], ensure_ascii=False)
    digest = hashlib.sha256(material.encode()).digest()[:JOB_ID_BYTES]
    return base64.urlsafe_b64encode(digest).decode().rstrip("=")


def no_such_job(job_id: str) -> ToolResult:
    """Unknown, expired, or another caller's job: all answer alike."""
    return system_error(
        ResultCode.INVALID_ARGUMENTS,
        f"No such job: {job_id[:64]!r} (unknown, expired, or started by another caller).",
        suggested_action="fix_arguments",
        fields={"job_id": job_id[:64]},
    )


class JobMethods:
    """Starting a job for tools/call, and the framework's get_job_status and cancel_job tools.

    Args:
        tasks: The tasks extension's methods: the store, the worker's start, the caller-bound load.
    """

    def __init__(self, tasks: TaskMethods) -> None:
        self.tasks = tasks
        self.logger = tasks.logger

    async def start(self, scope: CallScope, spec: ToolSpec, arguments: Mapping[str, Any]) -> ToolResult:
        """Store the job and start its worker; the answer that says so (a retry's answer is the same)."""
        job_id = job_id_for(self.tasks.business.name, scope, spec.name)
        task, new = self.tasks.open(scope, spec, arguments, task_id=job_id)
        if not new and (task.tool != spec.name or task.arguments != dict(arguments)):
            return system_error(
                ResultCode.KEY_REUSED,
                f"Tool '{spec.name}': this tool_call_id already started a job with other arguments; use a new one.",
            )
        log_task(self.logger, "mcp_job_started" if new else "mcp_job_replayed", task, tool_name=spec.name)
        if task.terminal:  # a late retry of a call whose job has ended already
            message = (
                f"This call already started {spec.name} as job {task.task_id}, which has ended ({task.status}); "
                f"call get_job_status with this job_id for its outcome."
            )
        else:
            message = (
                f"Started {spec.name} as a background job (job_id {task.task_id}); it takes a while. Call "
                f"get_job_status with this job_id in a few seconds for its progress and, once it is done, its "
                f"result; cancel_job stops it."
            )
        return _state(task, True, message)

    async def status(self, scope: CallScope, job_id: str) -> ToolResult:
        """The job's state and progress; once done, the tool's own result (or its error)."""
        task = self._load(scope, job_id)
        if task is None:
            return no_such_job(job_id)
        if (
            task.status == "completed"
        ):  # shaped for this client, as tasks/get shapes it (scopes, hidden values)
            return _stored(self.tasks.delivery.wire(scope, task.tool, task.result or {}))
        if task.status == "failed":
            return _failure(task)
        if task.status == "input_required":
            self.tasks.cancel(task.task_id)  # nobody can answer it in a session: do not leave it waiting
            return system_error(
                ResultCode.INPUT_REQUIRED_UNSUPPORTED,
                f"The {task.tool} job needs input from the user, which a job cannot ask for; it was stopped.",
            )
        if task.status == "cancelled":
            return _state(task, False, f"The {task.tool} job was cancelled; it will not finish.")
        progress = f" ({task.status_message})" if task.status_message else ""
        return _state(
            task,
            True,
            f"The {task.tool} job is still running{progress}. Call get_job_status with job_id "
            f"{task.task_id} again in a few seconds.",
        )

    async def cancel(self, scope: CallScope, job_id: str) -> ToolResult:
        """Cancel the job (its running tool sees `ctx.cancelled()`); a finished job stays as it is."""
        task = self._load(scope, job_id)
        if task is None:
            return no_such_job(job_id)
        updated, changed = self.tasks.cancel(task.task_id)
        if changed and updated is not None:
            return _state(updated, True, f"The {task.tool} job was cancelled.")
        current = updated or task
        if current.status == "cancelled":
            return _state(current, True, f"The {task.tool} job was already cancelled.")
        return _state(
            current,
            False,
            f"The {task.tool} job had already ended ({current.status}); call get_job_status for its outcome.",
        )

    def _load(self, scope: CallScope, job_id: str) -> Task | None:
        try:
            return self.tasks.load(scope, job_id)
        except RpcError as exc:
            if exc.http_status is not None:  # the store is unavailable: 503, retry later
                raise
            return None


def _state(task: Task, success: bool, message: str) -> ToolResult:
    result: dict[str, Any] = {"success": success, "job_id": task.task_id, "state": task.status}
    if task.status == "working" and task.status_message:
        result["progress"] = task.status_message
    result["message"] = message
    return execution_result(result, text=message)  # the model reads what to do next


def _stored(wire: Mapping[str, Any]) -> ToolResult:
    """The tool's own result as the worker stored it (already checked against the manifest)."""
    return ToolResult(
        content=list(wire.get("content", [])),
        structured_content=wire.get("structuredContent"),
        is_error=wire.get("isError") is True,
    )


def _failure(task: Task) -> ToolResult:
    """A job whose worker failed (crashed, stopped, or asked for what a job cannot give), as an error result."""
    error = task.error or {}
    if error.get("code") == MISSING_CLIENT_CAPABILITY:
        return system_error(
            ResultCode.INPUT_REQUIRED_UNSUPPORTED,
            f"The {task.tool} job needs input from the user, which a job cannot ask for.",
        )
    data = error.get("data")
    error_id = data.get("errorId") if isinstance(data, dict) else None
    return system_error(
        ResultCode.INTERNAL_ERROR,
        f"The {task.tool} job failed: {error.get('message') or 'its worker stopped before it finished'}",
        fields={"job_id": task.task_id, **({"error_id": error_id} if error_id else {})},
    )
