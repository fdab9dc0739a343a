"""The simulator page's verdict panel (static/views.js), drawn by node over a minimal DOM from real reports: an
error result reads as what it is, never as VALID (issue #21, item 6). Skipped where node is not installed."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tests.support.lambda_client import LambdaClient, ModernClient, build_handler

from mcp_lambda.manifest import bind_manifest
from mcp_lambda.settings import Settings
from mcp_lambda_dev.simulator.logs import LogCapture
from mcp_lambda_dev.simulator.report import Simulation

ROOT = Path(__file__).resolve().parents[2]
VIEWS = ROOT / "dev" / "mcp_lambda_dev" / "simulator" / "static" / "views.js"
NODE = shutil.which("node")
# Just enough DOM for dom.js: elements with attributes and children, and their text.
DRAW = """
class Node {
  constructor(tag) { this.tag = tag; this.children = []; this.attributes = {}; this.className = ""; }
  append(child) { this.children.push(child); }
  setAttribute(name, value) { this.attributes[name] = value; }
  addEventListener() {}
  set textContent(value) { this.children = [String(value)]; }
  get text() { return this.children.map((c) => (typeof c === "string" ? c : c.text)).join(""); }
}
globalThis.Node = Node;
globalThis.document = { createElement: (tag) => new Node(tag) };
const { verdictView } = await import(process.argv[1]);
const report = JSON.parse(process.argv[2]);
const drawn = [verdictView(report)].flat(Infinity).filter(Boolean);
console.log(JSON.stringify(drawn.map((n) => ({ class: n.className, outcome: n.attributes["data-outcome"] ?? null, text: n.text }))));
"""


def draw(report: dict[str, Any]) -> list[dict[str, Any]]:
    assert NODE is not None
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", DRAW, VIEWS.as_uri(), json.dumps(report)],
        capture_output=True, text=True, check=True, timeout=30,
    )  # fmt: skip
    return json.loads(done.stdout)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def reports() -> dict[str, dict[str, Any]]:
    """The page's reports of three real demo calls: a result, a business error, refused arguments."""
    from businesses.demo import BUSINESS

    manifest = ROOT / "manifest" / "demo.yaml"
    simulation = Simulation(BUSINESS, manifest, bind_manifest(BUSINESS, manifest))
    client = ModernClient(LambdaClient(build_handler(BUSINESS, Settings(business="demo"))))
    capture = LogCapture.attach(BUSINESS.name)
    calls = {
        "result": ("search_products", {"keyword": "lamp"}),
        "business error": ("subscribe_product", {"product_id": "p-9999", "alert": "restock"}),
        "refused arguments": ("subscribe_product", {"product_id": 5}),
    }
    try:
        found = {}
        for name, (tool, arguments) in calls.items():
            reply = client.call_tool(tool, arguments).body
            found[name] = simulation.report(tool, reply["result"], capture.lines_of([reply["id"]]))
        return found
    finally:
        capture.detach(BUSINESS.name)


pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")


def test_a_result_that_honours_the_manifest_is_valid(reports: dict[str, dict[str, Any]]) -> None:
    drawn = draw(reports["result"])
    assert [n["outcome"] for n in drawn if n["outcome"]] == ["valid"]
    assert "VALID" in drawn[0]["text"]


@pytest.mark.parametrize(
    ("call", "outcome", "headline", "code"),
    [
        ("business error", "error_result", "ERROR RESULT", "40401"),
        ("refused arguments", "not_run", "NOT RUN", "40000"),
    ],
)
def test_an_error_result_is_shown_as_what_it_is_never_valid(
    reports: dict[str, dict[str, Any]], call: str, outcome: str, headline: str, code: str
) -> None:
    drawn = draw(reports[call])
    text = " ".join(n["text"] for n in drawn)

    assert [n["outcome"] for n in drawn if n["outcome"]] == [outcome]
    assert headline in drawn[0]["text"] and "VALID" not in text.replace("INVALID", "")
    assert f"code{code}" in text and f"family{code[:3]}xx" in text and "suggested_action" in text
    assert "Manifest check: the error object honours the manifest." in text
