"""The legacy era (2024-11-05 … 2025-11-25): initialize handshake and Mcp-Session-Id sessions."""

from __future__ import annotations

import json
import re
from typing import Any

from ..apps import UI_EXTENSION, VIEW_MIME_TYPE
from ..observability import ToolLogger
from ..stores.sessions import Session, SessionIdTaken, SessionStore, SessionStoreUnavailable, open_session
from ..tools import Business, InputRequired
from ..tools.context import LOG_LEVELS
from ..tools.results import ResultCode, system_error
from ..wire import (
    BATCH_REVISIONS,
    HEADER_MISMATCH,
    HEADERLESS_REVISION,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    RESOURCE_NOT_FOUND,
    SESSION_NOT_FOUND,
)
from .cancellation import CancelledRequest, request_key
from .features import FeatureMethods
from .handshake_log import log_handshake
from .jsonrpc import (
    Notification,
    Request,
    RpcError,
    error_response,
    parse_message,
    recover_id,
    result_response,
    service_unavailable,
    shown,
)
from .methods import ToolMethods
from .params import check_depth
from .scope import (
    SESSION_HEADER,
    CallScope,
    Handler,
    Inbound,
    Outbound,
    answer,
    error_outbound,
    idempotency_key_of,
    trace_context_of,
)
from .skills import SKILLS_EXTENSION
from .versions import body_version, negotiate_legacy

MAX_STORED_CLIENT_BYTES = 16 * 1024
SESSION_ID_SHAPE = re.compile(r"[\x21-\x7e]{1,128}")
MINT_ATTEMPTS = 3  # an id is never overwritten; a (192-bit) collision just draws another
# The most messages one 2025-03-26 batch may carry: their answers must fit one Lambda response (6 MB).
MAX_BATCH_LENGTH = 100


def store_unavailable(exc: SessionStoreUnavailable) -> RpcError:
    """503 with Retry-After: the session store is throttled or unreachable, and the client may retry."""
    return service_unavailable("Session store temporarily unavailable; retry later", exc.retry_after_seconds)


def session_not_found() -> RpcError:
    return RpcError(SESSION_NOT_FOUND, "Session not found", http_status=404)


def missing_version_header(inbound: Inbound) -> RpcError | None:
    """What a sessionless request routed here really lacks when its body shows 2026-07-28 (`params._meta` names
    the revision): the MCP-Protocol-Version header that routes it to that era, not a session. None otherwise."""
    version = body_version(inbound.body) if inbound.channel.header_layer else None
    if version is None:
        return None
    header = inbound.header("mcp-protocol-version")
    if header is None:
        message = (
            f"Bad Request: MCP-Protocol-Version header is required: the body's params._meta names protocol "
            f"version {shown(version)}; send it as the MCP-Protocol-Version header too (and Mcp-Method)"
        )
    else:
        message = (
            f"Header mismatch: MCP-Protocol-Version header {shown(header)} does not match the body's "
            f"params._meta protocol version {shown(version)}"
        )
    return RpcError(HEADER_MISMATCH, message, http_status=400)


class LegacyEra:
    """Sessions: capabilities fixed at initialize, logging/setLevel kept in the session, no rounds.

    When a tool asks for input, the call answers an error *result* (40010): tools report failures as results the
    model can read. A prompt or resource asking for input answers a JSON-RPC -32602 error: neither has a result
    form for failure.
    """

    has_rounds = False
    serves_jobs = True  # no tasks extension here (SEP-2663 is 2026-07-28 only): long work runs as a job
    resource_not_found_code = RESOURCE_NOT_FOUND

    def __init__(
        self,
        business: Business,
        tools: ToolMethods,
        features: FeatureMethods,
        sessions: SessionStore,
        server_info: dict[str, Any],
        logger: ToolLogger | None = None,
    ) -> None:
        self.business = business
        self.features = features
        self.sessions = sessions
        self.server_info = server_info
        self.logger = logger
        self.methods: dict[str, Handler] = {
            **tools.handlers(),
            **features.handlers(),
            "ping": self.ping,
            "logging/setLevel": self.set_level,
            **features.subscription_handlers(),
        }

    def capabilities(self, client_capabilities: dict[str, Any]) -> dict[str, Any]:
        resources = {"subscribe": True, "listChanged": False}
        served = self.features.capabilities(resources, client_capabilities)
        capabilities = {"tools": {"listChanged": False}, "logging": {}, **served}
        # Hosts of 2024-11-05 … 2025-11-25 negotiate extensions here too (MCP Apps does): declare what this
        # session is served, so a client that follows an extension finds it (docs/skills.md).
        extensions: dict[str, Any] = {}
        if self.features.skills is not None:
            extensions[SKILLS_EXTENSION] = self.features.skills.capability()
        if self.features.apps.serves(client_capabilities):
            extensions[UI_EXTENSION] = {"mimeTypes": [VIEW_MIME_TYPE]}
        if extensions:
            capabilities["extensions"] = extensions
        return capabilities

    def tool_needs_input(self, scope: CallScope, name: str, asked: InputRequired) -> dict[str, Any]:
        return system_error(
            ResultCode.INPUT_REQUIRED_UNSUPPORTED,
            f"Tool '{name}' needs input from the client; connect with MCP 2026-07-28 to answer it.",
        ).to_wire()

    def request_needs_input(
        self, scope: CallScope, method: str, target: str, asked: InputRequired
    ) -> dict[str, Any]:
        raise RpcError(INVALID_PARAMS, f"{method} '{target}' needs client input; use MCP 2026-07-28")

    def tasks_negotiated(self, scope: CallScope) -> bool:
        # SEP-2663: the extension is not defined at 2025-11-25 and before; a session's declaration enables nothing.
        return False

    def tool_needs_task(self, scope: CallScope, name: str) -> dict[str, Any]:
        return system_error(
            ResultCode.TASK_REQUIRED_UNSUPPORTED,
            f"Tool '{name}' runs only as a task; connect with MCP 2026-07-28 and the "
            "io.modelcontextprotocol/tasks extension to call it.",
        ).to_wire()

    # -- HTTP methods -------------------------------------------------------------------------------------

    async def post(self, inbound: Inbound) -> Outbound:
        body = inbound.body
        try:
            if isinstance(body, list):
                return await self._batch(inbound, body)
            try:
                message = parse_message(body)
            except RpcError as exc:
                return error_outbound(recover_id(body), exc, 400)
            if isinstance(message, Request) and message.method == "initialize":
                return self._initialize(inbound, message)
            session = self._session(inbound)
            if not isinstance(message, Request):
                self._notified(session, message)
                return Outbound(202)
            scope = self._scope(inbound, session, message)
            try:
                return answer(inbound, scope, await self._call(scope, message))
            except RpcError as exc:  # an error with a status of its own (the store went away mid-request)
                return error_outbound(message.id, exc)
        except RpcError as exc:
            return error_outbound(recover_id(body), exc)

    async def get(self, inbound: Inbound) -> Outbound:
        # A standalone server->client SSE stream cannot live on Lambda: answer 405 as the spec allows.
        return Outbound(405, headers={"allow": "POST, DELETE"})

    async def delete(self, inbound: Inbound) -> Outbound:
        try:
            session = self._session(inbound, touch=False)  # about to go: no point extending it
            self._store(self.sessions.delete, session.session_id)
        except RpcError as exc:
            return error_outbound(None, exc)
        return Outbound(200)

    # -- methods only sessions have -----------------------------------------------------------------------

    async def ping(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        return {}

    async def set_level(self, scope: CallScope, params: dict[str, Any]) -> dict[str, Any]:
        level = params.get("level")
        if level not in LOG_LEVELS:
            raise RpcError(INVALID_PARAMS, f"params.level must be one of {', '.join(LOG_LEVELS)}")
        if scope.session is not None:
            self._store(self.sessions.set_log_level, scope.session.session_id, level)
        return {}

    # -- internals ----------------------------------------------------------------------------------------

    def _notified(self, session: Session, message: Any) -> None:
        """A client notification: `notifications/cancelled` is recorded for the call it names (on any container);
        the others need nothing."""
        if not isinstance(message, Notification) or message.method != "notifications/cancelled":
            return
        key = request_key(message.params.get("requestId"))
        if key is None:
            return  # names no request: nothing to cancel (a notification is never answered with an error)
        self._store(self.sessions.cancel_request, session.session_id, key)
        if self.logger is not None:
            self.logger.info(
                "mcp_request_cancelled",
                extra={"event": "mcp_request_cancelled", "request_id": message.params.get("requestId")},
            )

    def _store(self, operation: Any, *args: Any) -> Any:
        try:
            return operation(*args)
        except SessionStoreUnavailable as exc:
            raise store_unavailable(exc) from None

    def _initialize(self, inbound: Inbound, request: Request) -> Outbound:
        params = request.params
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            error = RpcError(INVALID_PARAMS, "params.protocolVersion is required and must be a string")
            return error_outbound(request.id, error)
        version = negotiate_legacy(requested)
        capabilities = _object_or_empty(params.get("capabilities"))
        client_info = _object_or_empty(params.get("clientInfo"))
        try:  # both are stored in the session and encoded again: bounded, or the encoding itself would fail
            check_depth(capabilities, "capabilities")
            check_depth(client_info, "clientInfo")
        except RpcError as exc:
            return error_outbound(request.id, exc)
        stored = len(json.dumps(capabilities, ensure_ascii=False)) + len(
            json.dumps(client_info, ensure_ascii=False)
        )
        if stored > MAX_STORED_CLIENT_BYTES:
            # Both are kept in the session item (DynamoDB items stop at 400 KB): refuse, do not truncate.
            error = RpcError(
                INVALID_PARAMS,
                f"params.capabilities and params.clientInfo together exceed {MAX_STORED_CLIENT_BYTES} bytes",
            )
            return error_outbound(request.id, error)
        try:
            session = self._mint(inbound, version, capabilities, client_info)
        except RpcError as exc:
            return error_outbound(request.id, exc)
        server_info = dict(self.server_info)
        if version < "2025-06-18":
            server_info.pop("title", None)
        result: dict[str, Any] = {
            "protocolVersion": version,
            "capabilities": self.capabilities(capabilities),
            "serverInfo": server_info,
        }
        if self.business.instructions:
            result["instructions"] = self.business.instructions
        log_handshake(self.logger, "mcp_initialized", version, client_info, requested_version=requested)
        return Outbound(200, result_response(request.id, result), {SESSION_HEADER: session.session_id})

    def _mint(
        self, inbound: Inbound, version: str, capabilities: dict[str, Any], client_info: dict[str, Any]
    ) -> Session:
        for _attempt in range(MINT_ATTEMPTS):
            session = open_session(
                protocol_version=version,
                business=self.business.name,
                ttl_seconds=self.sessions.ttl_seconds,
                client_info=client_info,
                client_capabilities=capabilities,
                principal=inbound.principal,
            )
            try:
                self._store(self.sessions.create, session)
                return session
            except SessionIdTaken:
                continue
        raise store_unavailable(SessionStoreUnavailable("could not mint a unique session id"))

    def _session(self, inbound: Inbound, touch: bool = True) -> Session:
        session_id = inbound.channel.session_id(inbound)
        if not session_id:
            raise missing_version_header(inbound) or inbound.channel.session_required()
        if not SESSION_ID_SHAPE.fullmatch(session_id):
            # Never one of ours (and never sent to the store, whose key limits would turn it into a 5xx).
            raise session_not_found()
        session = self._store(self.sessions.get, session_id)
        if session is None or session.principal != inbound.principal:
            # A session bound to another caller answers exactly like one that does not exist.
            raise session_not_found()
        return self._store(self.sessions.touch, session) if touch else session

    def _scope(self, inbound: Inbound, session: Session, request: Request) -> CallScope:
        meta = request.params.get("_meta")
        meta = meta if isinstance(meta, dict) else {}
        return CallScope(
            era=self,
            protocol_version=inbound.header("mcp-protocol-version") or session.protocol_version,
            request_id=request.id,
            correlation_id=inbound.correlation_id,
            principal=inbound.principal,
            auth=inbound.auth,
            session=session,
            client_capabilities=session.client_capabilities,
            meta=meta,
            log_level=session.log_level,
            idempotency_key=idempotency_key_of(inbound),
            lambda_context=inbound.lambda_context,
            trace=trace_context_of(inbound, meta),
            stream=inbound.stream,
            cancellation=CancelledRequest(self.sessions, session.session_id, request.id),
        )

    async def _call(self, scope: CallScope, request: Request) -> dict[str, Any]:
        """The JSON-RPC response to one request; an error with an HTTP status of its own propagates."""
        handler = self.methods.get(request.method)
        try:
            if handler is None:
                raise RpcError(METHOD_NOT_FOUND, f"Method not found: {request.method}")
            return result_response(request.id, await handler(scope, request.params))
        except RpcError as exc:
            if exc.http_status is not None:
                raise
            return error_response(request.id, exc)

    async def _batch(self, inbound: Inbound, items: list[Any]) -> Outbound:
        session = self._session(inbound)
        version = inbound.header("mcp-protocol-version") or session.protocol_version or HEADERLESS_REVISION
        if version not in BATCH_REVISIONS:
            raise RpcError(
                INVALID_REQUEST,
                f"Invalid Request: JSON-RPC batches are not accepted at {version}",
                http_status=400,
            )
        if not items:
            raise RpcError(INVALID_REQUEST, "Invalid Request: empty batch", http_status=400)
        if len(items) > MAX_BATCH_LENGTH:
            raise RpcError(
                INVALID_REQUEST,
                f"Invalid Request: a batch may hold at most {MAX_BATCH_LENGTH} messages",
                http_status=400,
            )
        responses: list[dict[str, Any]] = []
        for raw in items:
            try:
                message = parse_message(raw)
            except RpcError as exc:
                responses.append(error_response(recover_id(raw), exc))
                continue
            if isinstance(message, Request) and message.method == "initialize":
                error = RpcError(INVALID_REQUEST, "Invalid Request: initialize must not be batched")
                responses.append(error_response(message.id, error))
            elif isinstance(message, Request):
                try:
                    responses.append(await self._call(self._scope(inbound, session, message), message))
                except RpcError as exc:  # inside a batch every error is a member of the answer
                    responses.append(error_response(message.id, exc))
            elif isinstance(message, Notification):
                self._notified(session, message)
        return Outbound(200, responses) if responses else Outbound(202)


def _object_or_empty(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
