"""`make new-business` scaffolds a business that passes `make lint` and its own tests, which run every branch
of the tools it writes; and it never overwrites."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A repository-shaped folder: the repo's config and runtime package, and what new-business wrote."""
    root = tmp_path_factory.mktemp("repo")
    (root / "src" / "businesses").mkdir(parents=True)
    (root / "src" / "businesses" / "__init__.py").write_text("")
    (root / "src" / "mcp_lambda").symlink_to(ROOT / "src" / "mcp_lambda")
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "new_business.py"), "shop", "--root", str(root)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "created manifest/shop.yaml" in done.stdout
    assert "created tests/unit/test_business_shop.py" in done.stdout
    return root


def _run(root: Path, *command: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in (root / "src", ROOT / "dev", ROOT))}
    return subprocess.run(command, cwd=root, capture_output=True, text=True, env=env, timeout=300)


WRITTEN = ("src/businesses/shop", "manifest/shop.yaml", "tests/unit/test_business_shop.py")


def test_scaffold_passes_the_linters_of_make_lint(scaffolded: Path) -> None:
    python_files = [WRITTEN[0], WRITTEN[2]]
    for command in (
        [str(BIN / "ruff"), "check", *python_files],
        [str(BIN / "ruff"), "format", "--check", *python_files],
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",  # as make lint checks every business
            "--cache-dir",
            str(scaffolded / ".mypy_cache"),
            "-p",
            "businesses.shop",
        ],
    ):
        done = _run(scaffolded, *command)
        assert done.returncode == 0, f"{command[0]}: {done.stdout}{done.stderr}"


def test_scaffold_lints_clean_against_its_own_tools(scaffolded: Path) -> None:
    done = _run(scaffolded, sys.executable, str(ROOT / "scripts" / "manifest_lint.py"), "manifest/shop.yaml")
    assert done.returncode == 0, done.stdout + done.stderr


def test_scaffold_tests_pass_and_run_every_branch_it_writes(scaffolded: Path) -> None:
    package = scaffolded / "src" / "businesses" / "shop"
    tests = _run(
        scaffolded,
        *(sys.executable, "-m", "coverage", "run", "--branch", f"--source={package}"),
        *("-m", "pytest", "-q", "-p", "no:cacheprovider", WRITTEN[2]),
    )
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert "9 passed" in tests.stdout
    report = _run(
        scaffolded, sys.executable, "-m", "coverage", "report", "--show-missing", "--fail-under=100"
    )
    assert report.returncode == 0, report.stdout + report.stderr
    assert "items.py" in report.stdout and "stock.py" in report.stdout


def test_scaffold_never_overwrites(scaffolded: Path) -> None:
    again = _run(scaffolded, sys.executable, str(ROOT / "scripts" / "new_business.py"), "shop", "--root", ".")
    assert again.returncode != 0 and "already exists" in again.stderr


def test_the_scaffold_calls_a_downstream_through_ctx_http_with_a_key_from_ctx_secret(
    scaffolded: Path,
) -> None:
    stock = (scaffolded / "src" / "businesses" / "shop" / "stock.py").read_text()
    assert "ctx.http.get(" in stock and "ctx.secret(KEY_SECRET)" in stock
