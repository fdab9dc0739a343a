"""Who calls: an `Identity` and how each AUTH_MODE sees it (API Gateway authorizer claims, or a bearer JWT the
kit's own issuer signs and serves the keys of on 127.0.0.1)."""

from __future__ import annotations

import atexit
import json
import threading
import time
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# The issuer an `apigateway` Identity names when neither it nor the settings name one.
DEFAULT_ISSUER = "https://issuer.example"
# The resource URL the handler derives from the kit's events (Host localhost, stage $default).
DEFAULT_AUDIENCE = "https://localhost/mcp"


@dataclass(frozen=True)
class Identity:
    """A caller: who it is, who vouched for it, and the scopes it was granted.

    Args:
        subject: The `sub` claim.
        scopes: The scopes granted, named as the tools name them (the kit adds AUTH_SCOPE_PREFIX).
        issuer: The `iss` claim; by default the settings' AUTH_ISSUER (jwt: the kit's issuer).
        claims: More claims for the token or the authorizer context (`email`, `client_id`, ...).
    """

    subject: str
    scopes: tuple[str, ...] = ()
    issuer: str | None = None
    claims: Mapping[str, Any] = field(default_factory=dict)

    def all_claims(self, issuer: str, scope_prefix: str = "") -> dict[str, Any]:
        """The claims of this identity as its issuer would state them.

        Args:
            issuer: The issuer to name when the identity names none.
            scope_prefix: What the issuer puts before every scope name (AUTH_SCOPE_PREFIX).

        Returns:
            `sub`, `iss`, `scope` (space-separated) and the extra claims.
        """
        claims: dict[str, Any] = {"sub": self.subject, "iss": self.issuer or issuer}
        if self.scopes:
            claims["scope"] = " ".join(scope_prefix + scope for scope in self.scopes)
        return {**claims, **self.claims}


def authorizer_context(
    identity: Identity, issuer: str = DEFAULT_ISSUER, scope_prefix: str = ""
) -> dict[str, Any]:
    """`requestContext.authorizer` as an HTTP API JWT authorizer sets it for `identity` (AUTH_MODE=apigateway).

    Args:
        identity: The caller.
        issuer: The issuer to name when the identity names none.
        scope_prefix: What the issuer puts before every scope name.

    Returns:
        `{"jwt": {"claims": {...}, "scopes": [...] | None}}`, claim values as strings as API Gateway passes them.
    """
    claims = {
        name: value if isinstance(value, str) else json.dumps(value)
        for name, value in identity.all_claims(issuer, scope_prefix).items()
    }
    scopes = [scope_prefix + scope for scope in identity.scopes] or None
    return {"jwt": {"claims": claims, "scopes": scopes}}


class LocalIssuer:
    """An OAuth issuer for AUTH_MODE=jwt tests: an RSA key, its JWKS served on 127.0.0.1, tokens signed with it.

    Use it as a context manager, or `shared_issuer()` for one per test process. Its `url` is the issuer
    (AUTH_ISSUER) and `jwks_url` what AUTH_JWKS_URL names; `/.well-known/openid-configuration` is served too.
    """

    def __init__(self) -> None:
        from cryptography.hazmat.primitives.asymmetric import rsa
        from jwt.algorithms import RSAAlgorithm

        self._key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = "kit-" + uuid.uuid4().hex[:8]
        jwk = json.loads(RSAAlgorithm.to_jwk(self._key.public_key()))
        self._jwks = json.dumps({"keys": [{**jwk, "kid": self.kid, "alg": "RS256", "use": "sig"}]}).encode()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        self.jwks_url = f"{self.url}/jwks"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05})
        self._thread.daemon = True
        self._thread.start()

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        issuer = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                if self.path == "/jwks":
                    body = issuer._jwks
                elif self.path == "/.well-known/openid-configuration":
                    body = json.dumps({"issuer": issuer.url, "jwks_uri": issuer.jwks_url}).encode()
                else:
                    self.send_error(404)
                    return
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: object) -> None:
                pass

        return Handler

    def token(
        self,
        identity: Identity,
        audience: str | None = DEFAULT_AUDIENCE,
        *,
        expires_in: int = 300,
        scope_prefix: str = "",
        **claims: Any,
    ) -> str:
        """An RS256 access token for `identity`, signed with this issuer's key.

        Args:
            identity: The caller the token names.
            audience: The `aud` claim (None leaves it out); the server accepts AUTH_AUDIENCE or its resource URL.
            expires_in: Seconds until `exp` (negative: an expired token).
            scope_prefix: What the issuer puts before every scope name (AUTH_SCOPE_PREFIX).
            **claims: Claims to add or override (None removes one).

        Returns:
            The compact JWT.
        """
        import jwt

        now = int(time.time())
        payload: dict[str, Any] = {
            **identity.all_claims(self.url, scope_prefix),
            "iat": now,
            "exp": now + expires_in,
        }
        if audience is not None:
            payload["aud"] = audience
        payload.update(claims)
        payload = {name: value for name, value in payload.items() if value is not None}
        return jwt.encode(payload, self._key, algorithm="RS256", headers={"kid": self.kid})

    def close(self) -> None:
        """Stop serving the JWKS."""
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> LocalIssuer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


_SHARED: list[LocalIssuer] = []
_SHARED_LOCK = threading.Lock()


def shared_issuer() -> LocalIssuer:
    """The test process's one `LocalIssuer`, started on first use and stopped at exit.

    Returns:
        The running issuer.
    """
    with _SHARED_LOCK:
        if not _SHARED:
            _SHARED.append(LocalIssuer())
            atexit.register(_SHARED[0].close)
        return _SHARED[0]
