"""Cold start: what a fresh Lambda process does while it imports the handler, checked in fresh processes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENV = {
    "PATH": os.environ.get("PATH", ""),
    "PYTHONPATH": f"{ROOT / 'src'}:{ROOT / 'dev'}:{ROOT}",
    "BUSINESS": "demo",
    "POWERTOOLS_METRICS_DISABLED": "true",
    "POWERTOOLS_TRACE_DISABLED": "true",
}

GC_STATE = r"""
import gc, json, sys
try:
    import mcp_lambda.handler
    started = True
except Exception:
    started = False
print("RESULT " + json.dumps({"started": started, "enabled": gc.isenabled(), "frozen": gc.get_freeze_count()}))
"""


def run(code: str, **env: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**ENV, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    [line] = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    result: dict[str, object] = json.loads(line.removeprefix("RESULT "))
    return result


def test_start_up_objects_are_frozen_and_the_collector_runs_again_once_the_handler_is_built() -> None:
    state = run(GC_STATE)
    assert state["started"] is True
    assert state["enabled"] is True
    assert isinstance(state["frozen"], int) and state["frozen"] > 10_000  # modules, classes, validators


def test_a_failed_start_up_leaves_the_collector_running() -> None:
    state = run(GC_STATE, BUSINESS="no_such_business")
    assert state["started"] is False
    assert state["enabled"] is True
