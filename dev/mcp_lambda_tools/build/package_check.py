"""Check a Lambda package holds one business and no development-only code: `package_check.py DIR --business NAME`.

DIR is a package's root (what `sam build` wrote, or the staged code it was built from). Exits 1 with one line per
problem when DIR holds another business than NAME (anything in `businesses/` but `__init__.py` and `NAME/`), a
development-only path (DEV_ONLY), or a module of ours (`mcp_lambda`, `businesses`) that imports `yaml` or
`mcp_lambda_dev`, at any depth of the file. `make build` runs it on the build, `make deploy` before deploying.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from pathlib import Path

# Paths (relative to the package root) the function never imports: make build leaves them out.
DEV_ONLY = (
    "mcp_lambda/testing",  # the public test kit: tests import it, the function never does
    "mcp_lambda/manifest/yaml_source.py",  # reads a .yaml manifest: the package has the compiled .json
    "mcp_lambda/manifest/lint.py",  # make manifest-lint's check (make build runs it before compiling)
    "mcp_lambda/skills/source.py",  # reads SKILL.md frontmatter: the package has the compiled _skills.json
    "mcp_lambda/skills/lint.py",  # make skill-lint's check (make build runs it before compiling)
    "mcp_lambda_dev",  # dev/: local server, stdio, compact log format, simulator
    "yaml",  # PyYAML
)
OURS = ("mcp_lambda", "businesses")
# Top-level modules no module of ours may import: the package does not have them.
FORBIDDEN_IMPORTS = frozenset({"yaml", "mcp_lambda_dev"})


def imported_modules(path: Path) -> Iterator[str]:
    """Every absolute module name a file imports, at any depth (inside functions and TYPE_CHECKING too)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module


def problems(root: Path, business: str) -> list[str]:
    """What is wrong with the package at `root` for serving `business` (empty when nothing is).

    Args:
        root: the package's root directory.
        business: the one business it must hold.

    Returns:
        One line per problem.
    """
    found = []
    businesses = root / "businesses"
    if not (businesses / business / "__init__.py").is_file():
        found.append(f"{root}: businesses/{business}/ is missing")
    if businesses.is_dir():
        found += [
            f"{root}: another business in the package: businesses/{entry.name}"
            for entry in sorted(businesses.iterdir())
            if entry.name not in {"__init__.py", business, "__pycache__"}
        ]
    found += [
        f"{root}: development-only {path} is in the package" for path in DEV_ONLY if (root / path).exists()
    ]
    for top in OURS:
        for path in sorted(path for path in (root / top).rglob("*.py") if path.is_file()):
            for module in sorted({name.split(".")[0] for name in imported_modules(path)} & FORBIDDEN_IMPORTS):
                found.append(f"{path.relative_to(root)}: imports {module}, which the package does not have")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="the package's root (holds mcp_lambda/ and businesses/)")
    parser.add_argument("--business", required=True)
    args = parser.parse_args(argv)
    found = problems(args.root, args.business)
    for problem in found:
        print(f"package_check: {problem}", file=sys.stderr)
    if not found:
        print(
            f"package_check: {args.root} holds businesses/{args.business} alone and no development-only code"
        )
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
