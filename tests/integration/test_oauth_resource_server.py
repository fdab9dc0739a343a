"""AUTH_MODE=jwt against a real authorization server process (oauth2-mock-server): the handler fetches the issuer's
discovery document and JWKS over HTTP, and every token below was signed (or forged) for real.

A valid token is served; every invalid one gets 401 with the `invalid_token` challenge naming the Protected
Resource Metadata (a request offering no bearer token gets the challenge without an error code, RFC 6750 §3.1);
a missing scope gets 403 with the `insufficient_scope` step-up; and state one caller holds
(its session, its requestState, its subscriptions) is refused to another.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import uuid
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from jwt.algorithms import RSAAlgorithm
from tests.support.handlers import build_handler
from tests.support.oauth import Issuer, hs256_with_public_key, now, unsigned, with_bad_signature

import businesses.demo as demo
from businesses.conformance import BUSINESS as CONFORMANCE
from mcp_lambda.settings import Settings
from mcp_lambda.testing import MODERN, McpTestClient
from mcp_lambda.tools import Access, Business, ToolContext, ToolResult, execution_result, tool
from mcp_lambda.tools.results import entities

RESOURCE = "https://localhost/mcp"
METADATA = "https://localhost/.well-known/oauth-protected-resource/mcp"
ALL_SCOPES = "subscriptions:read subscriptions:write"


def settings_for(issuer: Issuer, business: str = "demo", **extra: Any) -> Settings:
    return Settings(business=business, auth_mode="jwt", auth_issuer=issuer.url, **extra)


@pytest.fixture(scope="module")
def client(oauth_issuer: Issuer) -> McpTestClient:
    return McpTestClient.over_handler(build_handler(demo.BUSINESS, settings_for(oauth_issuer)))


def bearer(token: str) -> dict[str, str]:
    return {"authorization": f"Bearer {token}"}


def modern(client: McpTestClient, token: str | None) -> McpTestClient:
    return client.clone(era=MODERN, capabilities={}, headers=bearer(token) if token is not None else {})


def challenge_params(value: str) -> dict[str, str]:
    assert value.startswith("Bearer "), value
    return dict(re.findall(r'(\w+)="((?:[^"\\]|\\.)*)"', value))


def assert_refused(
    reply: Any, reason: str, token: str | None = None, *, has_id: bool = True, offered: bool = True
) -> None:
    """401 naming the reason; the challenge's error code only when the request `offered` a bearer token."""
    assert reply.status == 401, reply.raw
    params = challenge_params(reply.headers["www-authenticate"])
    assert params["resource_metadata"] == METADATA
    if offered:
        assert params["error"] == "invalid_token"
        assert reason in params["error_description"]
    else:  # RFC 6750 §3.1: no authentication information, no error code or other error information
        assert set(params) == {"resource_metadata"}, params
    error = reply.error
    assert error["code"] == -32011 and reason in error["message"]
    # The refused request's own id is echoed (a POST of these tests always has an integer id; a DELETE none).
    assert isinstance(reply.body["id"], int) if has_id else reply.body["id"] is None
    if token is not None:
        assert token not in reply.raw.decode() and token not in reply.headers["www-authenticate"]


# --- valid tokens ------------------------------------------------------------------------------------------


def test_a_valid_token_is_served_in_both_eras(client: McpTestClient, oauth_issuer: Issuer) -> None:
    token = oauth_issuer.token("alice", ALL_SCOPES, RESOURCE)
    listed = modern(client, token).rpc("tools/list")
    assert listed.status == 200
    assert "list_subscriptions" in [tool["name"] for tool in listed.result["tools"]]

    legacy = client.clone(era="2025-11-25", headers=bearer(token))
    legacy.initialize()
    assert (
        legacy.rpc("tools/call", {"name": "search_products", "arguments": {"keyword": "cup"}}).status == 200
    )


def test_an_es256_token_is_accepted_too(client: McpTestClient, oauth_issuer: Issuer) -> None:
    token = oauth_issuer.sign("es256", **oauth_issuer.valid_claims())
    assert modern(client, token).rpc("tools/list").status == 200


def test_an_explicit_jwks_url_skips_discovery(oauth_issuer: Issuer) -> None:
    settings = settings_for(oauth_issuer, auth_jwks_url=f"{oauth_issuer.url}/jwks")
    explicit = McpTestClient.over_handler(build_handler(demo.BUSINESS, settings))
    token = oauth_issuer.token("alice", resource=RESOURCE)
    assert modern(explicit, token).rpc("tools/list").status == 200


def test_an_audience_setting_replaces_the_resource_url(oauth_issuer: Issuer) -> None:
    settings = settings_for(oauth_issuer, auth_audience=("api://orders",))
    pinned = McpTestClient.over_handler(build_handler(demo.BUSINESS, settings))
    assert (
        modern(pinned, oauth_issuer.token("alice", resource="api://orders")).rpc("tools/list").status == 200
    )
    refused = modern(pinned, oauth_issuer.token("alice", resource=RESOURCE)).rpc("tools/list")
    assert_refused(refused, "not issued for this resource")


def test_a_token_without_aud_is_checked_by_client_id_as_api_gateway_does(oauth_issuer: Issuer) -> None:
    settings = settings_for(oauth_issuer, auth_audience=("cognito-app-client",))
    pinned = McpTestClient.over_handler(build_handler(demo.BUSINESS, settings))
    cognito_like = oauth_issuer.sign(sub="alice", aud=None, client_id="cognito-app-client")
    assert modern(pinned, cognito_like).rpc("tools/list").status == 200
    other_client = oauth_issuer.sign(sub="alice", aud=None, client_id="another-app")
    assert_refused(modern(pinned, other_client).rpc("tools/list"), "not issued for this resource")


# --- invalid tokens: 401 with the challenge ---------------------------------------------------------------


def test_no_token_gets_401_with_the_challenge_and_no_error_code(client: McpTestClient) -> None:
    reason = "no access token"
    assert_refused(modern(client, None).rpc("tools/list"), reason, offered=False)
    assert_refused(client.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}), reason, offered=False)
    deleted = client.send("DELETE", headers={"mcp-session-id": "x"})
    assert_refused(deleted, reason, has_id=False, offered=False)


@pytest.mark.parametrize("authorization", ["Basic YTpi", "Digest username=a", "   "])
def test_another_scheme_gets_401_with_no_error_code(client: McpTestClient, authorization: str) -> None:
    reply = client.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"authorization": authorization})
    assert_refused(reply, "Bearer", offered=False)


@pytest.mark.parametrize("authorization", ["Bearer", "Bearer a b", "bearer {not-b64}", "BEARER \x01"])
def test_a_malformed_bearer_token_keeps_the_invalid_token_code(
    client: McpTestClient, authorization: str
) -> None:
    reply = client.post({"jsonrpc": "2.0", "id": 1, "method": "ping"}, {"authorization": authorization})
    assert_refused(reply, "does not carry a Bearer token")


def _claims(issuer: Issuer, **overrides: Any) -> dict[str, Any]:
    return {**issuer.valid_claims(), **overrides}


def _public_key_pem(issuer: Issuer) -> bytes:
    (jwk,) = [key for key in issuer.jwks()["keys"] if key["kid"] == "rs256"]
    public_key = RSAAlgorithm.from_jwk(json.dumps(jwk))
    return public_key.public_bytes(  # type: ignore[union-attr]
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


FORGERIES = {
    "expired": (lambda i: i.sign(**_claims(i, exp=now() - 3600, iat=now() - 7200)), "has expired"),
    "not yet valid": (lambda i: i.sign(**_claims(i, nbf=now() + 3600)), "not valid yet"),
    "wrong issuer": (lambda i: i.sign(**_claims(i, iss="https://evil.example")), "another issuer"),
    "wrong audience": (
        lambda i: i.sign(**_claims(i, aud="https://other.example/mcp")),
        "not issued for this",
    ),
    "no subject": (lambda i: i.sign(**_claims(i, sub=None)), "no 'sub' claim"),
    "bad signature": (lambda i: with_bad_signature(i.sign(**_claims(i))), "signature is not valid"),
    "alg none": (lambda i: unsigned(_claims(i, iss=i.url, exp=now() + 600)), "accepted algorithm"),
    "hs256 with the public key": (
        lambda i: hs256_with_public_key(_claims(i, iss=i.url, exp=now() + 600), _public_key_pem(i)),
        "accepted algorithm",
    ),
    "not a jwt": (lambda i: "not-a-jwt", "not a well-formed JWT"),
}


@pytest.mark.parametrize("case", sorted(FORGERIES))
def test_an_invalid_token_gets_401_naming_the_reason_never_the_token(
    client: McpTestClient, oauth_issuer: Issuer, case: str
) -> None:
    forge, reason = FORGERIES[case]
    token = forge(oauth_issuer)
    assert_refused(modern(client, token).rpc("tools/list"), reason, token)


def test_a_key_the_issuer_does_not_publish_gets_401(client: McpTestClient, oauth_issuer: Issuer) -> None:
    # Signed for real, but the header names a kid that is in no JWKS (a key the attacker made up).
    token = oauth_issuer.sign(**_claims(oauth_issuer))
    header, body, signature = token.split(".")
    forged_header = json.loads(base64.urlsafe_b64decode(header + "=" * (-len(header) % 4)))
    forged_header["kid"] = "attacker-key"
    encoded = base64.urlsafe_b64encode(json.dumps(forged_header).encode()).decode().rstrip("=")
    assert_refused(modern(client, f"{encoded}.{body}.{signature}").rpc("tools/list"), "does not publish")


# --- Protected Resource Metadata ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path", ["/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"]
)
def test_both_metadata_urls_serve_the_document_without_a_token(
    oauth_issuer: Issuer, client: McpTestClient, path: str
) -> None:
    metadata = McpTestClient.over_handler(client.handler, path=path, oracle=False)
    reply = metadata.send("GET")
    assert reply.status == 200
    assert reply.body == {
        "resource": RESOURCE,
        "authorization_servers": [oauth_issuer.url],
        "bearer_methods_supported": ["header"],
        "scopes_supported": ["catalogue:costs", "subscriptions:read", "subscriptions:write"],
        "resource_name": demo.BUSINESS.title,
    }
    assert "max-age" in reply.headers["cache-control"] and "public" in reply.headers["cache-control"]


def test_the_metadata_resource_follows_public_url(oauth_issuer: Issuer) -> None:
    settings = settings_for(oauth_issuer, public_url="https://mcp.example.com/mcp")
    handler = build_handler(demo.BUSINESS, settings)
    reply = McpTestClient.over_handler(
        handler, path="/.well-known/oauth-protected-resource/mcp", oracle=False
    ).send("GET")
    assert reply.body["resource"] == "https://mcp.example.com/mcp"
    refused = McpTestClient.over_handler(handler).post({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    params = challenge_params(refused.headers["www-authenticate"])
    assert params["resource_metadata"] == "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"


# --- scopes ------------------------------------------------------------------------------------------------


def test_a_missing_scope_gets_403_with_a_step_up_challenge(
    client: McpTestClient, oauth_issuer: Issuer
) -> None:
    token = oauth_issuer.token("carol", "subscriptions:read", RESOURCE)
    reply = modern(client, token).rpc(
        "tools/call", {"name": "subscribe_product", "arguments": {"product_id": "p-1004", "alert": "restock"}}
    )
    assert reply.status == 403
    params = challenge_params(reply.headers["www-authenticate"])
    assert params == {
        "resource_metadata": METADATA,
        "error": "insufficient_scope",
        "error_description": params["error_description"],
        "scope": "subscriptions:write",
    }
    assert reply.error["code"] == -32012
    assert reply.error["data"] == {"requiredScopes": ["subscriptions:write"]}

    legacy = client.clone(era="2025-11-25", headers=bearer(token))
    legacy.initialize()
    refused = legacy.rpc(
        "tools/call", {"name": "subscribe_product", "arguments": {"product_id": "p-1004", "alert": "restock"}}
    )
    assert refused.status == 403 and refused.error["code"] == -32012


def test_tools_list_shows_only_what_the_caller_may_call_and_is_private(
    client: McpTestClient, oauth_issuer: Issuer
) -> None:
    reader = modern(client, oauth_issuer.token("dave", "subscriptions:read", RESOURCE)).rpc("tools/list")
    names = [tool["name"] for tool in reader.result["tools"]]
    assert "list_subscriptions" in names and "subscribe_product" not in names
    assert "search_products" in names  # a tool without scopes: any authenticated caller
    assert reader.result["cacheScope"] == "private"

    nobody = modern(client, oauth_issuer.token("erin", "", RESOURCE)).rpc("tools/list")
    assert {tool["name"] for tool in nobody.result["tools"]} == {
        "search_routes",
        "search_routes_for_reference",
        "search_products",
        "check_stock",
        "export_trip_plan",
    }


# --- state bound to its caller -----------------------------------------------------------------------------


def test_a_session_of_caller_a_is_refused_to_caller_b(client: McpTestClient, oauth_issuer: Issuer) -> None:
    alice = client.clone(era="2025-11-25", headers=bearer(oauth_issuer.token("alice", resource=RESOURCE)))
    alice.initialize()
    assert alice.rpc("ping").status == 200

    bob = client.clone(era="2025-11-25", headers=bearer(oauth_issuer.token("bob", resource=RESOURCE)))
    bob.session_id = alice.session_id
    assert bob.rpc("ping").status == 404
    assert bob.delete().status == 404
    assert alice.rpc("ping").status == 200  # still alice's


def test_a_request_state_of_caller_a_is_refused_to_caller_b(oauth_issuer: Issuer) -> None:
    settings = settings_for(oauth_issuer, "conformance", request_state_keys=("r" * 32,))
    handler = build_handler(CONFORMANCE, settings)
    elicit = "test_input_required_result_elicitation"

    def call(token: str, extra: dict[str, Any]) -> Any:
        meta = {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
        }
        params = {"name": elicit, "arguments": {}, **extra, "_meta": meta}
        message = {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params}
        headers = {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": elicit}
        return McpTestClient.over_handler(handler, headers=bearer(token)).post(message, headers)

    alice, bob = (oauth_issuer.token(name, resource=RESOURCE) for name in ("alice", "bob"))
    first = call(alice, {})
    state = first.result["requestState"]
    answer = {"inputResponses": {"user_name": {"action": "accept", "content": {"name": "Lin"}}}}

    stolen = call(bob, {**answer, "requestState": state})
    assert stolen.status == 400
    assert stolen.error["code"] == -32602 and "another caller" in stolen.error["message"]

    finished = call(alice, {**answer, "requestState": state})
    assert finished.result["resultType"] == "complete"


def test_subscriptions_are_per_caller(client: McpTestClient, oauth_issuer: Issuer) -> None:
    alice_name, bob_name = f"alice-{uuid.uuid4().hex[:6]}", f"bob-{uuid.uuid4().hex[:6]}"
    alice = modern(client, oauth_issuer.token(alice_name, ALL_SCOPES, RESOURCE))
    bob = modern(client, oauth_issuer.token(bob_name, ALL_SCOPES, RESOURCE))

    subscribed = alice.rpc(
        "tools/call", {"name": "subscribe_product", "arguments": {"product_id": "p-1004", "alert": "restock"}}
    )
    assert subscribed.result.get("isError") is not True, subscribed.result

    mine = alice.rpc("tools/call", {"name": "list_subscriptions", "arguments": {}}).result[
        "structuredContent"
    ]["entities"]
    assert [item["product_id"] for item in mine] == ["p-1004"]
    assert (
        bob.rpc("tools/call", {"name": "list_subscriptions", "arguments": {}}).result["structuredContent"][
            "entities"
        ]
        == []
    )


# --- what a tool sees, and what the logs never see ---------------------------------------------------------


@tool(description="Use to see who is calling.")
def whoami(ctx: ToolContext) -> ToolResult:
    caller = ctx.caller
    assert caller is not None and ctx.caller_token is not None
    return execution_result(
        {
            "subject": caller.subject,
            "issuer": caller.issuer,
            "scopes": sorted(caller.scopes),
            "claims": dict(caller.claims),
            "token_sha256": hashlib.sha256(ctx.caller_token.encode()).hexdigest(),
        }
    )


@tool(description="Use to list nothing; needs a scope.", access=Access(scopes=["orders:read"]))
def orders(ctx: ToolContext) -> ToolResult:
    return entities([])


def test_a_tool_sees_the_caller_and_its_own_token(oauth_issuer: Issuer) -> None:
    business = Business(name=f"whoami{uuid.uuid4().hex[:6]}", tools=[whoami, orders])
    client = McpTestClient.over_handler(build_handler(business, settings_for(oauth_issuer, business.name)))
    token = oauth_issuer.sign(**_claims(oauth_issuer, scope="orders:read extra", email="a@example.com"))

    result = (
        modern(client, token)
        .rpc("tools/call", {"name": "whoami", "arguments": {}})
        .result["structuredContent"]
    )
    assert result == {
        "subject": "alice",
        "issuer": oauth_issuer.url,
        "scopes": ["extra", "orders:read"],
        "claims": {"email": "a@example.com"},
        "token_sha256": hashlib.sha256(token.encode()).hexdigest(),
    }


def test_logs_carry_a_caller_fingerprint_never_the_token_or_claims(
    oauth_issuer: Issuer, capsys: pytest.CaptureFixture[str]
) -> None:
    business = Business(name=f"logs{uuid.uuid4().hex[:6]}", tools=[whoami])
    client = McpTestClient.over_handler(build_handler(business, settings_for(oauth_issuer, business.name)))
    subject = f"subject-{uuid.uuid4().hex}"
    token = oauth_issuer.sign(**_claims(oauth_issuer, sub=subject, email="secret-mail@example.com"))
    capsys.readouterr()

    modern(client, token).rpc("tools/call", {"name": "whoami", "arguments": {}})
    modern(client, "expired." + token.split(".", 1)[1]).rpc("tools/list")

    out = capsys.readouterr().out
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    started = [line for line in lines if line.get("event") == "mcp_tool_call_started"]
    assert started and all(len(line["caller"]) == 16 for line in started)
    assert any(line.get("event") == "mcp_auth_refused" for line in lines)
    for forbidden in (token, token.split(".")[1], subject, "secret-mail@example.com"):
        assert forbidden not in out
