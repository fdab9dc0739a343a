"""The official MCP Python client signs in by itself, behind an API Gateway that hides the challenge header.

A `make run` server (the demo business through the Lambda handler, AUTH_MODE=jwt) runs with
`--remap-www-authenticate`, so its 401 carries `x-amzn-remapped-www-authenticate` instead of `WWW-Authenticate`,
exactly as API Gateway delivers a Lambda's answer. The client (`mcp.client.auth.OAuthClientProvider`) therefore
gets no `resource_metadata` hint and must find the Protected Resource Metadata at the well-known URLs (SEP-985),
then the authorization server (a real oauth2-mock-server process), then run the authorization-code flow with
PKCE. The browser step is driven programmatically: the redirect handler GETs the authorization URL (the mock
server signs the user in at once, here as the `login_hint` user) and hands the code from the redirect back.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from tests.support.oauth import Issuer

from mcp_lambda_dev.local.process import running_server

pytestmark = pytest.mark.interop

REDIRECT_URI = "http://127.0.0.1:1/callback"  # never contacted: the redirect is read, not followed
CLIENT_ID = "mcp-interop-client"


@pytest.fixture(scope="module")
def protected_url(oauth_issuer: Issuer) -> Iterator[str]:
    env = {"AUTH_MODE": "jwt", "AUTH_ISSUER": oauth_issuer.url}
    with running_server("demo", server_args=["--remap-www-authenticate"], **env) as url:
        yield url


class Storage:
    """The client's token storage, with the client registered beforehand (the mock server has no /register)."""

    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client = OAuthClientInformationFull(
            client_id=CLIENT_ID, redirect_uris=[REDIRECT_URI], token_endpoint_auth_method="none"
        )

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


class Browser:
    """The user's browser: opens the authorization URL, signs in as `user`, and returns where it was sent."""

    def __init__(self, user: str) -> None:
        self.user = user
        self.redirect: str | None = None
        self.opened: list[str] = []

    async def open(self, authorization_url: str) -> None:
        url = f"{authorization_url}&{urllib.parse.urlencode({'login_hint': self.user})}"
        self.opened.append(authorization_url)
        async with httpx2.AsyncClient() as http:
            response = await http.get(url)  # the mock server approves at once: 302 to the redirect URI
        assert response.status_code in (302, 303), response.text
        self.redirect = response.headers["location"]

    async def callback(self) -> AuthorizationCodeResult:
        assert self.redirect is not None
        query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.redirect).query))
        return AuthorizationCodeResult(code=query["code"], state=query.get("state"))


async def _session(url: str, user: str, mode: str, steps: Any) -> dict[str, Any]:
    browser = Browser(user)
    seen: list[str] = []

    async def record(request: httpx2.Request) -> None:
        seen.append(f"{request.method} {request.url}")

    provider = OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name="interop", redirect_uris=[REDIRECT_URI], token_endpoint_auth_method="none"
        ),
        storage=Storage(),
        redirect_handler=browser.open,
        callback_handler=browser.callback,
    )
    http = httpx2.AsyncClient(auth=provider, event_hooks={"request": [record]})
    async with http, Client(streamable_http_client(url, http_client=http), mode=mode) as client:
        outcome = await steps(client)
    return {"outcome": outcome, "requests": seen, "browser": browser}


def _raw_unauthenticated(url: str) -> tuple[int, dict[str, str]]:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"}).encode()
    request = urllib.request.Request(
        url,
        data=body,
        method="POST",
        headers={"content-type": "application/json", "accept": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers)
    except urllib.error.HTTPError as exc:
        return exc.code, {k.lower(): v for k, v in exc.headers.items()}


def test_the_challenge_header_is_hidden_as_api_gateway_hides_it(protected_url: str) -> None:
    status, headers = _raw_unauthenticated(protected_url)
    assert status == 401
    assert "www-authenticate" not in headers
    remapped = headers["x-amzn-remapped-www-authenticate"]
    assert remapped.startswith("Bearer resource_metadata=") and "error=" not in remapped  # no token: no code


@pytest.mark.parametrize("mode", ["auto", "legacy"])
def test_the_official_client_discovers_signs_in_lists_and_calls(
    protected_url: str, oauth_issuer: Issuer, mode: str
) -> None:
    async def subscribe_and_list(client: Client) -> dict[str, Any]:
        tools = [tool.name for tool in (await client.list_tools()).tools]
        found = await client.call_tool("search_products", {"keyword": "cup"})
        subscribed = await client.call_tool("subscribe_product", {"product_id": "p-1004", "alert": "restock"})
        mine = await client.call_tool("list_subscriptions", {})
        return {"tools": tools, "found": found, "subscribed": subscribed, "mine": mine}

    user = f"user-{mode}"
    seen = asyncio.run(asyncio.wait_for(_session(protected_url, user, mode, subscribe_and_list), 60))
    outcome, requests = seen["outcome"], seen["requests"]

    assert {"search_products", "subscribe_product", "list_subscriptions"} <= set(outcome["tools"])
    assert not outcome["found"].is_error and not outcome["subscribed"].is_error
    mine = outcome["mine"].structured_content["entities"]
    assert [item["product_id"] for item in mine] == ["p-1004"]

    # With no resource_metadata hint, the client found the metadata at the path-aware well-known URL ...
    origin = protected_url.removesuffix("/mcp")
    assert f"GET {origin}/.well-known/oauth-protected-resource/mcp" in requests
    # ... then the authorization server's metadata, then its token endpoint, all from the local issuer.
    assert any(r.startswith(f"GET {oauth_issuer.url}/.well-known/") for r in requests)
    assert f"POST {oauth_issuer.url}/token" in requests
    # The authorization request asked for the scopes the metadata advertises, for this resource (RFC 8707).
    (opened,) = seen["browser"].opened
    query = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(opened).query))
    assert set(query["scope"].split()) == {"catalogue:costs", "subscriptions:read", "subscriptions:write"}
    assert query["resource"] == protected_url and query["code_challenge_method"] == "S256"


def test_another_user_of_the_official_client_sees_only_its_own_subscriptions(protected_url: str) -> None:
    async def subscribe(client: Client) -> Any:
        await client.call_tool("subscribe_product", {"product_id": "p-2003", "alert": "restock"})
        return (await client.call_tool("list_subscriptions", {})).structured_content["entities"]

    async def only_list(client: Client) -> Any:
        return (await client.call_tool("list_subscriptions", {})).structured_content["entities"]

    first = asyncio.run(asyncio.wait_for(_session(protected_url, "grace", "auto", subscribe), 60))
    second = asyncio.run(asyncio.wait_for(_session(protected_url, "heidi", "auto", only_list), 60))
    assert [item["product_id"] for item in first["outcome"]] == ["p-2003"]
    assert second["outcome"] == []
