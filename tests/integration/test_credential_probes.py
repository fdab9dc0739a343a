"""The probes of issue 34 over HTTP, against `make run` (a real server process) on both eras: a tool that logs the
caller's token, a secret (from Secrets Manager, on the moto server) quoted in an error and logged, the platform
AppSecret of the same secret reaching a log line by another way, the metadata
address asked directly and through a loopback server answering 302 to it, and an undeclared host.

The probe business guards socket.connect inside the server process: every address asked for is written to a
file, and a connection to a refused range raises instead of sending a packet. The test asserts from that file
that no packet went to 169.254.169.254, and from the server's whole output that neither the token nor the secret
was ever written.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.redirector import redirecting_server

from mcp_lambda.testing import MODERN, Identity, LocalIssuer, McpTestClient
from mcp_lambda_dev.local.process import running_server
from mcp_lambda_dev.services import LocalService

MAPS_KEY = "mk-probe-4Fq9LzR2wX"
APP_SECRET = "as-probe-Kd83nQ0vYt"  # the platform AppSecret, in the same secret, never read by key
METADATA = "http://169.254.169.254/latest/meta-data/iam/security-credentials/"

PROBE_BUSINESS = r"""
import ipaddress
import os
import socket

from mcp_lambda.tools import Business, ToolContext, ToolResult, business_error, execution_result, tool

_REFUSED = ipaddress.ip_network("169.254.0.0/16")
_REAL_CONNECT = socket.socket.connect


def _guarded(sock, address):
    host = str(address[0]) if isinstance(address, tuple) else str(address)
    with open(os.environ["PROBE_CONNECTS"], "a", encoding="utf-8") as asked:
        asked.write(host + "\n")
    try:
        if ipaddress.ip_address(host) in _REFUSED:
            raise AssertionError(f"a packet was about to go to {host}")
    except ValueError:
        pass
    return _REAL_CONNECT(sock, address)


socket.socket.connect = _guarded  # the test's guard, installed when make run imports the business


@tool(description="Use to test a tool that logs the caller's token.")
def logs_token(ctx: ToolContext) -> ToolResult:
    ctx.logger.warning(f"forwarding {ctx.caller_token}", extra={"token": ctx.caller_token})
    return execution_result({"success": True, "message": "logged"})


@tool(description="Use to test a secret quoted in an error and in a log line.")
def secret_in_error(ctx: ToolContext) -> ToolResult:
    key = ctx.secret("maps_api_key")
    ctx.logger.warning(f"maps refused {key}")
    return business_error(40001, f"maps refused the key {key}", details={"key": key})


@tool(description="Use to test the AppSecret arriving by another way (a downstream echoing it) into a log line.")
def logs_an_echo(ctx: ToolContext) -> ToolResult:
    ctx.secret("maps_api_key")  # reading any key of the secret registers every value of it
    ctx.logger.warning(f"the platform echoed {os.environ['PROBE_ECHO']}")
    return execution_result({"success": True, "message": "logged"})


@tool(description="Use to fetch a URL the test names.")
def fetch(url: str, ctx: ToolContext) -> ToolResult:
    answer = ctx.http.get(url)
    return execution_result({"success": True, "message": f"HTTP {answer.status}"})


BUSINESS = Business(
    name="probes",
    tools=[logs_token, secret_in_error, logs_an_echo, fetch],
    secrets=["maps_api_key"],
    egress=["127.0.0.1"],  # the loopback redirector: declared, so the redirect itself is what is checked
)
"""


@pytest.fixture(scope="module")
def redirector() -> Iterator[str]:
    """A loopback server answering every GET 302 to the instance metadata address."""
    with redirecting_server(METADATA) as url:
        yield url


@pytest.fixture(scope="module")
def probes(tmp_path_factory: pytest.TempPathFactory, moto_server: LocalService) -> Iterator[dict[str, Any]]:
    import boto3

    root = tmp_path_factory.mktemp("probes")
    (root / "businesses" / "probes").mkdir(parents=True)
    (root / "businesses" / "probes" / "__init__.py").write_text(PROBE_BUSINESS, encoding="utf-8")
    secret_id = f"mcp/probes/{uuid.uuid4().hex[:8]}"
    boto3.client("secretsmanager", endpoint_url=moto_server.endpoint_url).create_secret(
        Name=secret_id, SecretString=json.dumps({"maps_api_key": MAPS_KEY, "doubao_app_secret": APP_SECRET})
    )
    output, connects = root / "server.log", root / "connects.txt"
    with (
        LocalIssuer() as issuer,
        running_server(
            "probes",
            output=output,
            extra_path=[str(root)],
            AUTH_MODE="jwt",
            AUTH_ISSUER=issuer.url,
            SECRET_ID=secret_id,
            AWS_ENDPOINT_URL_SECRETS_MANAGER=moto_server.endpoint_url,
            POWERTOOLS_LOG_LEVEL="INFO",
            HTTP_MAX_ATTEMPTS="3",
            PROBE_CONNECTS=str(connects),
            PROBE_ECHO=APP_SECRET,
        ) as url,
    ):
        token = issuer.token(Identity(subject="probe"), audience=url)
        yield {"url": url, "token": token, "output": output, "connects": connects}


def _client(probes: dict[str, Any], era: str) -> McpTestClient:
    headers = {"authorization": f"Bearer {probes['token']}"}
    return McpTestClient.over_http(probes["url"], era, headers=headers, capabilities={})


def _asked(probes: dict[str, Any]) -> list[str]:
    path: Path = probes["connects"]
    return path.read_text(encoding="utf-8").split() if path.exists() else []


@pytest.mark.parametrize("era", [MODERN, "2024-11-05"])
def test_over_http_nothing_leaves_and_nothing_reaches_the_metadata_address(
    probes: dict[str, Any], redirector: str, era: str
) -> None:
    with _client(probes, era) as client:
        logged = client.call_tool("logs_token", {})
        leaked = client.call_tool("secret_in_error", {})
        echoed = client.call_tool("logs_an_echo", {})
        direct = client.call_tool("fetch", {"url": METADATA})
        redirected = client.call_tool("fetch", {"url": f"{redirector}/start"})
        undeclared = client.call_tool("fetch", {"url": "https://undeclared.example/"})

    assert not logged.is_error and not echoed.is_error, (logged.raw, echoed.raw)
    assert leaked.code == 50040 and "structuredContent.details.key" in leaked.message, leaked.raw
    assert MAPS_KEY not in json.dumps(leaked.raw)
    for refused in (direct, redirected, undeclared):
        assert refused.code == 40310 and refused.suggested_action == "escalate_to_human", refused.raw
    assert "169.254.169.254" in redirected.message  # the redirect's target was refused, not the redirector

    output = probes["output"].read_text(encoding="utf-8")
    assert "forwarding ***" in output and "maps refused ***" in output and "the platform echoed ***" in output
    for credential in (probes["token"], MAPS_KEY, APP_SECRET):
        assert credential not in output
    assert output.count("downstream_refused") >= 3
    asked = _asked(probes)
    assert "127.0.0.1" in asked  # the guard saw the redirector's connection ...
    assert not [host for host in asked if host.startswith("169.254.")]  # ... and never the metadata address
