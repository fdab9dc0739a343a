"""AUTH_MODE=jwt when the issuer answers badly: its discovery document or its JWKS not JSON, of the wrong shape,
without a usable key, too large, slow or trickling in. Every one is a 503 with Retry-After and the request's id
(the client did nothing wrong), never a 500 or a 401; and the same container serves again once the issuer does.

The issuer here is a small HTTP server on 127.0.0.1 that serves whatever a row says; the tokens are signed for
real by the local authorization server (oauth2-mock-server), whose JWKS the stub serves when it is healthy.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from tests.support.handlers import build_handler
from tests.support.oauth import Issuer
from tests.support.wire import modern_headers, modern_request

import businesses.demo as demo
from mcp_lambda.auth import issuer as issuer_fetch
from mcp_lambda.auth import tokens
from mcp_lambda.settings import Settings
from mcp_lambda.testing import McpTestClient

RESOURCE = "https://localhost/mcp"
DISCOVERY = "/.well-known/openid-configuration"
# What the stub answers: (status, content type, body) at once, or a callable that writes the answer itself.
Answer = tuple[int, str, bytes] | Callable[[BaseHTTPRequestHandler], None]


class StubIssuer:
    """An HTTP server whose discovery document and JWKS answers a test sets."""

    def __init__(self) -> None:
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.answers: dict[str, Answer] = {}
        self.hits: dict[str, int] = {}
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def healthy(self, jwks: dict[str, Any]) -> None:
        self.answers = {
            DISCOVERY: _json({"issuer": self.url, "jwks_uri": f"{self.url}/jwks"}),
            "/jwks": _json(jwks),
        }

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                stub.hits[self.path] = stub.hits.get(self.path, 0) + 1
                answer = stub.answers.get(self.path, (404, "text/plain", b"not found"))
                try:
                    if callable(answer):
                        answer(self)
                        return
                    status, content_type, body = answer
                    self.send_response(status)
                    self.send_header("content-type", content_type)
                    self.send_header("content-length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except OSError:  # the client gave up (the slow rows): nothing to answer any more
                    pass

            def log_message(self, *args: Any) -> None:
                pass

        return Handler


def _json(value: Any) -> tuple[int, str, bytes]:
    return 200, "application/json", json.dumps(value).encode()


def _slow_headers(handler: BaseHTTPRequestHandler) -> None:
    time.sleep(2)
    handler.send_response(200)
    handler.end_headers()


def _trickle(body: bytes) -> Callable[[BaseHTTPRequestHandler], None]:
    """A valid body in ten pieces a tenth of a second apart: each read is quick, the whole takes a second."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("content-type", "application/json")
        handler.end_headers()
        step = -(-len(body) // 10)
        for start in range(0, len(body), step):
            handler.wfile.write(body[start : start + step])
            handler.wfile.flush()
            time.sleep(0.1)

    return answer


def _undeclared(body: bytes) -> Callable[[BaseHTTPRequestHandler], None]:
    """A body without Content-Length (read until the connection closes)."""

    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("content-type", "application/json")
        handler.send_header("connection", "close")
        handler.end_headers()
        handler.wfile.write(body)
        handler.close_connection = True

    return answer


@pytest.fixture(scope="module")
def stub() -> Iterator[StubIssuer]:
    issuer = StubIssuer()
    yield issuer
    issuer.server.shutdown()


@pytest.fixture(autouse=True)
def quick_issuer(monkeypatch: pytest.MonkeyPatch) -> None:
    # Seconds, not the production 3 s and 5 s: the slow rows and the recovery stay quick.
    monkeypatch.setattr(issuer_fetch, "FETCH_TIMEOUT_SECONDS", 0.5)
    monkeypatch.setattr(tokens, "ISSUER_RETRY_SECONDS", 0)


def _padded(value: Any) -> bytes:
    # Valid JSON, only larger than any key set needs to be.
    return json.dumps(value).encode() + b" " * (issuer_fetch.MAX_DOCUMENT_BYTES + 1)


def _call(client: McpTestClient, token: str) -> Any:
    body = modern_request("tools/call", {"name": "search_products", "arguments": {"keyword": "cup"}}, 21)
    headers = {**modern_headers("tools/call", "search_products"), "authorization": f"Bearer {token}"}
    return client.post(body, headers, oracle=False)


def _assert_unavailable(reply: Any) -> None:
    assert reply.status == 503, reply
    assert reply.headers["retry-after"].isdigit(), reply.headers
    assert reply.body["id"] == 21 and reply.body["error"]["code"] == -32003, reply.body
    assert "retry later" in reply.body["error"]["message"]
    assert "www-authenticate" not in reply.headers  # nothing is wrong with the token


def _with_key_uses(jwks: dict[str, Any], **changes: Any) -> dict[str, Any]:
    keys = [{**key, **changes} for key in jwks["keys"]]
    return {"keys": [{k: v for k, v in key.items() if v is not None} for key in keys]}


JWKS_ROWS: dict[str, Callable[[dict[str, Any]], Answer]] = {
    "an HTML page": lambda jwks: (200, "text/html", b"<html><body>Maintenance</body></html>"),
    "not UTF-8": lambda jwks: (200, "application/json", b"\xff\xfe{}"),
    "no keys": lambda jwks: _json({"keys": []}),
    "a JSON array": lambda jwks: _json([jwks]),
    "keys that are not a list": lambda jwks: _json({"keys": "rs256"}),
    "no key of a known type": lambda jwks: _json({"keys": [{"kty": "XYZ", "kid": "rs256"}]}),
    "encryption keys only": lambda jwks: _json(_with_key_uses(jwks, use="enc")),
    "keys without a kid": lambda jwks: _json(_with_key_uses(jwks, kid=None)),
    "too large": lambda jwks: (200, "application/json", _padded(jwks)),
    "too large, undeclared": lambda jwks: _undeclared(_padded(jwks)),
    "HTTP 500": lambda jwks: (500, "application/json", b"{}"),
    "slow to answer": lambda jwks: _slow_headers,
    "trickling in": lambda jwks: _trickle(json.dumps(jwks).encode()),
}


@pytest.mark.parametrize("row", list(JWKS_ROWS))
def test_a_jwks_that_answers_badly_is_503_and_the_container_recovers(
    stub: StubIssuer, oauth_issuer: Issuer, row: str
) -> None:
    jwks = oauth_issuer.jwks()
    # Within the fetch's own budget (0.5 s here), not at the stub's pace.
    _refused_until_healthy(stub, oauth_issuer, "/jwks", JWKS_ROWS[row](jwks), within=2.5)


def _refused_until_healthy(
    stub: StubIssuer, oauth_issuer: Issuer, path: str, answer: Answer, within: float
) -> None:
    """A new container whose issuer answers `answer` at `path`: 503 within `within` s, then 200 once healthy."""
    jwks = oauth_issuer.jwks()
    stub.healthy(jwks)
    stub.answers[path] = answer
    client, token = _container(stub, oauth_issuer)

    started = time.monotonic()
    _assert_unavailable(_call(client, token))
    assert time.monotonic() - started < within

    stub.healthy(jwks)
    assert _call(client, token).status == 200


def _container(stub: StubIssuer, oauth_issuer: Issuer) -> tuple[McpTestClient, str]:
    """A fresh container trusting the stub as its issuer, and a token the stub's JWKS (when healthy) verifies."""
    settings = Settings(business="demo", auth_mode="jwt", auth_issuer=stub.url)
    token = oauth_issuer.sign(iss=stub.url, sub="alice", aud=RESOURCE)
    return McpTestClient.over_handler(build_handler(demo.BUSINESS, settings)), token


DISCOVERY_ROWS: dict[str, Callable[[str], Answer]] = {
    "an HTML page": lambda url: (200, "text/html", b"<html>Sign in</html>"),
    "a JSON array": lambda url: _json([{"issuer": url, "jwks_uri": f"{url}/jwks"}]),
    "another issuer's document": lambda url: _json(
        {"issuer": "https://other.example", "jwks_uri": f"{url}/jwks"}
    ),
    "no jwks_uri": lambda url: _json({"issuer": url}),
    "a jwks_uri that is not http": lambda url: _json({"issuer": url, "jwks_uri": "file:///etc/passwd"}),
    "too large": lambda url: (200, "application/json", _padded({"issuer": url, "jwks_uri": f"{url}/jwks"})),
    "HTTP 503": lambda url: (503, "text/plain", b"busy"),
    "slow to answer": lambda url: _slow_headers,
    "trickling in": lambda url: _trickle(json.dumps({"issuer": url, "jwks_uri": f"{url}/jwks"}).encode()),
}


@pytest.mark.parametrize("row", list(DISCOVERY_ROWS))
def test_a_discovery_document_that_answers_badly_is_503_and_the_container_recovers(
    stub: StubIssuer, oauth_issuer: Issuer, row: str
) -> None:
    # Two discovery URLs, each within its budget.
    _refused_until_healthy(stub, oauth_issuer, DISCOVERY, DISCOVERY_ROWS[row](stub.url), within=4.5)


def test_after_a_failure_the_issuer_is_asked_again_only_after_the_retry_interval(
    stub: StubIssuer, oauth_issuer: Issuer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(tokens, "ISSUER_RETRY_SECONDS", 0.5)
    jwks = oauth_issuer.jwks()
    stub.healthy(jwks)
    stub.answers["/jwks"] = _json({"keys": []})
    client, token = _container(stub, oauth_issuer)
    _assert_unavailable(_call(client, token))
    stub.healthy(jwks)
    fetched = stub.hits.get("/jwks", 0)

    _assert_unavailable(_call(client, token))  # within the interval: answered at once, the issuer left alone
    assert stub.hits.get("/jwks", 0) == fetched
    time.sleep(0.6)
    assert _call(client, token).status == 200
