"""`make run` as a newcomer meets it: one-line start-up failures, readable log lines, no EMF noise, CORS like the
deployed stack, RELOAD=1, and nothing but the runtime dependencies needed to serve."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from tests.support.cors import PREFLIGHT_STATUS, expected_preflight, expected_response_headers
from tests.support.dev_only import blocking_launcher

from mcp_lambda.testing import KitError, McpTestClient
from mcp_lambda_dev.businesses import known_businesses
from mcp_lambda_dev.local.process import REPO, free_port, running_server

pytestmark = pytest.mark.interop

SERVER = [sys.executable, "-m", "mcp_lambda_dev.local.server"]
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2024-11-05",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
LINE = re.compile(r"^\d\d:\d\d:\d\d\.\d{3} (INFO |WARN |ERROR) ")


def _env(**extra: str) -> dict[str, str]:
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO / "dev"), str(REPO)]),
        # The side ports on free ones (asked for), never PORT+1 and +2 of a free PORT, which may be taken.
        "INVOKE_PORT": "0",
        "INVENTORY_PORT": "0",
        **extra,
    }
    for name in ("BUSINESS", "MANIFEST_DIR", "MAX_BODY_BYTES"):
        if name not in extra:
            env.pop(name, None)
    return env


def _start_failure(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*SERVER, "--port", str(free_port()), *args],
        env=_env(**env),
        capture_output=True,
        text=True,
        timeout=60,
    )


def post(url: str, body: Any, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], Any]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"content-type": "application/json", "accept": "application/json", **(headers or {})},
    )
    return _open(request)


def _open(request: urllib.request.Request) -> tuple[int, dict[str, str], Any]:
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            status, headers, raw = response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        status, headers, raw = error.code, dict(error.headers), error.read()
    lowered = {name.lower(): value for name, value in headers.items()}
    return status, lowered, json.loads(raw) if raw else None


# --- start-up failures --------------------------------------------------------------------------------------


def test_an_unknown_business_is_one_line_naming_the_known_ones() -> None:
    done = _start_failure(BUSINESS="nobiz")
    assert done.returncode != 0
    # Every business of the checkout, in path order: a scaffolded one is listed too.
    known = ", ".join(known_businesses())
    assert {"demo", "conformance"} <= set(known_businesses())
    assert done.stderr.splitlines() == [
        f"make run: business 'nobiz' not found; known: {known} (a business is a package src/businesses/<name>/)"
    ]


def test_an_invalid_setting_is_one_line_naming_the_variable() -> None:
    done = _start_failure(MAX_BODY_BYTES="12")
    assert done.returncode != 0
    [line] = done.stderr.splitlines()
    assert line.startswith("make run: invalid configuration: MAX_BODY_BYTES: ")


def test_an_invalid_manifest_is_one_line_with_the_lint_command(tmp_path: Path) -> None:
    (tmp_path / "demo.yaml").write_text("tools: [unclosed\n")
    done = _start_failure(MANIFEST_DIR=str(tmp_path))
    assert done.returncode != 0
    [line] = done.stderr.splitlines()
    assert line.startswith(f"make run: invalid manifest: {tmp_path / 'demo.yaml'}:<root>: [yaml-syntax] ")
    assert line.endswith(f"make manifest-lint MANIFEST={tmp_path / 'demo.yaml'}")


def _two_consecutive_ports_taken() -> tuple[socket.socket, socket.socket]:
    """Two listening sockets on ports P and P+1, so that P+1 (the obvious suggestion) is not free."""
    while True:
        first = socket.socket()
        first.bind(("127.0.0.1", 0))
        port = first.getsockname()[1]
        second = socket.socket()
        try:
            second.bind(("127.0.0.1", port + 1))
        except OSError:
            first.close()
            second.close()
            continue
        first.listen()
        second.listen()
        return first, second


def test_a_port_in_use_is_one_line_before_start_up_suggesting_a_free_one() -> None:
    first, second = _two_consecutive_ports_taken()
    port = first.getsockname()[1]
    with first, second:
        done = subprocess.run(
            [*SERVER, "--port", str(port)],
            env=_env(POWERTOOLS_LOG_LEVEL="INFO"),
            capture_output=True,
            text=True,
            timeout=60,
        )
        [line] = done.stderr.splitlines()
        suggested = int(line.rsplit("PORT=", 1)[1])
        with socket.socket() as probe:  # the suggestion was checked: it is free now, beside the two taken
            probe.bind(("127.0.0.1", suggested))
    assert done.returncode != 0
    assert line == (
        f"make run: port {port} on 127.0.0.1 is already in use; stop the other server or pick a free one: "
        f"make run PORT={suggested}"
    )
    assert suggested not in (port, port + 1)
    # Refused before the app was built: no start-up line, no traceback.
    assert "server_started" not in done.stdout + done.stderr
    assert "Traceback" not in done.stdout + done.stderr


def test_a_taken_invoke_port_is_one_line_naming_its_variable() -> None:
    first, second = _two_consecutive_ports_taken()
    taken = first.getsockname()[1]
    with first, second:
        done = _start_failure("--invoke-port", str(taken), POWERTOOLS_LOG_LEVEL="INFO")
    [line] = done.stderr.splitlines()
    assert done.returncode != 0
    assert line.startswith(
        f"make run: the local Lambda Invoke API's port {taken} on 127.0.0.1 is already in use"
    )
    assert "make run INVOKE_PORT=" in line and "Traceback" not in done.stderr


def test_the_side_ports_are_the_ones_asked_for_and_the_start_up_line_names_the_url(tmp_path: Path) -> None:
    invoke_port, inventory_port = free_port(), free_port()
    output = tmp_path / "out.log"
    env = {
        "INVOKE_PORT": str(invoke_port),
        "INVENTORY_PORT": str(inventory_port),
        "POWERTOOLS_LOG_LEVEL": "INFO",
        "LOG_FORMAT": "json",
    }
    with running_server("demo", output=output, **env) as url:
        pass
    printed = output.read_text()  # once the server has stopped: its log lines are all written
    [started] = [json.loads(line) for line in printed.splitlines() if '"server_started"' in line]
    assert f"local Lambda Invoke API at http://127.0.0.1:{invoke_port}" in printed
    assert f"stand-in inventory at http://127.0.0.1:{inventory_port}" in printed
    assert started["endpoint"] == url and started["tool_count"] == 8 and started["environment"]
    assert set(started) <= {
        "level",
        "message",
        "timestamp",
        "service",
        "event",
        "endpoint",
        "version",
        "environment",
        "tool_count",
        "correlation_id",
        "xray_trace_id",
    }


def test_a_manifest_dir_without_the_business_manifest_refuses_to_start(tmp_path: Path) -> None:
    done = _start_failure(MANIFEST_DIR=str(tmp_path))
    assert done.returncode != 0
    assert done.stderr.splitlines() == [
        f"make run: no manifest at {tmp_path / 'demo.yaml'}: MANIFEST_DIR={tmp_path} has no demo.yaml or .json, "
        f"but {REPO / 'manifest' / 'demo.yaml'} exists: put the manifest in MANIFEST_DIR or unset MANIFEST_DIR"
    ]


NO_MANIFEST = """
from mcp_lambda.tools import Business, ToolResult, execution_result, tool


@tool(description="Use to say hello. Not for anything else.")
def hello() -> ToolResult:
    return execution_result({"success": True, "message": "hello"})


BUSINESS = Business(name="fresh", tools=[hello])
"""


def test_a_business_no_manifest_describes_starts_saying_its_results_are_unchecked(tmp_path: Path) -> None:
    (tmp_path / "businesses" / "fresh").mkdir(parents=True)
    (tmp_path / "businesses" / "fresh" / "__init__.py").write_text(NO_MANIFEST)
    output = tmp_path / "out.log"
    with running_server("fresh", output=output, extra_path=[str(tmp_path)]) as url:
        answer = McpTestClient.over_http(url).call_tool("hello")
    assert answer.structured_content["message"] == "hello"
    [started] = [line for line in output.read_text().splitlines() if line.startswith("MCP server for")]
    assert started.endswith(
        f"/mcp (no manifest: tool results are served unchecked; looked for {REPO / 'manifest' / 'fresh.yaml'})"
    )


def test_make_run_itself_exits_non_zero_with_the_one_line() -> None:
    done = subprocess.run(
        ["make", "--no-print-directory", "run", "BUSINESS=nobiz", f"PORT={free_port()}", "INVOKE_PORT=0"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode != 0
    assert f"make run: business 'nobiz' not found; known: {', '.join(known_businesses())}" in done.stderr
    assert "Traceback" not in done.stderr


# --- what it prints -----------------------------------------------------------------------------------------


def test_the_local_log_is_one_compact_line_per_call_and_no_metrics(tmp_path: Path) -> None:
    output = tmp_path / "out.log"
    with running_server("demo", output=output, POWERTOOLS_LOG_LEVEL="INFO") as url:
        post(url, INITIALIZE)
        client = McpTestClient.over_http(url)
        client.call_tool("search_products", {"keyword": "cup"})
        client.call_tool("search_products", {"keyword": "cup", "limit": "2"})
        client.rpc("tools/call", {"name": "no_such_tool", "arguments": {}})
    lines = output.read_text().splitlines()
    logged = [line for line in lines if LINE.match(line)]

    assert '"_aws"' not in output.read_text() and "ColdStart" not in output.read_text()
    assert all(len(line) < 200 for line in logged), logged
    assert any(
        re.search(r" INFO  initialize success revision=\d{4}-\d\d-\d\d code=0 http=200 \d+\.\dms$", line)
        for line in logged
    )  # the line names the revision the handshake settled on
    calls = [line for line in logged if " tools/call search_products " in line]
    assert len(calls) == 2, calls  # one line per call: no separate "started" line
    assert re.search(
        r" INFO  tools/call search_products success code=0 \d+\.\dms execution_id=exe_[0-9a-f]{16}$", calls[0]
    )
    assert re.search(r"tools/call search_products invalid_arguments code=40000 \d+\.\dms", calls[1])
    assert any(
        re.search(r" WARN  tools/call no_such_tool error code=-32602 http=400 ", line) for line in logged
    )


def test_log_format_json_prints_the_lambda_lines(tmp_path: Path) -> None:
    output = tmp_path / "out.log"
    with running_server("demo", output=output, POWERTOOLS_LOG_LEVEL="INFO", LOG_FORMAT="json") as url:
        McpTestClient.over_http(url).call_tool("search_products", {"keyword": "cup"})
    records = [json.loads(line) for line in output.read_text().splitlines() if line.startswith("{")]
    events = [record.get("event") for record in records]
    assert "mcp_tool_call_started" in events and "mcp_tool_call_finished" in events
    finished = next(record for record in records if record.get("event") == "mcp_tool_call_finished")
    assert finished["tool_name"] == "search_products" and finished["outcome"] == "success"
    assert not any("_aws" in record for record in records)


# --- CORS -----------------------------------------------------------------------------------------------------


def _preflight(url: str, origin: str) -> tuple[int, dict[str, str], Any]:
    request = urllib.request.Request(
        url,
        method="OPTIONS",
        headers={
            "origin": origin,
            "access-control-request-method": "POST",
            "access-control-request-headers": "content-type,mcp-protocol-version",
        },
    )
    return _open(request)


def test_cors_preflight_and_responses_match_the_deployed_stack() -> None:
    origin = "http://localhost:6274"
    with running_server("demo", ALLOWED_ORIGINS="http://localhost:*") as url:
        status, headers, body = _preflight(url, origin)
        refused_status, refused_headers, _ = _preflight(url, "https://evil.example.com")
        answered = post(url, INITIALIZE, {"origin": origin})

    cors = {name: value for name, value in headers.items() if name.startswith("access-control-")}
    assert (status, cors, body) == (PREFLIGHT_STATUS, expected_preflight(origin), None)
    assert refused_status == PREFLIGHT_STATUS
    assert not any(name.startswith("access-control-") for name in refused_headers)
    answer_cors = {name: value for name, value in answered[1].items() if name.startswith("access-control-")}
    assert answered[0] == 200 and answer_cors == expected_response_headers(origin)


# --- RELOAD=1 -------------------------------------------------------------------------------------------------

HOT = """
from mcp_lambda.tools import Business, ToolResult, execution_result, tool


@tool(description="Use to say which version of the code is running.")
def version() -> ToolResult:
    return execution_result({{"version": {version}}})


BUSINESS = Business(name="hot", tools=[version])
"""


def test_reload_restarts_the_server_when_a_tool_changes(tmp_path: Path) -> None:
    package = tmp_path / "businesses" / "hot"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(HOT.format(version=1))
    command = [*SERVER, "--reload", "--watch", str(tmp_path)]
    with running_server(
        "hot", command=command, extra_path=[str(tmp_path)], MANIFEST_DIR=str(tmp_path)
    ) as url:
        assert McpTestClient.over_http(url).call_tool("version").structured_content == {"version": 1}
        (package / "__init__.py").write_text(HOT.format(version=2))
        seen = None
        deadline = time.monotonic() + 60
        while seen != {"version": 2} and time.monotonic() < deadline:
            time.sleep(0.2)
            try:
                seen = McpTestClient.over_http(url).call_tool("version").structured_content
            except KitError:  # restarting: not reachable
                continue
    assert seen == {"version": 2}


# --- only the runtime dependencies ------------------------------------------------------------------------------

BLOCKING_LAUNCHER = blocking_launcher("mcp_lambda_dev.local.server", "server")


def test_serving_needs_no_dev_only_package() -> None:
    command = [sys.executable, "-c", BLOCKING_LAUNCHER]
    with running_server("demo", command=command) as url:
        initialized = post(url, INITIALIZE)
        called = McpTestClient.over_http(url).call_tool("search_products", {"keyword": "cup"})
    assert initialized[0] == 200 and initialized[1]["mcp-session-id"]
    assert called.structured_content["entities"]


def test_make_run_installs_only_the_runtime_and_make_test_the_rest(tmp_path: Path) -> None:
    venv = tmp_path / "venv"

    def dry_run(target: str) -> str:
        done = subprocess.run(
            ["make", "-n", "--no-print-directory", target, f"VENV={venv}"],
            cwd=REPO,
            capture_output=True,
            text=True,
            timeout=60,
        )
        return done.stdout

    run, test = dry_run("run"), dry_run("test")
    assert f"{venv}/bin/pip install --quiet -e ." in run and ".[dev]" not in run
    assert "'.[dev]'" in test
