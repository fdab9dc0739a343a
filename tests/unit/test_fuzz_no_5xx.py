"""Property: whatever a client sends, the handler answers without a 5xx and without leaking internals."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.support.handlers import build_handler

from businesses.conformance import BUSINESS
from mcp_lambda.settings import Settings
from mcp_lambda.testing import HttpReply, McpTestClient
from mcp_lambda.wire import modern_meta

CLIENT = McpTestClient.over_handler(
    build_handler(BUSINESS, Settings(business="conformance", request_state_key="k" * 32))
)
METHODS = [
    "initialize",
    "ping",
    "tools/list",
    "tools/call",
    "resources/read",
    "prompts/get",
    "server/discover",
    "completion/complete",
    "logging/setLevel",
    "notifications/initialized",
    "nope",
]
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=20))
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
messages = st.fixed_dictionaries(
    {"jsonrpc": st.sampled_from(["2.0", "1.0", None]), "method": st.sampled_from(METHODS)},
    optional={"id": st.one_of(st.integers(), st.text(max_size=5), st.none()), "params": json_values},
)
headers = st.fixed_dictionaries(
    {},
    optional={
        "mcp-protocol-version": st.sampled_from(
            ["2024-11-05", "2025-03-26", "2025-11-25", "2026-07-28", "x", ""]
        ),
        "mcp-session-id": st.text(max_size=40),
        "mcp-method": st.sampled_from(METHODS),
        "mcp-name": st.text(max_size=20),
        "accept": st.sampled_from(["application/json", "text/event-stream", "*/*", "text/html"]),
    },
)


def _send(body: Any, extra: dict[str, str]) -> HttpReply:
    # Exactly these headers (no default Host/Accept), and every reply through the wire oracle.
    return CLIENT.post(body, {"content-type": "application/json", **extra}, defaults=False)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=st.one_of(messages, json_values, st.lists(messages, max_size=3)), extra=headers)
def test_no_request_gets_a_5xx_or_a_traceback(body: Any, extra: dict[str, str]) -> None:
    reply = _send(body, extra)  # control characters and NUL included: a header value may hold them
    assert reply.status < 500, reply
    assert b"Traceback" not in reply.raw


TOOLS = [spec.name for spec in BUSINESS.tools]
PROMPTS = [spec.name for spec in BUSINESS.prompts]
META = modern_meta({"sampling": {}, "elicitation": {}, "roots": {}})
modern_calls = st.one_of(
    st.tuples(
        st.just("tools/call"),
        st.sampled_from(TOOLS),
        st.fixed_dictionaries(
            {},
            optional={
                "arguments": json_values,
                "inputResponses": json_values,
                "requestState": st.one_of(st.text(max_size=30), json_values),
            },
        ),
    ),
    st.tuples(
        st.just("prompts/get"),
        st.sampled_from(PROMPTS),
        st.fixed_dictionaries({}, optional={"arguments": json_values, "inputResponses": json_values}),
    ),
    st.tuples(
        st.just("resources/read"),
        st.sampled_from(["test://static-text", "test://template/1/data", "x:y"]),
        st.just({}),
    ),
    st.tuples(
        st.sampled_from(["tools/list", "prompts/list", "resources/list", "completion/complete"]),
        st.none(),
        st.fixed_dictionaries(
            {}, optional={"cursor": json_values, "ref": json_values, "argument": json_values}
        ),
    ),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(call=modern_calls)
def test_well_framed_2026_requests_with_any_params_never_get_a_5xx(
    call: tuple[str, Any, dict[str, Any]],
) -> None:
    method, target, params = call
    params = dict(params)
    wire_headers = {"mcp-protocol-version": "2026-07-28", "mcp-method": method}
    if target is not None:
        params["uri" if method == "resources/read" else "name"] = target
        wire_headers["mcp-name"] = target
    params["_meta"] = META
    reply = _send({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}, wire_headers)
    assert reply.status < 500, reply
    body = reply.body if reply.raw.startswith(b"{") else {}
    assert b"Traceback" not in reply.raw
    if "error" in body:
        assert body["error"]["code"] != -32603 or "error id" in body["error"]["message"], body


# --- headers: any names, any values (what API Gateway can hand over), both eras, every method ---------------------

KNOWN_HEADERS = [
    "host",
    "origin",
    "accept",
    "content-type",
    "content-length",
    "mcp-session-id",
    "mcp-method",
    "mcp-name",
    "mcp-param-x",
    "x-forwarded-port",
    "x-forwarded-proto",
    "x-forwarded-for",
    "authorization",
    "cookie",
    "idempotency-key",
    "last-event-id",
    "transfer-encoding",
]
# Header values arrive as text; a lone surrogate cannot come out of HTTP bytes, anything else can.
header_values = st.one_of(
    st.text(st.characters(blacklist_categories=("Cs",)), max_size=40),
    st.sampled_from(["a:b:c", "[::1]:3501", "localhost:abc", "-1", "application/json", "*/*", ":", ""]),
)
header_names = st.one_of(
    st.sampled_from(KNOWN_HEADERS), st.text("abcdefghijklmnopqrstuvwxyz0123456789-_", min_size=1, max_size=16)
)
any_headers = st.dictionaries(header_names, header_values, max_size=6)
era_header = st.sampled_from(
    ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", "2026-07-28", "2099-01-01"]
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    method=st.sampled_from(["POST", "GET", "DELETE"]),  # the routes template.yaml gives /mcp
    version=st.one_of(st.none(), era_header),
    extra=any_headers,
    body=st.one_of(messages, st.lists(messages, max_size=3), json_values),
)
def test_no_headers_get_a_5xx_or_a_traceback_in_either_era(
    method: str, version: str | None, extra: dict[str, str], body: Any
) -> None:
    headers = {"content-type": "application/json", **extra}
    if version is not None:
        headers["mcp-protocol-version"] = version
    reply = CLIENT.send(method, body if method == "POST" else None, headers, defaults=False)
    assert reply.status < 500, reply
    assert b"Traceback" not in reply.raw
