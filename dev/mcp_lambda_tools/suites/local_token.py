"""Get an access token for a local MCP server from the local authorization server, as an MCP client would.

It reads the server's Protected Resource Metadata (RFC 9728) to learn the resource URL, the issuer and the
scopes, reads the issuer's discovery document, then runs the authorization-code flow with PKCE as a
*pre-registered* public client (the local server, oauth2-mock-server, has no /register) and asks for a token for
that resource (RFC 8707), so the token's `aud` is exactly the URL the server checks. The browser step is one GET:
the local server signs the user in at once, as the `login_hint` user. The token alone goes to stdout.

Usage (the server must run with AUTH_MODE=jwt and AUTH_ISSUER set to a running local issuer):
    python -m mcp_lambda_dev.services oauth --port 9000                           # terminal 1: the issuer
    AUTH_MODE=jwt AUTH_ISSUER=http://127.0.0.1:9000 make run               # terminal 2: the MCP server
    TOKEN=$(python dev/mcp_lambda_tools/suites/local_token.py http://127.0.0.1:3000/mcp)       # terminal 3 (or: make token)
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import secrets
import sys
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from typing import Any

from mcp_lambda.auth.metadata import metadata_url

DEFAULT_MCP_URL = "http://127.0.0.1:3000/mcp"
# Any client id works on the local issuer: it is "registered" by being known to both sides beforehand.
DEFAULT_CLIENT_ID = "mcp-local-client"
# Never contacted: the redirect's Location header is read, not followed.
REDIRECT_URI = "http://127.0.0.1:1/callback"
TIMEOUT_SECONDS = 10


class TokenError(RuntimeError):
    """A step of the flow failed; the message says which and what to check."""


@dataclass(frozen=True)
class ProtectedResource:
    """What a server's Protected Resource Metadata says: the URL tokens are for, their issuer, the scopes."""

    resource: str
    issuer: str
    scopes: tuple[str, ...]


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # the authorization code is in the Location header; there is no client to redirect to


def _get_json(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url, timeout=TIMEOUT_SECONDS) as response:
        return json.loads(response.read())  # type: ignore[no-any-return]


def discover(mcp_url: str) -> ProtectedResource:
    """The metadata of the server at `mcp_url` (its well-known URL, RFC 9728 §3.1).

    Raises:
        TokenError: the server is down, or serves no metadata (it runs with AUTH_MODE=none).
    """
    url = metadata_url(mcp_url)
    try:
        document = _get_json(url)
    except urllib.error.HTTPError as exc:
        raise TokenError(
            f"{url} answered {exc.code}: is the server running with AUTH_MODE=jwt and AUTH_ISSUER set?"
        ) from None
    except OSError as exc:
        raise TokenError(f"no MCP server answers at {mcp_url} ({exc}); start it with make run") from None
    return ProtectedResource(
        resource=document["resource"],
        issuer=document["authorization_servers"][0],
        scopes=tuple(document.get("scopes_supported") or ()),
    )


def _endpoints(issuer: str) -> tuple[str, str]:
    """The issuer's authorization and token endpoints, from its OpenID discovery document."""
    try:
        document = _get_json(f"{issuer.rstrip('/')}/.well-known/openid-configuration")
    except OSError as exc:
        raise TokenError(
            f"the issuer {issuer} does not answer ({exc}); start it: python -m mcp_lambda_dev.services oauth --port 9000"
        ) from None
    return str(document["authorization_endpoint"]), str(document["token_endpoint"])


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _authorization_code(authorize_url: str, query: dict[str, str]) -> str:
    opener = urllib.request.build_opener(_NoRedirect)
    url = f"{authorize_url}?{urllib.parse.urlencode(query)}"
    try:
        opener.open(url, timeout=TIMEOUT_SECONDS)
    except urllib.error.HTTPError as exc:
        location = exc.headers.get("location") if exc.code in (302, 303) else None
        if location:
            answer = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
            if answer.get("state") == query["state"] and answer.get("code"):
                return answer["code"]
        raise TokenError(f"the issuer refused the authorization request ({exc.code})") from None
    raise TokenError("the issuer did not redirect back with an authorization code")


def local_token(
    mcp_url: str = DEFAULT_MCP_URL,
    subject: str = "alice",
    scopes: tuple[str, ...] | None = None,
    client_id: str = DEFAULT_CLIENT_ID,
) -> str:
    """An access token for the server at `mcp_url`, for the user `subject`, from the server's own issuer.

    Args:
        mcp_url: The server's MCP URL. Use the host you will call: the metadata's `resource` (and so the token's
            `aud`) follows the Host header unless the server sets PUBLIC_URL.
        subject: The token's `sub` (the local issuer signs in whoever the `login_hint` names).
        scopes: The scopes to ask for; None asks for every scope the metadata lists.
        client_id: The pre-registered public client the flow runs as.

    Returns:
        The access token (a JWT).

    Raises:
        TokenError: the server, the metadata or the issuer is not there, or the issuer refused.
    """
    found = discover(mcp_url)
    authorize_url, token_url = _endpoints(found.issuer)
    verifier = _b64(secrets.token_bytes(32))
    wanted = found.scopes if scopes is None else scopes
    code = _authorization_code(
        authorize_url,
        {
            "response_type": "code",
            "client_id": client_id,
            "redirect_uri": REDIRECT_URI,
            "scope": " ".join(wanted),
            "state": secrets.token_urlsafe(16),
            "code_challenge": _b64(hashlib.sha256(verifier.encode()).digest()),
            "code_challenge_method": "S256",
            "resource": found.resource,
            "login_hint": subject,
        },
    )
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": REDIRECT_URI,
        "client_id": client_id,
        "code_verifier": verifier,
        "resource": found.resource,
    }
    request = urllib.request.Request(
        token_url,
        data=urllib.parse.urlencode(form).encode(),
        method="POST",
        headers={"content-type": "application/x-www-form-urlencoded"},
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_SECONDS) as response:
            return str(json.loads(response.read())["access_token"])
    except urllib.error.HTTPError as exc:
        raise TokenError(f"the token endpoint refused the code ({exc.code})") from None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("mcp_url", nargs="?", default=DEFAULT_MCP_URL, help=f"default {DEFAULT_MCP_URL}")
    parser.add_argument("--subject", default="alice", help="the user signed in (the token's sub)")
    parser.add_argument(
        "--scope", default=None, help="space-separated scopes (default: all the server lists)"
    )
    parser.add_argument("--client-id", default=DEFAULT_CLIENT_ID, help="the pre-registered client")
    args = parser.parse_args(argv)
    scopes = None if args.scope is None else tuple(args.scope.split())
    try:
        print(local_token(args.mcp_url, args.subject, scopes, args.client_id))
    except TokenError as exc:
        print(f"local_token: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
