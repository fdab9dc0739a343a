"""Build API Gateway HTTP API payload-2.0 events (the shape `sam local generate-event apigateway
http-api-proxy` prints) and a Lambda context stand-in."""

from __future__ import annotations

import base64
import time
import uuid
from dataclasses import dataclass, field
from email.utils import formatdate
from typing import Any


def http_event(
    method: str,
    path: str,
    headers: dict[str, str],
    body: str | bytes | None,
    *,
    request_id: str | None = None,
    source_ip: str = "127.0.0.1",
    query: str = "",
    time_epoch_ms: int | None = None,
    authorizer: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One HTTP request as API Gateway delivers it to Lambda (header names lower-cased, repeats comma-joined).

    Args:
        method: The HTTP method.
        path: The request path, e.g. `/mcp`.
        headers: The request headers.
        body: The body (bytes that are not UTF-8 are sent base64-encoded, as API Gateway does); None for none.
        request_id: `requestContext.requestId`; by default a fresh UUID.
        source_ip: The client address.
        query: The raw query string.
        time_epoch_ms: When the request arrived; by default now.
        authorizer: `requestContext.authorizer` (an authorizer's claims, e.g. `authorizer_context(identity)`).

    Returns:
        The payload-2.0 event.
    """
    epoch_ms = int(time.time() * 1000) if time_epoch_ms is None else time_epoch_ms
    lowered: dict[str, str] = {}
    for name, value in headers.items():
        key = name.lower()
        lowered[key] = f"{lowered[key]},{value}" if key in lowered else value
    encoded, is_base64 = None, False
    if isinstance(body, bytes):
        try:
            encoded = body.decode("utf-8")
        except UnicodeDecodeError:
            encoded, is_base64 = base64.b64encode(body).decode("ascii"), True
    else:
        encoded = body
    request_context: dict[str, Any] = {
        "accountId": "123456789012",
        "apiId": "local",
        "domainName": lowered.get("host", "localhost"),
        "domainPrefix": "local",
        "http": {
            "method": method.upper(),
            "path": path,
            "protocol": "HTTP/1.1",
            "sourceIp": source_ip,
            "userAgent": lowered.get("user-agent", ""),
        },
        "requestId": request_id or str(uuid.uuid4()),
        "routeKey": f"{method.upper()} {path}",
        "stage": "$default",
        "time": formatdate(epoch_ms / 1000, usegmt=True),
        "timeEpoch": epoch_ms,
    }
    if authorizer is not None:
        request_context["authorizer"] = authorizer
    event: dict[str, Any] = {
        "version": "2.0",
        "routeKey": f"{method.upper()} {path}",
        "rawPath": path,
        "rawQueryString": query,
        "headers": lowered,
        "requestContext": request_context,
        "isBase64Encoded": is_base64,
    }
    if encoded is not None:
        event["body"] = encoded
    return event


def response_body(response: dict[str, Any]) -> bytes:
    """The handler response's body as bytes, decoding base64 where the handler says so.

    Args:
        response: What the Lambda handler returned.

    Returns:
        The body bytes.
    """
    body = response.get("body") or ""
    if response.get("isBase64Encoded"):
        return base64.b64decode(body)
    return body.encode("utf-8") if isinstance(body, str) else bytes(body)


@dataclass
class LocalContext:
    """The parts of the Lambda context object that Powertools and Mangum read."""

    function_name: str = "mcp-local"
    function_version: str = "$LATEST"
    memory_limit_in_mb: int = 512
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    invoked_function_arn: str = "arn:aws:lambda:us-east-1:123456789012:function:mcp-local"
    log_group_name: str = "/aws/lambda/mcp-local"
    log_stream_name: str = "local"
    deadline_ms: int = field(default_factory=lambda: int(time.time() * 1000) + 30_000)

    def get_remaining_time_in_millis(self) -> int:
        """Milliseconds until `deadline_ms` (never negative), as the Lambda context reports them."""
        return max(0, self.deadline_ms - int(time.time() * 1000))
