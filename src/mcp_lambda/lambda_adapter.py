"""The ASGI app as a Lambda handler: Mangum for API Gateway HTTP API events, plus the fix-ups it needs, and the
task worker for the internal event a task's asynchronous self-invocation carries (recognised first).

A request to the MCP endpoint itself (`POST`, `GET` or `DELETE` on /mcp in a payload 2.0 event: nearly every
invocation) is answered by `McpRoute`: it reads the event as Mangum's HTTP API handler reads it and turns the
response into the Lambda result as Mangum does, and the app's /mcp endpoint answers the request in between, without
Mangum's ASGI scope and message cycle or FastAPI's middleware stack and router, which decide nothing for this route
(what that saves: docs/performance.md). What the app's exception handler does for an exception
the endpoint lets escape is done here too. Any other event (another path or method, a payload 1.0 event) goes
through Mangum to the app.

An invocation never fails: what Mangum cannot read (a payload 2.0 event whose parts are not of the types API
Gateway sends, a Host that is not `name[:port]`, text that is not UTF-8: a lone surrogate in a header, the path,
the query or the body) is answered 400 before it gets there, and anything else that escapes it becomes a logged
500 with an error id, never a Lambda error. Only a hand-made event (a saved one edited, a replay) can be so.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mangum import Mangum
from mangum.handlers.utils import handle_base64_response_body, maybe_encode_body, strip_api_gateway_path
from mangum.types import LambdaConfig, Scope

from .inline import drive
from .observability import ToolLogger, log_internal_error
from .protocol.jsonrpc import RequestId, RpcError, error_response, recover_id
from .transport import MCP_METHODS, MCP_PATHS, HttpRequest, HttpResponse, McpEndpoint, internal_error_response
from .wire import INTERNAL_ERROR, INVALID_REQUEST

if TYPE_CHECKING:
    from .composition import Runtime

LambdaHandler = Callable[[dict[str, Any], Any], dict[str, Any]]


def lambda_handler(runtime: Runtime, direct: bool = True) -> LambdaHandler:
    """The Lambda handler of a container: HTTP events through Mangum to `runtime.app`, task events to its worker.

    Args:
        runtime: What the container built at cold start (`mcp_lambda.composition.build_runtime`).
        direct: Answer requests to /mcp on `runtime.endpoint` through `McpRoute` (the default); False sends every
            HTTP event through Mangum and the app (what the route's equivalence test compares it with).

    Returns:
        `handle(event, context) -> response`, which never raises.
    """
    asgi = Mangum(_AppOnFirstUse(runtime), lifespan="off", api_gateway_base_path="/")
    logger = runtime.logger
    route = McpRoute(runtime.endpoint, asgi.config, logger) if direct else None

    def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
        job = task_job(event)
        if job is not None:
            task_id, run = job
            return runtime.run_task(task_id, run, getattr(context, "aws_request_id", None))
        problem = unreadable_shape(event) or unreadable_host(event) or unencodable_text(event)
        if problem is not None:
            return _error(400, INVALID_REQUEST, f"Bad Request: {problem}", readable_id(event))
        try:
            response = route(event, context) if route is not None else None
            if response is None:
                response = asgi(event, context)
        except Exception as exc:  # the last line of defence: a failed invocation tells the client nothing
            error_id = log_internal_error(logger, "unhandled_error", exc)
            return _error(500, INTERNAL_ERROR, f"Internal error (error id {error_id})")
        if not response.get("body"):
            # Mangum labels every payload-2.0 response JSON; an empty 202/200 must carry no Content-Type at all.
            (response.get("headers") or {}).pop("content-type", None)
        return response

    return handle


class _AppOnFirstUse:
    """`runtime.app` as an ASGI app, built by the first request that reaches it: the requests to /mcp that
    `McpRoute` answers, nearly all, never need it, so a container that only serves them never imports FastAPI."""

    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        await self.runtime.app(scope, receive, send)


class McpRoute:
    """API Gateway HTTP API events for the MCP endpoint, answered by it without the ASGI app around it.

    The event is read as Mangum's HTTP API handler (`mangum.handlers.HTTPGateway`) reads it, and the response
    turned into the Lambda result as it turns it, with Mangum's own helpers for the path, the body and the text
    types; the headers are converted here, without the ASGI scope in between (building that scope and reading it
    back was most of the route's cost: docs/performance.md). `tests/unit/test_lambda_http.py` holds both
    conversions to Mangum's over generated events and responses.

    Args:
        endpoint: The app's /mcp endpoint (`Runtime.endpoint`).
        config: The Mangum adapter's configuration (its `config`): the same base path and text types.
        logger: Where an exception the endpoint lets escape is logged, as the app's exception handler does.
    """

    def __init__(self, endpoint: McpEndpoint, config: LambdaConfig, logger: ToolLogger) -> None:
        self.endpoint = endpoint
        self.config = config
        self.logger = logger

    def __call__(self, event: dict[str, Any], context: Any) -> dict[str, Any] | None:
        """The Lambda result for an event this route serves, or None for one the app must serve."""
        request = mcp_request(event, context, self.config)
        if request is None:
            return None

        async def answer() -> HttpResponse:
            try:
                return await self.endpoint.answer(request)
            except Exception as exc:  # as the app's exception handler answers it
                return internal_error_response(self.logger, exc)

        # Inline until something waits, then on Mangum's loop, the thread's current one (Mangum sets it up).
        response = drive(answer(), asyncio.get_event_loop())
        return lambda_result(response, self.config)


def mcp_request(event: dict[str, Any], context: Any, config: LambdaConfig) -> HttpRequest | None:
    """The request to the MCP endpoint a payload 2.0 event carries, as the app's endpoint would read it behind
    Mangum; None for another method or path, or a payload 1.0 event (the app's).

    The event must have passed `unreadable_shape`, `unreadable_host` and `unencodable_text`.

    Args:
        event: The API Gateway event.
        context: The Lambda context.
        config: The Mangum adapter's configuration (its base path).

    Returns:
        What Mangum's `HTTPGateway.scope` and `body` give, as the endpoint reads them (`McpEndpoint.__call__`):
        one value per lower-case header name, each as Starlette decodes the UTF-8 bytes Mangum encodes (latin-1),
        the body only for a POST.
    """
    context_of = event.get("requestContext") if event.get("version") == "2.0" else None
    http = context_of.get("http") if isinstance(context_of, dict) else None
    if not isinstance(http, dict) or http.get("method") not in MCP_METHODS:
        return None  # another method or a payload 1.0 event: the app's
    path = strip_api_gateway_path(http["path"], api_gateway_base_path=config["api_gateway_base_path"])
    if path not in MCP_PATHS:
        return None
    method: str = http["method"]
    headers = _lowered(event.get("headers") or {})
    cookies = event.get("cookies")
    if cookies:
        headers = {**headers, "cookie": "; ".join(cookies)}
    if "".join(headers).isascii() and "".join(headers.values()).isascii():
        headers = dict(headers)  # the usual case: nothing to re-decode, and never the event's own dict
    else:
        headers = {_as_asgi(name): _as_asgi(value) for name, value in headers.items()}
    body = b""
    if method == "POST":
        body = maybe_encode_body(event.get("body", b""), is_base64=event.get("isBase64Encoded", False))
    return HttpRequest(method=method, headers=headers, body=body, event=event, context=context)


def _as_asgi(text: str) -> str:
    """`text` as it reads after Mangum's ASGI scope (UTF-8 bytes) and Starlette's reading of them (latin-1)."""
    return text.encode().decode("latin-1")


def lambda_result(response: HttpResponse, config: LambdaConfig) -> dict[str, Any]:
    """The Lambda result of a payload 2.0 event for `response`, as Mangum's `HTTPGateway` makes it: repeated
    headers joined with commas, Set-Cookie as `cookies`, JSON unless a Content-Type says otherwise, a text body as
    text and any other base64-encoded.

    Args:
        response: The endpoint's response.
        config: The Mangum adapter's configuration (its text types).

    Returns:
        The Lambda result.
    """
    headers: dict[str, str] = {}
    cookies: list[str] = []
    for raw_name, raw_value in response.raw_headers:
        name, value = raw_name.decode().lower(), raw_value.decode()
        if name == "set-cookie":
            cookies.append(value)
        elif name in headers:
            headers[name] = f"{headers[name]},{value}"
        else:
            headers[name] = value
    if "content-type" not in headers:
        headers["content-type"] = "application/json"
    body, is_base64 = handle_base64_response_body(response.body, headers, config["text_mime_types"])
    result: dict[str, Any] = {"statusCode": response.status, "body": body, "headers": headers}
    if cookies:
        result["cookies"] = cookies
    result["isBase64Encoded"] = is_base64
    return result


def task_job(event: Any) -> tuple[str, int] | None:
    """(task id, run) of a task worker event. An API Gateway event always carries `requestContext`, which a task
    event never does: HTTP requests are answered without loading the task modules."""
    if isinstance(event, dict) and "requestContext" in event:
        return None
    from .calls.task_invoke import parse_task_event

    return parse_task_event(event)


# The parts of a payload 2.0 event Mangum reads, and the types API Gateway gives them.
_V2_PARTS = (("rawQueryString", str), ("headers", dict), ("cookies", list), ("body", (str, bytes)))
_V2_HTTP_PARTS = (("method", str), ("path", str), ("sourceIp", str))


def unreadable_shape(event: dict[str, Any]) -> str | None:
    """Which part of a payload 2.0 event is not of the type API Gateway gives it (Mangum would fail the invocation
    on it), or None. A part that may be absent may also be null."""
    if event.get("version") != "2.0":
        return None
    context = event.get("requestContext")
    http = context.get("http") if isinstance(context, dict) else None
    if not isinstance(http, dict):
        return "the event's requestContext.http must be an object"
    for name, kind in _V2_HTTP_PARTS:
        if not isinstance(http.get(name), kind):
            return f"the event's requestContext.http.{name} must be a string"
    for name, kinds in _V2_PARTS:
        value = event.get(name)
        if value is not None and not isinstance(value, kinds):
            return f"the event's {name} is not of the type API Gateway sends"
    cookies = event.get("cookies")
    if cookies and not all(isinstance(cookie, str) for cookie in cookies):
        return "the event's cookies must be strings"
    return None


def unreadable_host(event: dict[str, Any]) -> str | None:
    """Why Mangum could not read the request's server address (it splits Host on ':' and takes an int port)."""
    headers = event.get("headers")
    if not isinstance(headers, dict):
        return None
    lowered = _lowered(headers)
    host = lowered.get("host", "mangum")  # Mangum's own default
    _, colon, port = host.partition(":") if isinstance(host, str) else ("", ":", "")
    if not colon:
        port = lowered.get("x-forwarded-port", "80")
    try:
        int(port)
    except (TypeError, ValueError):
        return "Host must be a name with an optional numeric port (host[:port]), X-Forwarded-Port a number"
    return None


def unencodable_text(event: dict[str, Any]) -> str | None:
    """Which part of the request Mangum could not encode as UTF-8 (a lone surrogate, or a header that is not text),
    or None.

    Only a hand-made event can hold one (API Gateway delivers UTF-8), but Mangum would fail the invocation on it.
    """
    headers = event.get("headers")
    if _all_encode(event, headers):
        return None
    for name, value in headers.items() if isinstance(headers, dict) else ():
        label = ascii(name)[1:-1][:64] if isinstance(name, str) else "?"
        if not (isinstance(name, str) and isinstance(value, str)):  # Mangum encodes each: a number would fail
            return f"header '{label}' is not text (API Gateway sends every header name and value as a string)"
        if not (_encodes(name) and _encodes(value)):
            return f"header '{label}' is not valid UTF-8 text"
    for part in ("rawPath", "rawQueryString"):
        if not _encodes(event.get(part, "")):
            return f"the request {'path' if part == 'rawPath' else 'query'} is not valid UTF-8 text"
    if not event.get("isBase64Encoded") and not _encodes(event.get("body") or ""):
        return "the body is not valid UTF-8 text"
    return None


def _lowered(headers: dict[Any, Any]) -> dict[str, Any]:
    """The headers as Mangum reads them, names in lower case (a later duplicate wins); `headers` itself when every
    name already is (API Gateway's HTTP API sends them so): one lower() of them all says it."""
    try:
        names = "".join(headers)
    except TypeError:  # a name that is not a string
        names = None
    if names is not None and names == names.lower():
        return headers
    return {str(name).lower(): value for name, value in headers.items()}


def readable_id(event: dict[str, Any]) -> RequestId | None:
    """The JSON-RPC id of a plain-text body, when it parses as one message with a usable id."""
    body = event.get("body")
    if event.get("isBase64Encoded") or not isinstance(body, str) or len(body) > 1_000_000:
        return None
    try:
        return recover_id(json.loads(body))
    except (ValueError, RecursionError):
        return None


def _all_encode(event: dict[str, Any], headers: Any) -> bool:
    """Whether every text `unencodable_text` looks at encodes, checked with one encode of them all (the usual answer,
    in a fraction of the time a part-by-part walk takes); False when one does not or one is not text."""
    parts = [event.get("rawPath", ""), event.get("rawQueryString", "")]
    if not event.get("isBase64Encoded"):
        parts.append(event.get("body") or "")
    if isinstance(headers, dict):
        parts += headers
        parts += headers.values()
    try:
        "".join(parts).encode("utf-8")
    except (TypeError, UnicodeEncodeError):
        return False
    return True


def _encodes(text: Any) -> bool:
    if not isinstance(text, str):
        return True
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _error(status: int, code: int, message: str, request_id: RequestId | None = None) -> dict[str, Any]:
    body = json.dumps(error_response(request_id, RpcError(code, message)), separators=(",", ":"))
    return {
        "statusCode": status,
        "headers": {"content-type": "application/json"},
        "body": body,
        "isBase64Encoded": False,
    }
