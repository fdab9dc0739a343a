"""`make sam-local`: the built package in a Lambda container under `sam local`, driven as a client would.

    python -m mcp_lambda_tools.suites.sam_local --build-dir .aws-sam/local-x86_64/build --arch x86_64

With a Docker daemon and a Lambda Python 3.13 image (mcp_lambda_tools/suites/sam_local_docker.py), it starts DynamoDB Local and a
moto server (Secrets Manager) on the host, creates env.json's tables and secret, writes env.json's variables with
the services' ports (the container reaches them as host.docker.internal, Docker's address of the host), then:

1. `sam local start-api`: the Doubao flow at 2024-11-05 (initialize, notifications/initialized, tools/list,
   tools/call search_products, DELETE) with the session read back from DynamoDB Local; the 2026-07-28 flow
   (server/discover, tools/call search_routes); an exactly-once retry (the same tool_call_id gets the first result,
   one record in the exactly-once table; no key runs again); the function's GetSecretValue of env.json's
   SECRET_ID, as moto recorded it;
2. `sam local invoke` of the saved Doubao conversation (events/demo/doubao_2024_11_05/, a new container per
   event, the session kept in DynamoDB Local), each answer matched to its recording.

It prints each check, and stops what it started by PID (SAM, the services, a dockerd it started) and removes the
containers its SAM runs created. Exit 0 when every check passed, 1 when one failed, 3 when it cannot run here (no
Docker, or no Python 3.13 for make build; the reason is printed).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import boto3

from mcp_lambda.errors import McpLambdaError
from mcp_lambda.testing import McpTestClient
from mcp_lambda.testing.replay import check_step, load_conversation, substitute
from mcp_lambda_dev import services
from mcp_lambda_tools.suites import sam_local_docker as docker_host

REPO = Path(__file__).resolve().parents[3]
ENV_FILE = REPO / "env.json"
EVENTS = REPO / "events" / "demo"
# One new container per event, about 20 s each on a loaded 2-core machine: the Doubao conversation, whose session
# must outlive each container (DynamoDB Local), is the one start-api cannot show; the 2026-07-28 one is stateless.
INVOKED_CONVERSATIONS = ("doubao_2024_11_05",)
FUNCTION = "McpFunction"
REGION = "us-east-1"
START_API_SECONDS = 180.0  # the first request through an emulated arm64 image takes about 40 s
REQUEST_SECONDS = 60.0
SKIPPED = 3
LAMBDA_PYTHON = "3.13.0"  # mk/deploy.mk's: the pyenv version make build looks for first
LOCAL_PACKAGE_LIMIT_MB = 24
DOCKER_HOST_NAME = "host.docker.internal"
SAM_ENV = {"SAM_CLI_TELEMETRY": "0", "AWS_ACCESS_KEY_ID": "test", "AWS_SECRET_ACCESS_KEY": "test"}


@dataclass
class Run:
    """What one run set up: the image, the services' ports, the env-vars file, and the checks that passed."""

    sam: Path
    template: Path
    image: str
    env_vars: Path
    dynamodb: Any
    secret_id: str
    checked: list[str] = field(default_factory=list)

    def check(self, what: str) -> None:
        self.checked.append(what)
        print(f"sam-local: ok  {what}", flush=True)

    def sam_args(self) -> list[str]:
        """The flags every sam local command of this run takes."""
        return [
            "--template", str(self.template), "--env-vars", str(self.env_vars), "--invoke-image", self.image,
            "--skip-pull-image", "--add-host", f"{DOCKER_HOST_NAME}:host-gateway", "--region", REGION,
        ]  # fmt: skip


def local_env_vars(env_file: Path, ports: dict[int, int]) -> dict[str, dict[str, str]]:
    """env.json's variables with each host.docker.internal endpoint on the port its service really uses.

    Args:
        env_file: env.json (function logical id -> variables).
        ports: env.json's port -> the port used instead (`{8000: 41234}`).

    Returns:
        The same mapping, endpoint ports replaced.
    """
    variables = json.loads(env_file.read_text(encoding="utf-8"))
    for function in variables.values():
        for name, value in function.items():
            for documented, used in ports.items():
                old = f"//{DOCKER_HOST_NAME}:{documented}"
                if isinstance(value, str) and value.endswith(old):
                    function[name] = value.replace(old, f"//{DOCKER_HOST_NAME}:{used}")
    return variables


class GatewayService(services.LocalService):
    """A local service listening on Docker's bridge gateway only: containers reach it, nothing else does."""

    def __init__(self, name: str, command: Sequence[str], port: int, address: str) -> None:
        super().__init__(name, command, port)
        self.address = address

    @property
    def endpoint_url(self) -> str:
        return f"http://{self.address}:{self.port}"


def prepare(run_env: dict[str, str], dynamodb_url: str, moto_url: str) -> tuple[Any, str]:
    """Create env.json's tables in DynamoDB Local and its secret in moto; return the DynamoDB client and secret id."""
    dynamodb = boto3.client("dynamodb", endpoint_url=dynamodb_url, region_name=REGION, **_test_keys())
    services.create_sessions_table(dynamodb, run_env["SESSIONS_TABLE"])
    services.create_idempotency_table(dynamodb, run_env["IDEMPOTENCY_TABLE"])
    services.create_tasks_table(dynamodb, run_env["TASKS_TABLE"])
    services.create_protection_table(dynamodb, run_env["PROTECTION_TABLE"])
    secrets = boto3.client("secretsmanager", endpoint_url=moto_url, region_name=REGION, **_test_keys())
    # The function reads it for the key of its log fingerprints (a random one each run: never a real value).
    secrets.create_secret(
        Name=run_env["SECRET_ID"], SecretString=json.dumps({"log_fingerprint_key": uuid.uuid4().hex})
    )
    return dynamodb, run_env["SECRET_ID"]


def _test_keys() -> dict[str, str]:
    return {"aws_access_key_id": "test", "aws_secret_access_key": "test"}


def moto_requests(moto_url: str, action: str) -> list[dict[str, Any]]:
    """The bodies of the requests for `action` that moto recorded (its /moto-api/recorder) since it started."""
    with urllib_open(f"{moto_url}/moto-api/recorder/download-recording") as reply:
        lines = reply.read().decode().splitlines()
    found = []
    for entry in map(json.loads, lines):
        headers = {name.lower(): value for name, value in (entry.get("headers") or {}).items()}
        if headers.get("x-amz-target", "").endswith(f".{action}"):
            body = base64.b64decode(entry["body"]) if entry.get("body_encoded") else entry.get("body") or "{}"
            found.append(json.loads(body))
    return found


def urllib_open(url: str, method: str = "GET") -> Any:
    """A urllib request to a local service (moto's API), answered within 10 s."""
    return urllib.request.urlopen(urllib.request.Request(url, method=method), timeout=10)


@contextlib.contextmanager
def sam_process(command: list[str], log_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A sam command in its own session, stopped (SIGINT, then SIGKILL) by its process group's id on exit."""
    with log_path.open("ab") as log:
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, **SAM_ENV},
        )
    try:
        yield process
    finally:
        for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
            if process.poll() is not None:
                break
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, sig)
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(15)


def wait_for_port(port: int, process: subprocess.Popen[bytes], log_path: Path) -> None:
    deadline = time.monotonic() + START_API_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"sam local start-api exited: {_tail(log_path)}")
        with socket.socket() as sock:
            sock.settimeout(0.5)
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.5)
    raise AssertionError(
        f"sam local start-api did not listen within {START_API_SECONDS:.0f} s: {_tail(log_path)}"
    )


def _tail(path: Path, lines: int = 15) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])


def drive_start_api(run: Run, url: str, run_env: dict[str, str]) -> None:
    """The flows through SAM's API Gateway emulation, each checked against DynamoDB Local where state is kept."""
    with McpTestClient.over_http(url, "2024-11-05", timeout=REQUEST_SECONDS, oracle=False) as doubao:
        session_id = doubao.session_id
        assert session_id, "initialize gave no Mcp-Session-Id"
        run.check(f"2024-11-05 initialize + notifications/initialized: session {session_id[:8]}...")
        stored = run.dynamodb.get_item(
            TableName=run_env["SESSIONS_TABLE"], Key={"session_id": {"S": session_id}}
        )
        assert "Item" in stored, (
            f"session {session_id} is not in DynamoDB Local's {run_env['SESSIONS_TABLE']}"
        )
        run.check(
            f"the session is an item of DynamoDB Local's {run_env['SESSIONS_TABLE']} (the container reached the host)"
        )
        tools = [tool.name for tool in doubao.list_tools()]
        assert "search_products" in tools, tools
        run.check(f"2024-11-05 tools/list: {len(tools)} tools")
        found = doubao.call_tool("search_products", {"keyword": "thermos"})
        assert not found.is_error and "p-1001" in json.dumps(found.structured_content), found.text
        run.check("2024-11-05 tools/call search_products: p-1001")
    gone = run.dynamodb.get_item(TableName=run_env["SESSIONS_TABLE"], Key={"session_id": {"S": session_id}})
    assert "Item" not in gone, "DELETE left the session in DynamoDB Local"
    run.check("2024-11-05 DELETE: the session is gone from DynamoDB Local")

    modern = McpTestClient.over_http(url, "2026-07-28", timeout=REQUEST_SECONDS, oracle=False)
    discovered, _, _ = modern.request("server/discover")
    assert "2026-07-28" in json.dumps(discovered), discovered
    run.check("2026-07-28 server/discover")
    route = modern.call_tool(
        "search_routes", {"origin": "guomao", "destination": "capital_airport_t3", "travel_mode": "taxi"}
    )
    assert not route.is_error, route.text
    run.check(f"2026-07-28 tools/call search_routes: {route.text.splitlines()[0][:60]}")

    key = f"call_sam_local_{uuid.uuid4().hex[:8]}"
    arguments = {"product_id": "p-1004", "alert": "restock"}
    first = modern.call_tool("subscribe_product", arguments, tool_call_id=key)
    retry = modern.call_tool("subscribe_product", arguments, tool_call_id=key)
    again = modern.call_tool("subscribe_product", arguments)
    subscription = first.structured_content["subscription_id"]
    assert retry.structured_content["subscription_id"] == subscription, (first.text, retry.text)
    assert again.structured_content["subscription_id"] != subscription, "a call without a key was replayed"
    records = run.dynamodb.scan(TableName=run_env["IDEMPOTENCY_TABLE"])["Items"]
    assert records, f"no exactly-once record in DynamoDB Local's {run_env['IDEMPOTENCY_TABLE']}"
    run.check(
        f"exactly-once: the retry with {key} got {subscription} again ({len(records)} record in DynamoDB Local)"
    )


def invoke_events(run: Run, log_path: Path) -> None:
    """`sam local invoke` of saved conversations, a new container per event, each answer matched to its recording."""
    for conversation in INVOKED_CONVERSATIONS:
        bindings: dict[str, str] = {}
        for step in load_conversation(EVENTS / conversation):
            with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as event_file:
                json.dump(substitute(step.event, bindings), event_file)
            try:
                result = subprocess.run(
                    [str(run.sam), "local", "invoke", FUNCTION, "--event", event_file.name, *run.sam_args()],
                    capture_output=True,
                    text=True,
                    timeout=START_API_SECONDS,
                    env={**os.environ, **SAM_ENV},
                    check=False,
                )
            finally:
                os.unlink(event_file.name)
            with log_path.open("a") as log:
                log.write(result.stderr)
            assert result.returncode == 0, f"sam local invoke {step.name}: {result.stderr[-800:]}"
            response = json.loads(result.stdout.strip().splitlines()[-1])
            check_step(step, response, bindings)
            run.check(
                f"sam local invoke events/demo/{conversation}/{step.name}.json: {response['statusCode']} as recorded"
            )


def run_all(run: Run, port: int, log_dir: Path, run_env: dict[str, str], moto_url: str) -> None:
    command = [
        str(run.sam),
        "local",
        "start-api",
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        *run.sam_args(),
    ]
    command += ["--warm-containers", "LAZY"]
    started = time.monotonic()
    log_path = log_dir / "start-api.log"
    with sam_process(command, log_path) as sam:
        wait_for_port(port, sam, log_path)
        run.check(f"sam local start-api listening on 127.0.0.1:{port} (pid {sam.pid})")
        drive_start_api(run, f"http://127.0.0.1:{port}/mcp", run_env)
    print(f"sam-local: start-api flows took {time.monotonic() - started:.0f} s", flush=True)
    reads = moto_requests(moto_url, "GetSecretValue")
    assert any(body.get("SecretId") == run.secret_id for body in reads), (
        f"the function never read {run.secret_id} from moto's Secrets Manager"
    )
    run.check(
        f"the function read its secret {run.secret_id} from moto's Secrets Manager ({len(reads)} GetSecretValue)"
    )
    started = time.monotonic()
    invoke_events(run, log_dir / "invoke.log")
    print(f"sam-local: sam local invoke took {time.monotonic() - started:.0f} s", flush=True)


def build_python_missing() -> str | None:
    """Why `make build` cannot run here (it needs Python 3.13: pyenv's LAMBDA_PYTHON or python3.13 on PATH)."""
    pyenv = (
        subprocess.run(["pyenv", "prefix", LAMBDA_PYTHON], capture_output=True, text=True, check=False)
        if shutil.which("pyenv")
        else None
    )
    if (
        pyenv is not None
        and pyenv.returncode == 0
        and (Path(pyenv.stdout.strip()) / "bin" / "python3.13").exists()
    ):
        return None
    if shutil.which("python3.13"):
        return None
    return f"make build needs Python 3.13 (pyenv install {LAMBDA_PYTHON}, or python3.13 on PATH)"


def build(business: str, arch: str, build_dir: Path) -> None:
    """`make build` for `arch` into `build_dir` (the deployable build, arm64 in .aws-sam/build, is left alone)."""
    started = time.monotonic()
    command = [
        "make",
        "--no-print-directory",
        "build",
        f"BUSINESS={business}",
        f"ARCH={arch}",
        f"BUILD_DIR={build_dir}",
    ]
    # The size limit guards the deployed arm64 package; x86_64 wheels are larger (pydantic_core alone by ~1 MB).
    command += [f"PACKAGE_LIMIT_MB={LOCAL_PACKAGE_LIMIT_MB}"] if arch != "arm64" else []
    result = subprocess.run(command, cwd=REPO, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise BuildFailed(f"{' '.join(command)} failed:\n{(result.stdout + result.stderr)[-2000:]}")
    print(
        f"sam-local: built {business} for {arch} into {build_dir} in {time.monotonic() - started:.0f} s",
        flush=True,
    )


class BuildFailed(Exception):
    """make build failed; the message holds its output's end."""


def new_containers(before: set[str], image: str) -> list[str]:
    """The containers created since `before` from `image`'s repository (SAM runs its "rapid" image built on it)."""
    repository = image.rsplit(":", 1)[0]
    listed = docker_host.docker(
        "ps", "-a", "--no-trunc", "--format", "{{.ID}} {{.Image}}"
    ).stdout.splitlines()
    found = (line.split(" ", 1) for line in listed if " " in line)
    return sorted(cid for cid, used in found if cid not in before and used.rsplit(":", 1)[0] == repository)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--business", default="demo", help="the business make build builds (its events are driven)"
    )
    parser.add_argument(
        "--build-dir", type=Path, required=True, help="where make build writes (template.yaml inside)"
    )
    parser.add_argument("--arch", choices=sorted(docker_host.DEBIAN_ARCH), default=docker_host.host_arch())
    parser.add_argument("--sam", type=Path, default=REPO / ".venv-sam" / "bin" / "sam")
    parser.add_argument(
        "--log-dir", type=Path, default=None, help="where the logs go (default: a new temp dir)"
    )
    args = parser.parse_args(argv)
    log_dir = args.log_dir or Path(tempfile.mkdtemp(prefix="sam-local-"))
    log_dir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    stop: list[Callable[[], None]] = []
    missing = build_python_missing()
    if missing:
        print(f"sam-local: SKIPPED: {missing}", flush=True)
        return SKIPPED
    try:
        try:
            daemon = docker_host.ensure_daemon(log_dir / "dockerd.log")
            stop.append(daemon.stop)
            gateway = docker_host.listen_address(docker_host.gateway_address())
            image, public = docker_host.lambda_image(args.arch)
        except docker_host.DockerUnavailable as exc:
            print(f"sam-local: SKIPPED: {exc}", flush=True)
            return SKIPPED
        except docker_host.ImageBuildFailed as exc:
            print(f"sam-local: FAILED: {exc}", flush=True)
            return 1
        print(
            f"sam-local: image {image} ({'AWS public' if public else 'local stand-in'}), host at {gateway}",
            flush=True,
        )
        before = set(docker_host.docker("ps", "-aq", "--no-trunc").stdout.split())
        stop.append(lambda: _remove_containers(before, image))
        try:
            build(args.business, args.arch, args.build_dir)
            dynamodb_local = services.dynamodb_local()
            moto_port = services.free_port()
            # moto keeps what it serves in a recording (its /moto-api/recorder): the function's reads, seen.
            recording = ["env", f"MOTO_RECORDER_FILEPATH={log_dir / 'moto-recording'}"]
            moto_command = [*recording, *services.moto_server(moto_port, gateway).command]
            moto = GatewayService("moto-server", moto_command, moto_port, gateway)
            for service in (dynamodb_local, moto):
                stop.append(service.stop)
                service.start()
        except (BuildFailed, services.ServiceError) as exc:
            print(f"sam-local: FAILED: {exc}", flush=True)
            return 1
        env_vars = local_env_vars(ENV_FILE, {8000: dynamodb_local.port, 5000: moto.port})
        env_path = log_dir / "env.json"
        env_path.write_text(json.dumps(env_vars, indent=2))
        run_env = env_vars[FUNCTION]
        dynamodb, secret_id = prepare(run_env, dynamodb_local.endpoint_url, moto.endpoint_url)
        with urllib_open(f"{moto.endpoint_url}/moto-api/recorder/start-recording", "POST"):
            pass
        run = Run(args.sam, args.build_dir / "template.yaml", image, env_path, dynamodb, secret_id)
        try:
            run_all(run, services.free_port(), log_dir, run_env, moto.endpoint_url)
        # A refused request, a reply unlike its recording, a check that failed: one line, the logs kept.
        except (AssertionError, McpLambdaError, subprocess.SubprocessError, OSError, ValueError) as exc:
            print(
                f"sam-local: FAILED after {len(run.checked)} checks: {exc}\nsam-local: logs in {log_dir}",
                flush=True,
            )
            return 1
        print(
            f"sam-local: {len(run.checked)} checks passed in {time.monotonic() - started:.0f} s (logs: {log_dir})"
        )
        return 0
    finally:
        for stop_one in reversed(stop):
            stop_one()


def _remove_containers(before: set[str], image: str) -> None:
    for container in new_containers(before, image):
        docker_host.docker("rm", "-f", container, check=False)


if __name__ == "__main__":
    sys.exit(main())
