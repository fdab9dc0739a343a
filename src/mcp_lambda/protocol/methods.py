"""MCP method handlers shared by both eras. Era-specific wrapping lives in legacy.py / modern.py."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ..settings import Settings
from ..tools import Business, ToolContext
from ..tools.business import InvalidCursor
from ..tools.context import SecretSource, ToolLogger, _NoSecrets
from ..tools.executor import ResultCheck, ToolExecutor
from .jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, RpcError
from .scope import CallScope

Handler = Callable[[CallScope, dict[str, Any]], Awaitable[dict[str, Any]]]
LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


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
    ) -> None:
        self.business = business
        self.settings = settings
        self.logger = logger
        self.secrets = secrets or _NoSecrets()
        self.executor = ToolExecutor(result_check)
        self._tool_wire = {}
        for spec in business.tools:
            wire = spec.to_wire()
            if output_schemas and spec.name in output_schemas and "outputSchema" not in wire:
                wire["outputSchema"] = output_schemas[spec.name]
            self._tool_wire[spec.name] = wire
        self.shared: dict[str, Handler] = {"tools/list": self.tools_list, "tools/call": self.tools_call}
        self.legacy_only: dict[str, Handler] = {"ping": self.ping, "logging/setLevel": self.set_level}
        self.modern_only: dict[str, Handler] = {}

    def capabilities(self, era: str) -> dict[str, Any]:
        caps: dict[str, Any] = {"tools": {"listChanged": False}}
        if era == "legacy":
            caps["logging"] = {}
        return caps

    def handler_for(self, era: str, method: str) -> Handler:
        handler = self.shared.get(method) or (self.legacy_only if era == "legacy" else self.modern_only).get(
            method
        )
        if handler is None:
            raise RpcError(METHOD_NOT_FOUND, f"Method not found: {method}")
        return handler

    async def ping(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        return {}

    async def set_level(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        level = params.get("level")
        if level not in LOG_LEVELS:
            raise RpcError(INVALID_PARAMS, f"params.level must be one of {', '.join(LOG_LEVELS)}")
        scope.log_level = level
        return {}

    async def tools_list(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        cursor = params.get("cursor")
        if cursor is not None and not isinstance(cursor, str):
            raise RpcError(INVALID_PARAMS, "params.cursor must be a string")
        try:
            page, next_cursor = self.business.tool_page(cursor, self.settings.tools_page_size)
        except InvalidCursor as exc:
            raise RpcError(INVALID_PARAMS, f"params.cursor: {exc}") from None
        result: dict[str, Any] = {"tools": [self._tool_wire[spec.name] for spec in page]}
        if next_cursor is not None:
            result["nextCursor"] = next_cursor
        return result

    async def tools_call(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        name = params.get("name")
        if not isinstance(name, str) or not name:
            raise RpcError(INVALID_PARAMS, "params.name must be a non-empty string")
        spec = self.business.tool(name)
        if spec is None:
            raise RpcError(INVALID_PARAMS, f"Unknown tool: {name}", data={"name": name})
        arguments = params.get("arguments")
        if arguments is None:
            arguments = {}
        if not isinstance(arguments, dict):
            raise RpcError(INVALID_PARAMS, "params.arguments must be an object")
        meta = params.get("_meta") if isinstance(params.get("_meta"), dict) else {}
        ctx = ToolContext(
            request_id=scope.request_id,
            tool_name=name,
            era=scope.era,
            protocol_version=scope.protocol_version,
            logger=self.logger,
            session_id=scope.session.session_id if scope.session else None,
            tool_call_id=_tool_call_id(meta),
            client_capabilities=scope.client_capabilities,
            meta=meta or {},
            secrets=self.secrets,
            notify=scope.notify,
        )
        result = await self.executor.run(spec, arguments, ctx)
        return result.to_wire()


def _tool_call_id(meta: dict[str, Any]) -> str | None:
    for key in ("tool_call_id", "toolCallId", "io.modelcontextprotocol/toolCallId"):
        value = meta.get(key)
        if isinstance(value, str) and value:
            return value[:128]
    return None
