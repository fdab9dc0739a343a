"""What a business's tests may import: the test kit, the toolkit and their own business (docs/testing.md).

`forbidden_imports(path, business)` lists the rest; the repository's tests hold every business's tests, and the
scaffold's, to it.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

OWN_PACKAGES = {"mcp_lambda", "mcp_lambda_dev", "mcp_lambda_tools", "businesses", "tests", "scripts", "dev"}
PUBLIC = ("mcp_lambda.testing", "mcp_lambda.tools")


def _within(module: str, allowed: str) -> bool:
    return module == allowed or module.startswith(allowed + ".")


def forbidden_imports(path: Path, business: str) -> list[str]:
    """Each import of `path` that a test of `business` must not make, as `line: module`."""
    allowed = (*PUBLIC, f"businesses.{business}")
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: another file of the same test folder
                continue
            base = node.module or ""
            # `from mcp_lambda import testing` names the submodule; `from businesses import other` too.
            modules = [
                f"{base}.{alias.name}" if base in ("mcp_lambda", "businesses") else base
                for alias in node.names
            ]
        else:
            continue
        for module in modules:
            top = module.split(".")[0]
            if top in sys.stdlib_module_names or top == "__future__" or top not in OWN_PACKAGES:
                continue
            if not any(_within(module, prefix) for prefix in allowed):
                found.append(f"{node.lineno}: {module}")
    return sorted(found, key=lambda line: int(line.split(":")[0]))
