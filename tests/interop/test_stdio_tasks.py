"""Tasks over stdio: `make stdio` advertises the tasks extension, so a client that declares it gets a task that
runs to completion in the stdio process itself (no Lambda to invoke), polled with `tasks/get` on the same pipe
while the worker runs."""

from __future__ import annotations

import json
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

import pytest

from mcp_lambda.wire import modern_meta

pytestmark = pytest.mark.interop

REPO = Path(__file__).resolve().parents[2]
TASKS_META = modern_meta({"extensions": {"io.modelcontextprotocol/tasks": {}}})
TRIP = {"stops": ["guomao", "capital_airport_t3"], "file_format": "ics"}


class StdioPipe:
    """One stdio server process, driven a line at a time (a desktop client waits for each answer)."""

    def __init__(self, process: subprocess.Popen[bytes]) -> None:
        self.process = process
        self.lines: queue.Queue[bytes] = queue.Queue()
        self.next_id = 0
        threading.Thread(target=self._read, args=(process.stdout,), daemon=True).start()

    def _read(self, stdout: IO[bytes]) -> None:
        for line in stdout:
            self.lines.put(line)

    def request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        self.next_id += 1
        message = {
            "jsonrpc": "2.0",
            "id": self.next_id,
            "method": method,
            "params": {"_meta": TASKS_META, **params},
        }
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()
        answer: dict[str, Any] = json.loads(self.lines.get(timeout=30))
        assert answer.get("id") == self.next_id, answer
        return answer


@contextmanager
def stdio_server(tmp_path: Path, **env: str) -> Iterator[tuple[StdioPipe, Path]]:
    """A `python -m mcp_lambda_dev.stdio` process as a desktop client starts it; its stderr goes to a file."""
    stderr = tmp_path / "stderr.log"
    paths = os.pathsep.join(str(REPO / part) for part in ("src", "dev"))
    with stderr.open("wb") as errors:
        process = subprocess.Popen(
            [sys.executable, "-m", "mcp_lambda_dev.stdio"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=errors,
            env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": paths, "BUSINESS": "demo", **env},
            cwd=tmp_path,
        )
        try:
            yield StdioPipe(process), stderr
            assert process.stdin is not None
            process.stdin.close()
            assert process.wait(timeout=30) == 0, stderr.read_text()
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()


def test_a_task_over_stdio_runs_to_completion_and_is_read_back_with_tasks_get(tmp_path: Path) -> None:
    with stdio_server(tmp_path) as (pipe, stderr):
        discovered = pipe.request("server/discover", {})["result"]
        created = pipe.request("tools/call", {"name": "export_trip_plan", "arguments": TRIP})
        assert "error" not in created, (created, stderr.read_text())
        task = created["result"]
        assert task["resultType"] == "task" and task["status"] == "working", task

        deadline = time.monotonic() + 30
        while True:
            polled = pipe.request("tasks/get", {"taskId": task["taskId"]})["result"]
            if polled["status"] != "working" or time.monotonic() > deadline:
                break
            time.sleep(polled["pollIntervalMs"] / 1000)

    assert "io.modelcontextprotocol/tasks" in discovered["capabilities"]["extensions"]
    assert polled["status"] == "completed", polled
    result = polled["result"]
    assert result["resultType"] == "complete" and not result.get("isError"), result
    assert result["structuredContent"]["file_format"] == "ics" and result["structuredContent"]["legs"] == 1
    assert "AWS_LAMBDA_FUNCTION_NAME" not in stderr.read_text()
