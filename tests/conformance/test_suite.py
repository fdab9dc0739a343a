"""The official MCP conformance suite, run against the `conformance` business through the Lambda handler."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.interop


@pytest.mark.timeout(900)
@pytest.mark.parametrize("revision", ["2026-07-28", "2025-11-25"])
def test_every_scored_scenario_passes(revision: str, tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "conformance.py"),
            "--revision",
            revision,
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert f"{revision}: PASS" in done.stdout
