"""Tool schemas compiled at build time (`scripts/tool_schemas_compile.py`, run by `make build`): a package with a
current copy serves the same tools/list and validates calls the same, building each argument validator on the
tool's first call (or before a SnapStart snapshot); a stale copy is ignored. Each case is a fresh process importing
a copy of src/, as the Lambda package is built from it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

SERVE = r"""
import json, os, sys
# One log key and a tool_call_id: the execution id in each answer's _meta is the same in both processes.
os.environ["LOG_FINGERPRINT_KEY"] = "compiled-schemas-log-key"
from mcp_lambda import handler
from mcp_lambda.composition import load_business
from mcp_lambda_dev.local.events import LocalContext, http_event

def post(method, params, name=None):
    meta = {"io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {},
            "tool_call_id": "tc-compiled"}
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream",
               "mcp-protocol-version": "2026-07-28", "mcp-method": method}
    if name:
        headers["mcp-name"] = name
    body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": {**params, "_meta": meta}}
    return handler.handler(http_event("POST", "/mcp", headers, json.dumps(body)), LocalContext())["body"]

def built():
    return sorted(spec.name for spec in load_business("demo").tools if spec.arguments.__pydantic_complete__)

seen = {"at_start": built(), "list": post("tools/list", {}), "after_list": built()}
seen["good"] = post("tools/call", {"name": "search_products", "arguments": {"keyword": "cup", "limit": 3}},
                    "search_products")
seen["bad"] = post("tools/call", {"name": "search_products", "arguments": {"keyword": "cup", "limit": "3"}},
                   "search_products")
seen["after_call"] = built()
if sys.argv[1:] == ["snapshot"]:
    from mcp_lambda import snapshot
    snapshot.before_snapshot(handler._asgi_handler)
    seen["after_snapshot"] = built()
print("RESULT " + json.dumps(seen))
"""
ALL = sorted(
    [
        "check_stock",
        "export_trip_plan",
        "list_subscriptions",
        "refresh_route",
        "search_products",
        "search_routes",
        "search_routes_for_reference",
        "subscribe_product",
    ]
)


def serve(src: Path, *args: str) -> dict[str, object]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": f"{src}:{ROOT / 'dev'}:{ROOT}",
        "BUSINESS": "demo",
        "MANIFEST_DIR": str(ROOT / "manifest"),  # the copy's own default would be beside it (none there)
        "POWERTOOLS_METRICS_DISABLED": "true",
        "POWERTOOLS_TRACE_DISABLED": "true",
    }
    done = subprocess.run(
        [sys.executable, "-c", SERVE, *args], env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr[-3000:]
    [line] = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    result: dict[str, object] = json.loads(line.removeprefix("RESULT "))
    return result


def compiled_copy(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    shutil.copytree(ROOT / "src", src, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "tool_schemas_compile.py"), str(src)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert (src / "businesses" / "demo" / "_tool_schemas.json").is_file()
    return src


@pytest.fixture(scope="module")
def source_tree() -> dict[str, object]:
    return serve(ROOT / "src")


def test_a_compiled_package_answers_byte_for_byte_as_the_source_tree_and_builds_validators_on_first_call(
    tmp_path: Path, source_tree: dict[str, object]
) -> None:
    compiled = serve(compiled_copy(tmp_path))
    assert source_tree["at_start"] == ALL  # no compiled copy in the source tree: built at decoration
    assert compiled["at_start"] == [] and compiled["after_list"] == []
    assert compiled["after_call"] == ["search_products"]
    for key in ("list", "good", "bad"):
        assert compiled[key] == source_tree[key], key
    assert '"isError":true' in str(compiled["bad"]).replace(" ", "")  # strict: "3" is not an integer


def test_a_stale_copy_is_ignored_and_the_schemas_are_built_at_start_up(
    tmp_path: Path, source_tree: dict[str, object]
) -> None:
    src = compiled_copy(tmp_path)
    products = src / "businesses" / "demo" / "products.py"
    products.write_text(
        products.read_text(encoding="utf-8") + "\n# edited after the build\n", encoding="utf-8"
    )
    stale = serve(src)
    assert stale["at_start"] == ALL
    assert stale["list"] == source_tree["list"]


def test_an_unsupported_annotation_still_fails_at_decoration_beside_a_compiled_copy(tmp_path: Path) -> None:
    src = compiled_copy(tmp_path)
    products = src / "businesses" / "demo" / "products.py"
    text = products.read_text(encoding="utf-8")
    text = text.replace("    ctx: ToolContext,\n", "    ctx: ToolContext,\n    odd: Exception = None,\n", 1)
    products.write_text(text, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", "import businesses.demo"],
        env={"PATH": os.environ.get("PATH", ""), "PYTHONPATH": str(src)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "PydanticSchemaGenerationError" in done.stderr, done.stderr[-2000:]


def test_before_the_snapshot_every_deferred_argument_validator_is_built(tmp_path: Path) -> None:
    seen = serve(compiled_copy(tmp_path), "snapshot")
    assert seen["after_call"] == ["search_products"]
    assert seen["after_snapshot"] == ALL
