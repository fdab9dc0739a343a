"""The docs' copy-paste commands, run as written against a `make run` server: every `curl` request to `/mcp` in
the README or a page of docs/ (the Doubao flow and the 2026-07-28 flow) and the Inspector CLI command. Only the
host and port are replaced."""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tests.support.docs_blocks import shell_commands

from mcp_lambda_tools.suites import mcp_tools

pytestmark = pytest.mark.interop

ROOT = Path(__file__).resolve().parents[2]
INSPECTOR = mcp_tools.INSPECTOR  # the pinned Inspector CLI, installed from npm on first use
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARKDOWN = "\n".join(path.read_text(encoding="utf-8") for path in DOCS)


@dataclass
class Curl:
    url: str
    method: str = "GET"
    headers: dict[str, str] = field(default_factory=dict)
    data: str | None = None


def parse_curl(command: str) -> Curl:
    words = shlex.split(command)
    assert words[0] == "curl"
    request, index = Curl(url=""), 1
    while index < len(words):
        word = words[index]
        if word in ("-H", "--header"):
            name, _, value = words[index + 1].partition(":")
            request.headers[name.strip()] = value.strip()
            index += 2
        elif word in ("-d", "--data", "--data-raw"):
            request.data, request.method = words[index + 1], "POST"
            index += 2
        elif word in ("-X", "--request"):
            request.method = words[index + 1]
            index += 2
        elif word.startswith("-"):
            index += 1  # -s, -i, -si: output switches only
        else:
            request.url = word if "://" in word else f"http://{word}"
            index += 1
    return request


def send(request: Curl, base: str) -> tuple[int, dict[str, str], Any]:
    url = re.sub(r"^http://[^/]+", base, request.url)
    sent = urllib.request.Request(
        url,
        data=request.data.encode() if request.data is not None else None,
        method=request.method,
        headers={"accept": "*/*", **request.headers},  # curl's default Accept
    )
    try:
        with urllib.request.urlopen(sent, timeout=10) as response:
            status, headers, raw = response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        status, headers, raw = error.code, dict(error.headers), error.read()
    return status, {k.lower(): v for k, v in headers.items()}, json.loads(raw) if raw else None


def mcp_curls(markdown: str) -> list[Curl]:
    """The `curl` requests to a local server's `/mcp` (a curl to another service, an issuer's token endpoint, is
    not one of them)."""
    curls = [parse_curl(command) for command in shell_commands(markdown) if command.startswith("curl ")]
    return [
        request for request in curls if re.match(r"^(http://)?(127\.0\.0\.1|localhost):\d+/mcp$", request.url)
    ]


CURLS = mcp_curls(MARKDOWN)


def test_only_curls_to_the_local_mcp_endpoint_are_sent() -> None:
    markdown = (
        "```bash\ncurl -s 127.0.0.1:3000/mcp -d '{}'\ncurl -s http://127.0.0.1:9000/token -d 'a=b'\n```\n"
    )
    assert [request.url for request in mcp_curls(markdown)] == ["http://127.0.0.1:3000/mcp"]


def test_the_docs_show_both_flows_in_curl() -> None:
    getting_started = mcp_curls((ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8"))
    methods = [json.loads(request.data)["method"] for request in getting_started if request.data]
    assert methods[:4] == ["initialize", "server/discover", "tools/list", "tools/call"]


def test_every_docs_curl_request_is_answered_as_it_says(server_url: str) -> None:
    base = server_url.removesuffix("/mcp")
    replies: dict[str, tuple[int, dict[str, str], Any]] = {}
    for request in CURLS:
        reply = send(request, base)
        assert reply[0] < 500 and isinstance(reply[2], dict), (request, reply)  # never a 5xx, always JSON-RPC
        if request.data:
            replies.setdefault(json.loads(request.data)["method"], reply)  # the first of each: the two flows

    status, headers, body = replies["initialize"]
    assert status == 200 and headers["mcp-session-id"] and body["result"]["protocolVersion"] == "2024-11-05"
    for method in ("server/discover", "tools/list", "tools/call"):
        status, headers, body = replies[method]
        assert status == 200 and "result" in body, (method, body)
        assert "mcp-session-id" not in headers
    assert replies["server/discover"][2]["result"]["supportedVersions"]
    assert any(tool["name"] == "search_products" for tool in replies["tools/list"][2]["result"]["tools"])
    call = replies["tools/call"][2]["result"]
    assert call["resultType"] == "complete" and call["structuredContent"]["entities"]


def test_the_docs_name_the_pinned_inspector() -> None:
    # The docs' `npx` lines and dev/mcp_lambda_tools/suites/mcp-inspect (what the tests run) are one version of the Inspector.
    named = set(re.findall(r"@modelcontextprotocol/inspector@([\w.-]+)", MARKDOWN))
    assert named == {mcp_tools.INSPECTOR_VERSION}


@pytest.mark.timeout(900)  # the first run installs Node 22 and the Inspector from npm
def test_the_docs_inspector_cli_command_lists_the_tools(server_url: str) -> None:
    if shutil.which("npm") is None:
        pytest.skip(
            "npm is not on PATH: install Node 20+ with npm, and dev/mcp_lambda_tools/suites/mcp-inspect installs the Inspector"
        )
    [command] = [
        c
        for c in shell_commands(MARKDOWN)
        if c.startswith("npx @modelcontextprotocol/inspector") and "--cli http://" in c and "tools/list" in c
    ]
    words = shlex.split(command)
    assert words[2] == "--cli"
    arguments = [server_url if word.startswith("http://") else word for word in words[3:]]
    done = subprocess.run([str(INSPECTOR), *arguments], capture_output=True, text=True, timeout=880)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert {tool["name"] for tool in json.loads(done.stdout)["tools"]} >= {"search_products", "search_routes"}
