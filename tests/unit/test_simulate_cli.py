"""`make simulate` from the user's side: the verdict says whether the tool ran, and a failed call shows the
server's error line (which secret is missing and where it was looked for)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VAULT = """
from mcp_lambda.tools import Business, ToolContext, ToolResult, execution_result, tool


@tool(description="Use to read the vault. Needs the secret vault_simulate_key.")
def open_vault(ctx: ToolContext) -> ToolResult:
    ctx.secret("vault_simulate_key")
    return execution_result({"success": True})


BUSINESS = Business(name="vault", tools=[open_vault])
"""
VAULT_MANIFEST = "tools:\n  open_vault:\n    output: {kind: execution_result}\n"


def _make_simulate(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["make", "-s", "--no-print-directory", "simulate", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_refused_arguments_are_not_run_not_valid() -> None:
    done = _make_simulate("TOOL=search_products", 'ARGS={"keyword": "cup", "limit": "2"}')
    assert done.returncode != 0
    assert "Verdict: NOT RUN - the call failed before the tool ran (code 40000" in done.stdout
    assert "Verdict: VALID" not in done.stdout


def test_a_valid_result_says_the_tool_ran() -> None:
    done = _make_simulate("TOOL=search_products", 'ARGS={"keyword": "cup"}', "FORMAT=json")
    report = json.loads(done.stdout)
    assert done.returncode == 0 and report["verdict"] == "valid" and report["server_log"] == []


def test_an_app_only_tool_is_called_as_a_view_calls_it() -> None:
    route = "route_guomao_capital_airport_t3_taxi_any-day"
    done = _make_simulate("TOOL=refresh_route", f'ARGS={{"route_id": "{route}"}}')

    assert done.returncode == 0, done.stdout + done.stderr
    assert "refresh_route is app-only" in done.stdout and "Unknown tool" not in done.stdout
    assert "Verdict: VALID" in done.stdout and "widget route_result_card" in done.stdout


def test_a_missing_secret_shows_its_name_and_where_it_was_looked_for(tmp_path: Path) -> None:
    (tmp_path / "businesses" / "vault").mkdir(parents=True)
    (tmp_path / "businesses" / "vault" / "__init__.py").write_text(VAULT)
    (tmp_path / "manifest").mkdir()
    (tmp_path / "manifest" / "vault.yaml").write_text(VAULT_MANIFEST)
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "dev"), str(ROOT), str(tmp_path)]),
        "MANIFEST_DIR": str(tmp_path / "manifest"),
    }
    env.pop("SECRET_ID", None)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcp_lambda_dev.simulate",
            "--business",
            "vault",
            "--tool",
            "open_vault",
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert done.returncode == 1
    assert "Verdict: FAILED - the tool ran and failed (code 50020" in done.stdout
    [log_line] = [line for line in done.stdout.splitlines() if "mcp_tool_call_failed" in line]
    assert log_line.strip().startswith("ERROR mcp_tool_call_failed")
    assert 'secret_name="vault_simulate_key"' in log_line
    assert "looked_in=" in log_line and ("SECRET_ID" in log_line or ".env.local" in log_line)
