"""docs/auth.md's local token recipe, run for real: the local authorization server (oauth2-mock-server), a
`make run` server with AUTH_MODE=jwt, and `dev/mcp_lambda_tools/suites/local_token.py` as a command, whose token the server accepts.

Also the three frictions the page explains: a token is for one host name (the metadata's `resource` follows the
Host header unless PUBLIC_URL is set), a server without AUTH_MODE=jwt has no metadata to get a token for, and the
local issuer has no /register (a client must be pre-registered).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.oauth import Issuer, claims_of

from mcp_lambda.wire import modern_meta
from mcp_lambda_dev.local.process import running_server

ROOT = Path(__file__).resolve().parents[2]
META = modern_meta()


def token_command(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """`python dev/mcp_lambda_tools/suites/local_token.py URL ...`, as the page runs it (make token runs the same)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(ROOT / part) for part in ("src", "dev", "."))}
    return subprocess.run(
        [sys.executable, str(ROOT / "dev" / "mcp_lambda_tools" / "suites" / "local_token.py"), url, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        cwd=ROOT,
    )


def call(url: str, method: str, token: str | None, params: dict[str, Any] | None = None) -> tuple[int, Any]:
    """One stateless 2026-07-28 request; the status and the JSON-RPC answer."""
    headers = {
        "content-type": "application/json",
        "accept": "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": method,
    }
    if method == "tools/call" and params:
        headers["mcp-name"] = params["name"]
    if token is not None:
        headers["authorization"] = f"Bearer {token}"
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**(params or {}), "_meta": META}}
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read() or b"null")


@pytest.fixture(scope="module")
def jwt_server(oauth_issuer: Issuer) -> Iterator[str]:
    with running_server("demo", AUTH_MODE="jwt", AUTH_ISSUER=oauth_issuer.url) as url:
        yield url


def test_the_token_command_gets_a_token_the_jwt_server_accepts(jwt_server: str, oauth_issuer: Issuer) -> None:
    done = token_command(jwt_server, "--subject", "ada")
    assert done.returncode == 0, done.stderr
    token = done.stdout.strip()
    assert "\n" not in token and token.count(".") == 2  # the token alone, so TOKEN=$(...) works
    claims = claims_of(token)
    assert claims["aud"] == jwt_server and claims["iss"] == oauth_issuer.url and claims["sub"] == "ada"
    assert set(claims["scope"].split()) == {"catalogue:costs", "subscriptions:read", "subscriptions:write"}

    assert call(jwt_server, "tools/list", None)[0] == 401
    status, listed = call(jwt_server, "tools/list", token)
    assert status == 200 and "subscribe_product" in [tool["name"] for tool in listed["result"]["tools"]]
    arguments = {"product_id": "p-1004", "alert": "restock"}
    status, answer = call(
        jwt_server, "tools/call", token, {"name": "subscribe_product", "arguments": arguments}
    )
    assert status == 200 and not answer["result"].get("isError"), answer


def test_make_token_prints_the_token_alone(jwt_server: str) -> None:
    port = jwt_server.rsplit(":", 1)[1].removesuffix("/mcp")
    done = subprocess.run(
        ["make", "-s", "--no-print-directory", "token", "HOST=127.0.0.1", f"PORT={port}", "TOKEN_SUBJECT=bo"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    token = done.stdout.strip()
    assert done.stdout == f"{token}\n" and claims_of(token)["sub"] == "bo"
    assert call(jwt_server, "tools/list", token)[0] == 200


def test_a_token_asked_with_fewer_scopes_lists_fewer_tools(jwt_server: str) -> None:
    done = token_command(jwt_server, "--scope", "subscriptions:read")
    assert done.returncode == 0, done.stderr
    status, listed = call(jwt_server, "tools/list", done.stdout.strip())
    names = [tool["name"] for tool in listed["result"]["tools"]]
    assert status == 200 and "list_subscriptions" in names and "subscribe_product" not in names


def test_a_token_for_127_0_0_1_is_refused_on_localhost(jwt_server: str) -> None:
    token = token_command(jwt_server).stdout.strip()
    status, answer = call(jwt_server.replace("127.0.0.1", "localhost"), "tools/list", token)
    assert status == 401 and "(aud)" in answer["error"]["message"]


def test_with_public_url_one_token_serves_both_host_names(oauth_issuer: Issuer) -> None:
    public = "http://127.0.0.1:3000/mcp"  # fixed: the resource no longer follows the Host header
    with running_server("demo", AUTH_MODE="jwt", AUTH_ISSUER=oauth_issuer.url, PUBLIC_URL=public) as url:
        token = token_command(url.replace("127.0.0.1", "localhost")).stdout.strip()
        assert claims_of(token)["aud"] == public
        assert call(url, "tools/list", token)[0] == 200
        assert call(url.replace("127.0.0.1", "localhost"), "tools/list", token)[0] == 200


def test_the_token_command_names_the_fix_when_the_server_has_no_metadata(oauth_issuer: Issuer) -> None:
    with running_server("demo") as url:  # AUTH_MODE=none: no Protected Resource Metadata (404)
        done = token_command(url)
    assert done.returncode == 2 and done.stdout == ""
    assert "AUTH_MODE=jwt" in done.stderr and "Traceback" not in done.stderr


def test_the_local_issuer_has_no_client_registration(oauth_issuer: Issuer) -> None:
    # Why the official OAuthClientProvider needs the client pre-registered (its storage returns the client).
    body = json.dumps({"redirect_uris": ["http://127.0.0.1:1/callback"]}).encode()
    request = urllib.request.Request(
        f"{oauth_issuer.url}/register", data=body, method="POST", headers={"content-type": "application/json"}
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    assert refused.value.code == 404
