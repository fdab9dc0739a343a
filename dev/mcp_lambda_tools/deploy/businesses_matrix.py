"""The deploy workflow's matrix: the businesses of the repository, as a JSON list on stdout.

A business is a package under `src/businesses/` (where `make new-business` writes one), found as
`mcp_lambda_dev.businesses.known_businesses` finds them: every subpackage, in `pkgutil` order. The fixture
businesses of `dev/businesses/` never deploy, so they are not looked at. Standard library only: the workflow runs
it before any virtualenv exists.

Usage:
    dev/mcp_lambda_tools/deploy/businesses_matrix.py                 ["demo", "shop"]
    dev/mcp_lambda_tools/deploy/businesses_matrix.py --only shop     ["shop"] (exit 2 when there is no such business)
"""

from __future__ import annotations

import argparse
import json
import pkgutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]


def businesses(root: Path = ROOT) -> list[str]:
    """The business packages under `root/src/businesses/`.

    Args:
        root: The repository root.

    Returns:
        Their names, in `pkgutil.iter_modules` order; empty when the folder does not exist.
    """
    folder = root / "src" / "businesses"
    return [module.name for module in pkgutil.iter_modules([str(folder)]) if module.ispkg]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT, help="repository root (default: this one)")
    parser.add_argument("--only", default="", help="one business (empty: all of them)")
    args = parser.parse_args(argv)
    found = businesses(args.root)
    if args.only:
        if args.only not in found:
            print(f"businesses_matrix: no business {args.only!r}; there are {found}", file=sys.stderr)
            return 2
        found = [args.only]
    print(json.dumps(found))
    return 0


if __name__ == "__main__":
    sys.exit(main())
