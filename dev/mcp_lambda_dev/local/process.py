"""`make run` in a child process, for tools and tests that need a live server: start, wait until it answers,
stop. The readiness probe is a real `server/discover` through the handler, not just an open port."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
_DISCOVER = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "server/discover",
        "params": {
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            }
        },
    }
).encode()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def answers(url: str) -> bool:
    request = urllib.request.Request(
        url,
        data=_DISCOVER,
        method="POST",
        headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": "2026-07-28",
            "mcp-method": "server/discover",
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=2) as response:
            return bool(response.status == 200)
    except (OSError, urllib.error.HTTPError):
        return False


@contextmanager
def running_server(business: str, timeout_seconds: float = 30.0, **env: str) -> Iterator[str]:
    """The URL of a fresh local server for `business` (loopback, a free port); stopped on exit."""
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    child_env = {
        **os.environ,
        "BUSINESS": business,
        "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO / "dev"), str(REPO)]),
        "POWERTOOLS_LOG_LEVEL": "WARNING",
        **env,
    }
    # A file, not a pipe: nobody reads a pipe while the server runs, and a full one would block the server.
    stderr = tempfile.TemporaryFile()  # noqa: SIM115 (closed in the finally below)
    process = subprocess.Popen(
        [sys.executable, "-m", "mcp_lambda_dev.local.server", "--host", "127.0.0.1", "--port", str(port)],
        cwd=REPO,
        env=child_env,
        stdout=subprocess.DEVNULL,
        stderr=stderr,
    )
    try:
        deadline = time.monotonic() + timeout_seconds
        while not answers(url):
            if process.poll() is not None:
                stderr.seek(0)
                output = stderr.read().decode("utf-8", errors="replace")
                raise RuntimeError(f"the {business} server exited early:\n{output[-4000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the {business} server did not answer within {timeout_seconds:.0f} s")
            time.sleep(0.1)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        stderr.close()
