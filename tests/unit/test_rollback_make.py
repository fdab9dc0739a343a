"""`make rollback`: what it hands mcp_lambda_tools.deploy.rollback_alias, and that mk/deploy.mk's default STACK never counts (an
emergency rollback names its stack)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def make(*words: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "--no-print-directory", "-C", str(ROOT), *words],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={name: value for name, value in os.environ.items() if name not in ("STACK", "FUNCTION")},
    )


def test_make_rollback_passes_stack_alias_version_and_time_to_the_script() -> None:
    done = make("-n", "rollback", "STACK=mcp-shop", "ALIAS=beta", "TO=4", "AFTER=2026-12-02T06:00:00Z")
    command = done.stdout.splitlines()[-1].rstrip()
    assert command.endswith(
        '-m mcp_lambda_tools.deploy.rollback_alias --stack "mcp-shop" --alias "beta" --to "4" '
        '--published-after "2026-12-02T06:00:00Z"'
    )


def test_function_takes_the_place_of_the_stack() -> None:
    command = make("-n", "rollback", "FUNCTION=mcp-shop-mcp").stdout.splitlines()[-1].rstrip()
    assert command.endswith('-m mcp_lambda_tools.deploy.rollback_alias --function "mcp-shop-mcp"')


def test_without_stack_or_function_it_refuses_rather_than_roll_back_mcp_demo() -> None:
    done = make("rollback")
    assert done.returncode != 0
    assert "rollback: STACK or FUNCTION is required" in done.stderr
    assert "ROLLED BACK" not in done.stdout
