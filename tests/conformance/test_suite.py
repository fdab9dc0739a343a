"""The official MCP conformance suite, run against the `conformance` business through the Lambda handler."""

from __future__ import annotations

import re
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
            str(ROOT / "dev" / "mcp_lambda_tools" / "suites" / "conformance.py"),
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
    # What was scored and what was not is said in the output and in docs/protocol.md, and both say the same.
    [(passed, scored)] = re.findall(
        rf"^{revision}: PASS - (\d+) of (\d+) scored scenarios passed$", done.stdout, re.M
    )
    readme = (ROOT / "docs" / "protocol.md").read_text()
    if revision == "2026-07-28":
        assert passed == scored and f"all {scored} scored scenarios pass" in readme
        assert "not scored (" in done.stdout and "tasks-*" in readme
    else:
        expected = {"tools-call-sampling", "tools-call-elicitation", "elicitation-sep1034-defaults",
                    "elicitation-sep1330-enums"}  # fmt: skip
        assert int(scored) - int(passed) == len(expected)
        assert all(name in done.stdout and f"`{name}`" in readme for name in expected)
