"""Who is calling, without a token server: the principal encoding, API Gateway authorizer claims
(AUTH_MODE=apigateway and none), scope checks, challenges, and the settings that select a mode."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from tests.support.handlers import build_handler

import businesses.demo as demo
from mcp_lambda.auth import bearer_token
from mcp_lambda.caller import bearer_challenge, principal_of, scopes_of
from mcp_lambda.settings import Settings, SettingsError
from mcp_lambda.testing import MODERN, McpTestClient
from mcp_lambda.tools import Access, Business, ToolContext, ToolResult, execution_result, tool
from mcp_lambda.tools.errors import ToolSignatureError

ISSUER = "https://idp.example"


def jwt_authorizer(sub: str, iss: str | None = ISSUER, scope: str = "") -> dict[str, Any]:
    claims = {"sub": sub, "scope": scope, **({"iss": iss} if iss is not None else {})}
    return {"jwt": {"claims": claims, "scopes": None}}


def lambda_authorizer(principal: str) -> dict[str, Any]:
    return {"lambda": {"principalId": principal}}


# --- the principal: an unambiguous encoding (issue #10, defect 4.9) ---------------------------------------


def test_issuer_and_subject_can_no_longer_collide() -> None:
    assert principal_of("jwt", "https://a|x", "y") != principal_of("jwt", "https://a", "x|y")
    assert principal_of("jwt", "https://a:x", "y") != principal_of("jwt", "https://a", "x:y")
    assert principal_of("jwt", None, "alice") != principal_of("lambda", None, "alice")
    assert principal_of("jwt", "https://idp.example", "alice") == "jwt:https%3A%2F%2Fidp.example:alice"


def test_a_jwt_subject_never_opens_a_lambda_authorizer_principals_session() -> None:
    client = McpTestClient.over_handler(build_handler(demo.BUSINESS))
    legacy = client.clone(era="2025-11-25")
    init = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
        },
    }
    session = client.post(init, authorizer=jwt_authorizer("alice", iss=None)).headers["mcp-session-id"]
    legacy.session_id = session
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    headers = legacy.request_headers()
    assert client.post(ping, headers, authorizer=jwt_authorizer("alice", iss=None)).status == 200
    assert client.post(ping, headers, authorizer=lambda_authorizer("alice")).status == 404

    piped = client.post(init, authorizer=jwt_authorizer("y", iss="https://a|x")).headers["mcp-session-id"]
    legacy.session_id = piped
    assert (
        client.post(ping, legacy.request_headers(), authorizer=jwt_authorizer("x|y", iss="https://a")).status
        == 404
    )


def test_a_lone_surrogate_in_a_claim_is_encoded_not_a_500(gateway: McpTestClient) -> None:
    assert principal_of("jwt", "https://i", "\ud800") == "jwt:https%3A%2F%2Fi:%ED%A0%80"
    reply = _call(gateway, "hello", jwt_authorizer("\ud800", scope="x"))
    assert reply.status == 200


def test_scopes_come_from_scope_or_scp() -> None:
    assert scopes_of({"scope": "a b  c"}) == {"a", "b", "c"}
    assert scopes_of({"scp": ["a", "b", 3]}) == {"a", "b"}
    assert scopes_of({"scope": "[a b]"}) == {"a", "b"}  # API Gateway's rendering of an array claim
    assert scopes_of({"scope": 'a "quoted"'}) == {"a"}


def test_bearer_challenges_quote_their_values() -> None:
    value = bearer_challenge("invalid_token", "https://h/x", description='say "hi"')
    assert (
        value
        == 'Bearer resource_metadata="https://h/x", error="invalid_token", error_description="say \\"hi\\""'
    )


@pytest.mark.parametrize(
    ("header", "token"),
    [
        (None, None),
        ("Bearer abc.def-_~+/=", "abc.def-_~+/="),
        ("bearer  t", "t"),
        ("Basic YTpi", None),
        ("Bearer", None),
    ],
)
def test_bearer_tokens_are_read_from_the_authorization_header(header: str | None, token: str | None) -> None:
    assert bearer_token(header) == token


# --- AUTH_MODE=apigateway: the HTTP API's JWT authorizer vouches --------------------------------------------


@tool(description="Use to see who is calling.", access=Access(scopes=["profile:read"]))
def whoami(ctx: ToolContext) -> ToolResult:
    caller = ctx.caller
    return execution_result(
        {
            "subject": caller.subject if caller else None,
            "kind": caller.kind if caller else None,
            "has_token": ctx.caller_token is not None,
        }
    )


@tool(description="Use for anything; needs no scope.")
def hello() -> ToolResult:
    return execution_result({"hello": True})


WHOAMI = Business(name="whoami_unit", tools=[whoami, hello])


@pytest.fixture
def gateway() -> McpTestClient:
    settings = Settings(business="whoami_unit", auth_mode="apigateway", auth_issuer=ISSUER)
    return McpTestClient.over_handler(build_handler(WHOAMI, settings))


def _call(
    client: McpTestClient, name: str, authorizer: dict[str, Any] | None, token: str | None = None
) -> Any:
    modern = client.clone(era=MODERN, capabilities={})
    modern.last_id += 1
    body = {
        "jsonrpc": "2.0",
        "id": 5,
        "method": "tools/call",
        "params": {
            "name": name,
            "arguments": {},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    headers = {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": name}
    if token:
        headers["authorization"] = f"Bearer {token}"
    return client.post(body, headers, authorizer=authorizer)


def test_apigateway_mode_refuses_a_request_the_authorizer_did_not_vouch_for(gateway: McpTestClient) -> None:
    # With a bearer token: the token failed, so `invalid_token`; with none, no error code (RFC 6750 §3.1).
    for token, code in [("the.caller.token", 'error="invalid_token"'), (None, None)]:
        reply = _call(gateway, "hello", None, token=token)
        assert reply.status == 401
        challenge = reply.headers["www-authenticate"]
        assert 'resource_metadata="https://localhost/.well-known/oauth-protected-resource/mcp"' in challenge
        assert (code in challenge) if code else ("error" not in challenge), challenge
        assert reply.error["code"] == -32011


def test_apigateway_mode_serves_the_authorizers_caller_and_its_token(gateway: McpTestClient) -> None:
    reply = _call(gateway, "whoami", jwt_authorizer("alice", scope="profile:read"), token="the.caller.token")
    assert reply.result["structuredContent"] == {"subject": "alice", "kind": "jwt", "has_token": True}


def test_apigateway_mode_enforces_tool_scopes(gateway: McpTestClient) -> None:
    refused = _call(gateway, "whoami", jwt_authorizer("alice", scope="other"))
    assert refused.status == 403
    assert 'error="insufficient_scope"' in refused.headers["www-authenticate"]
    assert 'scope="profile:read"' in refused.headers["www-authenticate"]
    assert _call(gateway, "hello", jwt_authorizer("alice", scope="other")).status == 200


def test_apigateway_mode_serves_the_metadata(gateway: McpTestClient) -> None:
    reply = McpTestClient.over_handler(
        gateway.handler, path="/.well-known/oauth-protected-resource", oracle=False
    ).send("GET")
    assert reply.status == 200
    assert reply.body["authorization_servers"] == [ISSUER]
    assert reply.body["scopes_supported"] == ["profile:read"]


def test_an_issuer_scope_prefix_is_taken_off_and_advertised(gateway: McpTestClient) -> None:
    # Cognito names a custom scope "<resource server identifier>/<scope>"; tools name it without the prefix.
    prefix = "https://mcp.example.com/"
    settings = Settings(
        business="whoami_unit", auth_mode="apigateway", auth_issuer=ISSUER, auth_scope_prefix=prefix
    )
    client = McpTestClient.over_handler(build_handler(WHOAMI, settings))
    assert _call(client, "whoami", jwt_authorizer("alice", scope=f"{prefix}profile:read")).status == 200
    refused = _call(client, "whoami", jwt_authorizer("alice", scope="profile:read"))
    assert refused.status == 403
    assert f'scope="{prefix}profile:read"' in refused.headers["www-authenticate"]
    metadata = McpTestClient.over_handler(
        client.handler, path="/.well-known/oauth-protected-resource", oracle=False
    ).send("GET")
    assert metadata.body["scopes_supported"] == [f"{prefix}profile:read"]


def test_the_resource_url_follows_the_api_gateway_stage() -> None:
    from mcp_lambda.testing import invoke
    from mcp_lambda_dev.local.events import http_event

    settings = Settings(business="whoami_unit", auth_mode="apigateway", auth_issuer=ISSUER)
    handler = build_handler(WHOAMI, settings)
    event = http_event("GET", "/.well-known/oauth-protected-resource/mcp", {"host": "api.example.com"}, None)
    event["requestContext"].update(domainName="abc.execute-api.eu-west-1.amazonaws.com", stage="prod")
    response = invoke(handler, event)
    assert '"resource":"https://abc.execute-api.eu-west-1.amazonaws.com/prod/mcp"' in response["body"]


# --- AUTH_MODE=none: today's behaviour -------------------------------------------------------------------


def test_none_mode_serves_anonymous_callers_every_tool_and_no_metadata() -> None:
    client = McpTestClient.over_handler(build_handler(WHOAMI, Settings(business="whoami_unit")))
    reply = _call(client, "whoami", None)
    assert reply.result["structuredContent"] == {"subject": None, "kind": None, "has_token": False}
    listed = client.clone(era=MODERN, capabilities={}).rpc("tools/list")
    assert [t["name"] for t in listed.result["tools"]] == ["whoami", "hello"]
    assert listed.result["cacheScope"] == "public"
    assert (
        McpTestClient.over_handler(client.handler, path="/.well-known/oauth-protected-resource", oracle=False)
        .send("GET")
        .status
        == 404
    )


def test_none_mode_still_names_the_caller_an_authorizer_vouched_for() -> None:
    client = McpTestClient.over_handler(build_handler(WHOAMI, Settings(business="whoami_unit")))
    reply = _call(client, "whoami", lambda_authorizer("svc-42"))
    assert reply.result["structuredContent"] == {"subject": "svc-42", "kind": "lambda", "has_token": False}


# --- jwt mode when the issuer cannot be reached ----------------------------------------------------------


def test_an_unreachable_issuer_gets_503_with_retry_after_not_401() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{sock.getsockname()[1]}"
    settings = Settings(business="whoami_unit", auth_mode="jwt", auth_issuer=closed)
    client = McpTestClient.over_handler(build_handler(WHOAMI, settings), oracle=False)
    header = "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsxIn0.eyJzdWIiOiJhIn0.c2ln"
    reply = _call(client, "hello", None, token=header)
    assert reply.status == 503
    assert reply.headers["retry-after"].isdigit()
    assert reply.error["code"] == -32003 and "retry later" in reply.error["message"]


# --- declaring and configuring ---------------------------------------------------------------------------


def test_tool_scopes_must_be_scope_names() -> None:
    with pytest.raises(ToolSignatureError, match="not one string"):
        tool(name="t", description="x", access=Access(scopes="orders:write"))(lambda: None)
    with pytest.raises(ToolSignatureError, match="scope names"):
        tool(name="t", description="x", access=Access(scopes=["orders write"]))(lambda: None)


def test_a_protecting_mode_needs_an_issuer() -> None:
    for mode in ("jwt", "apigateway"):
        with pytest.raises(SettingsError, match="AUTH_ISSUER is required"):
            Settings.from_env({"AUTH_MODE": mode})
    with pytest.raises(SettingsError, match="AUTH_MODE"):
        Settings.from_env({"AUTH_MODE": "basic"})


def test_auth_settings_read_their_variables() -> None:
    settings = Settings.from_env(
        {
            "AUTH_MODE": "jwt",
            "AUTH_ISSUER": ISSUER,
            "AUTH_AUDIENCE": "api://a, api://b",
            "AUTH_JWKS_URL": f"{ISSUER}/keys",
            "AUTH_CALLER_CLAIMS": "email",
            "PUBLIC_URL": "https://mcp.example.com/mcp",
        }
    )
    assert settings.auth_audience == ("api://a", "api://b")
    assert (settings.auth_jwks_url, settings.auth_caller_claims) == (f"{ISSUER}/keys", ("email",))
    assert settings.public_url == "https://mcp.example.com/mcp"
    assert Settings.from_env({"AUTH_AUDIENCE": ""}).auth_audience == ()
