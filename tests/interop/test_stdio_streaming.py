"""stdio streams: a request's notifications reach the client while the tool runs, not back to back with its
result (desktop clients drop progress for a request that has already been answered), and `make stdio` serves
with the runtime dependencies only."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

import pytest
from tests.support.dev_only import blocking_launcher

pytestmark = pytest.mark.interop

REPO = Path(__file__).resolve().parents[2]
NOISY_BUSINESSES = REPO / "tests" / "support" / "stdio_businesses"
META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": {},
    "io.modelcontextprotocol/logLevel": "info",
    "progressToken": "p1",
}


def _read_lines(stdout: IO[bytes], into: queue.Queue[dict[str, Any]]) -> None:
    for line in stdout:
        into.put(json.loads(line))


def test_progress_is_written_while_the_tool_runs_and_the_log_before_the_result(tmp_path: Path) -> None:
    release = tmp_path / "release"
    paths = os.pathsep.join(str(path) for path in (REPO / "src", REPO / "dev", NOISY_BUSINESSES))
    process = subprocess.Popen(
        [sys.executable, "-m", "mcp_lambda_dev.stdio"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": paths, "BUSINESS": "noisy"},
        cwd=tmp_path,
    )
    lines: queue.Queue[dict[str, Any]] = queue.Queue()
    assert process.stdin is not None and process.stdout is not None
    threading.Thread(target=_read_lines, args=(process.stdout, lines), daemon=True).start()
    try:
        call = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"_meta": META, "name": "waits", "arguments": {"release_file": str(release)}},
        }
        process.stdin.write(json.dumps(call).encode() + b"\n")
        process.stdin.flush()
        # The tool is blocked until the file exists: this line can only have been written while it runs.
        progress = lines.get(timeout=30)
        release.touch()
        log, result = lines.get(timeout=30), lines.get(timeout=30)
        process.stdin.close()
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert progress["method"] == "notifications/progress"
    assert progress["params"] == {"progressToken": "p1", "progress": 1, "total": 2, "message": "waiting"}
    assert log["method"] == "notifications/message" and log["params"]["data"] == {"released": True}
    assert result["id"] == 1 and result["result"]["structuredContent"] == {"released": True}
    assert lines.empty()


def test_make_stdio_installs_the_runtime_dependencies_only_and_says_so(tmp_path: Path) -> None:
    """A dry run against a venv that does not exist yet: what the first `make stdio` would do."""
    done = subprocess.run(
        ["make", "-n", "--no-print-directory", "-C", str(REPO), "stdio", f"VENV={tmp_path / 'venv'}"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    commands = done.stdout + done.stderr  # the venv step's commands go to stderr (stdout is the protocol's)
    assert "pip install --quiet -e ." in commands
    assert ".[dev]" not in commands
    assert "installing the runtime dependencies" in commands
    assert "-m mcp_lambda_dev.stdio" in commands


def test_stdio_serves_with_the_runtime_dependencies_only(tmp_path: Path) -> None:
    """What `make stdio` loads must be in the runtime install it makes (no dev-only package is importable)."""
    modern = {
        key: META[key]
        for key in ("io.modelcontextprotocol/protocolVersion", "io.modelcontextprotocol/clientCapabilities")
    }
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"_meta": modern, "name": "search_products", "arguments": {"keyword": "cup"}},
    }
    paths = os.pathsep.join(str(path) for path in (REPO / "src", REPO / "dev", REPO))
    done = subprocess.run(
        [sys.executable, "-c", blocking_launcher("mcp_lambda_dev.stdio", "stdio")],
        input=json.dumps(call).encode() + b"\n",
        capture_output=True,
        env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": paths, "BUSINESS": "demo"},
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    (answer,) = [json.loads(line) for line in done.stdout.splitlines()]
    assert answer["result"]["structuredContent"]["entities"][0]["entity_type"] == "product_list"
