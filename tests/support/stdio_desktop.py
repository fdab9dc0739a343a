"""How a desktop client starts `make stdio`'s server: its config entry's command and environment (the stdio
interop tests and the Skills interop tests start it the same way)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from mcp.client.stdio import StdioServerParameters

REPO = Path(__file__).resolve().parents[2]


def desktop_env(business: str, *extra_paths: Path) -> dict[str, str]:
    """What a desktop client's config entry gives the process (the client adds only PATH, HOME and the like)."""
    paths = [REPO / "src", REPO / "dev", *extra_paths]
    return {"PYTHONPATH": os.pathsep.join(str(path) for path in paths), "BUSINESS": business}


def desktop_params(cwd: Path, business: str = "demo", *extra_paths: Path) -> StdioServerParameters:
    # sys.executable is the venv's python, by its absolute path: what the README's config entries name.
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "mcp_lambda_dev.stdio"],
        env=desktop_env(business, *extra_paths),
        cwd=cwd,
    )
