"""Who is calling, as AUTH_MODE says to find out.

- `none`: nothing is checked; claims an API Gateway authorizer put in the event, if any, still name the caller.
- `apigateway`: the HTTP API's JWT authorizer has validated the token; its claims name the caller, and a request
  without them is refused (a route left without the authorizer must not serve anonymous callers).
- `jwt`: this function validates the bearer JWT itself (`tokens.JwtVerifier`).

In both protecting modes a refusal is a 401 whose `WWW-Authenticate` names the Protected Resource Metadata URL;
it carries `error="invalid_token"` only when the request offered a bearer token (RFC 6750 §3.1: a request with no
authentication information, or another scheme, gets no error code).
With PRINCIPAL_BINDING=user_and_client the caller's principal names its application too (`azp`, else
`client_id`), and in those modes a caller whose token names no application is refused.
"""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..caller import Caller, RequestAuth, bearer_challenge, client_of, scopes_of, without_prefix
from ..settings import Settings, SettingsError
from .errors import AuthFailure
from .metadata import metadata_url, protected_resource_metadata, resource_url
from .tokens import JwtVerifier, selected_claims

if TYPE_CHECKING:
    from starlette.requests import Request  # the app's metadata route only

# RFC 6750 §2.1: `Bearer <b64token>`.
BEARER = re.compile(r"^bearer +([A-Za-z0-9\-._~+/]+=*)$", re.IGNORECASE)
MAX_TOKEN_LENGTH = 16 * 1024
NO_CLIENT_REASON = (
    "the access token names no client (azp or client_id), and this server binds state to the client"
)


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header; None for no header or another scheme."""
    if not authorization or len(authorization) > MAX_TOKEN_LENGTH:
        return None
    match = BEARER.match(authorization.strip())
    return match.group(1) if match else None


def authorizer_caller(event: Mapping[str, Any], exposed_claims: Sequence[str] = ()) -> Caller | None:
    """The caller an API Gateway authorizer vouched for: JWT claims (`sub`, `iss`), or a Lambda authorizer's
    `principalId`; None when the event carries neither."""
    authorizer = _mapping(_mapping(event.get("requestContext")).get("authorizer"))
    jwt = _mapping(authorizer.get("jwt"))
    claims = _mapping(jwt.get("claims"))
    subject = claims.get("sub")
    if isinstance(subject, str) and subject:
        issuer = claims.get("iss")
        granted = set(scopes_of(claims))
        if isinstance(jwt.get("scopes"), list):
            granted.update(scopes_of({"scp": jwt["scopes"]}))
        return Caller(
            kind="jwt",
            subject=subject,
            issuer=issuer if isinstance(issuer, str) and issuer else None,
            scopes=frozenset(granted),
            claims=selected_claims(claims, exposed_claims),
            client=client_of(claims),
        )
    context = _mapping(authorizer.get("lambda"))
    principal = context.get("principalId")
    if isinstance(principal, str) and principal:
        return Caller(
            kind="lambda",
            subject=principal,
            scopes=scopes_of(context),
            claims=selected_claims(context, exposed_claims),
            client=client_of(context),
        )
    return None


def _mapping(value: Any) -> Mapping[str, Any]:
    # The event is API Gateway's, but a malformed one must still get an answer, not a 500.
    if value is None or type(value) is dict:  # the usual cases, without the Mapping ABC's check
        return value or {}
    return value if isinstance(value, Mapping) else {}


def require_jwt_support() -> None:
    """AUTH_MODE=jwt needs PyJWT and cryptography, which make build ships only for a stack with AuthMode=jwt."""
    if importlib.util.find_spec("jwt") is None or importlib.util.find_spec("cryptography") is None:
        raise SettingsError(
            "AUTH_MODE=jwt needs PyJWT[crypto], which this package does not include: build it with AuthMode=jwt "
            'in the deploy parameters (make build DEPLOY_PARAMS="AuthMode=jwt ...")'
        )


class Authenticator:
    """One per container: turns a request into its RequestAuth, or refuses it with AuthFailure."""

    def __init__(self, settings: Settings, verifier: JwtVerifier | None = None) -> None:
        self.settings = settings
        self.mode = settings.auth_mode
        self.issuer = settings.auth_issuer or ""
        self.exposed_claims = settings.auth_caller_claims
        self.scope_prefix = settings.auth_scope_prefix
        self.binds_client = settings.principal_binding == "user_and_client"
        if self.mode == "jwt" and verifier is None:
            require_jwt_support()
            verifier = JwtVerifier(self.issuer, settings.auth_jwks_url, self.exposed_claims)
        self.verifier = verifier

    @property
    def protects(self) -> bool:
        """Whether this server is an OAuth resource server (and so serves Protected Resource Metadata)."""
        return self.mode != "none"

    def authenticate(self, headers: Mapping[str, str], event: Mapping[str, Any]) -> RequestAuth:
        """Who sends the request, or why it is refused.

        Args:
            headers: The request's headers (names in lower case).
            event: The API Gateway event that carried it (its authorizer's claims; empty outside Lambda).

        Raises:
            AuthFailure: The request is refused (its status and challenge headers set).
        """
        authorization = headers.get("authorization")
        if not self.protects:
            caller = self._named(authorizer_caller(event, self.exposed_claims))
            return RequestAuth(caller, bearer_token(authorization) if caller else None)
        resource = resource_url(self.settings, headers, event)
        protected = metadata_url(resource)
        offered = offers_bearer(authorization)  # whether the request carried authentication information
        try:
            token = bearer_token(authorization)
            if self.mode == "apigateway":
                caller = authorizer_caller(event, self.exposed_claims)
                if caller is None:
                    raise AuthFailure("no authenticated caller: the API Gateway authorizer passed no claims")
                offered = True  # the authorizer validated a token: a refusal now is of that token
            else:
                if token is None:
                    raise AuthFailure(_missing_token_reason(authorization))
                assert self.verifier is not None
                caller = self.verifier.verify(token, self.settings.auth_audience or (resource,))
            if self.binds_client and caller.client is None:
                raise AuthFailure(NO_CLIENT_REASON)
        except AuthFailure as failure:
            failure.headers = _refusal_headers(failure, protected, offered)
            raise
        return RequestAuth(self._named(caller), token, protected, self.scope_prefix)

    def _named(self, caller: Caller | None) -> Caller | None:
        """The caller with its scopes as tools name them (AUTH_SCOPE_PREFIX taken off), bound to its
        application when PRINCIPAL_BINDING says so."""
        if caller is None:
            return None
        if self.scope_prefix:
            caller = replace(caller, scopes=without_prefix(caller.scopes, self.scope_prefix))
        return replace(caller, binds_client=True) if self.binds_client else caller

    def metadata(self, request: Request, scopes: Sequence[str], name: str | None) -> dict[str, Any]:
        """The Protected Resource Metadata, scopes named as the issuer names them (with AUTH_SCOPE_PREFIX)."""
        advertised = [self.scope_prefix + scope for scope in scopes]
        return protected_resource_metadata(
            resource_url(self.settings, request.headers, request.scope.get("aws.event") or {}),
            self.issuer,
            advertised,
            name,
        )


def _missing_token_reason(authorization: str | None) -> str:
    if not authorization:
        return "no access token: send Authorization: Bearer <token>"
    return "the Authorization header does not carry a Bearer token"


def offers_bearer(authorization: str | None) -> bool:
    """Whether an Authorization header uses the Bearer scheme (whatever its token is worth)."""
    words = (authorization or "").split(None, 1)
    return bool(words) and words[0].lower() == "bearer"


def _refusal_headers(failure: AuthFailure, resource_metadata: str, offered: bool) -> dict[str, str]:
    if failure.status == 503:
        return {"retry-after": str(failure.retry_after_seconds or 5)}
    if (
        not offered
    ):  # RFC 6750 §3.1: no authentication information, so no error code: only where to get a token
        return {"www-authenticate": bearer_challenge(None, resource_metadata)}
    challenge = bearer_challenge("invalid_token", resource_metadata, description=failure.reason)
    return {"www-authenticate": challenge}
