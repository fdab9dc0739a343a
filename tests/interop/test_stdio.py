"""stdio for desktop clients: the server started as a process exactly as Claude Desktop, Cursor or the Inspector
start it (the venv's python, `-m mcp_lambda_dev.stdio`, only PYTHONPATH and BUSINESS in the environment, some
other working directory), driven by the official MCP client's stdio transport, by the Inspector CLI, and by raw
lines on the pipe."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from mcp_lambda.wire import stateless_meta

pytestmark = pytest.mark.interop

REPO = Path(__file__).resolve().parents[2]
NOISY_BUSINESSES = REPO / "tests" / "support" / "stdio_businesses"
NOISE = ("noise from print", "noise from sys.__stdout__", "noise from fd 1", "noise from a child process")
INSPECTOR = REPO / "scripts" / "mcp-inspect"  # the pinned Inspector CLI, installed from npm on first use
ROUTE_ARGS = {"origin": "guomao", "destination": "capital_airport_t3"}
EXPECTED_VERSION = {"auto": "2026-07-28", "2026-07-28": "2026-07-28", "legacy": "2025-11-25"}
MODERN_META = stateless_meta()


def desktop_env(business: str, *extra_paths: Path) -> dict[str, str]:
    """What a desktop client's config entry gives the process (the client adds only PATH, HOME and the like)."""
    paths = [REPO / "src", REPO / "dev", *extra_paths]
    return {"PYTHONPATH": os.pathsep.join(str(path) for path in paths), "BUSINESS": business}


def desktop_params(cwd: Path, business: str = "demo", *extra_paths: Path) -> StdioServerParameters:
    # sys.executable is the venv's python, by its absolute path: what the README's config entries name.
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "mcp_lambda_dev.stdio"],
        env=desktop_env(business, *extra_paths),
        cwd=cwd,
    )


async def _lists_and_calls(server: Any, mode: Any) -> dict[str, Any]:
    stream_errors: list[Exception] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):  # a stdout line that is not a JSON-RPC message
            stream_errors.append(message)

    async with Client(server, mode=mode, message_handler=on_message) as client:
        tools = await client.list_tools()
        result = await client.call_tool("search_routes", ROUTE_ARGS)
        bad = await client.call_tool("search_routes", {"origin": "nowhere"})
        return {
            "version": client.protocol_version,
            "tools": tools,
            "result": result,
            "bad": bad,
            "stream_errors": stream_errors,
        }


@pytest.mark.parametrize("mode", ["auto", "legacy", "2026-07-28"])
def test_official_client_lists_and_calls_tools_over_stdio(mode: str, tmp_path: Path) -> None:
    seen = asyncio.run(asyncio.wait_for(_lists_and_calls(desktop_params(tmp_path), mode), timeout=60))
    assert seen["version"] == EXPECTED_VERSION[mode]
    names = [tool.name for tool in seen["tools"].tools]
    assert names == [
        "search_routes",
        "search_routes_for_reference",
        "search_products",
        "subscribe_product",
        "list_subscriptions",
        "check_stock",
        "export_trip_plan",
        # A session also lists the framework's job tools: export_trip_plan runs as a job there.
        *(["get_job_status", "cancel_job"] if EXPECTED_VERSION[mode] != "2026-07-28" else []),
    ]
    result = seen["result"]
    assert not result.is_error
    assert result.structured_content["entities"][0]["entity_type"] == "route"
    assert seen["bad"].is_error
    assert seen["stream_errors"] == []


def test_make_stdio_is_a_desktop_command(tmp_path: Path) -> None:
    """`make stdio` as a client's command: nothing but protocol lines on stdout (no echoed recipe, no venv chatter)."""
    params = StdioServerParameters(
        command="make",
        args=["-s", "--no-print-directory", "-C", str(REPO), "stdio", "BUSINESS=demo"],
        cwd=tmp_path,
    )
    seen = asyncio.run(asyncio.wait_for(_lists_and_calls(params, "auto"), timeout=60))
    assert seen["version"] == "2026-07-28"
    assert not seen["result"].is_error
    assert seen["stream_errors"] == []


async def _noisy_call(server: Any, mode: Any) -> dict[str, Any]:
    stream_errors: list[Exception] = []
    progress: list[float] = []
    logs: list[Any] = []

    async def on_message(message: Any) -> None:
        if isinstance(message, Exception):
            stream_errors.append(message)

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append(value)

    async def on_log(params: Any) -> None:
        logs.append(params.data)

    async with Client(
        server, mode=mode, message_handler=on_message, logging_callback=on_log, log_level="info"
    ) as client:
        if mode == "legacy":
            await client.set_logging_level("info")
        result = await client.call_tool("noisy", {}, progress_callback=on_progress)
        again = await client.call_tool("noisy", {})
    return {
        "result": result,
        "again": again,
        "stream_errors": stream_errors,
        "progress": progress,
        "logs": logs,
    }


@pytest.mark.filterwarnings("ignore:The logging capability is deprecated")
@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_a_tool_printing_to_stdout_does_not_corrupt_the_stream(mode: str, tmp_path: Path) -> None:
    params = desktop_params(tmp_path, "noisy", NOISY_BUSINESSES)
    stderr_path = tmp_path / "stderr.log"
    with stderr_path.open("w") as errlog:
        seen = asyncio.run(
            asyncio.wait_for(_noisy_call(stdio_client(params, errlog=errlog), mode), timeout=60)
        )
    assert seen["stream_errors"] == []
    for result in (seen["result"], seen["again"]):
        assert not result.is_error
        assert result.structured_content == {"quiet": True}
    assert seen["progress"] == [50]
    assert {"step": "halfway"} in seen["logs"]
    stderr = stderr_path.read_text()
    for noise in NOISE:
        assert stderr.count(noise) == 2, f"{noise!r} did not reach stderr"
    assert '"message":"mcp_tool_call_finished"' in stderr.replace(" ", "")


def _run_lines(lines: list[bytes | str], business: str = "demo", **env: str) -> tuple[list[Any], str, int]:
    """Write `lines` to a fresh server's stdin and close it; every stdout line, parsed, plus stderr and status."""
    extra = (NOISY_BUSINESSES,) if business == "noisy" else ()
    payload = b"".join((line.encode() if isinstance(line, str) else line) + b"\n" for line in lines)
    done = subprocess.run(
        [sys.executable, "-m", "mcp_lambda_dev.stdio"],
        input=payload,
        capture_output=True,
        env={"PATH": os.environ.get("PATH", ""), **desktop_env(business, *extra), **env},
        cwd=REPO.parent,
        timeout=60,
    )
    out = done.stdout.decode()
    assert out.endswith("\n") or not out
    return [json.loads(line) for line in out.splitlines()], done.stderr.decode(), done.returncode


def _request(request_id: int, method: str, params: dict[str, Any] | None = None) -> str:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message)


def _initialize(request_id: int, version: str, **params: Any) -> str:
    return _request(
        request_id,
        "initialize",
        {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "t", "version": "1"},
            **params,
        },
    )


def test_session_era_lines_blank_invalid_oversized_batches_and_notifications() -> None:
    limit = 2048
    answers, stderr, status = _run_lines(
        [
            _request(1, "tools/list"),  # before initialize: no session on this process yet
            '{"jsonrpc":"2.0","method":"notifications/initialized"}',  # a notification: never answered
            _initialize(2, "2025-03-26"),
            '{"jsonrpc":"2.0","method":"notifications/initialized"}',
            "",
            "   \t",
            "{not json",
            b"\xff\xfe",
            json.dumps({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"pad": "x" * limit}}),
            _request(4, "ping"),
            json.dumps(
                [json.loads(_request(5, "tools/list")), {"jsonrpc": "2.0", "method": "notifications/x"}]
            ),
            '{"jsonrpc":"2.0","id":99,"result":{}}',  # a client's response: accepted, never answered
            _request(6, "no/such/method"),
            _request(7, "tools/call", {"name": "search_products", "arguments": {"keyword": "cup"}}),
        ],
        MAX_BODY_BYTES=str(limit),
    )
    assert status == 0, stderr
    ids = [answer.get("id") if isinstance(answer, dict) else "batch" for answer in answers]
    assert ids == [1, 2, None, None, None, 4, "batch", 6, 7]
    assert answers[0]["error"]["code"] == -32600 and "initialize" in answers[0]["error"]["message"]
    assert answers[1]["result"]["protocolVersion"] == "2025-03-26"
    assert [answer["error"]["code"] for answer in answers[2:5]] == [-32700, -32700, -32600]
    assert str(limit) in answers[4]["error"]["message"]
    assert answers[5]["result"] == {}
    assert [member["id"] for member in answers[6]] == [5] and "tools" in answers[6][0]["result"]
    assert answers[7]["error"]["code"] == -32601
    assert answers[8]["result"]["structuredContent"]["entities"][0]["entity_type"] == "product_list"
    assert "resultType" not in answers[8]["result"]  # session-era results carry no 2026 fields


def test_2026_requests_need_no_headers_and_both_eras_share_the_process() -> None:
    answers, stderr, status = _run_lines(
        [
            _request(1, "server/discover", {"_meta": MODERN_META}),
            _request(
                2, "tools/list", {"_meta": {**MODERN_META, "io.modelcontextprotocol/protocolVersion": "1999"}}
            ),
            _request(3, "tools/list", {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}),
            _request(4, "ping", {"_meta": MODERN_META}),  # removed at 2026-07-28
            json.dumps([json.loads(_request(5, "tools/list", {"_meta": MODERN_META}))]),  # no batches at 2026
            _initialize(6, "2025-11-25", _meta=MODERN_META),  # initialize always means the session era
            _request(
                7,
                "tools/call",
                {"_meta": MODERN_META, "name": "search_products", "arguments": {"keyword": "cup"}},
            ),
            _request(8, "tools/list"),  # the session initialize opened
        ]
    )
    assert status == 0, stderr
    assert [answer["id"] for answer in answers] == [1, 2, 3, 4, None, 6, 7, 8]
    assert answers[0]["result"]["supportedVersions"] == ["2026-07-28"]
    assert answers[1]["error"]["code"] == -32022
    assert answers[1]["error"]["data"] == {"supported": ["2026-07-28"], "requested": "1999"}
    assert answers[2]["error"]["code"] == -32602 and "clientCapabilities" in answers[2]["error"]["message"]
    assert answers[3]["error"]["code"] == -32601
    assert answers[4]["error"]["code"] == -32600 and "2026-07-28" in answers[4]["error"]["message"]
    assert answers[5]["result"]["protocolVersion"] == "2025-11-25"
    modern = answers[6]["result"]
    assert modern["resultType"] == "complete" and not modern.get("isError")
    assert modern["_meta"]["io.modelcontextprotocol/serverInfo"]["name"] == "demo"
    assert "resultType" not in answers[7]["result"] and answers[7]["result"]["tools"]
    started = [line for line in stderr.splitlines() if "server_started" in line]
    assert len(started) == 1  # the start-up line names what it serves (JSON or make's text format)
    assert '"endpoint":"stdio"' in started[0] or "endpoint=stdio" in started[0]


def test_notifications_go_out_before_the_response_and_prints_go_to_stderr() -> None:
    meta = {**MODERN_META, "progressToken": "p1", "io.modelcontextprotocol/logLevel": "info"}
    answers, stderr, status = _run_lines(
        [_request(1, "tools/call", {"_meta": meta, "name": "noisy"})], "noisy"
    )
    assert status == 0, stderr
    assert [answer.get("method", answer.get("id")) for answer in answers] == [
        "notifications/progress",
        "notifications/message",
        1,
    ]
    assert answers[0]["params"] == {"progressToken": "p1", "progress": 50, "total": 100}
    assert answers[2]["result"]["structuredContent"] == {"quiet": True}
    assert all(noise in stderr for noise in NOISE)


def test_an_unknown_business_fails_in_one_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "mcp_lambda_dev.stdio"],
        input=b"",
        capture_output=True,
        env={"PATH": os.environ.get("PATH", ""), **desktop_env("nobiz")},
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stdout == b""
    lines = done.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("stdio: ") and "'nobiz'" in lines[0], lines


needs_inspector = pytest.mark.skipif(
    shutil.which("npm") is None,
    reason="npm is not on PATH: install Node 20+ with npm, and scripts/mcp-inspect installs the pinned Inspector",
)


def _inspect(target: list[str], *flags: str, env: dict[str, str] | None = None) -> Any:
    done = subprocess.run(
        [str(INSPECTOR), *target, *flags, "--format", "json"],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=880,
    )
    assert done.returncode == 0, f"{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return json.loads(done.stdout.strip().splitlines()[-1])


@needs_inspector
@pytest.mark.timeout(900)
@pytest.mark.parametrize("era", ["legacy", "modern"])
def test_inspector_cli_lists_tools_over_stdio(era: str) -> None:
    # The Inspector starts the command itself, with the environment given by -e (as a config entry's "env").
    env_flags = [flag for item in desktop_env("demo").items() for flag in ("-e", "=".join(item))]
    answer = _inspect(
        [sys.executable, "-m", "mcp_lambda_dev.stdio"],
        "--transport",
        "stdio",
        *env_flags,
        "--protocol-era",
        era,
        "--method",
        "tools/list",
    )
    assert [tool["name"] for tool in answer["result"]["tools"]][:1] == ["search_routes"]


@needs_inspector
@pytest.mark.timeout(900)
def test_inspector_cli_calls_a_tool_on_make_run(server_url: str) -> None:
    answer = _inspect(
        [server_url],
        "--transport",
        "http",
        "--method",
        "tools/call",
        "--tool-name",
        "search_products",
        "--tool-arg",
        "keyword=cup",
    )
    assert answer["result"]["structuredContent"]["entities"][0]["entity_type"] == "product_list"
