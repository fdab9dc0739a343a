"""Property: whatever a client puts in Authorization, and whatever an authorizer puts in the event, the caller is
refused or served with a precise status — never a 5xx other than the issuer-unreachable 503, never a traceback."""

from __future__ import annotations

import base64
import json
import socket
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.support.handlers import build_handler

from businesses.conformance import BUSINESS
from mcp_lambda.settings import Settings
from mcp_lambda.testing import McpTestClient

with socket.socket() as _sock:
    _sock.bind(("127.0.0.1", 0))
    NOWHERE = f"http://127.0.0.1:{_sock.getsockname()[1]}"  # closed: a JWKS fetch fails at once

GATEWAY = McpTestClient.over_handler(
    build_handler(BUSINESS, Settings(business="conformance", auth_mode="apigateway", auth_issuer=NOWHERE)),
    oracle=False,
)
JWT = McpTestClient.over_handler(
    build_handler(BUSINESS, Settings(business="conformance", auth_mode="jwt", auth_issuer=NOWHERE)),
    oracle=False,
)
PING = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}

scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=30))
json_values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)
claims = st.dictionaries(
    st.sampled_from(["sub", "iss", "scope", "scp", "aud", "client_id", "email", "exp"]),
    json_values,
    max_size=6,
)


def _segment(value: Any) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


tokens = st.one_of(
    st.text(max_size=60),
    st.builds(
        lambda header, body, sig: f"{_segment(header)}.{_segment(body)}.{sig}",
        st.fixed_dictionaries(
            {"alg": st.sampled_from(["RS256", "ES256", "HS256", "none", "x"])}, optional={"kid": json_values}
        ),
        claims,
        st.text(alphabet="abcXYZ-_", max_size=20),
    ),
)
authorization = st.one_of(tokens.map(lambda t: f"Bearer {t}"), st.text(max_size=40))


def _ok(reply: Any) -> None:
    assert reply.status < 500 or (reply.status == 503 and reply.headers.get("retry-after")), reply
    assert b"Traceback" not in reply.raw


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(header=authorization, context=st.one_of(st.none(), claims, json_values))
def test_any_authorizer_context_gets_a_precise_answer(header: str, context: Any) -> None:
    authorizer = {"jwt": {"claims": context, "scopes": None}} if isinstance(context, dict) else context
    _ok(GATEWAY.post(PING, {"authorization": header}, authorizer=authorizer))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(header=authorization)
def test_any_authorization_header_gets_a_precise_answer(header: str) -> None:
    _ok(JWT.post(PING, {"authorization": header}))
