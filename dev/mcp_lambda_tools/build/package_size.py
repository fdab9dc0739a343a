"""The Lambda package's size as deployed: `package_size.py BUILD_DIR [--limit-mb N] [--record FILE]` (make build).

Prints the unzipped size of what `sam build` produced and the part of it that is not the boto3 closure the
Lambda Python runtime already has (boto3, botocore, s3transfer, jmespath, python-dateutil, six, urllib3), the
largest entries first. With the build record of dev/mcp_lambda_tools/build/package_deps.py, the business's part (its code and what
its own requirements.txt added) and PyJWT's (AuthMode=jwt) are reported apart from the framework's.
`--limit-mb` is the framework part's budget; the business part's is the record's (`Package.BudgetMb` of its
stack.yaml). Exits 1 when a part is over its budget (in 10^6 bytes).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

CLOSURE = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "python_dateutil", "six", "urllib3")


def distribution(entry: Path) -> str:
    """`botocore-1.44.8.dist-info` -> botocore; `six.py` -> six."""
    return entry.name.split("-")[0].removesuffix(".py").lower()


def size(entry: Path) -> int:
    if entry.is_file():
        return entry.stat().st_size
    return sum(path.stat().st_size for path in entry.rglob("*") if path.is_file())


def parts(build: Path, record: dict[str, Any] | None) -> dict[str, dict[str, int]]:
    """The package's entries by part: framework (without the boto3 closure), jwt, business.

    Args:
        build: The package's root.
        record: The build record (None: everything is the framework's).

    Returns:
        Part -> entry name -> bytes.
    """
    named: dict[str, list[str]] = record["parts"] if record else {}
    owner = {entry: part for part, entries in named.items() for entry in entries}
    found: dict[str, dict[str, int]] = {"framework": {}, "jwt": {}, "business": {}}
    for entry in build.iterdir():
        part = owner.get(entry.name, "framework")
        if part == "framework" and distribution(entry) in CLOSURE:
            continue
        found[part][entry.name] = size(entry)
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", type=Path)
    parser.add_argument("--limit-mb", type=float, help="the framework part's budget")
    parser.add_argument(
        "--record", type=Path, help="dev/mcp_lambda_tools/build/package_deps.py's build record"
    )
    args = parser.parse_args(argv)
    record = json.loads(args.record.read_text(encoding="utf-8")) if args.record else None
    total = sum(size(entry) for entry in args.build.iterdir())
    found = parts(args.build, record)
    framework = sum(found["framework"].values())
    print(f"package {args.build}: {total / 1e6:.1f} MB unzipped")
    print(f"  framework: {framework / 1e6:.1f} MB without the boto3 closure")
    for name, n in sorted(found["framework"].items(), key=lambda item: -item[1])[:8]:
        print(f"    {n / 1e6:6.2f} MB  {name}")
    if found["jwt"]:
        print(f"  PyJWT (AuthMode=jwt): {sum(found['jwt'].values()) / 1e6:.1f} MB")
    failed = False
    if args.limit_mb is not None and framework > args.limit_mb * 1e6:
        print(f"package_size: the framework part is over its {args.limit_mb:g} MB limit", file=sys.stderr)
        failed = True
    if record is not None:
        business, budget = sum(found["business"].values()), float(record["budget_mb"])
        added = sorted(set(found["business"]) - {"businesses"})
        print(
            f"  business {record['business']}: {business / 1e6:.2f} MB (budget {budget:g} MB), its code"
            + (f" and {', '.join(added)}" if added else "")
        )
        if business > budget * 1e6:
            print(
                f"package_size: business {record['business']} is over its {budget:g} MB budget "
                "(Package.BudgetMb in its stack.yaml)",
                file=sys.stderr,
            )
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
