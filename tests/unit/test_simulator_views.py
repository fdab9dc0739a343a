"""The simulator page's scripts run by node over a minimal DOM (issue #21, item 6): the verdict panel
(static/views.js) drawn from real reports reads an error result as what it is, never as VALID; the argument form
(static/forms.js) offers an ordered array as positions, a set as checkboxes. Skipped where node is not installed."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from tests.support.handlers import build_handler

from mcp_lambda.manifest import bind_manifest
from mcp_lambda.settings import Settings
from mcp_lambda.testing import MODERN, McpTestClient
from mcp_lambda_dev.simulator.logs import LogCapture
from mcp_lambda_dev.simulator.report import Simulation

ROOT = Path(__file__).resolve().parents[2]
STATIC = ROOT / "dev" / "mcp_lambda_dev" / "simulator" / "static"
NODE = shutil.which("node")
# Just enough DOM for dom.js: elements with attributes, children, a value, and their text.
FAKE_DOM = """
class Node {
  constructor(tag) { this.tag = tag; this.children = []; this.attributes = {}; this.className = ""; this.value = ""; }
  append(child) { this.children.push(child); }
  setAttribute(name, value) { this.attributes[name] = value; }
  addEventListener() {}
  querySelectorAll() { return []; }
  set textContent(value) { this.children = [String(value)]; }
  get text() { return this.children.map((c) => (typeof c === "string" ? c : c.text)).join(""); }
  all(tag) { return [this, ...this.children.filter((c) => c instanceof Node).flatMap((c) => c.all(tag))].filter((n) => n.tag === tag); }
}
globalThis.Node = Node;
globalThis.document = { createElement: (tag) => new Node(tag) };
const input = JSON.parse(process.argv[2]);
"""
DRAW = """
const { verdictView } = await import(process.argv[1]);
const drawn = [verdictView(input)].flat(Infinity).filter(Boolean);
console.log(JSON.stringify(drawn.map((n) => ({ class: n.className, outcome: n.attributes["data-outcome"] ?? null, text: n.text }))));
"""
# The form of a tool's inputSchema: each field's control, and what it reads after picking `picks` in order.
FILL = """
const { SchemaForm } = await import(process.argv[1]);
const form = new SchemaForm(input.schema, "arguments");
const selects = form.fields.get(input.field).row.all("select");
input.picks.forEach((pick, index) => { selects[index].value = JSON.stringify(pick); });
const control = form.fields.get(input.field).control;
console.log(JSON.stringify({ control: control.tag, checkboxes: control.all("input").length, positions: selects.length, read: form.read().values[input.field] ?? null }));
"""


def run(script: str, module: str, value: Any) -> Any:
    """Run `script` with the static `module` and `value` (as `input`) over the fake DOM; its JSON output."""
    assert NODE is not None
    done = subprocess.run(
        [NODE, "--input-type=module", "-e", FAKE_DOM + script, (STATIC / module).as_uri(), json.dumps(value)],
        capture_output=True, text=True, check=True, timeout=30,
    )  # fmt: skip
    return json.loads(done.stdout)


def draw(report: dict[str, Any]) -> list[dict[str, Any]]:
    return run(DRAW, "views.js", report)  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def reports() -> dict[str, dict[str, Any]]:
    """The page's reports of three real demo calls: a result, a business error, refused arguments."""
    from businesses.demo import BUSINESS

    manifest = ROOT / "manifest" / "demo.yaml"
    simulation = Simulation(BUSINESS, manifest, bind_manifest(BUSINESS, manifest))
    client = McpTestClient.over_handler(
        build_handler(BUSINESS, Settings(business="demo")), era=MODERN, capabilities={}
    )
    capture = LogCapture.attach(BUSINESS.name)
    calls = {
        "result": ("search_products", {"keyword": "lamp"}),
        "business error": ("subscribe_product", {"product_id": "p-9999", "alert": "restock"}),
        "refused arguments": ("subscribe_product", {"product_id": 5}),
    }
    try:
        found = {}
        for name, (tool, arguments) in calls.items():
            reply = client.rpc("tools/call", {"name": tool, "arguments": arguments or {}}).body
            found[name] = simulation.report(tool, reply["result"], capture.lines_of([reply["id"]]))
        return found
    finally:
        capture.detach(BUSINESS.name)


pytestmark = pytest.mark.skipif(
    NODE is None, reason="node is not on PATH: install Node 20+ (make test needs it for DynamoDB Local too)"
)


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


def _schema(tool: str) -> dict[str, Any]:
    from businesses.demo import BUSINESS

    spec = BUSINESS.tool(tool)
    assert spec is not None
    return spec.input_schema


def test_an_ordered_array_of_choices_is_picked_position_by_position() -> None:
    # `stops` is "in visiting order" and not uniqueItems: order matters, a place may come back.
    picks = ["sanlitun", "guomao", "sanlitun"]
    shown = run(FILL, "forms.js", {"schema": _schema("export_trip_plan"), "field": "stops", "picks": picks})

    assert shown["control"] == "ol" and shown["checkboxes"] == 0 and shown["positions"] == 6  # maxItems
    assert shown["read"] == picks


def test_a_set_of_choices_stays_checkboxes() -> None:
    schema = _schema("search_routes_for_reference")  # travel_modes: uniqueItems
    shown = run(FILL, "forms.js", {"schema": schema, "field": "travel_modes", "picks": []})

    assert shown["control"] == "div" and shown["checkboxes"] == 3 and shown["positions"] == 0
