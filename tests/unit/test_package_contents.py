"""What the Lambda package ships is what the function uses: every module of ours in it imports with the package
alone, and is imported by some path from the handler (or named by the settings, or offered to a business); the
Powertools units `scripts/package_prune.py` drops are never imported, and what it keeps imports."""

from __future__ import annotations

import json
import shutil
import site
import subprocess
import sys
from pathlib import Path

import pytest
from scripts.package_prune import TOP, module_names, reached, unused_units
from scripts.package_stage import stage

from mcp_lambda.stores import BACKENDS

ROOT = Path(__file__).resolve().parents[2]
# Imported by something other than an import statement of ours: the handler (Lambda's entry), the business (by
# name, from the settings), each store backend (by name, from the settings), and the modules a business imports
# besides `mcp_lambda.tools` (docs/errors.md names `mcp_lambda.tools.errors`).
ENTRY_POINTS = (
    "mcp_lambda.handler",
    "businesses.demo",
    "mcp_lambda.tools.errors",
    *(module for backends in BACKENDS.values() for module in backends.values()),
)


@pytest.fixture(scope="module")
def staged(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("stage")
    stage("demo", out)
    return out / "demo"


def shipped_modules(root: Path) -> dict[str, tuple[Path, bool]]:
    """Module name -> (file, is a package) for every .py of the package."""
    found = {}
    for path in root.rglob("*.py"):
        relative = path.relative_to(root)
        is_package = path.name == "__init__.py"
        found[".".join(relative.with_suffix("").parts[: -1 if is_package else None])] = (path, is_package)
    return found


def test_every_module_shipped_is_imported_by_some_path(staged: Path) -> None:
    modules = shipped_modules(staged)
    seen: set[str] = set()
    pending = list(ENTRY_POINTS)
    while pending:
        name = pending.pop()
        if name in seen or name not in modules:
            continue
        seen.add(name)
        parts = name.split(".")
        pending += [".".join(parts[:end]) for end in range(1, len(parts))]
        pending += list(module_names(modules[name][0], name, modules[name][1]))
    assert sorted(set(modules) - seen) == []
    assert "mcp_lambda.handler" in seen and "businesses.demo.routes" in seen  # the walk itself reaches far


IMPORT_ALL = r"""
import importlib, json, site, sys
staged = sys.argv[1]
# The package first, then the standard library and the installed dependencies: not src/ nor dev/.
sys.path[:] = [staged] + [p for p in sys.path if p.startswith(sys.base_prefix) or p in site.getsitepackages()]
sys.modules["yaml"] = None  # the package has no PyYAML
failed = {}
for name in json.loads(sys.argv[2]):
    try:
        importlib.import_module(name)
    except Exception as exc:
        failed[name] = f"{type(exc).__name__}: {exc}"
print("RESULT " + json.dumps(failed))
"""


def _import_all(path: Path, names: list[str]) -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, "-c", IMPORT_ALL, str(path), json.dumps(names)],
        capture_output=True,
        text=True,
        check=True,
        cwd=path,
        env={
            "PATH": "/usr/bin:/bin",
            "POWERTOOLS_TRACE_DISABLED": "true",
            "MANIFEST_DIR": str(ROOT / "manifest"),
        },
    )
    line = next(line for line in done.stdout.splitlines() if line.startswith("RESULT "))
    return json.loads(line.removeprefix("RESULT "))  # type: ignore[no-any-return]


def test_every_module_shipped_imports_with_the_package_alone(staged: Path) -> None:
    names = sorted(
        name for name in shipped_modules(staged) if name != "mcp_lambda.handler"
    )  # it builds the app
    assert _import_all(staged, names) == {}


def test_the_powertools_units_pruned_are_never_imported_and_what_stays_imports(tmp_path: Path) -> None:
    package = tmp_path / "package"
    shutil.copytree(
        ROOT / "src" / "mcp_lambda", package / "mcp_lambda", ignore=shutil.ignore_patterns("testing")
    )
    installed = Path(next(p for p in site.getsitepackages() if (Path(p) / TOP).is_dir())) / TOP
    shutil.copytree(installed, package / TOP, ignore=shutil.ignore_patterns("__pycache__"))
    dropped = unused_units(package)
    assert package / TOP / "utilities" / "batch" in dropped  # a utility nothing of ours imports
    for unit in dropped:
        shutil.rmtree(unit)
    kept = sorted(reached(package))
    assert f"{TOP}.utilities.idempotency" in kept and f"{TOP}.utilities.circuit_breaker" in kept
    # Every Powertools module our code (at any depth) reaches imports from the pruned copy, first on the path.
    assert _import_all(package, kept) == {}


def test_a_powertools_utility_a_business_imports_is_kept(tmp_path: Path) -> None:
    package = tmp_path / "package"
    (package / "businesses" / "shop").mkdir(parents=True)
    (package / "businesses" / "shop" / "__init__.py").write_text(
        "def handler():\n    from aws_lambda_powertools.utilities.batch import BatchProcessor\n"
    )
    installed = Path(next(p for p in site.getsitepackages() if (Path(p) / TOP).is_dir())) / TOP
    shutil.copytree(installed, package / TOP, ignore=shutil.ignore_patterns("__pycache__"))
    dropped = unused_units(package)
    assert package / TOP / "utilities" / "batch" not in dropped
    assert package / TOP / "utilities" / "kafka" in dropped
