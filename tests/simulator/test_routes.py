"""The simulator's local-only routes on the `make run` server, from an HTTP client: the page and its files, the
report and log routes, the same Host/Origin guards as /mcp, and every other request still going to the handler."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from mcp_lambda.testing import McpTestClient

pytestmark = pytest.mark.interop


def fetch(url: str, body: Any = None, headers: dict[str, str] | None = None, method: str | None = None):
    data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
    request = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers.items()), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers.items()), error.read()


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
    client = McpTestClient.over_http(f"{demo_url}mcp")
    called = client.rpc(
        "tools/call", {"name": "search_products", "arguments": {"keyword": "cup"}}, request_id="routes-test-1"
    )
    assert called.status == 200, called.raw
    reply = called.body

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
