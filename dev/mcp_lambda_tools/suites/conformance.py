"""`make conformance`: serve the `conformance` business through the Lambda handler and run the official MCP
conformance suite at 2026-07-28 and 2025-11-25. Exit 0 only when every scored scenario passes (2025-11-25: all
but the expected failures listed in tests/conformance/) and every check of the extension scenarios this server
implements passes too.

The suite also runs scenarios it does not score (the `tasks-*` extension and `pending` ones) and counts their
checks in its "Total" line; the summary printed here says which is which.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "dev")]

from mcp_lambda_dev.local.process import running_server  # noqa: E402

# The pinned suite (dev/mcp_lambda_tools/suites/mcp_tools.py), installed from npm on first use.
SUITE = ROOT / "dev" / "mcp_lambda_tools" / "suites" / "mcp-conformance"
EXPECTED = {"2025-11-25": ROOT / "tests" / "conformance" / "expected-failures-2025-11-25.yml"}
# Unscored extension scenarios held to the same bar: every check passes (a harness SKIPPED is not a failure).
SERVED_EXTENSIONS = {"2026-07-28": ("tasks-", "sep-2640-")}
FAILING = frozenset({"FAILURE", "WARNING"})
# The Skills extension's scenarios are outside every requirement set: each runs on its own (`--force`), and a
# SKIPPED check counts as a failure there (the fixture business serves a skill, so every check applies).
SKILLS_SCENARIOS = ("sep-2640-skills-enumeration", "sep-2640-skills-manifest", "sep-2640-skills-directory")
MUST_RUN = ("sep-2640-",)


def run_suite(url: str, revision: str, out_dir: Path) -> tuple[int, str]:
    shutil.rmtree(out_dir, ignore_errors=True)  # results of an earlier run must not count for this one
    command = [str(SUITE), url, revision, str(out_dir)]
    if revision in EXPECTED:
        command += ["--expected-failures", str(EXPECTED[revision])]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    return done.returncode, done.stdout + done.stderr


def run_scenarios(url: str, revision: str, out_dir: Path, scenarios: tuple[str, ...]) -> tuple[int, str]:
    """Run extension scenarios one by one into `out_dir` (beside the requirement set's results)."""
    code, output = 0, ""
    for scenario in scenarios:
        command = [str(SUITE), url, revision, str(out_dir), "--scenario", scenario, "--force"]
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
        code, output = code or done.returncode, output + done.stdout + done.stderr
    return code, output


def extension_problems(revision: str, out_dir: Path) -> tuple[list[str], int]:
    """(one line per failing check, checks seen) of the served extension scenarios in the suite's results."""
    problems, seen = [], 0
    scenarios = set()
    for path in sorted(out_dir.glob("server-*/checks.json")):
        scenario = re.sub(r"^server-|-\d{4}-\d{2}-\d{2}T.*$", "", path.parent.name)
        if not scenario.startswith(SERVED_EXTENSIONS.get(revision, ())):
            continue
        scenarios.add(scenario)
        for check in json.loads(path.read_text()):
            seen += 1
            skipped = check.get("status") == "SKIPPED" and scenario.startswith(MUST_RUN)
            if check.get("status") in FAILING or skipped:
                problems.append(
                    f"{scenario}:{check.get('id')}: {check.get('status')} {check.get('errorMessage')}"
                )
    if SERVED_EXTENSIONS.get(revision) and not scenarios:
        problems.append(f"no results of the served extension scenarios {SERVED_EXTENSIONS[revision]}")
    return problems, seen


SCENARIO = re.compile(r"^([✓✗]) (\S+): (\d+) passed, (\d+) failed$", re.M)
UNSCORED = re.compile(r"^\s+([✓✗]) (\S+) \((\w+)\)$", re.M)


def expected_failures(revision: str) -> set[str]:
    """Scenario names listed as expected failures for the revision (the `scenario:check` entries' scenarios)."""
    path = EXPECTED.get(revision)
    if path is None:
        return set()
    entries = re.findall(r"^\s*-\s*([\w-]+):", path.read_text(encoding="utf-8"), flags=re.M)
    return set(entries)


def summarize(revision: str, code: int, output: str) -> list[str]:
    """What was scored and what was not, in words: the suite's own total counts unscored scenarios too."""
    scenarios = {name: failed == "0" for _, name, _, failed in SCENARIO.findall(output)}
    unscored = {name: kind for _, name, kind in UNSCORED.findall(output)}
    scored = {name: ok for name, ok in scenarios.items() if name not in unscored}
    expected = expected_failures(revision) & {name for name, ok in scored.items() if not ok}
    passed = sum(scored.values())
    verdict = "PASS" if code == 0 else "FAIL"
    lines = [f"{revision}: {verdict} - {passed} of {len(scored)} scored scenarios passed"]
    if expected:
        lines.append(
            f"  the {len(expected)} that fail are the expected failures of {EXPECTED[revision].name} "
            f"(a server-to-client request mid-call, which one buffered Lambda response cannot carry): "
            + ", ".join(sorted(expected))
        )
    for name, ok in sorted(scored.items()):
        if not ok and name not in expected:
            lines.append(f"  FAILED (scored): {name}")
    if unscored:
        failing = [name for name in unscored if not scenarios.get(name, True)]
        kinds = ", ".join(sorted(set(unscored.values())))
        lines.append(
            f"  not scored ({kinds} scenarios outside the {revision} requirement set; they do not affect "
            f"conformance): {len(unscored)} run, {len(failing)} failing"
            + (f" ({', '.join(failing)})" if failing else "")
        )
    total = re.findall(r"^Total: .*$", output, flags=re.M)
    if total:
        lines.append(f"  suite total, scored and not scored: {total[-1].removeprefix('Total: ')} checks")
    return lines


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--revision", action="append", choices=["2026-07-28", "2025-11-25"])
    parser.add_argument("--out", default=str(ROOT / "build" / "conformance"))
    args = parser.parse_args()
    if not SUITE.exists():
        print(f"conformance runner not found at {SUITE}", file=sys.stderr)
        return 2
    status = 0
    with running_server("conformance") as url:
        for revision in args.revision or ["2026-07-28", "2025-11-25"]:
            code, output = run_suite(url, revision, Path(args.out) / revision)
            print("\n".join(summarize(revision, code, output)))
            if code != 0:
                status = 1
                print(output[-4000:])
            if revision == "2026-07-28":
                code, output = run_scenarios(url, revision, Path(args.out) / revision, SKILLS_SCENARIOS)
                if code != 0:
                    status = 1
                    print(output[-4000:])
            problems, checks = extension_problems(revision, Path(args.out) / revision)
            if SERVED_EXTENSIONS.get(revision):
                verdict = "PASS" if not problems else "FAIL"
                print(
                    f"{revision} extensions {', '.join(SERVED_EXTENSIONS[revision])}: {verdict} ({checks} checks)"
                )
            for problem in problems:
                status = 1
                print(f"  ✗ {problem}")
    return status


if __name__ == "__main__":
    sys.exit(main())
