"""`make bench-hotspots`: where a warm request's time goes, under cProfile, beside the floor of the same run.

Serves `--calls` warm requests (a 2026-07-28 `tools/call` of the demo's `search_routes` by default; `--method
tools/list`, `--era legacy`) through `mcp_lambda.handler.handler`, first timed against the bare FastAPI+Mangum floor
in interleaved rounds (the ratio of the medians, as `make bench` reports it), then again under cProfile, and prints
the frames with the most time, inclusive and on their own, the framework's (`src/`) marked. cProfile slows every
Python call alike, so read its shares, not its seconds: docs/performance.md says how the figures there were taken.
This is a measurement, not a test: it never fails on a slow figure.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench
from mcp_lambda_dev.local.events import LocalContext

SRC = str(bench.REPO / "src")
# Where an installed or standard-library module's file is: left out of the printed frames.
LIBRARY_PREFIX = re.compile(r"\S*/(?:site-packages|lib/python3\.\d+)/")


def timed(handler: Any, event: dict[str, Any], calls: int) -> list[float]:
    """`calls` latencies of `handler(event)`, in µs."""
    context = LocalContext()
    samples = []
    for _ in range(calls):
        started = time.perf_counter()
        handler(event, context)
        samples.append((time.perf_counter() - started) * 1e6)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=3000)
    parser.add_argument("--method", choices=("tools/call", "tools/list"), default="tools/call")
    parser.add_argument("--era", choices=("modern", "legacy"), default="modern")
    parser.add_argument("--top", type=int, default=25, help="frames printed per ordering")
    args = parser.parse_args()

    out = bench.OUT = os.fdopen(os.dup(1), "w")  # the report; fd 1 (per-request lines, EMF) goes to /dev/null
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)
    from mcp_lambda.handler import handler

    params: dict[str, Any] = {}
    if args.method == "tools/call":
        params = {"name": "search_routes", "arguments": bench.ROUTE_ARGS}
    if args.era == "legacy":
        event = bench.legacy_event(bench.legacy_session(handler), args.method, params)
    else:
        event = bench.modern_event(args.method, params)
    floor, floor_event = bench.bare_handler(), bench.modern_event("tools/list", {})
    warm_up = min(bench.WARM_UP, args.calls)
    timed(handler, event, warm_up)
    timed(floor, floor_event, warm_up)

    ours: list[float] = []
    bare: list[float] = []
    rounds = 10 if args.calls >= 100 else 1
    for _ in range(rounds):  # interleaved: the VM's drift moves both alike
        bare += timed(floor, floor_event, args.calls // rounds)
        ours += timed(handler, event, args.calls // rounds)
    ratio = statistics.median(ours) / statistics.median(bare)
    bench.say(
        f"{args.method} ({args.era}), {args.calls} warm calls: median {statistics.median(ours):.0f} µs, "
        f"floor {statistics.median(bare):.0f} µs, {ratio:.2f}x the floor"
    )

    profile = cProfile.Profile()
    context = LocalContext()
    profile.enable()
    for _ in range(args.calls):
        handler(event, context)
    profile.disable()
    for order, title in (("cumulative", "inclusive"), ("tottime", "on its own")):
        text = io.StringIO()
        stats = pstats.Stats(profile, stream=text)
        stats.sort_stats(order).print_stats(args.top)
        bench.say(f"\nThe {args.top} frames with the most time {title} (cProfile; * = the framework's own):")
        for line in text.getvalue().splitlines():
            if line.strip() and line.lstrip()[0].isdigit():
                shown = LIBRARY_PREFIX.sub("", line.replace(SRC + "/", "")).rstrip()
                bench.say(("* " if SRC in line else "  ") + shown)
    out.flush()


if __name__ == "__main__":
    main()
