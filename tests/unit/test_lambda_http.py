"""`lambda_adapter.mcp_request` and `lambda_result`: the /mcp route reads an API Gateway event and makes the Lambda
result exactly as Mangum's HTTP API handler (`mangum.handlers.HTTPGateway`) and the app's endpoint would, over
generated events (header case, non-ASCII values, cookies, base64 bodies, encoded paths) and responses (repeated
headers, Set-Cookie, text and binary types, empty bodies)."""

from __future__ import annotations

import base64
import types
from typing import Any

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from mangum import Mangum
from mangum.handlers import HTTPGateway

from mcp_lambda.lambda_adapter import (
    lambda_result,
    mcp_request,
    unencodable_text,
    unreadable_host,
    unreadable_shape,
)
from mcp_lambda.transport import HttpResponse

CONFIG = Mangum(lambda scope, receive, send: None, lifespan="off", api_gateway_base_path="/").config
CONTEXT = types.SimpleNamespace(aws_request_id="test")

# Header text as API Gateway can deliver it: ASCII and not (UTF-8 text, no lone surrogates).
TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
NAMES = st.sampled_from(["Host", "accept", "Content-Type", "MCP-Session-Id", "x-note", "X-Ünïcode", "cookie"])
PATHS = st.sampled_from(["/mcp", "/mcp/", "/%6dcp", "/MCP", "/other", "", "/mcp%2F"])


def theirs(event: dict[str, Any]) -> tuple[str, dict[str, str], bytes, str]:
    """What the endpoint reads behind Mangum: its scope's headers as Starlette decodes them, its body, its path."""
    gateway = HTTPGateway(event, CONTEXT, CONFIG)
    scope = gateway.scope
    headers = {name.decode("latin-1"): value.decode("latin-1") for name, value in scope["headers"]}
    body = gateway.body if scope["method"] == "POST" else b""
    return scope["method"], headers, body, scope["path"]


def event_of(method: str, path: str, headers: dict[str, str], body: Any, **more: Any) -> dict[str, Any]:
    event = {
        "version": "2.0",
        "rawPath": path,
        "rawQueryString": "",
        "headers": headers,
        "requestContext": {"http": {"method": method, "path": path, "sourceIp": "127.0.0.1"}},
        "body": body,
        "isBase64Encoded": False,
    }
    event.update(more)
    return event


@settings(max_examples=300, deadline=None)
@given(
    method=st.sampled_from(["POST", "GET", "DELETE"]),
    path=PATHS,
    headers=st.dictionaries(NAMES | TEXT.filter(bool), TEXT, max_size=6),
    body=st.none() | TEXT,
    cookies=st.none() | st.lists(TEXT, max_size=3),
    base64_body=st.booleans(),
)
def test_the_request_is_the_one_mangum_and_the_endpoint_read(
    method: str,
    path: str,
    headers: dict[str, str],
    body: str | None,
    cookies: list[str] | None,
    base64_body: bool,
) -> None:
    more: dict[str, Any] = {}
    if cookies is not None:
        more["cookies"] = cookies
    if base64_body and body is not None:
        more.update(body=base64.b64encode(body.encode()).decode(), isBase64Encoded=True)
    event = event_of(method, path, {"host": "example.com", **headers}, body)
    event.update(more)
    # What the handler refuses before any route reads the event (Mangum would fail on a Host like "a:b").
    assume(
        unreadable_shape(event) is None and unreadable_host(event) is None and unencodable_text(event) is None
    )
    request = mcp_request(event, CONTEXT, CONFIG)
    method_read, headers_read, body_read, path_read = theirs(event)
    if path_read not in ("/mcp", "/mcp/"):
        assert request is None
        return
    assert request is not None
    assert (request.method, dict(request.headers), request.body) == (method_read, headers_read, body_read)
    assert request.event is event and request.context is CONTEXT
    assert request.headers is not event["headers"]  # the endpoint never holds the event's own dict


def test_other_methods_and_payload_1_0_are_the_apps() -> None:
    assert mcp_request(event_of("PUT", "/mcp", {}, None), CONTEXT, CONFIG) is None
    assert mcp_request(event_of("HEAD", "/mcp", {}, None), CONTEXT, CONFIG) is None
    assert mcp_request({**event_of("POST", "/mcp", {}, "{}"), "version": "1.0"}, CONTEXT, CONFIG) is None


RAW_HEADERS = st.lists(
    st.tuples(
        st.sampled_from([b"content-type", b"Content-Type", b"set-cookie", b"x-a", b"X-A", b"mcp-session-id"]),
        st.sampled_from(
            [b"application/json", b"text/event-stream", b"image/png", b"a=1", b"v", "\u00e9".encode()]
        ),
    ),
    max_size=6,
)


@settings(max_examples=300, deadline=None)
@given(
    status=st.sampled_from([200, 202, 400, 404, 500]),
    raw_headers=RAW_HEADERS,
    body=st.sampled_from([b"", b'{"a":1}', "数据".encode(), b"\xff\xfe"]),
)
def test_the_lambda_result_is_the_one_mangum_makes(
    status: int, raw_headers: list[tuple[bytes, bytes]], body: bytes
) -> None:
    event = event_of("POST", "/mcp", {}, "{}")
    expected = HTTPGateway(event, CONTEXT, CONFIG)(
        {"status": status, "headers": [list(pair) for pair in raw_headers], "body": body}
    )
    assert lambda_result(HttpResponse(status, raw_headers, body), CONFIG) == expected
