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
import json, sys
from tests.support.lambda_client import LambdaClient, ModernClient, build_handler
from mcp_lambda.settings import Settings
client = ModernClient(LambdaClient(build_handler(None, Settings(business="shop", manifest_dir=sys.argv[1]))))
calls = (("find_items", {"keyword": "sample"}), ("save_item", {"item_id": "i-002"}))
print(json.dumps([client.call_tool(name, arguments).result for name, arguments in calls]))
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
    assert "created tests/unit/test_business_shop.py" in done.stdout
    return tmp_path


def _env(root: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": f"{root / 'src'}:{ROOT / 'src'}:{ROOT / 'dev'}:{ROOT}"}


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


def test_scaffold_calls_a_downstream_and_its_own_test_passes_against_a_fake_service(scaffolded: Path) -> None:
    stock = (scaffolded / "src" / "businesses" / "shop" / "stock.py").read_text()
    assert "ctx.http.get(" in stock and "ctx.secret(KEY_SECRET)" in stock

    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(scaffolded),
            str(scaffolded / "tests" / "unit" / "test_business_shop.py"),
        ],
        capture_output=True,
        text=True,
        env=_env(scaffolded),
        cwd=scaffolded,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "3 passed" in done.stdout


def test_scaffold_never_overwrites(scaffolded: Path) -> None:
    again = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "new_business.py"), "shop", "--root", str(scaffolded)],
        capture_output=True,
        text=True,
    )
    assert again.returncode != 0 and "already exists" in again.stderr
