"""The README's copy-paste commands, run as written against a `make run` server: every `curl` request (the Doubao
flow and the 2026-07-28 flow) and the Inspector CLI command. Only the host and port are replaced."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from tests.support.docs_blocks import shell_commands

pytestmark = pytest.mark.interop

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
NODE_ENV = ROOT.parent / "shared" / "tools" / "mcp-node-env"  # the team's pinned Node + Inspector install


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


CURLS = [parse_curl(command) for command in shell_commands(README) if command.startswith("curl ")]


def test_the_readme_shows_both_flows_in_curl() -> None:
    methods = [json.loads(request.data)["method"] for request in CURLS if request.data]
    assert methods == ["initialize", "server/discover", "tools/list", "tools/call"]


def test_every_readme_curl_request_is_answered_as_it_says(server_url: str) -> None:
    base = server_url.removesuffix("/mcp")
    replies = {json.loads(request.data)["method"]: send(request, base) for request in CURLS if request.data}

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


def test_the_readme_inspector_cli_command_lists_the_tools(server_url: str) -> None:
    if not NODE_ENV.exists():
        pytest.skip(f"needs the pinned Inspector install in {NODE_ENV.parent}")
    [command] = [
        c
        for c in shell_commands(README)
        if c.startswith("npx @modelcontextprotocol/inspector") and "--cli http://" in c and "tools/list" in c
    ]
    arguments = [server_url if word.startswith("http://") else word for word in shlex.split(command)[2:]]
    script = f'source "{NODE_ENV}" && cd "$MCP_INSPECTOR_DIR" && exec npx --no-install mcp-inspector {shlex.join(arguments)}'
    done = subprocess.run(
        ["bash", "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "MCP_AUTO_OPEN_ENABLED": "false"},
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert {tool["name"] for tool in json.loads(done.stdout)["tools"]} >= {"search_products", "search_routes"}
