"""PRINCIPAL_BINDING: whether another application's token for the same user reaches the first one's state, with
AUTH_MODE=apigateway (the HTTP API's JWT authorizer claims) and in the principal encoding itself. The same
scenario against a real authorization server (AUTH_MODE=jwt) is in tests/integration/test_principal_binding_jwt.py.
"""

from __future__ import annotations

import uuid
from types import MappingProxyType
from typing import Any

import pytest
from tests.support.principal_binding import ALL_SCOPES, demo_handler, reached

from mcp_lambda.auth import authorizer_caller
from mcp_lambda.caller import Caller, client_of, principal_of
from mcp_lambda.settings import Settings, SettingsError
from mcp_lambda.testing import MODERN, Identity, McpTestClient, authorizer_context

ISSUER = "https://issuer.example"
NOTHING = {"session": False, "task": False, "exactly_once": False, "subscriptions": False}
EVERYTHING = {"session": True, "task": True, "exactly_once": True, "subscriptions": True}


def gateway(binding: str) -> Any:
    settings = Settings(
        business="demo", auth_mode="apigateway", auth_issuer=ISSUER, principal_binding=binding
    )
    return demo_handler(settings)


def as_app_of(handler: Any, subject: str, claim: str = "azp") -> Any:
    def as_app(app: str) -> McpTestClient:
        identity = Identity(subject, scopes=ALL_SCOPES, claims={claim: app})
        return McpTestClient.over_handler(handler, authorizer=authorizer_context(identity, ISSUER))

    return as_app


@pytest.mark.parametrize("claim", ["azp", "client_id"])
def test_bound_to_the_client_another_application_of_the_same_user_reaches_none_of_its_state(
    claim: str,
) -> None:
    handler = gateway("user_and_client")
    assert reached(as_app_of(handler, f"u-{uuid.uuid4().hex[:8]}", claim)) == NOTHING


def test_bound_to_the_user_every_application_of_the_user_shares_its_state() -> None:
    handler = gateway("user")
    assert reached(as_app_of(handler, f"u-{uuid.uuid4().hex[:8]}")) == EVERYTHING


def test_the_default_binding_is_the_user() -> None:
    assert Settings().principal_binding == "user"
    handler = demo_handler(Settings(business="demo", auth_mode="apigateway", auth_issuer=ISSUER))
    assert reached(as_app_of(handler, f"u-{uuid.uuid4().hex[:8]}")) == EVERYTHING


def test_bound_to_the_client_a_token_naming_no_client_is_refused_with_401() -> None:
    nameless = authorizer_context(Identity("alice", scopes=ALL_SCOPES), ISSUER)
    refused = McpTestClient.over_handler(
        gateway("user_and_client"), authorizer=nameless, era=MODERN, capabilities={}
    ).rpc("tools/list")
    assert refused.status == 401 and refused.error["code"] == -32011
    assert "names no client (azp or client_id)" in refused.error["message"]
    assert 'error="invalid_token"' in refused.headers["www-authenticate"]

    served = McpTestClient.over_handler(
        gateway("user"), authorizer=nameless, era=MODERN, capabilities={}
    ).rpc("tools/list")
    assert served.status == 200


def test_the_client_is_azp_else_client_id() -> None:
    assert client_of({"azp": "web", "client_id": "cli"}) == "web"
    assert client_of({"client_id": "cli"}) == "cli"
    assert client_of({"azp": "", "client_id": 7}) is None
    claims = {"jwt": {"claims": {"sub": "alice", "iss": ISSUER, "client_id": "cli"}, "scopes": None}}
    caller = authorizer_caller({"requestContext": {"authorizer": claims}})
    assert caller is not None and caller.client == "cli" and not caller.binds_client
    lambda_context = {"lambda": {"principalId": "svc", "client_id": "batch"}}
    lambda_caller = authorizer_caller({"requestContext": {"authorizer": lambda_context}})
    assert lambda_caller is not None and lambda_caller.client == "batch"


def test_a_client_bound_principal_never_equals_another_clients_or_the_users() -> None:
    alice = {"kind": "jwt", "subject": "alice", "issuer": ISSUER}
    users = Caller(**alice, client="web").principal
    web = Caller(**alice, client="web", binds_client=True).principal
    cli = Caller(**alice, client="cli", binds_client=True).principal
    nameless = Caller(**alice, binds_client=True).principal
    assert users == principal_of("jwt", ISSUER, "alice")  # the user binding is what it always was
    assert len({users, web, cli, nameless}) == 4
    # The parts are percent-encoded: a `:` in a subject or a client cannot shift the boundary between them.
    assert principal_of("jwt", ISSUER, "alice:web", None) != principal_of("jwt", ISSUER, "alice", "web")
    assert principal_of("jwt", ISSUER, "alice", "a:b") != principal_of("jwt", ISSUER, "alice:a", "b")


def test_none_mode_binds_an_authorizer_caller_to_its_client_too() -> None:
    handler = demo_handler(Settings(business="demo", principal_binding="user_and_client"))
    assert reached(as_app_of(handler, f"u-{uuid.uuid4().hex[:8]}")) == NOTHING


def test_principal_binding_is_read_from_the_environment() -> None:
    assert Settings.from_env({"PRINCIPAL_BINDING": "user_and_client"}).principal_binding == "user_and_client"
    with pytest.raises(SettingsError, match="PRINCIPAL_BINDING"):
        Settings.from_env({"PRINCIPAL_BINDING": "client"})


def test_an_authorizer_context_read_as_any_mapping_or_missing() -> None:
    """A hand-made event's parts may be any Mapping (a read-only view) or null: read as objects, never a 500."""
    claims = MappingProxyType({"sub": "alice", "iss": ISSUER})
    jwt = MappingProxyType({"jwt": MappingProxyType({"claims": claims})})
    caller = authorizer_caller({"requestContext": MappingProxyType({"authorizer": jwt})})
    assert caller is not None and caller.subject == "alice"
    assert authorizer_caller({"requestContext": {"authorizer": None}}) is None
    assert authorizer_caller({"requestContext": None}) is None
    assert authorizer_caller({"requestContext": {"authorizer": {"jwt": ["not", "an", "object"]}}}) is None
