"""PRINCIPAL_BINDING with AUTH_MODE=jwt against a real authorization server process (oauth2-mock-server): two
tokens for one user (`sub`), signed for two applications (`azp`, or `client_id` as Cognito names it), reach each
other's state only when state is bound to the user alone."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from tests.support.oauth import Issuer
from tests.support.principal_binding import ALL_SCOPES, demo_handler, reached

from mcp_lambda.settings import Settings
from mcp_lambda.testing import MODERN, McpTestClient

RESOURCE = "https://localhost/mcp"


def with_token(handler: Any, token: str) -> McpTestClient:
    """A client of the handler whose every request carries one bearer token."""
    return McpTestClient.over_handler(handler, headers={"authorization": f"Bearer {token}"})


def jwt_handler(issuer: Issuer, binding: str) -> Any:
    settings = Settings(business="demo", auth_mode="jwt", auth_issuer=issuer.url, principal_binding=binding)
    return demo_handler(settings)


def as_app_of(handler: Any, issuer: Issuer, claim: str = "azp") -> Any:
    subject = f"user-{uuid.uuid4().hex[:8]}"

    def as_app(app: str) -> McpTestClient:
        token = issuer.sign(sub=subject, aud=RESOURCE, scope=" ".join(ALL_SCOPES), **{claim: app})
        return with_token(handler, token)

    return as_app


@pytest.mark.parametrize("claim", ["azp", "client_id"])
def test_bound_to_the_client_another_applications_token_reaches_none_of_the_state(
    oauth_issuer: Issuer, claim: str
) -> None:
    handler = jwt_handler(oauth_issuer, "user_and_client")
    expected = {"session": False, "task": False, "exactly_once": False, "subscriptions": False}
    assert reached(as_app_of(handler, oauth_issuer, claim)) == expected


def test_bound_to_the_user_every_applications_token_reaches_the_same_state(oauth_issuer: Issuer) -> None:
    handler = jwt_handler(oauth_issuer, "user")
    expected = {"session": True, "task": True, "exactly_once": True, "subscriptions": True}
    assert reached(as_app_of(handler, oauth_issuer)) == expected


def test_bound_to_the_client_a_token_naming_no_client_gets_401(oauth_issuer: Issuer) -> None:
    token = oauth_issuer.sign(sub="alice", aud=RESOURCE, azp=None, client_id=None)
    refused = (
        with_token(jwt_handler(oauth_issuer, "user_and_client"), token)
        .clone(era=MODERN, capabilities={})
        .rpc("tools/list")
    )
    assert refused.status == 401 and "names no client" in refused.error["message"]
    served = (
        with_token(jwt_handler(oauth_issuer, "user"), token)
        .clone(era=MODERN, capabilities={})
        .rpc("tools/list")
    )
    assert served.status == 200
