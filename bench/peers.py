"""`make bench-peers` (part of `make bench`): us beside the official MCP Python SDK and awslabs' mcp-lambda-handler.

Every implementation answers the same API Gateway (HTTP API, payload 2.0) events in-process, each in fresh
processes of the same interpreter (`bench/peer_server.py`, `.venv-bench`'s): ours as the package `make build`
stages, with `src/requirements.txt` installed apart (`.venv-bench/ours`: what the package holds, no development
tool), the peers from `.venv-bench` itself (PyPI's `mcp` and `awslabs.mcp-lambda-handler`, installed by the bench
target, never into the runtime or the package). Measured in one run, the implementations alternating round by round so the
shared VM's drift falls on all of them: the cold start (import + first tools/list), warm tools/list and
tools/call in both eras (2026-07-28 stateless, legacy 2025-11-25; awslabs' handler speaks only the legacy one), the
peak RSS after the warm calls, and the installed size of what each needs (without the boto3 closure the Lambda
runtime provides; ours as `make build` leaves it: the staged code and its dependencies, Powertools pruned). The ratios are to the SDK's async handler, measured in the same run. `--write FILE` puts the
table between the `peers` markers of FILE (docs/performance.md). Our tool is the demo's manifest-checked
`search_products`, theirs an echo. This is a measurement, not a test: it never fails on a slow figure.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(REPO / "src"), str(REPO / "dev"), str(REPO)]

from bench.bench import COLD_CALL, built_trees, modern_event, p99, post  # noqa: E402

SERVER = Path(__file__).with_name("peer_server.py")
IMPLEMENTATIONS = {  # name -> its column's title
    "sdk-sync": "SDK, sync",
    "sdk-async": "SDK, async",
    "awslabs": "awslabs",
    "ours": "us",
}
BASELINE = "sdk-async"
LEGACY = "2025-11-25"
WARM_CASES = (
    "tools/list (2026-07-28)",
    "tools/call (2026-07-28)",
    "tools/list (legacy)",
    "tools/call (legacy)",
)
MODERN_ONLY = {"awslabs": ("tools/list (2026-07-28)", "tools/call (2026-07-28)")}  # cases it cannot answer
BEGIN, END = "<!-- peers:begin (make bench writes this table) -->", "<!-- peers:end -->"


def legacy_event(method: str, params: dict[str, Any] | None, request_id: int | None = 2) -> dict[str, Any]:
    body: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if params is not None:
        body["params"] = params
    if request_id is not None:
        body["id"] = request_id
    return post(body, {"mcp-protocol-version": LEGACY})


def spec_for(implementation: str, calls: int) -> dict[str, Any]:
    """The events an implementation answers: the same for all but the tool (ours: the demo's search_products)."""
    call = (
        {"name": "search_products", "arguments": COLD_CALL}
        if implementation == "ours"
        else {"name": "echo", "arguments": {"message": "hi"}}
    )
    init = {"protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "bench", "version": "1"}}
    cases = {
        "tools/list (2026-07-28)": modern_event("tools/list", {}),
        "tools/call (2026-07-28)": modern_event("tools/call", call),
        "tools/list (legacy)": legacy_event("tools/list", {}),
        "tools/call (legacy)": legacy_event("tools/call", call),
    }
    for name in MODERN_ONLY.get(implementation, ()):
        cases.pop(name)
    return {
        "cold": modern_event("tools/list", {})
        if implementation != "awslabs"
        else legacy_event("tools/list", {}),
        "init": post({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": init}, {}),
        "initialized": legacy_event("notifications/initialized", None, None),
        "cases": cases,
        "calls": calls,
    }


class Runner:
    """Runs peer_server.py for an implementation with the right interpreter and path."""

    def __init__(self, peers_python: str, manifests: str, staged: Path, spec_dir: Path, calls: int) -> None:
        self.peers_python, self.manifests, self.staged = peers_python, manifests, staged
        self.ours_site = Path(peers_python).absolute().parents[1] / "ours"  # mk/bench.mk installs it
        self.specs = {}
        for implementation in IMPLEMENTATIONS:
            path = spec_dir / f"{implementation}.json"
            path.write_text(json.dumps(spec_for(implementation, calls)), encoding="utf-8")
            self.specs[implementation] = path

    def __call__(self, mode: str, implementation: str) -> Any:
        env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONDONTWRITEBYTECODE")}
        if implementation == "ours":
            # The staged package and its dependencies alone, as in Lambda; the manifest compiled as make build
            # ships it.
            path = os.pathsep.join([str(self.staged), str(self.ours_site)])
            env.update(PYTHONPATH=path, MANIFEST_DIR=self.manifests, BUSINESS="demo")
            env.setdefault("POWERTOOLS_TRACE_DISABLED", "true")
        # Ours without the venv's site-packages (-S): only what the package holds can be imported, as in Lambda
        # (the peers' venv holds packages ours does not ship, e.g. python-multipart, which Starlette imports if found).
        isolation = ["-S"] if implementation == "ours" else []
        done = subprocess.run(
            [
                self.peers_python,
                *isolation,
                str(SERVER),
                mode,
                implementation,
                str(self.specs[implementation]),
            ],
            env=env,
            cwd=REPO,
            stdout=subprocess.DEVNULL,  # per-request log lines and metrics cost their formatting, not a terminal
            stderr=subprocess.PIPE,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"{implementation} {mode} failed:\n{done.stderr[-3000:]}")
        return json.loads(done.stderr.strip().splitlines()[-1])


def versions(peers_python: str) -> str:
    probe = (
        "from importlib.metadata import version as v; import platform; "
        "print(platform.python_version(), v('mcp'), v('awslabs.mcp-lambda-handler'), v('mangum'))"
    )
    peer_python, sdk, awslabs, mangum = subprocess.run(  # the interpreter every implementation runs on
        [peers_python, "-c", probe], capture_output=True, text=True, check=True
    ).stdout.split()
    ours = re.search(r'^version = "([^"]+)"', (REPO / "pyproject.toml").read_text(encoding="utf-8"), re.M)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"{platform.machine()} {platform.system()} {platform.release()}, {os.cpu_count()} CPUs (load average "
        f"{load:.1f} at the start); Python {peer_python} for all; "
        f"mcp {sdk}, awslabs.mcp-lambda-handler {awslabs}, mangum {mangum}; "
        f"mcp-lambda-template {ours.group(1) if ours else '?'}"
    )


def measure(runner: Runner, rounds: int, cold_runs: int) -> dict[str, dict[str, Any]]:
    """Every implementation's figures, the implementations alternating in each round."""
    found: dict[str, dict[str, Any]] = {
        name: {"cold": [], "samples": {}, "rss_kib": 0} for name in IMPLEMENTATIONS
    }
    for _ in range(cold_runs):
        for name in IMPLEMENTATIONS:
            timing = runner("cold", name)
            found[name]["cold"].append((timing["import"] + timing["first"]) * 1000)
    for _ in range(rounds):
        for name in IMPLEMENTATIONS:
            warm = runner("warm", name)
            for case, samples in warm["samples"].items():
                found[name]["samples"].setdefault(case, []).extend(samples)
            found[name]["rss_kib"] = max(found[name]["rss_kib"], warm["rss_kib"])
    for name in IMPLEMENTATIONS:
        found[name]["bytes"] = package_bytes(runner) if name == "ours" else runner("size", name)["bytes"]
    return found


def package_bytes(runner: Runner) -> int:
    """Our package as `make build` leaves it, without the boto3 closure: the staged code and the dependencies in
    one tree, the Powertools units nothing imports and the assets nothing reads pruned
    (dev/mcp_lambda_tools/build/package_prune.py), no compiled caches."""
    import shutil

    from mcp_lambda_tools.build.package_prune import prune
    from mcp_lambda_tools.build.package_size import parts

    with tempfile.TemporaryDirectory() as out:
        package = Path(out) / "package"
        caches = shutil.ignore_patterns("__pycache__", "*.pyc", "*.c", "*.pyi")
        shutil.copytree(runner.ours_site, package, ignore=caches)
        shutil.copytree(runner.staged, package, ignore=caches, dirs_exist_ok=True)
        prune(package)
        shutil.rmtree(package / "pydantic" / "v1", ignore_errors=True)  # mk/deploy.mk's PRUNE
        return sum(parts(package, None)["framework"].values())


def table(found: dict[str, dict[str, Any]], about: str, calls: int, cold_runs: int) -> str:
    """The side-by-side table (Markdown), with the ratio of ours to the baseline."""
    names = list(IMPLEMENTATIONS)
    head = (
        "| metric | "
        + " | ".join(IMPLEMENTATIONS[n] for n in names)
        + f" | us / {IMPLEMENTATIONS[BASELINE]} |"
    )
    rows = [head, "|---" * (len(names) + 2) + "|"]

    def row(label: str, values: dict[str, float | None], unit: str, digits: int = 0) -> None:
        cells = [f"{values[n]:.{digits}f} {unit}" if values[n] is not None else "—" for n in names]
        ours, base = values["ours"], values[BASELINE]
        ratio = f"{ours / base:.2f}x" if ours is not None and base else "—"
        rows.append(f"| {label} | " + " | ".join(cells) + f" | {ratio} |")

    row(
        f"cold start: import + first tools/list (median of {cold_runs})",
        {n: statistics.median(found[n]["cold"]) for n in names},
        "ms",
    )
    for case in WARM_CASES:
        medians = {
            n: statistics.median(found[n]["samples"][case]) if case in found[n]["samples"] else None
            for n in names
        }
        row(f"warm {case}, median", medians, "µs")
    for case in ("tools/call (2026-07-28)", "tools/call (legacy)"):
        tails = {n: p99(found[n]["samples"][case]) if case in found[n]["samples"] else None for n in names}
        row(f"warm {case}, p99", tails, "µs")
    row("peak RSS after the warm calls", {n: found[n]["rss_kib"] / 1024 for n in names}, "MiB", 1)
    row("installed size without the boto3 closure", {n: found[n]["bytes"] / 1e6 for n in names}, "MB", 1)
    note = (
        f"\n{calls} warm calls per case and implementation, in interleaved rounds of 50; {about}. "
        "awslabs' handler does not speak 2026-07-28 (—). Our tool call is the demo's manifest-checked "
        "`search_products` with both mandated log lines and its EMF record; the peers' an echo.\n"
    )
    return "\n".join(rows) + "\n" + note


def write_between_markers(path: Path, text: str) -> None:
    """Replace what lies between the peers markers of `path` with `text` (the markers are added at the end of the
    file the first time)."""
    current = path.read_text(encoding="utf-8")
    block = f"{BEGIN}\n{text}{END}"
    if BEGIN in current and END in current:
        before, rest = current.split(BEGIN, 1)
        after = rest.split(END, 1)[1]
        current = before + block + after
    else:
        current = current.rstrip("\n") + "\n\n" + block + "\n"
    path.write_text(current, encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--peers-python", required=True, help="the interpreter of the venv that holds the peers"
    )
    parser.add_argument("--calls", type=int, default=3000, help="warm calls per case and implementation")
    parser.add_argument(
        "--rounds", type=int, default=3, help="warm processes per implementation, alternating"
    )
    parser.add_argument("--cold-runs", type=int, default=7)
    parser.add_argument("--write", type=Path, help="put the table between the peers markers of this file")
    args = parser.parse_args()
    about = versions(args.peers_python)
    print(f"Peers: {about}", flush=True)
    rounds = max(1, min(args.rounds, args.calls // 50))
    per_round = max(50, args.calls // rounds)
    with built_trees() as (manifests, _, staged), tempfile.TemporaryDirectory() as specs:
        runner = Runner(args.peers_python, manifests, staged, Path(specs), per_round)
        found = measure(runner, rounds, args.cold_runs)
    text = table(found, about, per_round * rounds, args.cold_runs)
    print(text, flush=True)
    if args.write:
        write_between_markers(args.write, text)
        print(f"written to {args.write}")


if __name__ == "__main__":
    main()
