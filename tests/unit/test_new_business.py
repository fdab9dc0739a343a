"""`make new-business` scaffolds a business that lints clean and whose results pass the manifest check."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import asyncio, json, sys
from mcp_lambda.lambda_adapter import lambda_handler
from mcp_lambda.app import create_app
from mcp_lambda.local.events import LocalContext, http_event
from mcp_lambda.sessions import MemorySessionStore
from mcp_lambda.settings import Settings
asyncio.set_event_loop(asyncio.new_event_loop())
app = create_app(Settings(business="shop", manifest_dir=sys.argv[1]), sessions=MemorySessionStore())
handler = lambda_handler(app)
results = []
for name, arguments in (("find_items", {"keyword": "sample"}), ("save_item", {"item_id": "i-002"})):
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": name, "arguments": arguments,
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                      "io.modelcontextprotocol/clientCapabilities": {}}}}
    headers = {"content-type": "application/json", "mcp-protocol-version": "2026-07-28",
               "mcp-method": "tools/call", "mcp-name": name}
    response = handler(http_event("POST", "/mcp", headers, json.dumps(body)), LocalContext())
    results.append(json.loads(response["body"])["result"])
print(json.dumps(results))
"""


@pytest.fixture
def scaffolded(tmp_path: Path) -> Path:
    (tmp_path / "src" / "businesses").mkdir(parents=True)
    (tmp_path / "src" / "businesses" / "__init__.py").write_text("")
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "new_business.py"), "shop", "--root", str(tmp_path)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "created manifest/shop.yaml" in done.stdout
    return tmp_path


def _env(root: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": f"{root / 'src'}:{ROOT / 'src'}:{ROOT}"}


def test_scaffold_lints_clean_against_its_own_tools(scaffolded: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "manifest_lint.py"),
            str(scaffolded / "manifest" / "shop.yaml"),
        ],
        capture_output=True,
        text=True,
        env=_env(scaffolded),
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_scaffold_serves_results_that_pass_the_manifest_check(scaffolded: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(scaffolded / "manifest")],
        capture_output=True,
        text=True,
        env=_env(scaffolded),
        check=True,
    )
    find, save = json.loads(done.stdout.strip().splitlines()[-1])
    assert find.get("isError") is not True, find
    assert find["structuredContent"]["entities"][0]["entity_type"] == "item_list"
    assert save["structuredContent"] == {"success": True, "message": "Saved i-002."}


def test_scaffold_never_overwrites(scaffolded: Path) -> None:
    again = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "new_business.py"), "shop", "--root", str(scaffolded)],
        capture_output=True,
        text=True,
    )
    assert again.returncode != 0 and "already exists" in again.stderr
