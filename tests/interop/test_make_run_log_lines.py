"""`make run`'s log, end to end through the Lambda handler and the real stdout of the server process: a client's
lone surrogate in a safe-field argument and a newline in a method name cost no line and forge none, in the
compact format and in the Lambda JSON lines."""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from mcp_lambda.wire import modern_meta
from mcp_lambda_dev.local.process import running_server

pytestmark = pytest.mark.interop

LINE = re.compile(r"^\d\d:\d\d:\d\d\.\d{3} (INFO |WARN |ERROR) ")
MODERN = {"mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "search_products"}
META = modern_meta()
SURROGATE = "\ud800"
CONTROLS = "cup\u2028\x1b[2J"
FORGED = "tools/list\n12:00:00.000 INFO  tools/call forged success code=0 0.1ms"


def _post(url: str, body: Any, headers: dict[str, str] | None = None) -> int:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),  # ASCII: the surrogate travels as its \ud800 escape
        method="POST",
        headers={"content-type": "application/json", "accept": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return int(response.status)
    except urllib.error.HTTPError as error:
        return int(error.code)


def _call(url: str, keyword: str) -> None:
    call = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "tools/call",
        "params": {"name": "search_products", "arguments": {"keyword": keyword}, "_meta": META},
    }
    assert _post(url, call, MODERN) == 200


def _probe(url: str) -> None:
    """The requests of the probe: a lone surrogate in the safe-field keyword (the tool refuses it: 40000, after
    the started line logged it), a keyword with a line separator and an escape sequence (the tool answers), then
    a method name holding a forged line."""
    _call(url, SURROGATE)
    _call(url, CONTROLS)
    _post(url, {"jsonrpc": "2.0", "id": 3, "method": FORGED, "params": {"_meta": META}})


def _printed_once(output: Path, text: bytes) -> None:
    """Wait until the server has printed `text`: it writes a request's access line after the answer is sent."""
    deadline = time.monotonic() + 10
    while text not in output.read_bytes() and time.monotonic() < deadline:
        time.sleep(0.05)


def _printed(output: Path) -> list[str]:
    printed = output.read_bytes().decode("utf-8")  # strictly: a surrogate written raw would not decode
    assert "Logging error" not in printed and "Traceback" not in printed, printed
    lines = printed.splitlines()
    assert not any(line.startswith("12:00:00.000") for line in lines), lines
    return lines


def test_the_compact_log_keeps_every_line_of_the_probe_and_forges_none(tmp_path: Path) -> None:
    output = tmp_path / "out.log"
    with running_server("demo", output=output, POWERTOOLS_LOG_LEVEL="DEBUG") as url:
        _probe(url)
        _printed_once(output, b"tools/list\\n12:00")
    lines = _printed(output)

    started = [line for line in lines if " mcp_tool_call_started " in line]
    calls = [line for line in lines if " tools/call search_products " in line]
    forged = [line for line in lines if "forged" in line]
    assert len(started) == 2 and len(calls) == 2 and len(forged) == 1, lines
    assert all(LINE.match(line) for line in started + calls + forged), lines
    assert started[0].endswith(' arguments={"keyword":"\\ud800"}')
    assert " invalid_arguments code=40000 " in calls[0]
    assert started[1].endswith(' arguments={"keyword":"cup\\u2028\\u001b[2J"}')
    assert " success code=0 " in calls[1]
    assert "tools/list\\n12:00:00.000 INFO  tools/call forged" in forged[0]


def test_the_json_log_keeps_every_line_of_the_probe_and_forges_none(tmp_path: Path) -> None:
    output = tmp_path / "out.log"
    with running_server("demo", output=output, POWERTOOLS_LOG_LEVEL="INFO", LOG_FORMAT="json") as url:
        _probe(url)
    lines = _printed(output)

    records = [json.loads(line) for line in lines if line.startswith("{")]
    calls = [record for record in records if record.get("tool_name") == "search_products"]
    assert [record["event"] for record in calls] == [
        "mcp_tool_call_started",
        "mcp_tool_call_failed",
        "mcp_tool_call_started",
        "mcp_tool_call_finished",
    ]
    assert calls[0]["arguments"] == {"keyword": SURROGATE} and calls[1]["outcome"] == "invalid_arguments"
    assert calls[2]["arguments"] == {"keyword": CONTROLS} and calls[3]["outcome"] == "success"
