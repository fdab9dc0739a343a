"""Egress by declaration and no token passthrough, through the public test kit on both eras: `ctx.http` reaches
only declared hosts; the metadata address asked directly, through a loopback redirect or through a DNS answer, an
undeclared host and an undeclared private address are refused before any connection (socket.connect is guarded
and records every address asked for), as error result 40310 with one log line and no retry; the caller's token
goes only to a downstream declared as accepting it."""

from __future__ import annotations

import ipaddress
import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from tests.support.redirector import redirecting_server

from mcp_lambda.downstream import Egress, EgressDeclarationError, EgressPolicy, EgressRefused
from mcp_lambda.testing import MODERN, Identity, McpTestClient, fake_service
from mcp_lambda.tools import Business, ToolContext, ToolResult, execution_result, tool

METADATA = "http://169.254.169.254/latest/meta-data/"
ERAS = [MODERN, "2024-11-05"]
TARGET: dict[str, str] = {}


class ConnectGuard:
    """Every address socket.connect was asked for; a connection to a refused range fails the test at once."""

    REFUSED = tuple(ipaddress.ip_network(n) for n in ("169.254.0.0/16", "10.0.0.0/8", "fd00:ec2::/32"))

    def __init__(self) -> None:
        self.asked: list[str] = []

    def hit(self, host: str) -> bool:
        try:
            address = ipaddress.ip_address(host)
        except ValueError:
            return False
        return any(address.version == n.version and address in n for n in self.REFUSED)

    def refused_hits(self) -> list[str]:
        return [host for host in self.asked if self.hit(host)]


@pytest.fixture
def guard(monkeypatch: pytest.MonkeyPatch) -> Iterator[ConnectGuard]:
    guard = ConnectGuard()
    real = socket.socket.connect

    def connect(sock: socket.socket, address: Any) -> Any:
        host = str(address[0]) if isinstance(address, tuple) else str(address)
        guard.asked.append(host)
        if guard.hit(host):
            raise AssertionError(f"a packet was about to go to {host}")
        return real(sock, address)

    monkeypatch.setattr(socket.socket, "connect", connect)
    yield guard
    assert guard.refused_hits() == []


@pytest.fixture
def redirector() -> Iterator[str]:
    """A loopback server answering every GET 302 to the instance metadata address."""
    with redirecting_server(METADATA) as url:
        yield url


@tool(description="Use to fetch a URL the test names.")
def fetch(url: str, ctx: ToolContext) -> ToolResult:
    answer = ctx.http.get(url, interface="probe.get")
    return execution_result({"success": True, "message": f"HTTP {answer.status}"})


@tool(description="Use to send the caller's token to a URL the test names, as a careless tool would.")
def forward_token(url: str, ctx: ToolContext) -> ToolResult:
    answer = ctx.http.get(url, headers={"authorization": f"Bearer {ctx.caller_token}"})
    return execution_result({"success": True, "message": f"HTTP {answer.status}"})


@tool(description="Use to call the audience downstream on the caller's behalf.")
def on_behalf(ctx: ToolContext) -> ToolResult:
    answer = ctx.http.get(f"{TARGET['audience']}/me")
    return execution_result({"success": True, "message": f"HTTP {answer.status}"})


BUSINESS = Business(
    name="egress",
    tools=[fetch, forward_token, on_behalf],
    egress=["inventory.example", "*.partner.example", Egress("audience.example", accepts_caller_token=True)],
)
REAL_GETADDRINFO = socket.getaddrinfo


def _answering(monkeypatch: pytest.MonkeyPatch, answers: dict[str, str]) -> list[str]:
    """socket.getaddrinfo answering `answers` (name -> address) and recording every name asked."""
    asked: list[str] = []

    def getaddrinfo(host: str, port: Any, *args: Any, **kwargs: Any) -> Any:
        asked.append(host)
        if host in answers:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (answers[host], port))]
        return REAL_GETADDRINFO(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return asked


def _refusal_lines(caplog: pytest.LogCaptureFixture) -> list[dict[str, Any]]:
    return [record.__dict__ for record in caplog.records if record.getMessage() == "downstream_refused"]


@pytest.mark.parametrize("era", ERAS)
def test_the_metadata_address_asked_directly_is_refused_before_any_connection(
    era: str, guard: ConnectGuard, caplog: pytest.LogCaptureFixture
) -> None:
    with McpTestClient(BUSINESS, era) as client:
        refused = client.call_tool("fetch", {"url": METADATA})

    assert refused.code == 40310, refused.raw
    assert (refused.retryable, refused.suggested_action) == (False, "escalate_to_human")
    assert "169.254.169.254" in refused.message and "never reached" in refused.message
    [line] = _refusal_lines(caplog)  # one line: no retry
    assert (line["reason"], line["address"], line["interface"]) == (
        "link_local",
        "169.254.169.254",
        "probe.get",
    )
    assert not any(host.startswith("169.254.") for host in guard.asked)


@pytest.mark.parametrize("era", ERAS)
def test_a_loopback_redirect_to_the_metadata_address_is_refused_before_it_is_followed(
    era: str, guard: ConnectGuard, redirector: str, caplog: pytest.LogCaptureFixture
) -> None:
    with McpTestClient(BUSINESS, era) as client:  # the kit declares 127.0.0.1, where the redirector listens
        refused = client.call_tool("fetch", {"url": f"{redirector}/go"})

    assert refused.code == 40310, refused.raw
    [line] = _refusal_lines(caplog)
    assert (line["refused"], line["reason"]) == ("http://169.254.169.254", "link_local")
    assert guard.asked.count("127.0.0.1") == 1  # the redirector was asked once, the metadata address never


@pytest.mark.parametrize("era", ERAS)
def test_an_undeclared_host_is_refused_without_even_a_dns_lookup(
    era: str, guard: ConnectGuard, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    looked_up = _answering(monkeypatch, {})

    with McpTestClient(BUSINESS, era) as client:
        refused = client.call_tool("fetch", {"url": "https://api.undeclared.example/v1/items?q=1"})

    assert refused.code == 40310 and "not declared" in refused.message, refused.raw
    [line] = _refusal_lines(caplog)
    assert (line["refused"], line["reason"]) == ("https://api.undeclared.example", "undeclared_host")
    assert looked_up == [] and guard.asked == []


def test_a_declared_name_resolving_to_the_metadata_or_a_private_address_is_refused(
    guard: ConnectGuard, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    _answering(monkeypatch, {"inventory.example": "169.254.169.254", "api.partner.example": "10.1.2.3"})
    with McpTestClient(BUSINESS) as client:
        metadata = client.call_tool("fetch", {"url": "http://inventory.example/stock"})
        private = client.call_tool("fetch", {"url": "https://api.partner.example/"})

    assert (metadata.code, private.code) == (40310, 40310), (metadata.raw, private.raw)
    reasons = [(line["reason"], line["address"]) for line in _refusal_lines(caplog)]
    assert reasons == [("resolves_to_link_local", "169.254.169.254"), ("resolves_to_private", "10.1.2.3")]
    assert guard.asked == []


def test_a_declared_loopback_service_is_reached_and_an_undeclared_private_address_is_not(
    guard: ConnectGuard,
) -> None:
    with fake_service() as service, McpTestClient(BUSINESS) as client:
        reached = client.call_tool("fetch", {"url": f"{service.url}/items"})
        refused = client.call_tool("fetch", {"url": "http://10.0.0.7/items"})

    assert reached.structured_content["message"] == "HTTP 200", reached.raw
    assert refused.code == 40310 and "address is not declared" in refused.message
    assert guard.asked == ["127.0.0.1"]


def test_a_redirect_to_another_origin_drops_the_callers_token(
    guard: ConnectGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    _answering(monkeypatch, {"audience.example": "127.0.0.1"})
    with fake_service() as service, redirecting_server(f"{service.url}/landing") as redirector:
        TARGET["audience"] = redirector.replace("127.0.0.1", "audience.example")
        with McpTestClient(BUSINESS, settings={"auth_mode": "jwt"}, caller=Identity(subject="ada")) as client:
            followed = client.call_tool("on_behalf", {})

    assert followed.structured_content["message"] == "HTTP 200", followed.raw
    [landing] = service.seen  # the redirector (an audience) got the token; the other origin did not
    assert landing.path == "/landing" and "authorization" not in landing.headers


@pytest.mark.parametrize("era", ERAS)
def test_the_callers_token_goes_only_to_a_downstream_that_accepts_it(
    era: str, guard: ConnectGuard, monkeypatch: pytest.MonkeyPatch
) -> None:
    caller = Identity(subject="ada")
    _answering(monkeypatch, {"audience.example": "127.0.0.1"})
    with fake_service() as service:
        TARGET["audience"] = service.url.replace("127.0.0.1", "audience.example")
        with McpTestClient(BUSINESS, era, settings={"auth_mode": "jwt"}, caller=caller) as client:
            passthrough = client.call_tool("forward_token", {"url": f"{service.url}/echo"})
            accepted = client.call_tool("on_behalf", {})
        plain = McpTestClient(BUSINESS, era)
        with plain:
            plain.call_tool("fetch", {"url": f"{service.url}/plain"})

    assert passthrough.code == 40310 and "token" in passthrough.message, passthrough.raw
    assert accepted.structured_content["message"] == "HTTP 200", accepted.raw
    [seen_me, seen_plain] = service.seen  # the refused request never left
    assert seen_me.path == "/me" and seen_me.headers["authorization"].startswith("Bearer ey")
    assert "authorization" not in seen_plain.headers


def test_declarations_that_name_a_never_reached_address_stop_the_start() -> None:
    for entry in ("169.254.169.254", "0.0.0.0/0", "fd00:ec2::254", "metadata.google.internal", "fe80::/64"):
        with pytest.raises(EgressDeclarationError, match="never reachable"):
            EgressPolicy([entry])
    for entry in ("http://", "a b", "host:99999", "ftp://x.example"):
        with pytest.raises(EgressDeclarationError):
            EgressPolicy([entry])
    with (
        pytest.raises(EgressDeclarationError, match="business 'bad' egress"),
        McpTestClient(Business(name="bad", tools=[fetch], egress=["169.254.0.0/16"])) as client,
    ):
        client.list_tools()


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://[::ffff:169.254.169.254]/", "link_local"),
        ("http://[fd00:ec2::254]/latest", "link_local"),
        ("http://[64:ff9b::a9fe:a9fe]/", "link_local"),
        ("http://100.100.100.200/latest/meta-data", "link_local"),
        ("http://2130706433/", "undeclared_host"),  # a decimal spelling is a name, and an undeclared one
        ("file:///etc/passwd", "not_http"),
        ("http://api.example:8443/", "undeclared_host"),  # declared on 443 only
        ("https://evil.example/?to=api.example", "undeclared_host"),
        ("https://api.example.evil.example/", "undeclared_host"),
        ("https://user:pw@evil.example/", "undeclared_host"),
    ],
)
def test_hosts_and_spellings_a_policy_refuses(url: str, reason: str) -> None:
    policy = EgressPolicy(["api.example:443", "127.0.0.1"])
    with pytest.raises(EgressRefused) as refused:
        policy.destination(url)
    assert refused.value.reason == reason
    assert "pw" not in str(refused.value) and "passwd" not in str(refused.value)


def test_a_policy_allows_what_is_declared_and_connects_to_the_address_it_checked() -> None:
    resolved = {"api.example": ["93.184.215.14", "10.9.9.9"], "db.internal": ["10.20.1.5"]}

    def resolver(host: str, port: int, *args: Any) -> list[Any]:
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, port)) for a in resolved[host]]

    policy = EgressPolicy(["api.example", "db.internal", "10.20.0.0/16", "*.cdn.example"], resolver)
    assert policy.resolve(policy.destination("http://db.internal/x")) == "10.20.1.5"
    assert policy.destination("https://img.cdn.example/a.png").host == "img.cdn.example"
    with pytest.raises(
        EgressRefused, match="private"
    ):  # one of its answers is outside every declared network
        policy.resolve(policy.destination("https://api.example/"))
    resolved["api.example"] = ["93.184.215.14"]
    destination = policy.destination("https://API.example:443/v1?q=1")
    assert (policy.resolve(destination), destination.target, destination.host_header) == (
        "93.184.215.14",
        "/v1?q=1",
        "API.example:443",
    )


def _self_signed(tmp_path: Any, name: str) -> tuple[str, str]:
    """A certificate for `name` (and its key), as files."""
    import datetime

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name)])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(x509.SubjectAlternativeName([x509.DNSName(name)]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_file, key_file = tmp_path / "cert.pem", tmp_path / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        )
    )
    return str(cert_file), str(key_file)


def test_https_goes_to_the_checked_address_and_verifies_the_declared_name(
    tmp_path: Any, monkeypatch: pytest.MonkeyPatch, guard: ConnectGuard
) -> None:
    import logging
    import ssl

    import urllib3

    from mcp_lambda.downstream import DownstreamUnavailable, HttpClient

    cert, key = _self_signed(tmp_path, "tls.example")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = json.dumps({"host": self.headers["host"]}).encode()
            self.send_response(200)
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    asked = _answering(monkeypatch, {"tls.example": "127.0.0.1", "other.example": "127.0.0.1"})
    client = HttpClient(
        logging.getLogger("egress-tls"),
        max_attempts=1,
        pool=urllib3.PoolManager(ca_certs=cert),
        egress=EgressPolicy(["tls.example", "other.example", "127.0.0.1"]),
    )
    try:
        answer = client.get(f"https://tls.example:{port}/x")
        with pytest.raises(DownstreamUnavailable, match="SSLError"):  # its certificate names tls.example only
            client.get(f"https://other.example:{port}/x")
    finally:
        server.shutdown()
        server.server_close()

    assert answer.json() == {"host": f"tls.example:{port}"}
    assert asked.count("tls.example") == 1  # resolved once, by the check; urllib3 connected to the address
    assert guard.asked.count("127.0.0.1") == 2
