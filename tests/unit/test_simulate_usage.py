"""`make simulate` asked for something it cannot do says so in one line naming the fix: a tool the business does
not have (listing the ones it has), a business without a manifest file to check results against; the demo's
check_stock gets the stand-in inventory `make run` gives it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.support.more_businesses import NAMES, pythonpath_with, write_businesses

ROOT = Path(__file__).resolve().parents[2]
DEMO_TOOLS = (
    "search_routes, search_routes_for_reference, search_products, subscribe_product, list_subscriptions, "
    "check_stock, export_trip_plan, refresh_route"
)


def _simulate(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    child = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT / "dev"), str(ROOT)])}
    child.pop("MANIFEST_DIR", None)
    return subprocess.run(
        [sys.executable, "-m", "mcp_lambda_dev.simulate", *args],
        capture_output=True,
        text=True,
        env={**child, **env},
        timeout=120,
    )


def test_an_unknown_tool_is_one_line_listing_the_known_ones() -> None:
    done = _simulate("--business", "demo", "--tool", "nosuch")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"simulate: business 'demo' has no tool 'nosuch'; known: {DEMO_TOOLS}"
    ]


def test_a_near_miss_tool_name_gets_a_hint() -> None:
    done = _simulate("--business", "demo", "--tool", "search_product", "--format", "json")
    assert done.returncode == 2 and done.stdout == ""
    [line] = done.stderr.splitlines()
    assert "has no tool 'search_product'; did you mean 'search_products'?" in line


def test_an_unknown_business_is_one_line_listing_the_known_ones(tmp_path: Path) -> None:
    more = write_businesses(tmp_path)
    done = _simulate("--business", "nobiz", "--tool", "x", PYTHONPATH=pythonpath_with(more))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith("simulate: business 'nobiz' not found; known: ")
    assert line.endswith(" (a business is a package src/businesses/<name>/)")
    known = line.split("known: ", 1)[1].split(" (", 1)[0].split(", ")
    assert {"demo", "conformance", *NAMES} <= set(known) and len(known) == len(set(known))


def test_the_demo_is_simulated_whichever_businesses_are_beside_it(tmp_path: Path) -> None:
    more = write_businesses(tmp_path)
    done = _simulate("--business", "demo", "--tool", "nosuch", PYTHONPATH=pythonpath_with(more))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"simulate: business 'demo' has no tool 'nosuch'; known: {DEMO_TOOLS}"
    ]


def test_a_missing_manifest_is_one_line_naming_the_fix(tmp_path: Path) -> None:
    done = _simulate("--business", "demo", "--tool", "search_products", MANIFEST_DIR=str(tmp_path))
    assert done.returncode == 2
    assert "Traceback" not in done.stderr + done.stdout
    [line] = done.stderr.splitlines()
    assert line.startswith(f"simulate: no manifest for business 'demo' at {tmp_path / 'demo.yaml'}")
    assert "MANIFEST_DIR" in line and "docs/manifest.md" in line


def test_an_invalid_manifest_is_one_line_with_the_lint_command(tmp_path: Path) -> None:
    (tmp_path / "demo.yaml").write_text("tools: [unclosed\n")
    done = _simulate("--business", "demo", "--tool", "search_products", MANIFEST_DIR=str(tmp_path))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith(f"simulate: invalid manifest: {tmp_path / 'demo.yaml'}:<root>: [yaml-syntax] ")
    assert line.endswith(f"make manifest-lint MANIFEST={tmp_path / 'demo.yaml'}")


def test_check_stock_asks_the_stand_in_inventory_when_none_is_configured() -> None:
    done = _simulate(
        "--business", "demo", "--tool", "check_stock", "--args", '{"product_id": "p-1001"}', "--format", "json",
        DEMO_INVENTORY_URL="",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["verdict"] == "valid"
    [stock] = report["tool_result"]["structuredContent"]["entities"]
    assert stock["product_id"] == "p-1001" and stock["quantity"] > 0
