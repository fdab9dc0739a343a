"""The /mcp HTTP endpoint: request hygiene, JSON parsing, and mapping Outbound values to HTTP responses."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import deadlines
from ..auth import Authenticator, AuthFailure
from ..encoding import json_bytes, loads
from ..observability import ToolLogger, log_internal_error, request_credentials
from ..protocol import Inbound, McpServer, Outbound
from ..protocol.jsonrpc import RpcError, error_response, recover_id, retry_data
from ..settings import Settings, milliseconds
from ..wire import INTERNAL_ERROR, INVALID_REQUEST, PARSE_ERROR, SERVICE_UNAVAILABLE, UNAUTHORIZED
from .policy import accepts_json, accepts_sse, host_allowed, is_json_content_type, origin_allowed
from .sse import encode_sse

if TYPE_CHECKING:
    from starlette.requests import Request

# The endpoint, with and without the trailing slash some clients add (template.yaml routes both), and its methods.
MCP_PATHS = ("/mcp", "/mcp/")
MCP_METHODS = ["POST", "GET", "DELETE"]


def internal_error_response(logger: ToolLogger, exc: Exception) -> HttpResponse:
    """The last line of defence for an exception a route let escape: its stack logged with an error id, only the
    id sent (500, -32603)."""
    error_id = log_internal_error(logger, "unhandled_error", exc)
    return http_error(500, INTERNAL_ERROR, f"Internal error (error id {error_id})")


# A refused request's body is parsed for its id only up to this size: enough for any real request, cheap to read.
ID_PEEK_BYTES = 64 * 1024


def http_error(
    status: int,
    code: int,
    message: str,
    headers: dict[str, str] | None = None,
    request_id: str | int | None = None,
    data: Any = None,
) -> HttpResponse:
    """A JSON-RPC error with an HTTP status; the id is the request's when it could be read, else null."""
    body = error_response(request_id, RpcError(code, message, data))
    return http_response(json_bytes(body), status, "application/json", headers)


def refused(failure: AuthFailure, request_id: str | int | None = None) -> HttpResponse:
    """401 with the Bearer challenge (`invalid_token` when a token was offered), or 503 when the issuer fails."""
    if failure.status == 503:
        message = f"Service unavailable: {failure.reason}"
        data = retry_data(int(failure.headers.get("retry-after", "5")))  # as Retry-After says
        return http_error(503, SERVICE_UNAVAILABLE, message, failure.headers, request_id, data)
    message = f"Unauthorized: {failure.reason}"
    return http_error(failure.status, UNAUTHORIZED, message, failure.headers, request_id)


@dataclass(frozen=True, slots=True)
class HttpRequest:
    """What the endpoint reads of one HTTP request.

    Args:
        method: The HTTP method.
        headers: One value per header, names in lower case (ASGI's; API Gateway joins repeated headers into one).
        body: The body (empty when it was not read: not a POST, or declared longer than any limit reads).
        event: The API Gateway event that carried it (Mangum's `aws.event`; empty outside Lambda).
        context: The Lambda context (Mangum's `aws.context`; None outside Lambda).
    """

    method: str
    headers: Mapping[str, str]
    body: bytes
    event: Mapping[str, Any]
    context: Any


@dataclass(frozen=True, slots=True)
class HttpResponse:
    """One response of the endpoint, as it goes on the wire. Build it with `http_response`.

    Its headers are those Starlette's `Response` sends for the same arguments: the Lambda route hands them to
    Mangum as they are, and the app's route (`mcp_lambda.app`) turns them into Starlette's own, without
    Starlette on the Lambda path.

    Args:
        status: The HTTP status.
        raw_headers: (name, value) pairs: names in lower case, both latin-1 bytes (ASGI's).
        body: The body.
    """

    status: int
    raw_headers: list[tuple[bytes, bytes]]
    body: bytes


def http_response(
    body: bytes = b"",
    status: int = 200,
    media_type: str | None = None,
    headers: Mapping[str, str] | None = None,
) -> HttpResponse:
    """The response Starlette's `Response(body, status, headers, media_type)` sends: `headers` first (names in lower
    case), then Content-Length unless given (not for a 1xx, 204 or 304) and Content-Type unless given (a `text/`
    type with `; charset=utf-8`).

    Raises:
        UnicodeEncodeError: A header name or value is not latin-1 (as Starlette raises).
    """
    raw = [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in (headers or {}).items()]
    names = {name for name, _ in raw}
    if b"content-length" not in names and not (status < 200 or status in (204, 304)):
        raw.append((b"content-length", str(len(body)).encode("latin-1")))
    if media_type is not None and b"content-type" not in names:
        if media_type.startswith("text/") and "charset=" not in media_type.lower():
            media_type += "; charset=utf-8"
        raw.append((b"content-type", media_type.encode("latin-1")))
    return HttpResponse(status, raw, body)


def peek_request_id(request: HttpRequest) -> str | int | None:
    """The JSON-RPC id of a small POST body, for the error that refuses it; None when there is none to read."""
    if request.method != "POST":
        return None
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > ID_PEEK_BYTES):
        return None
    if len(request.body) > ID_PEEK_BYTES:
        return None
    try:
        return recover_id(loads(request.body))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return None


def correlation_id_of(request: HttpRequest) -> str | None:
    value = (request.event.get("requestContext") or {}).get("requestId")
    return value if isinstance(value, str) else None


class McpEndpoint:
    """Turns HTTP requests into protocol Inbound values and Outbound values back into HTTP responses."""

    def __init__(
        self, server: McpServer, settings: Settings, authenticator: Authenticator, logger: ToolLogger
    ) -> None:
        self.server = server
        self.settings = settings
        self.authenticator = authenticator
        self.logger = logger
        # Converted once, not per request: REQUEST_DEADLINE_MS and DEADLINE_MARGIN_MS as Lambda's clock counts.
        self.deadline_ms = milliseconds(settings.request_deadline)
        self.margin_ms = milliseconds(settings.deadline_margin)

    async def __call__(self, request: Request) -> HttpResponse:
        """Answer a request the ASGI app routed here (the Lambda handler's own route calls `answer`)."""
        method = request.method
        body = b""
        if method == "POST":
            # Not read when it says it is longer than any limit reads (the 413 comes from its headers alone).
            length = request.headers.get("content-length")
            limit = max(self.settings.max_body_bytes, ID_PEEK_BYTES)
            if length is None or not length.isdigit() or int(length) <= limit:
                body = await request.body()
        return await self.answer(
            HttpRequest(
                method=method,
                headers=dict(request.headers.items()),
                body=body,
                event=request.scope.get("aws.event") or {},
                context=request.scope.get("aws.context"),
            )
        )

    async def answer(self, request: HttpRequest) -> HttpResponse:
        """The response to one request to the MCP endpoint.

        Args:
            request: The request (`HttpRequest`: the Lambda handler's route builds it from the event, `__call__`
                from an ASGI request).
        """
        # One deadline for everything this request does (tools, sessions, secrets, outbound calls); the caller's
        # bearer token masked on every line written meanwhile (and forgotten after).
        bearer = request.headers.get("authorization", "")
        token = bearer[7:].strip() if bearer[:7].lower() == "bearer " else None
        with deadlines.active(self._deadline(request)), request_credentials(token):
            outbound = await self._serve(request)
        if isinstance(outbound, HttpResponse):
            return outbound
        return limit_size(outbound, to_response(outbound), self.settings.max_response_bytes)

    def _deadline(self, request: HttpRequest) -> deadlines.Deadline:
        """The earlier of the Lambda context's remaining time and REQUEST_DEADLINE_MS."""
        getter = getattr(request.context, "get_remaining_time_in_millis", None)
        remaining = getter() if callable(getter) else None
        return deadlines.request_deadline(
            remaining if isinstance(remaining, int | float) else None,
            self.deadline_ms,
            self.margin_ms,
        )

    async def _serve(self, request: HttpRequest) -> HttpResponse | Outbound:
        headers = request.headers
        if not origin_allowed(headers.get("origin"), self.settings.allowed_origins):
            request_id = peek_request_id(request)
            return http_error(403, INVALID_REQUEST, "Forbidden: Origin is not allowed", request_id=request_id)
        if not host_allowed(headers.get("host"), self.settings.allowed_hosts):
            request_id = peek_request_id(request)
            return http_error(403, INVALID_REQUEST, "Forbidden: Host is not allowed", request_id=request_id)
        try:
            auth = self.authenticator.authenticate(headers, request.event)
        except AuthFailure as failure:
            # Never the token: only why it was refused.
            self.logger.info(
                "mcp_auth_refused",
                extra={"event": "mcp_auth_refused", "status": failure.status, "reason": failure.reason},
            )
            return refused(failure, peek_request_id(request))
        body: Any = None
        if request.method == "POST":
            rejected = self._check_post_headers(request)
            if rejected is not None:
                return rejected
            raw = request.body
            if len(raw) > self.settings.max_body_bytes:
                return self._too_large()
            try:
                body = loads(raw)
            except (UnicodeDecodeError, ValueError):
                return http_error(400, PARSE_ERROR, "Parse error: the body is not valid JSON")
            except RecursionError:
                return http_error(400, PARSE_ERROR, "Parse error: the body is nested too deeply")
        inbound = Inbound(
            http_method=request.method,
            # The bearer token travels in `auth` only (for ctx.caller_token), never among the plain headers.
            headers={k: v for k, v in headers.items() if k != "authorization"},
            body=body,
            principal=auth.principal,
            correlation_id=correlation_id_of(request),
            accepts_sse=accepts_sse(headers.get("accept")),
            lambda_context=request.context,
            auth=auth,
        )
        return await self.server.handle(inbound)

    def _check_post_headers(self, request: HttpRequest) -> HttpResponse | None:
        """The refusal of a POST on its headers alone (echoing the body's id where it can be read), or None."""
        headers = request.headers
        if not accepts_json(headers.get("accept")):
            message = "Not Acceptable: the Accept header must allow application/json"
            return http_error(406, INVALID_REQUEST, message, request_id=peek_request_id(request))
        if not is_json_content_type(headers.get("content-type")):
            message = "Unsupported Media Type: Content-Type must be application/json"
            return http_error(415, INVALID_REQUEST, message, request_id=peek_request_id(request))
        length = headers.get("content-length")
        if length is not None and length.isdigit() and int(length) > self.settings.max_body_bytes:
            return self._too_large()
        return None

    def _too_large(self) -> HttpResponse:
        limit = self.settings.max_body_bytes
        return http_error(413, INVALID_REQUEST, f"Payload Too Large: the body exceeds {limit} bytes")


def fits_lambda_response(body: bytes, max_bytes: int) -> bool:
    """Whether `body` stays within `max_bytes` as Lambda sends it: inside a JSON string, escaped, ASCII only."""
    if len(body) * 3 <= max_bytes:
        return True  # escaping at most triples our (already JSON) text: no need to measure
    return len(json.dumps(body.decode("utf-8", errors="replace"))) <= max_bytes


def limit_size(outbound: Outbound, response: HttpResponse, max_bytes: int) -> HttpResponse:
    """`response`, or a JSON-RPC error (-32603, per request id) when it would exceed the Lambda response limit:
    an answer too large is an error the client can read, never a failed invocation."""
    if fits_lambda_response(response.body, max_bytes):
        return response
    error = RpcError(
        INTERNAL_ERROR,
        f"Response too large: the answer exceeds the {max_bytes}-byte response limit; ask for less "
        "(fewer messages in a batch, a smaller page or result)",
    )
    answered = outbound.messages[-1:] if outbound.messages is not None else outbound.body
    if isinstance(answered, list):
        body: Any = [error_response(_id_of(item), error) for item in answered]
        if outbound.messages is not None:
            body = body[0]
    else:
        body = error_response(_id_of(answered), error)
    headers = {k: v for k, v in outbound.headers.items() if k.lower() != "content-type"}
    return http_response(json_bytes(body), outbound.status, "application/json", headers)


def _id_of(message: Any) -> Any:
    return message.get("id") if isinstance(message, dict) else None


def to_response(outbound: Outbound) -> HttpResponse:
    if outbound.messages is not None:
        headers = {"cache-control": "no-cache", "x-accel-buffering": "no", **outbound.headers}
        return http_response(encode_sse(outbound.messages), outbound.status, "text/event-stream", headers)
    if outbound.body is None:
        # 202/200 with an empty body and no Content-Type (the platform contract for notifications).
        return http_response(status=outbound.status, headers=outbound.headers)
    return http_response(json_bytes(outbound.body), outbound.status, "application/json", outbound.headers)
