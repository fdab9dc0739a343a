"""The simulator's local-only routes on the `make run` server, from an HTTP client: the page and its files, the
report and log routes, the same Host/Origin guards as /mcp, and every other request still going to the handler."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from mcp_lambda.wire import STATELESS_REVISION

pytestmark = pytest.mark.interop

MODERN = STATELESS_REVISION


def fetch(url: str, body: Any = None, headers: dict[str, str] | None = None, method: str | None = None):
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers.items()), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers.items()), error.read()


def call_tool(base: str, name: str, arguments: dict[str, Any], request_id: str) -> dict[str, Any]:
    body = {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "tools/call",
        "params": {
            "name": name,
            "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": MODERN,
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": MODERN,
        "mcp-method": "tools/call",
        "mcp-name": name,
    }
    status, _, raw = fetch(f"{base}mcp", body, headers)
    assert status == 200, raw
    reply: dict[str, Any] = json.loads(raw)
    return reply


def test_the_page_and_its_files_are_served_with_a_no_network_policy(demo_url: str) -> None:
    status, headers, page = fetch(demo_url)
    assert status == 200 and headers["content-type"].startswith("text/html")
    policy = headers["content-security-policy"]
    assert "default-src 'none'" in policy and "connect-src 'self'" in policy and "script-src 'self'" in policy
    assert b"/_sim/static/simulator.js" in page and b"http" not in page.replace(b"http-equiv", b"")
    status, headers, script = fetch(f"{demo_url}_sim/static/simulator.js")
    assert status == 200 and headers["content-type"].startswith("text/javascript")
    assert b"/_sim/report" in script


@pytest.mark.parametrize("path", ["_sim/static/../report.py", "_sim/static/report.py", "_sim/static/nope.js"])
def test_only_the_page_files_are_served(demo_url: str, path: str) -> None:
    assert fetch(demo_url + path)[0] == 404


def test_a_foreign_host_or_origin_is_refused_like_on_mcp(demo_url: str) -> None:
    assert fetch(demo_url, headers={"host": "attacker.example"})[0] == 403
    status, _, _ = fetch(
        f"{demo_url}_sim/report",
        {"tool": "search_products", "result": {}},
        {"content-type": "application/json", "origin": "https://attacker.example"},
    )
    assert status == 403


def test_the_report_of_a_real_call_and_its_log_lines(demo_url: str) -> None:
    reply = call_tool(demo_url, "search_products", {"keyword": "cup"}, "routes-test-1")

    status, _, raw = fetch(
        f"{demo_url}_sim/report",
        {"tool": "search_products", "result": reply["result"], "ids": ["routes-test-1"]},
        {"content-type": "application/json", "origin": demo_url.rstrip("/")},
    )
    report = json.loads(raw)
    _, _, logs = fetch(f"{demo_url}_sim/logs?id=routes-test-1")

    assert status == 200
    assert report["verdict"]["valid"] is True and report["business"] == "demo"
    assert [card["widget_id"] for card in report["cards"]] == ["product_list_widget"]
    events = [line["event"] for line in json.loads(logs)["lines"]]
    assert events == ["mcp_tool_call_started", "mcp_tool_call_finished"]


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        (b"{not json", 400, "Expecting property name"),
        ({"tool": "search_products"}, 400, "send {tool, result"),
        ({"tool": "nope", "result": {}}, 400, "tool 'nope' is not in the manifest"),
    ],
)
def test_a_bad_report_request_gets_400_with_the_reason(
    demo_url: str, body: Any, status: int, message: str
) -> None:
    got, _, raw = fetch(f"{demo_url}_sim/report", body, {"content-type": "application/json"})
    assert got == status and message in json.loads(raw)["error"]


def test_everything_else_still_goes_through_the_lambda_handler(demo_url: str) -> None:
    status, headers, _ = fetch(f"{demo_url}mcp")
    assert status == 405 and "POST" in headers["allow"]  # the handler's answer to GET /mcp
    status, _, raw = fetch(f"{demo_url}elsewhere")
    assert status == 404 and b"/_sim" not in raw
