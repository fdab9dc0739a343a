"""`make conformance`: serve the `conformance` business through the Lambda handler and run the official MCP
conformance suite at 2026-07-28 and 2025-11-25. Exit 0 only when every scored scenario passes (2025-11-25: all
but the expected failures listed in tests/conformance/)."""

from __future__ import annotations

import argparse
import os
import re
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SUITE = ROOT / "scripts" / "mcp-conformance"  # the team runner when present, else a pinned npm install
EXPECTED = {"2025-11-25": ROOT / "tests" / "conformance" / "expected-failures-2025-11-25.yml"}


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_ready(url: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(urllib.request.Request(url, method="GET"), timeout=2)
            return
        except urllib.error.HTTPError:
            return  # any HTTP answer (405 for GET) means the server is up
        except OSError:
            time.sleep(0.2)
    raise SystemExit(f"server at {url} did not start within {timeout:.0f}s")


def run_suite(url: str, revision: str, out_dir: Path) -> tuple[int, str]:
    command = [str(SUITE), url, revision, str(out_dir)]
    if revision in EXPECTED:
        command += ["--expected-failures", str(EXPECTED[revision])]
    done = subprocess.run(command, capture_output=True, text=True, timeout=900)
    return done.returncode, done.stdout + done.stderr


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--revision", action="append", choices=["2026-07-28", "2025-11-25"])
    parser.add_argument("--out", default=str(ROOT / "build" / "conformance"))
    args = parser.parse_args()
    if not SUITE.exists():
        print(f"conformance runner not found at {SUITE}", file=sys.stderr)
        return 2
    port = free_port()
    env = {**os.environ, "BUSINESS": "conformance", "PYTHONPATH": f"{ROOT / 'src'}:{ROOT}"}
    server = subprocess.Popen(
        [sys.executable, "-m", "mcp_lambda.local.server", "--host", "127.0.0.1", "--port", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    status = 0
    try:
        url = f"http://localhost:{port}/mcp"
        wait_ready(url)
        for revision in args.revision or ["2026-07-28", "2025-11-25"]:
            code, output = run_suite(url, revision, Path(args.out) / revision)
            total = re.findall(r"^Total: .*$", output, flags=re.M)
            print(f"{revision}: {'PASS' if code == 0 else 'FAIL'} ({total[-1] if total else 'no summary'})")
            for line in output.splitlines():
                if line.startswith(("✗", "  ~", "  ✗", "  ✓ ")) or "Baseline" in line:
                    print(f"  {line}")
            if code != 0:
                status = 1
                print(output[-4000:])
    finally:
        server.terminate()
        server.wait(timeout=10)
    return status


if __name__ == "__main__":
    sys.exit(main())
