"""tools/list and tools/call: the platform contract, served the same way in both eras."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..calls.exactly_once import ExactlyOnceCalls
from ..deadlines import cancellable
from ..encoding import Encoded
from ..tools import Business, InputRequired, ToolResult, ToolSpec
from ..tools.results import ResultCode, system_error
from ..wire import INSUFFICIENT_SCOPE, INVALID_PARAMS
from .apps import AppViews
from .contexts import ContextFactory, caller_of
from .delivery import ResultDelivery
from .jsonrpc import RpcError
from .pagination import listing
from .params import check_depth, optional_object, required_string
from .rounds import Rounds
from .scope import CallScope, Handler
from .task_extension import GET_JOB_STATUS, JOB_TOOLS, JobApi, TaskApi

MAX_JOB_ID = 128


class ToolMethods:
    def __init__(
        self,
        business: Business,
        calls: ExactlyOnceCalls,
        contexts: ContextFactory,
        rounds: Rounds,
        page_size: int,
        output_schemas: Mapping[str, dict[str, Any]] | None = None,
        tasks: TaskApi | None = None,
        apps: AppViews | None = None,
        delivery: ResultDelivery | None = None,
        jobs: JobApi | None = None,
    ) -> None:
        self.business = business
        # What of each result this request's client receives (scoped fields, hidden values).
        self.delivery = delivery or ResultDelivery(business, None)
        self.apps = apps or AppViews(
            None
        )  # MCP Apps: `_meta.ui` and app-only tools, for a client that renders
        self.calls = calls  # the executor, behind the exactly-once store
        self.tasks = tasks
        self.jobs = (
            jobs  # a long tool, for a client without tasks (a session): None when no tool may run long
        )
        self.contexts = contexts
        self.rounds = rounds
        self.page_size = page_size
        self.tool_wire: dict[str, dict[str, Any]] = {}
        for spec in business.tools:
            wire = spec.to_wire()
            if output_schemas and spec.name in output_schemas and "outputSchema" not in wire:
                wire["outputSchema"] = output_schemas[spec.name]
            self.tool_wire[spec.name] = wire
        # The entries as every client without MCP Apps views gets them, encoded once (`Encoded`).
        self.tool_encoded = {name: Encoded(wire) for name, wire in self.tool_wire.items()}
        self.any_scoped = any(spec.scopes for spec in business.tools)

    def handlers(self) -> dict[str, Handler]:
        return {"tools/list": self.tools_list, "tools/call": self.tools_call}

    async def tools_list(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        tools = self.business.tools
        if scope.auth.enforced and self.any_scoped:
            # Only what this caller may call; and so a list no one else may be served from a cache.
            tools = [spec for spec in tools if scope.auth.allows(spec.scopes)]
            scope.caller_specific = True
        tools = self.apps.listed(scope, tools)
        if self.apps.shapes_the_list(scope, any(not spec.model_visible for spec in tools)):
            scope.caller_specific = True  # cacheScope private: a client without views must never be served it
        entries: list[ToolSpec | str] = list(tools)
        if self.jobs is not None and scope.era.serves_jobs:
            entries.extend(JOB_TOOLS)
        entry_of = self.apps.tool_entries(
            scope, self.tool_wire, self.tool_encoded
        )  # the client's capabilities read once
        return listing(
            "tools",
            entries,
            params,
            self.page_size,
            lambda entry: JOB_TOOLS[entry] if isinstance(entry, str) else entry_of(entry),
        )

    async def tools_call(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        name = required_string(params, "name")
        if name in JOB_TOOLS and self.jobs is not None and scope.era.serves_jobs:
            return (await self._job_tool(scope, name, params)).to_wire()
        spec = self.business.tool(name)
        if spec is None or not self.apps.visible(scope, spec):  # an app-only tool, to a client without views
            raise RpcError(INVALID_PARAMS, f"Unknown tool: {name}", data={"name": name})
        if not scope.auth.allows(spec.scopes):
            raise insufficient_scope(scope, spec.name, spec.scopes)
        arguments = check_depth(optional_object(params, "arguments"), "arguments")
        inputs = self.rounds.inputs(scope, params, "tools/call", name)
        ctx = self.contexts(scope, name, inputs)
        result: ToolResult | InputRequired
        if spec.task != "forbidden" and self.tasks is not None and scope.era.tasks_negotiated(scope):
            created = await self.tasks.create(scope, spec, arguments, ctx, inputs)
            if isinstance(created, dict):
                return created  # the CreateTaskResult
            result = created
        elif spec.task != "forbidden" and self.jobs is not None and scope.era.serves_jobs:
            admitted = await self.calls.executor.admit(spec, arguments, ctx)  # arguments checked first
            result = admitted if admitted is not None else await self.jobs.start(scope, spec, arguments)
        elif spec.task == "required":
            return scope.era.tool_needs_task(scope, name)  # before the tool runs
        else:
            with cancellable(ctx.cancellation):  # ctx.http stops waiting once the client cancels the call
                result = await self.calls.run(spec, arguments, ctx, caller_of(scope))
        if isinstance(result, InputRequired):
            return scope.era.tool_needs_input(scope, name, result)
        return self.delivery.wire(scope, name, result.to_wire())

    async def _job_tool(self, scope: CallScope, name: str, params: dict[str, Any]) -> ToolResult:
        """get_job_status or cancel_job (the framework's job tools, in a session)."""
        assert self.jobs is not None
        arguments = optional_object(params, "arguments")
        job_id = arguments.get("job_id")
        if (
            not isinstance(job_id, str)
            or not job_id
            or len(job_id) > MAX_JOB_ID
            or set(arguments) - {"job_id"}
        ):
            return system_error(
                ResultCode.INVALID_ARGUMENTS,
                f"{name} takes one argument, job_id: the string a tool answered when it started a job.",
                suggested_action="fix_arguments",
            )
        if name == GET_JOB_STATUS:
            return await self.jobs.status(scope, job_id)
        return await self.jobs.cancel(scope, job_id)


def insufficient_scope(scope: CallScope, name: str, required: tuple[str, ...]) -> RpcError:
    """403 with the `insufficient_scope` step-up challenge: the client may re-authorize for `required`."""
    return RpcError(
        INSUFFICIENT_SCOPE,
        f"Forbidden: tool '{name}' needs the scope {' '.join(required)}",
        data={"requiredScopes": list(required)},
        http_status=403,
        headers=scope.auth.step_up(required),
    )
