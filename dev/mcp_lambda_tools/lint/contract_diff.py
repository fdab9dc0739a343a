"""Compare a business's published contract with a git ref: `contract_diff.py BUSINESS [--base REF]`.

Prints every change with its class (`mcp_lambda_dev.contract.diff` says which are breaking) and a verdict; exits 1
on a breaking change unless the business's major version was raised, 2 when a side cannot be described.
`make contract-diff BUSINESS=x [BASE=ref]` runs it; the pipeline's pull-request check runs it for every business
against the target branch.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from mcp_lambda_dev.contract.diff import (
    BREAKING,
    ContractUnavailable,
    checkout,
    compare,
    describe,
    major,
    verdict,
)

REPO = Path(__file__).resolve().parents[3]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("business", help="the business name")
    parser.add_argument("--base", default="main", help="the git ref to compare with (default: main)")
    parser.add_argument("--root", type=Path, default=REPO, help="the checkout to compare (default: this one)")
    args = parser.parse_args(argv)
    try:
        with tempfile.TemporaryDirectory() as scratch:
            base = describe(checkout(args.root, args.base, Path(scratch)), args.business)
        head = describe(args.root, args.business)
    except ContractUnavailable as exc:
        print(f"contract-diff: {exc}", file=sys.stderr)
        return 2
    if base is None and head is None:
        print(
            f"contract-diff: no business '{args.business}' at {args.base} or in the working tree",
            file=sys.stderr,
        )
        return 2
    changes = compare(base, head)
    for change in changes:
        print(change)
    breaking = sum(change.kind == BREAKING for change in changes)
    versions = f"{(base or {}).get('version', '-')} -> {(head or {}).get('version', '-')}"
    summary = f"contract-diff {args.business} vs {args.base}: {len(changes)} change(s), {breaking} breaking; version {versions}"
    if verdict(base, head, changes):
        raised = breaking and base and head and major(head.get("version")) > major(base.get("version"))
        print(summary + ("; the major version was raised" if raised else ""))
        return 0
    print(
        summary + "; raise the business's major version (Business(version=...)) or keep the contract",
        file=sys.stderr,
    )
    return 1


if __name__ == "__main__":
    sys.exit(main())
