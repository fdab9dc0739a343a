"""The agent-framework suite's fixtures: one `make run` server for the session, and every client's report.

Each client runs in its own process with its own pinned dependencies (`make agents-install`: .venv-agents for the
Python frameworks, an npm prefix under .cache for the TypeScript clients), all at once, and prints one JSON report
of what its model read (tests/agents/clients). The tests only read the reports.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest
from tests.agents.frameworks import FRAMEWORKS, NODE_PREFIX, VENVS

from mcp_lambda_dev.local.process import running_server

DRIVER_TIMEOUT_SECONDS = 90


def _missing() -> list[str]:
    wanted = [VENVS / group / ".installed" for group in ("mcp2", "langchain")]
    wanted.append(NODE_PREFIX / "node_modules" / "@modelcontextprotocol" / "client" / "package.json")
    return [str(path) for path in wanted if not path.exists()]


@pytest.fixture(scope="session")
def reports(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, dict[str, Any]]]:
    """Every framework's report, by name: all drivers run at once against one fresh server."""
    missing = _missing()
    if missing:
        pytest.fail(
            f"the agent frameworks are not installed ({', '.join(missing)}): run `make agents-install` "
            "(make test does it first)",
            pytrace=False,
        )
    logs = tmp_path_factory.mktemp("agents")
    env = {
        **os.environ,
        "AGENTS_NODE_PREFIX": str(NODE_PREFIX),
        # mcp-remote keeps its state here, not in ~/.mcp-auth.
        "MCP_REMOTE_CONFIG_DIR": str(logs / "mcp-auth"),
        "PYTHONPATH": "",  # the drivers import only their own venv's packages (and clients/common.py)
    }
    with running_server("demo") as url:
        started = time.monotonic()
        running = {}
        for framework in FRAMEWORKS:
            command = [url if part == "URL" else part for part in framework.command]
            stderr = (logs / f"{framework.name}.stderr").open("wb")
            process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=stderr, env=env, cwd=logs)
            running[framework.name] = (process, stderr)
        found: dict[str, dict[str, Any]] = {}
        for name, (process, stderr) in running.items():
            try:
                out, _ = process.communicate(
                    timeout=max(1.0, DRIVER_TIMEOUT_SECONDS - (time.monotonic() - started))
                )
            except subprocess.TimeoutExpired:
                process.kill()
                out, _ = process.communicate()
            stderr.close()
            lines = out.decode().strip().splitlines()
            try:
                found[name] = json.loads(lines[-1])
            except (IndexError, ValueError):
                tail = (logs / f"{name}.stderr").read_text(errors="replace")[-3000:]
                found[name] = {"failed": f"exit {process.returncode}, no report; stderr:\n{tail}"}
        (logs / "reports.json").write_text(json.dumps(found, indent=1, ensure_ascii=False), encoding="utf-8")
        elapsed = time.monotonic() - started
        print(
            f"agents: {len(found)} clients in {elapsed:.1f} s; reports in {logs / 'reports.json'}",
            file=sys.stderr,
        )
        yield found
