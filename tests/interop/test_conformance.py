"""Scenarios of the official conformance suite (`dev/mcp_lambda_tools/suites/mcp-conformance`) at 2026-07-28.

The runner installs Node 22 and the suite into ~/.cache/mcp-tools on first use (minutes on a clean CI
machine), hence the long timeout. The full suite is `make conformance`; this runs the endpoint-core subset.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from mcp_lambda_tools.suites import mcp_tools

pytestmark = pytest.mark.interop

REPO = Path(__file__).resolve().parents[2]
RUNNER = mcp_tools.CONFORMANCE_RUNNER
SCENARIOS = ["server-stateless", "tools-list", "dns-rebinding-protection"]
# Checks that need the conformance business's fixture tools; the demo business is expected to fail only these.
EXPECTED_FAILURES = Path(__file__).with_name("expected-failures-demo.yml")


@pytest.mark.timeout(900)
@pytest.mark.parametrize("scenario", SCENARIOS)
def test_conformance_scenario_passes(server_url: str, scenario: str, tmp_path: Path) -> None:
    command = [str(RUNNER), server_url, "2026-07-28", str(tmp_path), "--scenario", scenario]
    done = subprocess.run(
        [*command, "--expected-failures", str(EXPECTED_FAILURES)],
        capture_output=True,
        text=True,
        timeout=880,
    )
    assert done.returncode == 0, f"{scenario} failed:\n{done.stdout[-4000:]}\n{done.stderr[-2000:]}"
