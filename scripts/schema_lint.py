"""Lint the tools' input schemas of businesses: `schema_lint.py [BUSINESS ...]` (default: every business in src/).

One line per finding (`business: tool.argument: level [rule] message; fix: ...`, the rules in
`mcp_lambda_dev.contract.schema_lint`); exits 1 when any is an error, 0 otherwise. `make schema-lint` and
`make lint` run it.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
from pathlib import Path

from mcp_lambda_dev.businesses import known_businesses, load_business
from mcp_lambda_dev.contract.schema_lint import lint_business


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("businesses", nargs="*", help="business names (default: every business)")
    args = parser.parse_args(argv)
    names = args.businesses or [name for name in known_businesses() if _deployable(name)]
    errors = warnings = 0
    for name in names:
        for finding in lint_business(load_business(name)):
            print(f"{name}: {finding}")
            errors += finding.level == "error"
            warnings += finding.level == "warning"
    summary = f"schema-lint: {len(names)} business(es), {errors} error(s), {warnings} warning(s)"
    print(summary, file=sys.stderr if errors else sys.stdout)
    return 1 if errors else 0


def _deployable(name: str) -> bool:
    """A business of src/businesses/, not a development fixture of dev/businesses/ (the conformance suite's
    tools are named and described as the suite fixes them)."""
    spec = importlib.util.find_spec(f"businesses.{name}")
    if spec is None or not spec.origin:
        return False
    parts = Path(spec.origin).resolve().parts
    return not any(parts[i : i + 2] == ("dev", "businesses") for i in range(len(parts) - 1))


if __name__ == "__main__":
    sys.exit(main())
