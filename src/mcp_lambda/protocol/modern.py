"""The 2026-07-28 era: stateless requests carrying `_meta`, validated in the order the 2026-07-28 transport specifies."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from ..observability import ToolLogger
from ..tools import Business, InputRequired
from ..wire import (
    CACHEABLE_METHODS,
    HANDSHAKE_REVISIONS,
    HEADER_MISMATCH,
    HTTP_STATUS_OF_CODE,
    INVALID_PARAMS,
    INVALID_REQUEST,
    META_CAPABILITIES,
    META_CLIENT_INFO,
    META_VERSION,
    METHOD_NOT_FOUND,
    NAME_BEARING_METHODS,
    STATELESS_REVISIONS,
    TASK_NAME_BEARING_METHODS,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from .features import FeatureMethods
from .handshake_log import log_handshake
from .jsonrpc import Notification, Request, RpcError, parse_message, recover_id, result_response, shown
from .methods import ToolMethods
from .rounds import Rounds
from .scope import (
    CallScope,
    Handler,
    Inbound,
    Outbound,
    answer,
    error_outbound,
    idempotency_key_of,
    trace_context_of,
)
from .skills import SKILLS_CACHEABLE_METHODS, SKILLS_EXTENSION
from .task_extension import TASKS_EXTENSION, TaskApi, declares_tasks, missing_tasks_extension

META_SERVER_INFO = "io.modelcontextprotocol/serverInfo"


class ModernEra:
    """2026-07-28: stateless requests, capabilities per request in `_meta`, multi round-trip results."""

    has_rounds = True
    serves_jobs = False  # a client without the tasks extension gets the result at once (SEP-2663)
    resource_not_found_code = INVALID_PARAMS

    def __init__(
        self,
        business: Business,
        tools: ToolMethods,
        features: FeatureMethods,
        rounds: Rounds,
        server_info: dict[str, Any],
        list_ttl_ms: int,
        tasks: TaskApi | None = None,
        logger: ToolLogger | None = None,
    ) -> None:
        self.logger = logger
        self.business = business
        self.features = features
        self.rounds = rounds
        self.server_info = server_info
        self.list_ttl_ms = list_ttl_ms
        self.tasks = tasks
        self.methods: dict[str, Handler] = {
            **tools.handlers(),
            **features.handlers(),
            **(tasks.handlers() if tasks is not None else {}),
            "server/discover": self.discover,
        }
        # tool name -> {argument: header suffix} for arguments mirrored in Mcp-Param-* headers (x-mcp-header).
        self.param_headers: dict[str, dict[str, str]] = {}
        for spec in business.tools:
            properties = spec.input_schema.get("properties")
            mirrored = {
                name: prop["x-mcp-header"]
                for name, prop in (properties.items() if isinstance(properties, dict) else [])
                if isinstance(prop, dict) and isinstance(prop.get("x-mcp-header"), str)
            }
            if mirrored:
                self.param_headers[spec.name] = mirrored

    def capabilities(self, client_capabilities: dict[str, Any]) -> dict[str, Any]:
        served = self.features.capabilities({"listChanged": False}, client_capabilities)
        capabilities = {"tools": {"listChanged": False}, **served}
        extensions: dict[str, Any] = {}
        if self.tasks is not None:
            extensions[TASKS_EXTENSION] = {}
        if self.features.skills is not None:
            extensions[SKILLS_EXTENSION] = self.features.skills.capability()
        if extensions:
            capabilities["extensions"] = extensions
        return capabilities

    def tasks_negotiated(self, scope: CallScope) -> bool:
        return self.tasks is not None and declares_tasks(scope.client_capabilities)

    def tool_needs_task(self, scope: CallScope, name: str) -> dict[str, Any]:
        raise missing_tasks_extension(f"tool '{name}' runs only as a task")

    def tool_needs_input(self, scope: CallScope, name: str, asked: InputRequired) -> dict[str, Any]:
        return self.rounds.input_required(scope, "tools/call", name, asked)

    def request_needs_input(
        self, scope: CallScope, method: str, target: str, asked: InputRequired
    ) -> dict[str, Any]:
        return self.rounds.input_required(scope, method, target, asked)

    async def post(self, inbound: Inbound) -> Outbound:
        body = inbound.body
        if isinstance(body, list):
            error = RpcError(
                INVALID_REQUEST, "Invalid Request: JSON-RPC batches are not accepted at 2026-07-28"
            )
            return self._error(None, error)
        try:
            message = parse_message(body)
        except RpcError as exc:
            return self._error(recover_id(body), exc)
        if isinstance(message, Notification):
            return Outbound(202)
        if not isinstance(message, Request):
            error = RpcError(
                INVALID_REQUEST, "Invalid Request: a 2026-07-28 client sends no JSON-RPC responses"
            )
            return self._error(recover_id(body), error)
        try:
            scope = self._validate(inbound, message)
            handler = self.methods.get(message.method)
            if handler is None:
                raise RpcError(METHOD_NOT_FOUND, f"Method not found: {message.method}")
            result = await handler(scope, message.params)
        except RpcError as exc:
            return self._error(message.id, exc)
        result = self._decorate(scope, message.method, result)
        return answer(inbound, scope, result_response(message.id, result))

    async def reject_method(self, inbound: Inbound) -> Outbound:
        """GET and DELETE have no meaning at 2026-07-28."""
        return Outbound(405, headers={"allow": "POST"})

    def _error(self, request_id: Any, error: RpcError) -> Outbound:
        return error_outbound(request_id, error, HTTP_STATUS_OF_CODE.get(error.code, 200))

    def _validate(self, inbound: Inbound, request: Request) -> CallScope:
        meta = request.params.get("_meta")
        if not isinstance(meta, dict):
            header = inbound.header("MCP-Protocol-Version")
            if header not in STATELESS_REVISIONS:
                # Most likely a session client sending a revision this server does not speak: say so.
                supported = ", ".join((*HANDSHAKE_REVISIONS, *STATELESS_REVISIONS))
                raise RpcError(
                    INVALID_PARAMS,
                    f"Unsupported MCP-Protocol-Version header '{header}' (supported: "
                    f"{supported}); a 2026-07-28 request also needs params._meta",
                )
            raise RpcError(INVALID_PARAMS, "params._meta is required at protocol version 2026-07-28")
        version = meta.get(META_VERSION)
        if not isinstance(version, str) or not version:
            raise RpcError(INVALID_PARAMS, f'params._meta["{META_VERSION}"] is required and must be a string')
        capabilities = meta.get(META_CAPABILITIES)
        if not isinstance(capabilities, dict):
            raise RpcError(
                INVALID_PARAMS, f'params._meta["{META_CAPABILITIES}"] is required and must be an object'
            )
        headers = inbound.channel.header_layer  # stdio has none: nothing to compare with the body
        if headers:
            _require_header(inbound, "MCP-Protocol-Version", version)
            _require_header(inbound, "Mcp-Method", request.method)
            name_field = NAME_BEARING_METHODS.get(request.method) or TASK_NAME_BEARING_METHODS.get(
                request.method
            )
            if name_field is not None:
                target = request.params.get(name_field)
                if isinstance(target, str):
                    _require_header(inbound, "Mcp-Name", target, encoded=True)
        if version not in STATELESS_REVISIONS:
            raise RpcError(
                UNSUPPORTED_PROTOCOL_VERSION,
                f"Unsupported protocol version: {version}",
                data={"supported": list(STATELESS_REVISIONS), "requested": version},
            )
        if headers and request.method == "tools/call":
            self._check_param_headers(inbound, request.params)
        return CallScope(
            era=self,
            protocol_version=version,
            request_id=request.id,
            correlation_id=inbound.correlation_id,
            principal=inbound.principal,
            auth=inbound.auth,
            client_capabilities=capabilities,
            meta=meta,
            log_level=meta.get("io.modelcontextprotocol/logLevel")
            if isinstance(meta.get("io.modelcontextprotocol/logLevel"), str)
            else None,
            idempotency_key=idempotency_key_of(inbound),
            lambda_context=inbound.lambda_context,
            trace=trace_context_of(inbound, meta),
            stream=inbound.stream,
        )

    def _check_param_headers(self, inbound: Inbound, params: dict[str, Any]) -> None:
        name = params.get("name")
        mirrored = self.param_headers.get(name) if isinstance(name, str) else None
        arguments = params.get("arguments")
        if not mirrored or not isinstance(arguments, dict):
            return
        for argument, suffix in mirrored.items():
            value = arguments.get(argument)
            if value is None:
                continue
            if isinstance(value, bool):
                expected = "true" if value else "false"
            elif isinstance(value, int | str):
                expected = str(value)
            else:
                continue
            _require_header(inbound, f"Mcp-Param-{suffix}", expected, encoded=True)

    def _decorate(self, scope: CallScope, method: str, result: dict[str, Any]) -> dict[str, Any]:
        result.setdefault("resultType", "complete")
        cacheable = method in CACHEABLE_METHODS or method in SKILLS_CACHEABLE_METHODS
        if cacheable and result["resultType"] == "complete":
            result.setdefault("ttlMs", self.list_ttl_ms)
            # A result that depends on the caller must never be served from a shared cache to someone else.
            result.setdefault("cacheScope", "private" if scope.caller_specific else "public")
        meta = result.setdefault("_meta", {})
        if isinstance(meta, dict):
            meta.setdefault(META_SERVER_INFO, self.server_info)
        return result

    async def discover(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        log_handshake(self.logger, "mcp_discovered", scope.protocol_version, scope.meta.get(META_CLIENT_INFO))
        result: dict[str, Any] = {
            "supportedVersions": list(STATELESS_REVISIONS),
            "capabilities": self.capabilities(dict(scope.client_capabilities)),
        }
        if self.business.instructions:
            result["instructions"] = self.business.instructions
        return result


def decode_header_value(value: str) -> str:
    """Mcp-Name / Mcp-Param-* values: plain, or `=?base64?<b64 of UTF-8>?=` for values unsafe in a header."""
    if value.startswith("=?base64?") and value.endswith("?="):
        try:
            return base64.b64decode(value[9:-2], validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            raise RpcError(HEADER_MISMATCH, "Header mismatch: invalid base64 header value") from None
    return value


def _require_header(inbound: Inbound, name: str, expected: str, encoded: bool = False) -> None:
    value = inbound.header(name)
    if value is None:
        raise RpcError(
            HEADER_MISMATCH,
            f"Header mismatch: {name} header is required and must equal the request body's {shown(expected)}",
        )
    if encoded:
        value = decode_header_value(value)
    if value != expected:
        raise RpcError(
            HEADER_MISMATCH,
            f"Header mismatch: {name} header {shown(value)} does not match the request body's {shown(expected)}",
        )
