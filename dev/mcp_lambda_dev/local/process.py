"""`make run` in a child process, for tools and tests that need a live server: start, wait until it answers,
stop. The readiness probe is a real `server/discover` through the handler, not just an open port."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from mcp_lambda.protocol.framing import modern_request

REPO = Path(__file__).resolve().parents[3]
# A stateless server/discover: what readiness is probed with (and tests send as a plain request).
DISCOVER_BODY, DISCOVER_HEADERS = modern_request("server/discover")
DISCOVER = json.dumps(DISCOVER_BODY)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def answers(url: str) -> bool:
    request = urllib.request.Request(
        url,
        data=DISCOVER.encode(),
        method="POST",
        headers={name: value for name, value in DISCOVER_HEADERS.items() if name != "host"},
    )
    try:
        with urllib.request.urlopen(request, timeout=2) as response:
            return bool(response.status == 200)
    except urllib.error.HTTPError as exc:
        return exc.code == 401  # up, and asking for a token (AUTH_MODE jwt or apigateway)
    except OSError:
        return False


SERVER = (sys.executable, "-m", "mcp_lambda_dev.local.server")


@contextmanager
def running_server(business: str, *args: Any, **kwargs: Any) -> Iterator[str]:
    """The URL of a fresh local server for `business` (loopback, a free port; `server_process`'s options);
    stopped on exit."""
    with server_process(business, *args, **kwargs) as (url, _process):
        yield url


@contextmanager
def server_process(
    business: str,
    timeout_seconds: float = 30.0,
    server_args: Sequence[str] = (),
    *,
    output: Path | None = None,
    command: Sequence[str] = SERVER,
    extra_path: Sequence[str] = (),
    port: int | None = None,
    echo: str | None = None,
    **env: str,
) -> Iterator[tuple[str, subprocess.Popen[bytes]]]:
    """A fresh local server for `business` and its process (a test may kill it: a container that dies mid-task).

    `server_args` go to the server's command line (e.g. `--remap-www-authenticate`); `output` collects what it
    prints (stdout and stderr); `command` replaces `python -m ...server` (its arguments follow), `extra_path`
    goes after the repo's own PYTHONPATH entries; `port` is the port to listen on (default: a free one). With
    `echo` (a prefix such as `[1] `) every line the server prints is copied to stdout behind it, at the server's
    own log level, instead of being collected.
    """
    port = port or free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    child_env = {
        **os.environ,
        "BUSINESS": business,
        "PYTHONPATH": os.pathsep.join([str(REPO / "src"), str(REPO / "dev"), str(REPO), *extra_path]),
        **({} if echo is not None else {"POWERTOOLS_LOG_LEVEL": "WARNING"}),
        # The Invoke API and the stand-in inventory on free ports (asked for): never PORT+1 and +2 of a free PORT.
        "INVOKE_PORT": "0",
        "INVENTORY_PORT": "0",
        **env,
    }
    # A file, not a pipe: nobody reads a pipe while the server runs, and a full one would block the server (an
    # echoed server's pipe is read all along, by the copying thread).
    stderr = output.open("w+b") if output is not None else tempfile.TemporaryFile()  # noqa: SIM115 (closed in the finally below)
    if echo is not None:
        stdout: Any = subprocess.PIPE
    else:
        stdout = stderr if output is not None else subprocess.DEVNULL
    process = subprocess.Popen(
        [*command, "--host", "127.0.0.1", "--port", str(port), *server_args],
        cwd=REPO,
        env=child_env,
        stdout=stdout,
        stderr=subprocess.STDOUT if echo is not None else stderr,
    )
    if echo is not None:
        threading.Thread(target=_copy_lines, args=(process, echo), daemon=True).start()
    try:
        deadline = time.monotonic() + timeout_seconds
        while not answers(url):
            if process.poll() is not None:
                stderr.seek(0)
                printed = (
                    stderr.read().decode("utf-8", errors="replace")
                    if echo is None
                    else "(its lines are above)"
                )
                raise RuntimeError(f"the {business} server exited early:\n{printed[-4000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"the {business} server did not answer within {timeout_seconds:.0f} s")
            time.sleep(0.1)
        yield url, process
    finally:
        stop(process)
        stderr.close()


def _copy_lines(process: subprocess.Popen[bytes], prefix: str) -> None:
    assert process.stdout is not None
    for line in process.stdout:
        print(prefix + line.decode("utf-8", errors="replace"), end="", flush=True)


def stop(process: subprocess.Popen[Any]) -> None:
    """Stop a child server: SIGTERM, then SIGKILL after 10 s."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
