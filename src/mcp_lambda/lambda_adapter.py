"""The ASGI app as a Lambda handler: Mangum for API Gateway HTTP API events, plus the fix-ups it needs, and the
task worker for the internal event a task's asynchronous self-invocation carries (recognised first).

An invocation never fails: what Mangum cannot read (a Host that is not `name[:port]`, text that is not UTF-8:
a lone surrogate in a header, the path, the query or the body) is answered 400 before it gets there, and anything else that escapes it becomes a logged 500 with an error id, never a Lambda error.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mangum import Mangum

from .observability import log_internal_error
from .protocol.jsonrpc import RequestId, RpcError, error_response, recover_id
from .wire import INTERNAL_ERROR, INVALID_REQUEST

if TYPE_CHECKING:
    from .composition import Runtime

LambdaHandler = Callable[[dict[str, Any], Any], dict[str, Any]]


def lambda_handler(runtime: Runtime) -> LambdaHandler:
    """The Lambda handler of a container: HTTP events through Mangum to `runtime.app`, task events to its worker.

    Args:
        runtime: What the container built at cold start (`mcp_lambda.composition.build_runtime`).

    Returns:
        `handle(event, context) -> response`, which never raises.
    """
    asgi = Mangum(runtime.app, lifespan="off", api_gateway_base_path="/")
    logger = runtime.logger

    def handle(event: dict[str, Any], context: Any) -> dict[str, Any]:
        job = task_job(event)
        if job is not None:
            task_id, run = job
            return runtime.run_task(task_id, run, getattr(context, "aws_request_id", None))
        problem = unreadable_host(event) or unencodable_text(event)
        if problem is not None:
            return _error(400, INVALID_REQUEST, f"Bad Request: {problem}", readable_id(event))
        try:
            response: dict[str, Any] = asgi(event, context)
        except Exception as exc:  # the last line of defence: a failed invocation tells the client nothing
            error_id = log_internal_error(logger, "unhandled_error", exc)
            return _error(500, INTERNAL_ERROR, f"Internal error (error id {error_id})")
        if not response.get("body"):
            # Mangum labels every payload-2.0 response JSON; an empty 202/200 must carry no Content-Type at all.
            (response.get("headers") or {}).pop("content-type", None)
        return response

    return handle


def task_job(event: Any) -> tuple[str, int] | None:
    """(task id, run) of a task worker event. An API Gateway event always carries `requestContext`, which a task
    event never does: HTTP requests are answered without loading the task modules."""
    if isinstance(event, dict) and "requestContext" in event:
        return None
    from .calls.task_invoke import parse_task_event

    return parse_task_event(event)


def unreadable_host(event: dict[str, Any]) -> str | None:
    """Why Mangum could not read the request's server address (it splits Host on ':' and takes an int port)."""
    headers = event.get("headers")
    if not isinstance(headers, dict):
        return None
    lowered = {str(name).lower(): value for name, value in headers.items()}
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
    """Which part of the request Mangum could not encode as UTF-8 (a lone surrogate), or None.

    Only a hand-made event can hold one (API Gateway delivers UTF-8), but Mangum would fail the invocation on it.
    """
    headers = event.get("headers")
    for name, value in headers.items() if isinstance(headers, dict) else ():
        if not (_encodes(name) and _encodes(value)):
            label = ascii(name)[1:-1][:64] if isinstance(name, str) else "?"
            return f"header '{label}' is not valid UTF-8 text"
    for part in ("rawPath", "rawQueryString"):
        if not _encodes(event.get(part, "")):
            return f"the request {'path' if part == 'rawPath' else 'query'} is not valid UTF-8 text"
    if not event.get("isBase64Encoded") and not _encodes(event.get("body") or ""):
        return "the body is not valid UTF-8 text"
    return None


def readable_id(event: dict[str, Any]) -> RequestId | None:
    """The JSON-RPC id of a plain-text body, when it parses as one message with a usable id."""
    body = event.get("body")
    if event.get("isBase64Encoded") or not isinstance(body, str) or len(body) > 1_000_000:
        return None
    try:
        return recover_id(json.loads(body))
    except (ValueError, RecursionError):
        return None


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
