"""MCP method handlers shared by both eras. Era-specific wrapping lives in legacy.py / modern.py."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from ..observability import ToolTelemetry
from ..platform_api import PlatformApiClient
from ..settings import Settings
from ..tools import Business, ToolContext
from ..tools.context import LOG_LEVELS, NoSecrets, SecretSource, ToolLogger
from ..tools.executor import ResultCheck, ToolExecutor
from ..tools.inputs import InputRequired
from ..tools.results import INPUT_REQUIRED_UNSUPPORTED, business_error
from .features import FeatureMethods
from .jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, RpcError
from .params import listing, required_string
from .rounds import Rounds
from .scope import CallScope

Handler = Callable[[CallScope, dict[str, Any]], Awaitable[dict[str, Any]]]
LogLevelSink = Callable[[CallScope, str], None]


class McpMethods:
    """The method table: one async handler per MCP method, plus which era may call it."""

    def __init__(
        self,
        business: Business,
        settings: Settings,
        logger: ToolLogger,
        result_check: ResultCheck | None = None,
        output_schemas: dict[str, dict[str, Any]] | None = None,
        secrets: SecretSource | None = None,
        telemetry: ToolTelemetry | None = None,
        platform_api: PlatformApiClient | None = None,
    ) -> None:
        self.business = business
        self.settings = settings
        self.logger = logger
        self.secrets = secrets or NoSecrets()
        self.executor = ToolExecutor(result_check, telemetry)
        self.platform_api = platform_api
        self.rounds = Rounds(
            settings.request_state_key, self.secrets, settings.environment, settings.request_state_ttl_seconds
        )
        self.features = FeatureMethods(self)
        # Set by the legacy era: persists logging/setLevel into the session.
        self.log_level_sink: LogLevelSink | None = None
        self._tool_wire = {}
        for spec in business.tools:
            wire = spec.to_wire()
            if output_schemas and spec.name in output_schemas and "outputSchema" not in wire:
                wire["outputSchema"] = output_schemas[spec.name]
            self._tool_wire[spec.name] = wire
        self.shared: dict[str, Handler] = {
            "tools/list": self.tools_list,
            "tools/call": self.tools_call,
            **self.features.handlers(),
        }
        self.legacy_only: dict[str, Handler] = {
            "ping": self.ping,
            "logging/setLevel": self.set_level,
            **self.features.legacy_handlers(),
        }
        self.modern_only: dict[str, Handler] = {}

    def capabilities(self, era: str) -> dict[str, Any]:
        caps: dict[str, Any] = {"tools": {"listChanged": False}}
        if era == "legacy":
            caps["logging"] = {}
        caps.update(self.features.capabilities(era))
        return caps

    def handler_for(self, era: str, method: str) -> Handler:
        handler = self.shared.get(method) or (self.legacy_only if era == "legacy" else self.modern_only).get(
            method
        )
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")
        return handler

    def context(
        self, scope: CallScope, name: str, inputs: tuple[dict[str, Any], dict[str, Any] | None]
    ) -> ToolContext:
        """The ToolContext for one call (tools, prompts and resources share it); `_meta` comes from the scope."""
        return ToolContext(
            request_id=scope.request_id,
            tool_name=name,
            era=scope.era,
            protocol_version=scope.protocol_version,
            logger=self.logger,
            session_id=scope.session.session_id if scope.session else None,
            tool_call_id=_tool_call_id(scope.meta),
            client_capabilities=scope.client_capabilities,
            meta=scope.meta,
            secrets=self.secrets,
            notify=scope.notify,
            log_level=scope.log_level,
            input_responses=inputs[0],
            request_state=inputs[1],
            platform_api=self.platform_api,
            extras={"correlation_id": scope.correlation_id},
        )

    async def ping(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        return {}

    async def set_level(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        level = params.get("level")
        if level not in LOG_LEVELS:
            raise RpcError(INVALID_PARAMS, f"params.level must be one of {', '.join(LOG_LEVELS)}")
        if self.log_level_sink is not None:
            self.log_level_sink(scope, level)
        return {}

    async def tools_list(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        tools, page_size = self.business.tools, self.settings.tools_page_size
        return listing("tools", tools, params, page_size, lambda spec: self._tool_wire[spec.name])

    async def tools_call(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        name = required_string(params, "name")
        spec = self.business.tool(name)
        if spec is None:
            raise RpcError(INVALID_PARAMS, f"Unknown tool: {name}", data={"name": name})
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise RpcError(INVALID_PARAMS, "params.arguments must be an object")
        inputs = self.rounds.inputs(scope, params, "tools/call", name)
        result = await self.executor.run(spec, arguments, self.context(scope, name, inputs))
        if isinstance(result, InputRequired):
            if scope.era != "modern":
                return business_error(
                    INPUT_REQUIRED_UNSUPPORTED,
                    f"Tool '{name}' needs input from the client; connect with MCP 2026-07-28 to answer it.",
                ).to_wire()
            return self.rounds.input_required(scope, "tools/call", name, result)
        return result.to_wire()


def _tool_call_id(meta: Mapping[str, Any]) -> str | None:
    for key in ("tool_call_id", "toolCallId", "io.modelcontextprotocol/toolCallId"):
        value = meta.get(key)
        if isinstance(value, str) and value:
            return value[:128]
    return None
