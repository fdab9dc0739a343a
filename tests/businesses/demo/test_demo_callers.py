"""Who calls: each caller sees only its own subscriptions, and the subscription tools need their scopes once the
server is an OAuth resource server (AUTH_MODE apigateway or jwt)."""

from __future__ import annotations

import uuid

import pytest

from businesses.demo import BUSINESS
from mcp_lambda.testing import Identity, McpTestClient, ProtocolError

RESTOCK = {"product_id": "p-2003", "alert": "restock"}


def _identity(*scopes: str) -> Identity:
    return Identity(f"user-{uuid.uuid4().hex[:8]}", scopes=scopes)


@pytest.mark.parametrize("auth_mode", ["none", "apigateway", "jwt"])
@pytest.mark.parametrize("era", ["2026-07-28", "2024-11-05"])
def test_each_caller_lists_only_its_own_subscriptions(auth_mode: str, era: str) -> None:
    alice = _identity("subscriptions:read", "subscriptions:write")
    bob = _identity("subscriptions:read")
    with McpTestClient(BUSINESS, era, settings={"auth_mode": auth_mode}, caller=alice) as as_alice:
        created = as_alice.call_tool("subscribe_product", RESTOCK)
        with as_alice.as_caller(bob) as as_bob:
            theirs = as_bob.call_tool("list_subscriptions")
        mine = as_alice.call_tool("list_subscriptions")

    assert [item["subscription_id"] for item in mine.entities] == [
        created.structured_content["subscription_id"]
    ]
    assert theirs.entities == [] and theirs.text.startswith("No product alerts yet")


@pytest.mark.parametrize("auth_mode", ["apigateway", "jwt"])
def test_a_caller_without_the_write_scope_cannot_subscribe(auth_mode: str) -> None:
    with McpTestClient(
        BUSINESS, settings={"auth_mode": auth_mode}, caller=_identity("subscriptions:read")
    ) as client:
        listed = {tool["name"] for tool in client.list_tools()}
        with pytest.raises(ProtocolError) as refused:
            client.call_tool("subscribe_product", RESTOCK)

    assert "subscribe_product" not in listed and "list_subscriptions" in listed
    assert (refused.value.http_status, refused.value.data) == (
        403,
        {"requiredScopes": ["subscriptions:write"]},
    )
    assert 'scope="subscriptions:write"' in refused.value.headers["www-authenticate"]


@pytest.mark.parametrize("auth_mode", ["apigateway", "jwt"])
def test_an_anonymous_caller_is_refused_with_a_challenge(auth_mode: str) -> None:
    with pytest.raises(ProtocolError) as refused:
        McpTestClient(BUSINESS, settings={"auth_mode": auth_mode}).list_tools()

    assert refused.value.http_status == 401
    assert refused.value.headers["www-authenticate"].startswith("Bearer ")


def test_without_authentication_every_tool_is_served_to_anyone() -> None:
    with McpTestClient(BUSINESS, "2024-11-05") as anonymous:
        names = {tool["name"] for tool in anonymous.list_tools()}

    assert {"subscribe_product", "list_subscriptions"} <= names
