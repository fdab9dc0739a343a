"""Who is calling: the authenticated caller as tools see it (`ctx.caller`), the one principal string every piece
of state is scoped by, and the RFC 6750 challenges that tell a client how to authenticate."""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any
from urllib.parse import quote

# RFC 6749 §3.3 scope-token: printable ASCII except space, '"' and '\'.
SCOPE_TOKEN = re.compile(r"^[\x21\x23-\x5b\x5d-\x7e]+$")
# The claims naming the application a token was issued to, in order: OIDC's `azp`, then RFC 9068's `client_id`.
CLIENT_CLAIMS = ("azp", "client_id")


def principal_of(kind: str, issuer: str | None, subject: str, client: str | None = None) -> str:
    """An unambiguous encoding of (authorizer kind, issuer, subject[, client]).

    Each part is percent-encoded, so the `:` separators never occur inside one: issuer "https://a|x" with subject
    "y" differs from issuer "https://a" with subject "x|y", and a JWT `sub` never equals a Lambda authorizer's
    principal of the same name. With `client` (PRINCIPAL_BINDING=user_and_client) there is a fourth part, so a
    user's principal under one application never equals its principal under another, nor its user-only one.

    Args:
        kind: Who vouched for the caller ("jwt" or "lambda").
        issuer: The token's issuer, if any.
        subject: The token's `sub` (a Lambda authorizer's `principalId`).
        client: The application the principal is also bound to; None binds it to the user alone.

    Returns:
        The principal string sessions, tasks, exactly-once records and `requestState` are keyed by.
    """
    parts = (kind, issuer or "", subject) if client is None else (kind, issuer or "", subject, client)
    # Bytes with surrogatepass: a claim may hold a lone surrogate ("\ud800" is valid JSON), never a 500.
    return ":".join(quote(part.encode("utf-8", "surrogatepass"), safe="") for part in parts)


def client_of(claims: Mapping[str, Any]) -> str | None:
    """The application a token was issued to: its `azp`, else its `client_id`; None when it names neither.

    Args:
        claims: The token's claims (or an API Gateway authorizer's claims or Lambda context).

    Returns:
        The client id; None when no claim names one.
    """
    for name in CLIENT_CLAIMS:
        value = claims.get(name)
        if isinstance(value, str) and value:
            return value
    return None


def scopes_of(claims: Mapping[str, Any]) -> frozenset[str]:
    """The granted scopes: OAuth's space-separated `scope`, or `scp` (a list or a string, as some issuers send)."""
    found: set[str] = set()
    for name in ("scope", "scp"):
        value = claims.get(name)
        if isinstance(value, str):
            # API Gateway hands a JSON array claim over as the text "[a b]".
            found.update(value.strip("[]").split())
        elif isinstance(value, list):
            found.update(item for item in value if isinstance(item, str))
    return frozenset(scope for scope in found if SCOPE_TOKEN.match(scope))


@dataclass(frozen=True)
class Caller:
    """The authenticated caller of one request.

    `kind` says who vouched for it ("jwt": a verified bearer JWT, by this function or the HTTP API's JWT
    authorizer; "lambda": a Lambda authorizer). `claims` holds only the claims named by AUTH_CALLER_CLAIMS.
    `client` is the application the token was issued to (`azp`, else `client_id`), when it names one;
    `binds_client` (PRINCIPAL_BINDING=user_and_client) makes it part of the principal. Neither the claims, the
    subject nor the principal are ever logged: log lines carry a keyed fingerprint of the principal
    (`tools.fingerprints.LogFingerprints`).
    """

    kind: str
    subject: str
    issuer: str | None = None
    scopes: frozenset[str] = frozenset()
    claims: Mapping[str, Any] = field(default_factory=dict)
    client: str | None = None
    binds_client: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "claims", MappingProxyType(dict(self.claims)))

    @cached_property
    def principal(self) -> str:
        """What sessions, exactly-once records, tasks and `requestState` are bound to: the user, and with
        `binds_client` the application too (a token naming no client is then its own, client-less one)."""
        client = (self.client or "") if self.binds_client else None
        return principal_of(self.kind, self.issuer, self.subject, client)

    def has_scopes(self, required: Collection[str]) -> bool:
        """Whether the caller's token grants every one of `required`.

        Args:
            required: Scope names as tools declare them (`@tool(access=Access(scopes=[...]))`).

        Returns:
            True when each is among `scopes`.
        """
        return set(required) <= self.scopes


@dataclass(frozen=True)
class RequestAuth:
    """How one request was authenticated: the caller (if any), its bearer token, and the protection in force.

    `resource_metadata` is set when this server is an OAuth resource server (AUTH_MODE jwt or apigateway): tool
    scopes are then enforced, and a missing scope is answered with a step-up challenge naming that URL.
    """

    caller: Caller | None = None
    # The caller's own access token, for on-behalf-of calls downstream; never logged, never in a repr.
    token: str | None = field(default=None, repr=False)
    resource_metadata: str | None = None
    # What the issuer puts before every scope name (AUTH_SCOPE_PREFIX), for the scope a challenge asks for.
    scope_prefix: str = ""

    @property
    def enforced(self) -> bool:
        return self.resource_metadata is not None

    @property
    def principal(self) -> str | None:
        return self.caller.principal if self.caller is not None else None

    def allows(self, required: Collection[str]) -> bool:
        """Whether the caller holds every scope in `required` (always, when scopes are not enforced)."""
        if not self.enforced or not required:
            return True
        return self.caller is not None and self.caller.has_scopes(required)

    def step_up(self, required: Collection[str]) -> dict[str, str]:
        """The 403 headers asking the client to re-authorize with `required` (RFC 6750 §3.1, SEP-2350)."""
        challenge = bearer_challenge(
            "insufficient_scope",
            self.resource_metadata,
            scope=" ".join(self.scope_prefix + scope for scope in sorted(required)),
            description="the access token lacks a scope this call needs",
        )
        return {"www-authenticate": challenge}


NO_AUTH = RequestAuth()


def without_prefix(scopes: frozenset[str], prefix: str) -> frozenset[str]:
    """Scopes as tools name them: only those carrying the issuer's prefix (Cognito: `<resource server id>/`),
    with it taken off; others (`openid`, `email`) are not this resource's scopes."""
    if not prefix:
        return scopes
    return frozenset(scope[len(prefix) :] for scope in scopes if scope.startswith(prefix) and scope != prefix)


def _quoted(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def bearer_challenge(
    error: str | None,
    resource_metadata: str | None,
    *,
    scope: str | None = None,
    description: str | None = None,
) -> str:
    """A `WWW-Authenticate: Bearer ...` value (RFC 6750 §3, with RFC 9728's `resource_metadata`)."""
    params = {
        "resource_metadata": resource_metadata,
        "error": error,
        "error_description": description,
        "scope": scope,
    }
    return "Bearer " + ", ".join(f"{name}={_quoted(value)}" for name, value in params.items() if value)
