"""Lint manifests: `manifest_lint.py [path ...]` (default: every manifest/*.yaml).

Prints one line per problem (`file:yaml.path: [rule] message`) and exits 1 when there is any, 0 when all are
valid. When the package `businesses.<file stem>` exists, its registered tools are checked against the manifest,
and a tool whose model-visible projection hides every id another tool takes is a `warning:` line (exit 0).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from mcp_lambda.manifest import Problem
from mcp_lambda.manifest.lint import chaining_warnings, lint_manifest
from mcp_lambda_dev.businesses import load_business

MANIFEST_DIR = Path("manifest")


def registered_tools(manifest: Path) -> dict[str, set[str]] | None:
    """Each tool of `businesses.<stem>` with its argument names, or None when there is no such business package."""
    if importlib.util.find_spec("businesses") is None:
        return None
    if importlib.util.find_spec(f"businesses.{manifest.stem}") is None:
        return None
    return {
        spec.name: set(spec.input_schema.get("properties") or {})
        for spec in load_business(manifest.stem).tools
    }


def lint(paths: list[Path]) -> list[Problem]:
    problems: list[Problem] = []
    for path in paths:
        tools = registered_tools(path)
        problems += lint_manifest(path, set(tools) if tools is not None else None)
    return problems


def warnings(paths: list[Path]) -> list[Problem]:
    """The chaining warnings of every manifest whose business package exists."""
    found: list[Problem] = []
    for path in paths:
        tools = registered_tools(path)
        if tools is not None:
            found += chaining_warnings(path, tools)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, help="manifest files (default: manifest/*.yaml)")
    args = parser.parse_args(argv)
    paths = args.paths or sorted(MANIFEST_DIR.glob("*.yaml")) + sorted(MANIFEST_DIR.glob("*.yml"))
    if not paths:
        print(f"manifest-lint: no manifests found under {MANIFEST_DIR}/", file=sys.stderr)
        return 1
    problems = lint(paths)
    for problem in problems:
        print(problem)
    for warning in warnings(paths) if not problems else []:
        print(f"warning: {warning}")
    if problems:
        print(f"manifest-lint: {len(problems)} problem(s) in {len(paths)} manifest(s)", file=sys.stderr)
        return 1
    print(f"manifest-lint: {len(paths)} manifest(s) valid: {', '.join(str(path) for path in paths)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
