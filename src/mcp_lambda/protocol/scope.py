"""Values passed between the transport and the protocol (Inbound, Outbound), the Channel an Inbound came over,
the per-request CallScope, and the Era interface that shared method handlers consult instead of comparing revision
names."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..caller import NO_AUTH, RequestAuth
from ..stores.sessions import Session
from ..tools import InputRequired
from ..trace_context import TraceContext, parse
from ..wire import INVALID_REQUEST
from .jsonrpc import RequestId, RpcError, error_response
from .versions import is_legacy_header

SESSION_HEADER = "mcp-session-id"


class Channel(Protocol):
    """What the transport carries beside the JSON-RPC body, as the eras need it: HTTP headers, or (stdio) nothing.

    The eras ask the channel instead of reading headers themselves where a transport without headers differs.
    """

    # Whether 2026-07-28 requests mirror body fields in headers that must match the body (the Mcp-Method/Mcp-Name headers). The 2026
    # stdio binding: "all request metadata ... is carried inline in the JSON-RPC message body. There is no header
    # layer."
    header_layer: bool

    def routes_modern(self, inbound: Inbound) -> bool:
        """Whether this message is served by the 2026-07-28 era (else by the session era)."""
        ...

    def session_id(self, inbound: Inbound) -> str | None:
        """The legacy session this message belongs to, if it names one."""
        ...

    def session_required(self) -> RpcError:
        """The error for a session-era request that belongs to no session."""
        ...


class HttpChannel:
    """Streamable HTTP: era routing by the MCP-Protocol-Version header, sessions by Mcp-Session-Id."""

    header_layer = True

    def routes_modern(self, inbound: Inbound) -> bool:
        # No header or a handshake revision -> legacy; anything else (incl. unknown) -> modern.
        return not is_legacy_header(inbound.header("mcp-protocol-version"))

    def session_id(self, inbound: Inbound) -> str | None:
        return inbound.header(SESSION_HEADER)

    def session_required(self) -> RpcError:
        return RpcError(INVALID_REQUEST, "Bad Request: Mcp-Session-Id header is required", http_status=400)


HTTP = HttpChannel()


@dataclass(frozen=True)
class Inbound:
    """One request as the protocol sees it: lower-case header names, the parsed JSON body, the channel.

    `principal` is the one string every piece of state is bound to (`auth.principal`); `auth` has the rest of
    what the transport learned about the caller.
    """

    http_method: str
    headers: Mapping[str, str]
    body: Any = None
    principal: str | None = None
    correlation_id: str | None = None
    accepts_sse: bool = False  # notifications may go out before the response (an SSE body; stdio lines)
    # Writes one message to the client at once (stdio): the request's notifications go out as they happen
    # instead of buffered before the response (an HTTP answer through API Gateway is one buffered body).
    stream: Callable[[dict[str, Any]], None] | None = None
    channel: Channel = HTTP
    # The Lambda context of this invocation (Mangum's `aws.context`): its remaining time bounds in-progress claims.
    lambda_context: Any = None
    auth: RequestAuth = NO_AUTH

    def header(self, name: str) -> str | None:
        value = self.headers.get(name.lower())
        return value.strip() if isinstance(value, str) else None


@dataclass
class Outbound:
    """What to send back. `messages` set means an SSE stream: notifications first, then the response."""

    status: int
    body: Any = None
    headers: dict[str, str] = field(default_factory=dict)
    messages: list[dict[str, Any]] | None = None


def idempotency_key_of(inbound: Inbound) -> str | None:
    """The `Idempotency-Key` header (IETF httpapi draft: a structured-field string, quotes optional)."""
    value = inbound.header("idempotency-key")
    if value and len(value) >= 2 and value[0] == value[-1] == '"':
        value = value[1:-1]
    return value or None


def trace_context_of(inbound: Inbound, meta: Mapping[str, Any]) -> TraceContext | None:
    """The caller's trace context: `_meta.traceparent` (SEP-414, the message's own), else the HTTP header; None
    when neither carries a valid one (then nothing is invented)."""
    if "traceparent" in meta:
        found = parse(meta["traceparent"], meta.get("tracestate"))
        if found is not None:
            return found
    header = inbound.header("traceparent")  # without the optional whitespace around a header value
    return None if header is None else parse(header, inbound.header("tracestate"))


def error_outbound(request_id: RequestId | None, error: RpcError, status: int | None = None) -> Outbound:
    """The one place an RpcError becomes a response: its own status (else `status`, else 200) and headers."""
    return Outbound(
        error.http_status or status or 200, error_response(request_id, error), dict(error.headers)
    )


def answer(inbound: Inbound, scope: CallScope, response: dict[str, Any]) -> Outbound:
    """A 200 answer: the buffered notifications and then the response as SSE when the client takes SSE."""
    if scope.notifications and inbound.accepts_sse:
        return Outbound(200, messages=[*scope.notifications, response])
    return Outbound(200, response)


Handler = Callable[["CallScope", dict[str, Any]], Awaitable[dict[str, Any]]]


class Era(Protocol):
    """What differs between the session revisions (2024-11-05 … 2025-11-25) and 2026-07-28.

    Each era owns its method table and capabilities; shared handlers ask the era, never its name.
    """

    has_rounds: bool  # whether multi round-trip fields (inputResponses, requestState) are read
    serves_jobs: (
        bool  # whether a long tool runs as a job (get_job_status, cancel_job) for a client without tasks
    )
    resource_not_found_code: int

    def tool_needs_input(self, scope: CallScope, name: str, asked: InputRequired) -> dict[str, Any]:
        """The tools/call result when a tool asks the client for input."""
        ...

    def request_needs_input(
        self, scope: CallScope, method: str, target: str, asked: InputRequired
    ) -> dict[str, Any]:
        """The prompts/get or resources/read result when a prompt or resource asks for input (or raise)."""
        ...

    def tasks_negotiated(self, scope: CallScope) -> bool:
        """Whether this request may get (and operate on) tasks: the tasks extension, declared per request."""
        ...

    def tool_needs_task(self, scope: CallScope, name: str) -> dict[str, Any]:
        """The tools/call answer (or raise) when a tool runs only as a task and this request has no tasks."""
        ...


@dataclass
class CallScope:
    """Everything a method handler may know about the request it serves."""

    era: Era
    protocol_version: str
    request_id: RequestId
    correlation_id: str | None = None
    principal: str | None = None
    session: Session | None = None
    client_capabilities: Mapping[str, Any] = field(default_factory=dict)
    meta: Mapping[str, Any] = field(default_factory=dict)
    notifications: list[dict[str, Any]] = field(default_factory=list)
    log_level: str | None = None
    # The HTTP `Idempotency-Key` header (exactly-once calls), and the invocation's Lambda context.
    idempotency_key: str | None = None
    lambda_context: Any = None
    auth: RequestAuth = NO_AUTH
    # The caller's W3C trace context (`trace_context_of`), continued by the tool call's logs and `ctx.http`.
    trace: TraceContext | None = None
    # Set by a handler whose result depends on who asks (a scope-filtered tools/list): never cache it publicly.
    caller_specific: bool = False
    # The inbound's `stream`: when set, notifications are written at once instead of buffered.
    stream: Callable[[dict[str, Any]], None] | None = None
    # True once the client cancelled this request (a session's `notifications/cancelled`); None: it cannot.
    cancellation: Callable[[], bool] | None = None

    def notify(self, method: str, params: dict[str, Any]) -> None:
        """Send a request-scoped notification: at once through `stream` when the transport has one (stdio),
        else buffered, and the transport sends it before the response (SSE)."""
        message = {"jsonrpc": "2.0", "method": method, "params": params}
        if self.stream is not None:
            self.stream(message)
        else:
            self.notifications.append(message)
