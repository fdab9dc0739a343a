"""The development tools are a package a test imports (`mcp_lambda_tools`, by purpose), never a `scripts/` folder;
no test borrows a helper from another test module; and the shipped test kit reaches nothing of `dev/`."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of each import of `path`, and of each `importlib.import_module("...")` with a literal."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
        elif (
            isinstance(node, ast.Call)
            and getattr(node.func, "attr", None) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append((node.lineno, node.args[0].value))
    return found


def _python_files(*folders: str) -> list[Path]:
    return sorted(
        path for folder in folders for path in (ROOT / folder).rglob("*.py") if ".venv" not in path.parts
    )


def test_nothing_imports_a_scripts_folder() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for path in _python_files("tests", "bench", "dev", "src")
        for line, module in _imports(path)
        if module.split(".")[0] == "scripts"
    ]
    assert found == []
    assert not (ROOT / "scripts").exists()


def test_no_test_imports_another_test_module() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for path in _python_files("tests")
        for line, module in _imports(path)
        if module.startswith("tests.") and any(part.startswith("test_") for part in module.split(".")[1:-1])
    ]
    assert found == []


def test_the_shipped_test_kit_imports_nothing_of_dev() -> None:
    found = [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for path in _python_files("src/mcp_lambda/testing")
        for line, module in _imports(path)
        if module.split(".")[0] in ("mcp_lambda_dev", "mcp_lambda_tools", "tests", "businesses")
    ]
    assert found == []


def test_the_checks_see_a_borrowed_helper(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import importlib\nfrom tests.unit.test_x import helper\nimportlib.import_module('mcp_lambda_dev.services')\n"
    )
    assert _imports(sample) == [
        (1, "importlib"),
        (2, "tests.unit.test_x.helper"),
        (3, "mcp_lambda_dev.services"),
    ]
