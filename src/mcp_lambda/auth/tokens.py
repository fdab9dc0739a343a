"""Bearer JWT validation (AUTH_MODE=jwt) with PyJWT: the issuer's keys from its JWKS (`jwks.IssuerKeyClient`,
cached per container), RS256/ES256 only, `iss`, `aud`, `exp`/`nbf` with a small leeway. PyJWT, cryptography and
urllib3 are imported only in this mode, so the other modes pay nothing for them at cold start.

Every failure of the issuer (its metadata or its JWKS unreachable, slow, too large, not JSON, of the wrong shape,
without a usable key) is a 503 with Retry-After; after one, the issuer is asked again `ISSUER_RETRY_SECONDS` later
(the same Retry-After), so the container recovers on its own when the issuer does."""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from ..caller import Caller, client_of, scopes_of
from .errors import AuthFailure, unavailable
from .issuer import FETCH_TIMEOUT_SECONDS, fetch_json

if TYPE_CHECKING:
    import urllib3
    from jwt import PyJWK

    from .jwks import IssuerKeyClient

# Asymmetric only: an HMAC algorithm would let anyone holding the public key mint tokens, and "none" signs nothing.
ALGORITHMS = ("RS256", "ES256")
LEEWAY_SECONDS = 30
JWKS_CACHE_SECONDS = 300
# An unknown `kid` refetches the JWKS at most this often (a rotated-in key is found; junk kids cannot hammer it).
UNKNOWN_KID_COOLDOWN_SECONDS = 10
ISSUER_RETRY_SECONDS = 5  # as the Retry-After that errors.unavailable() sends
MAX_CLAIM_TEXT = 512


class JwtVerifier:
    """Validates access tokens of one issuer and returns the Caller they name."""

    def __init__(
        self,
        issuer: str,
        jwks_url: str | None = None,
        exposed_claims: Sequence[str] = (),
        http: urllib3.PoolManager | None = None,
    ) -> None:
        self.issuer = issuer
        self.exposed_claims = tuple(exposed_claims)
        self._jwks_url = jwks_url
        import urllib3

        self._http = http or urllib3.PoolManager(
            timeout=urllib3.Timeout(connect=FETCH_TIMEOUT_SECONDS, read=FETCH_TIMEOUT_SECONDS),
            retries=urllib3.Retry(total=1, read=0, backoff_factor=0.2, redirect=0),  # a slow issuer: once
        )
        self._client: IssuerKeyClient | None = None
        self._lock = threading.Lock()
        self._discovery_failed_at = -float("inf")

    def verify(self, token: str, audiences: Sequence[str]) -> Caller:
        """The caller a valid token names; AuthFailure saying why it is not valid."""
        import jwt

        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError:
            raise AuthFailure("the access token is not a well-formed JWT") from None
        if header.get("alg") not in ALGORITHMS:
            raise AuthFailure("the access token is not signed with an accepted algorithm (RS256 or ES256)")
        key = self._signing_key(header.get("kid"))
        try:
            claims: dict[str, Any] = jwt.decode(
                token,
                key,
                algorithms=list(ALGORITHMS),
                issuer=self.issuer,
                leeway=LEEWAY_SECONDS,
                options={"require": ["exp", "iss", "sub"], "verify_aud": False},
            )
        except jwt.ExpiredSignatureError:
            raise AuthFailure("the access token has expired") from None
        except jwt.ImmatureSignatureError:
            raise AuthFailure("the access token is not valid yet (nbf/iat)") from None
        except jwt.InvalidIssuerError:
            raise AuthFailure("the access token was issued by another issuer") from None
        except jwt.MissingRequiredClaimError as exc:
            raise AuthFailure(f"the access token has no '{exc.claim}' claim") from None
        except jwt.InvalidAlgorithmError:
            raise AuthFailure("the access token's algorithm does not match its signing key") from None
        except jwt.InvalidSignatureError:
            raise AuthFailure("the access token's signature is not valid") from None
        except jwt.PyJWTError:
            raise AuthFailure("the access token is not valid") from None
        if not _issued_for(claims, audiences):
            raise AuthFailure("the access token was not issued for this resource (aud)")
        subject = claims.get("sub")
        if not isinstance(subject, str) or not subject:
            raise AuthFailure("the access token has no 'sub' claim")
        return Caller(
            kind="jwt",
            subject=subject,
            issuer=self.issuer,
            scopes=scopes_of(claims),
            claims=selected_claims(claims, self.exposed_claims),
            client=client_of(claims),
        )

    def _signing_key(self, kid: Any) -> PyJWK:
        import jwt

        client = self._jwks_client()
        try:
            if isinstance(kid, str) and kid:
                return client.get_signing_key(kid)
            keys = client.get_signing_keys()
        except jwt.PyJWKClientError:
            # The key set itself is usable (IssuerKeyClient checked it): the token names a key not in it.
            raise AuthFailure("the access token is signed by a key the issuer does not publish") from None
        if len(keys) != 1:  # without a `kid` only a single published key is unambiguous
            raise AuthFailure("the access token names no signing key (kid)")
        return keys[0]

    def _jwks_client(self) -> IssuerKeyClient:
        if self._client is not None:
            return self._client
        with self._lock:
            if self._client is None:
                from .jwks import IssuerKeyClient

                uri = self._jwks_url or self._discover_jwks_url()
                self._client = IssuerKeyClient(
                    uri,
                    self._http,
                    lifespan=JWKS_CACHE_SECONDS,
                    cooldown_duration=UNKNOWN_KID_COOLDOWN_SECONDS,
                    retry_seconds=ISSUER_RETRY_SECONDS,
                )
        return self._client

    def _discover_jwks_url(self) -> str:
        """`jwks_uri` from the issuer's OpenID configuration, else its RFC 8414 authorization server metadata."""
        if time.monotonic() - self._discovery_failed_at < ISSUER_RETRY_SECONDS:
            raise unavailable("the issuer's metadata could not be fetched moments ago; retry later")
        failure = unavailable("the issuer's metadata names no JWKS (jwks_uri) for this issuer; retry later")
        for url in discovery_urls(self.issuer):
            try:
                document = fetch_json(self._http, url, "the issuer's metadata")
            except AuthFailure as exc:
                failure = exc
                continue
            # OIDC Discovery §4.3 / RFC 8414 §3.3: the document must name the issuer it was fetched for.
            if isinstance(document, dict) and document.get("issuer") == self.issuer:
                jwks_uri = document.get("jwks_uri")
                if isinstance(jwks_uri, str) and urlsplit(jwks_uri).scheme in ("http", "https"):
                    return jwks_uri
        self._discovery_failed_at = time.monotonic()
        raise failure


def discovery_urls(issuer: str) -> list[str]:
    """OpenID Connect Discovery (path appended), then RFC 8414 (well-known segment inserted)."""
    split = urlsplit(issuer)
    path = split.path.rstrip("/")
    origin = f"{split.scheme}://{split.netloc}"
    return [
        f"{origin}{path}/.well-known/openid-configuration",
        f"{origin}/.well-known/oauth-authorization-server{path}",
    ]


def _issued_for(claims: dict[str, Any], audiences: Sequence[str]) -> bool:
    """`aud` names one of `audiences`; a token without `aud` is checked by `client_id` instead, as API Gateway's
    JWT authorizer does (Cognito access tokens carry no `aud`). Hand-written because PyJWT has no such fallback."""
    wanted = {audience.rstrip("/") for audience in audiences}
    aud = claims.get("aud")
    if aud is None:
        client_id = claims.get("client_id")
        return isinstance(client_id, str) and client_id in wanted
    values = [aud] if isinstance(aud, str) else aud if isinstance(aud, list) else []
    return any(isinstance(value, str) and value.rstrip("/") in wanted for value in values)


def selected_claims(claims: Mapping[str, Any], names: Sequence[str]) -> dict[str, Any]:
    """The named claims a tool may read: strings, numbers, booleans and lists of strings, bounded in size."""
    chosen: dict[str, Any] = {}
    for name in names:
        value = claims.get(name)
        if isinstance(value, str):
            chosen[name] = value[:MAX_CLAIM_TEXT]
        elif isinstance(value, bool | int | float):
            chosen[name] = value
        elif isinstance(value, list) and all(isinstance(item, str) for item in value):
            chosen[name] = [item[:MAX_CLAIM_TEXT] for item in value[:50]]
    return chosen
