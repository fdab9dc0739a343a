"""The legacy era (2024-11-05 … 2025-11-25): initialize handshake and Mcp-Session-Id sessions."""

from __future__ import annotations

import json
import re
from typing import Any

from ..sessions import Session, SessionStore, SessionStoreUnavailable, open_session
from .jsonrpc import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    SERVICE_UNAVAILABLE,
    SESSION_NOT_FOUND,
    Notification,
    Request,
    RpcError,
    error_response,
    parse_message,
    recover_id,
    result_response,
)
from .methods import McpMethods
from .scope import CallScope, Inbound, Outbound
from .versions import BATCH_VERSIONS, HEADERLESS_VERSION, negotiate_legacy

SESSION_HEADER = "mcp-session-id"
MAX_STORED_CLIENT_BYTES = 16 * 1024
SESSION_ID_SHAPE = re.compile(r"[\x21-\x7e]{1,128}")


class _Reject(Exception):
    """Stop handling and answer with this HTTP status and JSON-RPC error."""

    def __init__(self, status: int, error: RpcError, headers: dict[str, str] | None = None) -> None:
        self.status, self.error, self.headers = status, error, headers or {}


class LegacyEra:
    def __init__(self, methods: McpMethods, sessions: SessionStore, server_info: dict[str, Any]) -> None:
        self.methods = methods
        self.sessions = sessions
        self.server_info = server_info
        methods.log_level_sink = self._save_log_level

    def _save_log_level(self, scope: CallScope, level: str) -> None:
        if scope.session is None:
            return
        try:
            self.sessions.set_log_level(scope.session.session_id, level)
        except SessionStoreUnavailable as exc:
            raise _unavailable_reject(exc).error from None

    async def post(self, inbound: Inbound) -> Outbound:
        body = inbound.body
        try:
            if isinstance(body, list):
                return await self._batch(inbound, body)
            try:
                message = parse_message(body)
            except RpcError as exc:
                return Outbound(400, error_response(recover_id(body), exc))
            if isinstance(message, Request) and message.method == "initialize":
                return self._initialize(inbound, message)
            session = self._session(inbound)
            if not isinstance(message, Request):
                return Outbound(202)
            return await self._request(inbound, session, message)
        except _Reject as reject:
            return Outbound(reject.status, error_response(recover_id(body), reject.error), reject.headers)

    async def get(self, inbound: Inbound) -> Outbound:
        # A standalone server->client SSE stream cannot live on Lambda: answer 405 as the spec allows.
        return Outbound(405, headers={"allow": "POST, DELETE"})

    async def delete(self, inbound: Inbound) -> Outbound:
        try:
            session = self._session(inbound, touch=False)  # about to go: no point extending it
            self.sessions.delete(session.session_id)
        except SessionStoreUnavailable as exc:
            return _unavailable(None, exc)
        except _Reject as reject:
            return Outbound(reject.status, error_response(None, reject.error), reject.headers)
        return Outbound(200)

    def _initialize(self, inbound: Inbound, request: Request) -> Outbound:
        params = request.params
        requested = params.get("protocolVersion")
        if not isinstance(requested, str):
            error = RpcError(INVALID_PARAMS, "params.protocolVersion is required and must be a string")
            return Outbound(200, error_response(request.id, error))
        version = negotiate_legacy(requested)
        capabilities = params.get("capabilities") if isinstance(params.get("capabilities"), dict) else {}
        client_info = params.get("clientInfo") if isinstance(params.get("clientInfo"), dict) else {}
        stored = len(json.dumps(capabilities, ensure_ascii=False)) + len(
            json.dumps(client_info, ensure_ascii=False)
        )
        if stored > MAX_STORED_CLIENT_BYTES:
            # Both are kept in the session item (DynamoDB items stop at 400 KB): refuse, do not truncate.
            error = RpcError(
                INVALID_PARAMS,
                f"params.capabilities and params.clientInfo together exceed {MAX_STORED_CLIENT_BYTES} bytes",
            )
            return Outbound(200, error_response(request.id, error))
        for _attempt in range(3):  # an id is never overwritten; a (192-bit) collision just draws another
            session = open_session(
                protocol_version=version,
                business=self.methods.business.name,
                ttl_seconds=self.sessions.ttl_seconds,
                client_info=client_info,
                client_capabilities=capabilities,
                principal=inbound.principal,
            )
            try:
                self.sessions.create(session)
                break
            except SessionStoreUnavailable as exc:
                return _unavailable(request.id, exc)
            except ValueError:
                continue
        else:
            return _unavailable(request.id, SessionStoreUnavailable("could not mint a unique session id"))
        server_info = dict(self.server_info)
        if version < "2025-06-18":
            server_info.pop("title", None)
        result: dict[str, Any] = {
            "protocolVersion": version,
            "capabilities": self.methods.capabilities("legacy"),
            "serverInfo": server_info,
        }
        if self.methods.business.instructions:
            result["instructions"] = self.methods.business.instructions
        return Outbound(200, result_response(request.id, result), {SESSION_HEADER: session.session_id})

    def _session(self, inbound: Inbound, touch: bool = True) -> Session:
        session_id = inbound.header(SESSION_HEADER)
        if not session_id:
            raise _Reject(400, RpcError(INVALID_REQUEST, "Bad Request: Mcp-Session-Id header is required"))
        if not SESSION_ID_SHAPE.fullmatch(session_id):
            # Never one of ours (and never sent to the store, whose key limits would turn it into a 5xx).
            raise _Reject(404, RpcError(SESSION_NOT_FOUND, "Session not found"))
        try:
            session = self.sessions.get(session_id)
            if session is None or session.principal != inbound.principal:
                # A session bound to another caller answers exactly like one that does not exist.
                raise _Reject(404, RpcError(SESSION_NOT_FOUND, "Session not found"))
            return self.sessions.touch(session) if touch else session
        except SessionStoreUnavailable as exc:
            raise _unavailable_reject(exc) from None

    async def _request(self, inbound: Inbound, session: Session, request: Request) -> Outbound:
        scope = self._scope(inbound, session, request)
        response = await self._call(scope, request)
        if scope.notifications and inbound.accepts_sse:
            return Outbound(200, messages=[*scope.notifications, response])
        return Outbound(200, response)

    def _scope(self, inbound: Inbound, session: Session, request: Request) -> CallScope:
        meta = request.params.get("_meta")
        return CallScope(
            era="legacy",
            protocol_version=inbound.header("mcp-protocol-version") or session.protocol_version,
            request_id=request.id,
            correlation_id=inbound.correlation_id,
            session=session,
            client_capabilities=session.client_capabilities,
            meta=meta if isinstance(meta, dict) else {},
            log_level=session.log_level,
        )

    async def _call(self, scope: CallScope, request: Request) -> dict[str, Any]:
        try:
            handler = self.methods.handler_for("legacy", request.method)
            return result_response(request.id, await handler(scope, request.params))
        except RpcError as exc:
            return error_response(request.id, exc)

    async def _batch(self, inbound: Inbound, items: list[Any]) -> Outbound:
        session = self._session(inbound)
        version = inbound.header("mcp-protocol-version") or session.protocol_version or HEADERLESS_VERSION
        if version not in BATCH_VERSIONS:
            error = RpcError(
                INVALID_REQUEST, f"Invalid Request: JSON-RPC batches are not accepted at {version}"
            )
            return Outbound(400, error_response(None, error))
        if not items:
            return Outbound(
                400, error_response(None, RpcError(INVALID_REQUEST, "Invalid Request: empty batch"))
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
                responses.append(await self._call(self._scope(inbound, session, message), message))
            elif isinstance(message, Notification):
                continue
        return Outbound(200, responses) if responses else Outbound(202)


def _unavailable_reject(exc: SessionStoreUnavailable) -> _Reject:
    error = RpcError(SERVICE_UNAVAILABLE, "Session store temporarily unavailable; retry later")
    return _Reject(503, error, {"retry-after": str(exc.retry_after_seconds)})


def _unavailable(request_id: Any, exc: SessionStoreUnavailable) -> Outbound:
    reject = _unavailable_reject(exc)
    return Outbound(reject.status, error_response(request_id, reject.error), reject.headers)
