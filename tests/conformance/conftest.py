"""A `conformance` fixtures server (the make-run path: HTTP -> API Gateway event -> Lambda handler)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def conformance_url() -> Iterator[str]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    env = {**os.environ, "BUSINESS": "conformance", "PYTHONPATH": f"{ROOT / 'src'}:{ROOT}"}
    server = subprocess.Popen(
        [sys.executable, "-m", "mcp_lambda.local.server", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/mcp"
    deadline = time.monotonic() + 30
    while True:
        try:
            urllib.request.urlopen(url, timeout=2)
            break
        except urllib.error.HTTPError:
            break
        except OSError:
            if time.monotonic() > deadline or server.poll() is not None:
                server.kill()
                raise RuntimeError("conformance server did not start") from None
            time.sleep(0.2)
    yield url
    server.terminate()
    server.wait(timeout=10)
