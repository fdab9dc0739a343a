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
