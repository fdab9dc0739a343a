"""`make bench-smoke` runs every bench, and CI runs it: a bench that stops running fails CI instead of rotting."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# Run by another bench, not on its own: bench/peers.py starts bench/peer_server.py once per implementation.
HELPERS = {"peer_server.py"}


def _recipe(target: str) -> str:
    text = (ROOT / "mk" / "bench.mk").read_text(encoding="utf-8")
    found = re.search(rf"^{re.escape(target)}:.*\n((?:\t.*\n)+)", text, re.M)
    assert found, f"no recipe for {target} in mk/bench.mk"
    return found.group(1)


def test_bench_smoke_runs_every_bench_script() -> None:
    recipe = _recipe("bench-smoke")
    scripts = sorted(
        path.name
        for path in (ROOT / "bench").glob("*.py")
        if path.name != "__init__.py" and path.name not in HELPERS
    )
    assert scripts, "no bench scripts found"
    missing = [name for name in scripts if f"bench/{name}" not in recipe]
    assert missing == [], f"make bench-smoke does not run {missing}"


def test_ci_runs_bench_smoke_after_the_tests() -> None:
    commands = [
        line.split("#")[0].strip() for line in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    ]
    assert "make bench-smoke" in commands
    assert commands.index("make test") < commands.index("make bench-smoke")


def test_the_peers_never_enter_the_runtime_environment() -> None:
    """The peers' packages are the bench venv's alone: not a dependency of ours, not in the package."""
    peers = ["mcp", "awslabs-mcp-lambda-handler"]
    runtime = (ROOT / "src" / "requirements.txt").read_text(encoding="utf-8").lower()
    for name in peers:
        assert not re.search(rf"^{re.escape(name)}\b", runtime, re.M)
    assert "$(BENCH_VENV)" in _recipe("bench-peers") and "--peers-python $(BENCH_VENV)/bin/python" in _recipe(
        "bench-smoke"
    )
