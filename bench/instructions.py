"""`make bench-instructions`: the machine instructions one warm request executes, ours beside the bare floor.

Timing on a shared VM moves by tens of percent between processes; the instructions a request executes do not:
under valgrind's callgrind the same code, events and hash seed give the same count on any machine, whatever else
it runs, within ~0.1 % (what still varies is each request's own random ids and clock, never the machine's load;
the smoke run's 1 and 3 requests vary more). So this is the bench to compare two versions of the code with (run it on each, read the counts), and the
ratio to the floor it prints is the warm path's cost without the machine's noise (time per instruction still
differs between the two, docs/performance.md).

Each case runs in processes of its own under callgrind: one that makes `--calls` warm requests after the warm-up,
one that makes three times as many, and the difference of their totals, divided by the extra requests, is the
count of one request (start-up and warm-up cancel out). The floor is bench.py's bare FastAPI+Mangum app. Without
valgrind on PATH it says so and stops (exit 0): a measurement, not a test.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench

FLOOR = "bare FastAPI+Mangum (floor)"
ROUTE_CALL = {"name": "search_routes", "arguments": bench.ROUTE_ARGS}
PRODUCTS_CALL = {"name": "search_products", "arguments": bench.COLD_CALL}
CASES = {  # --cases name -> the row's label
    "floor": FLOOR,
    "list": "tools/list (2026-07-28)",
    "call": "tools/call (2026-07-28), search_routes",
    "products": "tools/call (2026-07-28), search_products",
    "legacy-call": "tools/call (legacy), search_routes",
}
WARM_UP = 50
TOTALS = re.compile(rb"^(?:summary|totals):\s+(\d+)", re.M)


def serve(case: str, calls: int) -> None:
    """The measured process: build the case's handler and event, warm up, then answer `calls` requests."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # the per-request lines and metrics are written (and counted), not shown
    handler: Any
    if case == "floor":
        handler, event = bench.bare_handler(), bench.modern_event("tools/list", {})
    else:
        from mcp_lambda.handler import handler

        if case == "list":
            event = bench.modern_event("tools/list", {})
        elif case == "legacy-call":
            event = bench.legacy_event(bench.legacy_session(handler), "tools/call", ROUTE_CALL)
        else:
            event = bench.modern_event("tools/call", PRODUCTS_CALL if case == "products" else ROUTE_CALL)
    context = bench.LocalContext()
    for _ in range(WARM_UP):
        handler(event, context)
    for _ in range(calls):
        handler(event, context)


def instructions(case: str, calls: int, workdir: Path) -> int:
    """The instructions (callgrind's Ir) of a whole process serving `calls` warm requests of `case`."""
    out = workdir / f"callgrind.{len(list(workdir.iterdir()))}.out"
    env = {**os.environ, "PYTHONHASHSEED": "0"}  # the same dict layouts, so the same count, run after run
    command = [
        "valgrind",
        "--tool=callgrind",
        f"--callgrind-out-file={out}",
        sys.executable,
        __file__,
        "--serve",
        case,
        "--calls",
        str(calls),
    ]
    done = subprocess.run(command, env=env, capture_output=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{case}: callgrind failed:\n{done.stderr.decode(errors='replace')[-3000:]}")
    found = TOTALS.search(out.read_bytes())
    if found is None:
        raise RuntimeError(f"{case}: no total in {out}")
    return int(found.group(1))


def per_request(case: str, calls: int, workdir: Path) -> float:
    """Instructions of one warm request: (the total of 3 * `calls` requests - the total of `calls`) / (2 * `calls`)."""
    return (instructions(case, 3 * calls, workdir) - instructions(case, calls, workdir)) / (2 * calls)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=100, help="measured requests of the shorter run")
    parser.add_argument("--cases", help="comma-separated, of: " + ", ".join(CASES) + " (default: all)")
    parser.add_argument(
        "--dry-run",
        action="store_true",
        help="serve every case once without valgrind, then measure --cases only",
    )
    parser.add_argument("--serve", choices=CASES, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.calls)
        return
    asked = args.cases.split(",") if args.cases else list(CASES)
    unknown = sorted(set(asked) - set(CASES))
    if unknown:
        parser.error(f"unknown case(s) {', '.join(unknown)}: choose from {', '.join(CASES)}")
    if args.dry_run:  # make bench-smoke: every case's process runs, in a fraction of callgrind's time
        for case in CASES:
            command = [sys.executable, __file__, "--serve", case, "--calls", str(args.calls)]
            subprocess.run(command, check=True)
        print(f"bench-instructions: every case served {args.calls} requests (dry run, nothing measured)")
        if not args.cases:
            return
    if shutil.which("valgrind") is None:
        print(
            "bench-instructions: valgrind is not on PATH (Debian: apt-get install valgrind); nothing measured"
        )
        return
    cases = [case for case in CASES if case in asked]
    print(f"Instructions per warm request under callgrind (Python {sys.version.split()[0]}; the counts of")
    print(f"{3 * args.calls} and {args.calls} requests after {WARM_UP} to warm up, differenced):")
    with tempfile.TemporaryDirectory() as workdir:
        counts = {case: per_request(case, args.calls, Path(workdir)) for case in cases}
    floor = counts.get("floor")
    print(f"  {'case':42s} {'instructions':>12s}  {'/ floor' if floor else ''}")
    for case, count in counts.items():
        ratio = f"{count / floor:7.2f}" if floor else ""
        print(f"  {CASES[case]:42s} {count:12,.0f}  {ratio}")


if __name__ == "__main__":
    main()
