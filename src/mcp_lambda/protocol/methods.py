"""tools/list and tools/call: the platform contract, served the same way in both eras."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..tools import Business, InputRequired
from ..tools.executor import ToolExecutor
from .contexts import ContextFactory
from .jsonrpc import INVALID_PARAMS, RpcError
from .pagination import listing
from .params import check_depth, optional_object, required_string
from .rounds import Rounds
from .scope import CallScope, Handler


class ToolMethods:
    def __init__(
        self,
        business: Business,
        executor: ToolExecutor,
        contexts: ContextFactory,
        rounds: Rounds,
        page_size: int,
        output_schemas: Mapping[str, dict[str, Any]] | None = None,
    ) -> None:
        self.business = business
        self.executor = executor
        self.contexts = contexts
        self.rounds = rounds
        self.page_size = page_size
        self.tool_wire: dict[str, dict[str, Any]] = {}
        for spec in business.tools:
            wire = spec.to_wire()
            if output_schemas and spec.name in output_schemas and "outputSchema" not in wire:
                wire["outputSchema"] = output_schemas[spec.name]
            self.tool_wire[spec.name] = wire

    def handlers(self) -> dict[str, Handler]:
        return {"tools/list": self.tools_list, "tools/call": self.tools_call}

    async def tools_list(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        return listing(
            "tools", self.business.tools, params, self.page_size, lambda spec: self.tool_wire[spec.name]
        )

    async def tools_call(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        name = required_string(params, "name")
        spec = self.business.tool(name)
        if spec is None:
            raise RpcError(INVALID_PARAMS, f"Unknown tool: {name}", data={"name": name})
        arguments = check_depth(optional_object(params, "arguments"), "arguments")
        inputs = self.rounds.inputs(scope, params, "tools/call", name)
        result = await self.executor.run(spec, arguments, self.contexts(scope, name, inputs))
        if isinstance(result, InputRequired):
            return scope.era.tool_needs_input(scope, name, result)
        return result.to_wire()
