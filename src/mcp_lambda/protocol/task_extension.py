"""What the eras need of the tasks extension at start-up: its name, the capability check, and its methods as an
interface that `TasksOnFirstUse` implements by building `tasks.TaskMethods` on the first request that uses them.

A business with a task tool advertises the extension from the start; the task modules, the Task model and the
task store are loaded by the first task request (or before a SnapStart snapshot, `snapshot.py`): a container
that never serves a task never imports them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Protocol

from ..tools import InputRequired, ToolResult, ToolSpec
from ..tools.context import ToolContext
from ..wire import MISSING_CLIENT_CAPABILITY
from .contexts import RoundInputs
from .jsonrpc import RpcError
from .scope import CallScope, Handler

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
REQUIRED_CAPABILITIES: dict[str, Any] = {"extensions": {TASKS_EXTENSION: {}}}
TASK_METHODS = ("tasks/get", "tasks/update", "tasks/cancel")
GET_JOB_STATUS, CANCEL_JOB = "get_job_status", "cancel_job"
_JOB_ID_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "job_id": {
            "type": "string",
            "minLength": 1,
            "maxLength": 128,
            "description": "The job_id the call that started the job answered.",
        }
    },
    "required": ["job_id"],
    "additionalProperties": False,
}
# The framework's job tools, as tools/list shows them in a session (only for a business with a long tool).
JOB_TOOLS: dict[str, dict[str, Any]] = {
    GET_JOB_STATUS: {
        "name": GET_JOB_STATUS,
        "title": "Get a job's status",
        "description": (
            "Use after a tool answered that it started a background job: reports the job's state and progress, "
            "and once it is done the tool's own result (or its error). Call it again while the state is working."
        ),
        "inputSchema": _JOB_ID_SCHEMA,
        "annotations": {"readOnlyHint": True, "idempotentHint": True, "openWorldHint": False},
    },
    CANCEL_JOB: {
        "name": CANCEL_JOB,
        "title": "Cancel a job",
        "description": (
            "Use when the user no longer wants the result of a background job a tool started: stops it. "
            "Not for jobs that have already finished."
        ),
        "inputSchema": _JOB_ID_SCHEMA,
        "annotations": {
            "readOnlyHint": False,
            "destructiveHint": False,
            "idempotentHint": True,
            "openWorldHint": False,
        },
    },
}


def declares_tasks(capabilities: Mapping[str, Any]) -> bool:
    """Whether the request's client capabilities (`_meta`) include the tasks extension."""
    extensions = capabilities.get("extensions")
    return isinstance(extensions, Mapping) and TASKS_EXTENSION in extensions


def missing_tasks_extension(what: str) -> RpcError:
    return RpcError(
        MISSING_CLIENT_CAPABILITY,
        f"Missing required client capability: extensions[{TASKS_EXTENSION}] ({what})",
        data={"requiredCapabilities": REQUIRED_CAPABILITIES},
    )


class TaskApi(Protocol):
    """The tasks extension as the eras and the server call it (`tasks.TaskMethods`)."""

    def handlers(self) -> dict[str, Handler]: ...

    async def create(
        self,
        scope: CallScope,
        spec: ToolSpec,
        arguments: Mapping[str, Any],
        ctx: ToolContext,
        inputs: RoundInputs,
    ) -> dict[str, Any] | ToolResult | InputRequired: ...

    async def work(self, task_id: str, run: int, invocation_id: str | None = None) -> dict[str, Any]: ...


class JobApi(Protocol):
    """Jobs, for a session client (`jobs.JobMethods`): start one for tools/call, the two job tools."""

    async def start(self, scope: CallScope, spec: ToolSpec, arguments: Mapping[str, Any]) -> ToolResult: ...

    async def status(self, scope: CallScope, job_id: str) -> ToolResult: ...

    async def cancel(self, scope: CallScope, job_id: str) -> ToolResult: ...


class JobsOnFirstUse:
    """A JobApi whose methods are built by `build` on first use (a container that never serves a job never
    imports the task modules)."""

    def __init__(self, build: Callable[[], JobApi]) -> None:
        self._build = build
        self._methods: JobApi | None = None

    def methods(self) -> JobApi:
        if self._methods is None:
            self._methods = self._build()
        return self._methods

    async def start(self, scope: CallScope, spec: ToolSpec, arguments: Mapping[str, Any]) -> ToolResult:
        return await self.methods().start(scope, spec, arguments)

    async def status(self, scope: CallScope, job_id: str) -> ToolResult:
        return await self.methods().status(scope, job_id)

    async def cancel(self, scope: CallScope, job_id: str) -> ToolResult:
        return await self.methods().cancel(scope, job_id)


class TasksOnFirstUse:
    """A TaskApi whose methods are built by `build` on first use."""

    def __init__(self, build: Callable[[], TaskApi]) -> None:
        self._build = build
        self._methods: TaskApi | None = None

    def methods(self) -> TaskApi:
        if self._methods is None:
            self._methods = self._build()
        return self._methods

    def handlers(self) -> dict[str, Handler]:
        return {method: self._forward(method) for method in TASK_METHODS}

    def _forward(self, method: str) -> Handler:
        async def handle(scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
            return await self.methods().handlers()[method](scope, params)

        return handle

    async def create(
        self,
        scope: CallScope,
        spec: ToolSpec,
        arguments: Mapping[str, Any],
        ctx: ToolContext,
        inputs: RoundInputs,
    ) -> dict[str, Any] | ToolResult | InputRequired:
        return await self.methods().create(scope, spec, arguments, ctx, inputs)

    async def work(self, task_id: str, run: int, invocation_id: str | None = None) -> dict[str, Any]:
        return await self.methods().work(task_id, run, invocation_id)
