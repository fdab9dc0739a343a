"""`make smoke` against real `make run` servers: every check passes for the demo business (auth off, then
AUTH_MODE=jwt with a token from the kit's LocalIssuer), and a protected server without a token fails by name."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from mcp_lambda.testing import Identity, LocalIssuer
from mcp_lambda_dev.local.process import REPO, running_server

pytestmark = pytest.mark.interop

TASK = ["TASK_TOOL=export_trip_plan", 'TASK_ARGS={"stops":["guomao","sanlitun"]}']


def _make_smoke(url: str, *variables: str, token: str | None = None) -> tuple[int, dict[str, str]]:
    env = {
        name: value for name, value in os.environ.items() if name not in ("TOKEN", "MAKEFLAGS", "MAKELEVEL")
    }
    if token:
        env["TOKEN"] = token  # through the environment, as a shell's TOKEN=... make smoke does
    done = subprocess.run(
        [
            "make",
            "-s",
            "--no-print-directory",
            "smoke",
            f"URL={url}",
            "ORIGIN=http://localhost:5173",
            *variables,
        ],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=100,
    )
    lines = [line for line in done.stdout.splitlines() if line[:6] in ("PASS  ", "FAIL  ", "SKIP  ")]
    assert len(lines) == 10, done.stdout + done.stderr
    return done.returncode, {line[6:].split(":")[0]: line for line in lines}


def test_every_check_passes_on_make_run(server_url: str) -> None:
    status, lines = _make_smoke(server_url, *TASK)
    assert status == 0, "\n".join(lines.values())
    assert [line for line in lines.values() if not line.startswith("PASS")] == [
        "SKIP  auth challenge: auth is off (a request without a token got HTTP 200)",
        "SKIP  protected resource metadata: auth is off",
        "SKIP  secret keys: needs STACK= (its BusinessName parameter and SecretArn output)",
    ]
    assert lines["tools/call 2026-07-28"] == "PASS  tools/call 2026-07-28: list_subscriptions"
    assert lines["task round 2026-07-28"] == "PASS  task round 2026-07-28: export_trip_plan: completed"


@pytest.fixture(scope="module")
def protected() -> Iterator[tuple[str, LocalIssuer]]:
    with LocalIssuer() as issuer, running_server("demo", AUTH_MODE="jwt", AUTH_ISSUER=issuer.url) as url:
        yield url, issuer


def test_every_check_passes_on_make_run_with_jwt_and_a_token(protected: tuple[str, LocalIssuer]) -> None:
    url, issuer = protected
    token = issuer.token(Identity(subject="smoke", scopes=("subscriptions:read",)), audience=url)
    status, lines = _make_smoke(url, *TASK, token=token)
    assert status == 0, "\n".join(lines.values())
    assert all(line.startswith("PASS") for name, line in lines.items() if name != "secret keys"), "\n".join(
        lines.values()
    )
    assert 'resource_metadata="' in lines["auth challenge"]
    assert token not in "".join(lines.values())


def test_a_protected_server_without_a_token_fails_the_auth_check(protected: tuple[str, LocalIssuer]) -> None:
    url, _issuer = protected
    status, lines = _make_smoke(url)
    assert status != 0
    assert lines["auth challenge"] == (
        "FAIL  auth challenge: auth is on (HTTP 401) and no TOKEN was given: the other checks cannot run"
    )
    assert lines["protected resource metadata"].startswith("PASS")


def test_the_smoke_script_needs_only_the_runtime_dependencies() -> None:
    # urllib, and boto3 only for STACK: nothing from the development tools (httpx, pytest, mcp).
    code = (
        "import sys, mcp_lambda_tools.deploy.smoke; "
        "extra = {'httpx', 'pytest', 'mcp', 'httpx2'} & {name.split('.')[0] for name in sys.modules}; "
        "print(sorted(extra))"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"
