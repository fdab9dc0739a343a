"""Business code imports only the public toolkit, `mcp_lambda.tools`, and that toolkit has everything it needs."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import mcp_lambda.tools

ROOT = Path(__file__).resolve().parents[2]
BUSINESS_TREES = [ROOT / "src" / "businesses", ROOT / "dev" / "businesses"]
BUSINESS_MODULES = sorted(path for tree in BUSINESS_TREES if tree.is_dir() for path in tree.rglob("*.py"))
PUBLIC = "mcp_lambda.tools"


def _framework_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import of the framework in one file, `import x` and `from x import y` alike."""
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "mcp_lambda":
            found += [(node.lineno, f"mcp_lambda.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    # mcp_lambda_dev (the local server, fixtures' helpers) is no business dependency either.
    return [(line, module) for line, module in found if module.split(".")[0].startswith("mcp_lambda")]


def test_there_are_business_modules_to_check() -> None:
    assert any(path.parts[-2] == "demo" for path in BUSINESS_MODULES)


@pytest.mark.parametrize("path", BUSINESS_MODULES, ids=lambda path: str(path.relative_to(ROOT)))
def test_business_modules_import_only_the_public_toolkit(path: Path) -> None:
    wrong = [f"line {line}: {module}" for line, module in _framework_imports(path) if module != PUBLIC]
    assert not wrong, f"{path.relative_to(ROOT)} imports framework internals: {wrong}"


def test_every_exported_name_exists() -> None:
    missing = [name for name in mcp_lambda.tools.__all__ if not hasattr(mcp_lambda.tools, name)]
    assert not missing
    assert len(set(mcp_lambda.tools.__all__)) == len(mcp_lambda.tools.__all__)


@pytest.mark.parametrize(
    "name",
    [
        "tool",
        "prompt",
        "resource",
        "resource_template",
        "input_required",
        "elicit",
        "sample",
        "list_roots",
        "InputRequired",
        "InputRequest",
        "user",
        "assistant",
        "ToolSignatureError",
    ],
)
def test_the_toolkit_exports_what_a_business_needs(name: str) -> None:
    assert name in mcp_lambda.tools.__all__
