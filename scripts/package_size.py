"""The Lambda package's size as deployed: `package_size.py BUILD_DIR [--limit-mb N]` (make build runs it).

Prints the unzipped size of what `sam build` produced and the part of it that is not the boto3 closure the
Lambda Python runtime already has (boto3, botocore, s3transfer, jmespath, python-dateutil, six, urllib3), the
largest entries first. With `--limit-mb`, exits 1 when that part is larger (in 10^6 bytes).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

CLOSURE = ("boto3", "botocore", "s3transfer", "jmespath", "dateutil", "python_dateutil", "six", "urllib3")


def distribution(entry: Path) -> str:
    """`botocore-1.44.8.dist-info` -> botocore; `six.py` -> six."""
    return entry.name.split("-")[0].removesuffix(".py").lower()


def size(entry: Path) -> int:
    if entry.is_file():
        return entry.stat().st_size
    return sum(path.stat().st_size for path in entry.rglob("*") if path.is_file())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build", type=Path)
    parser.add_argument("--limit-mb", type=float)
    args = parser.parse_args(argv)
    sizes = {entry.name: size(entry) for entry in args.build.iterdir()}
    ours = {name: n for name, n in sizes.items() if distribution(Path(name)) not in CLOSURE}
    total, without = sum(sizes.values()), sum(ours.values())
    print(
        f"package {args.build}: {total / 1e6:.1f} MB unzipped, {without / 1e6:.1f} MB without the boto3 closure"
    )
    for name, n in sorted(ours.items(), key=lambda item: -item[1])[:8]:
        print(f"  {n / 1e6:6.2f} MB  {name}")
    if args.limit_mb is not None and without > args.limit_mb * 1e6:
        print(f"package_size: over the {args.limit_mb:g} MB limit", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
