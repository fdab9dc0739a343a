"""The simulator's report: the projection of `make simulate` (one implementation) for a result the page received,
the model's narrowing of llm_modifiable lists, and the server's verdict read from its own log line."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.handlers import build_handler

from mcp_lambda.manifest import bind_manifest, load_manifest
from mcp_lambda.settings import Settings
from mcp_lambda.testing import MODERN, McpTestClient
from mcp_lambda.tools import Business, ResultCode, ToolResult, entities, tool
from mcp_lambda_dev.projection import card_candidates, model_view, narrowed_entities
from mcp_lambda_dev.simulator.logs import LogCapture
from mcp_lambda_dev.simulator.report import BadRequest, Simulation

ROOT = Path(__file__).resolve().parents[2]
PROBE_MANIFESTS = ROOT / "tests" / "fixtures" / "manifests" / "handler"
DEMO = ROOT / "manifest" / "demo.yaml"


def product_list(count: int) -> dict[str, Any]:
    products = [
        {"product_id": f"p-{1000 + i}", "name": f"cup {i}", "price_yuan": 10 + i, "detail_url": f"u{i}"}
        for i in range(count)
    ]
    return {"list_id": "l1", "entity_type": "product_list", "title": "cups", "products": products}


@pytest.fixture(scope="module")
def demo() -> Simulation:
    from businesses.demo import BUSINESS

    return Simulation(BUSINESS, DEMO, bind_manifest(BUSINESS, DEMO))


def test_narrowing_keeps_exactly_the_chosen_items_in_their_order() -> None:
    manifest = load_manifest(DEMO)
    result = entities([product_list(4)]).to_wire()

    [narrowed] = narrowed_entities(manifest, "search_products", result, {(0, "products"): [3, 1, 1]})

    assert [p["product_id"] for p in narrowed["products"]] == ["p-1001", "p-1003"]
    assert narrowed["products"][0]["detail_url"] == "u1", "the card receives the items whole"
    assert result["structuredContent"]["entities"][0]["products"][1]["product_id"] == "p-1001", "not mutated"
    [whole] = narrowed_entities(manifest, "search_products", result, {})
    assert len(whole["products"]) == 4


@pytest.mark.parametrize(
    ("keep", "message"),
    [
        ({(0, "title"): [0]}, "entities[0].title is not an llm_modifiable list"),
        ({(1, "products"): [0]}, "entities[1].products is not an llm_modifiable list"),
        ({(0, "products"): [4]}, "entities[0].products has no item 4 (it has 4)"),
        ({(0, "products"): [-1]}, "has no item -1"),
    ],
)
def test_narrowing_refuses_what_the_model_may_not_do(keep: dict[Any, list[int]], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\[")):
        narrowed_entities(load_manifest(DEMO), "search_products", entities([product_list(4)]), keep)


def test_the_report_is_the_projection_of_make_simulate(demo: Simulation) -> None:
    result = entities([product_list(3)], text="3 cups").to_wire()

    report = demo.report(
        "search_products", result, selections=[{"entity_index": 0, "field": "products", "keep": [2]}]
    )

    assert report["verdict"] == {"checked": True, "valid": True, "violations": [], "rewritten": False}
    assert report["model_view"] == model_view(demo.bound.manifest, "search_products", result)  # type: ignore[union-attr]
    [card] = report["cards"]
    expected = card_candidates(demo.bound.manifest, "search_products", result)[0]  # type: ignore[union-attr]
    assert {k: v for k, v in card.items() if k != "entity"} == expected
    assert [p["product_id"] for p in card["entity"]["products"]] == ["p-1002"], (
        "the card gets the narrowed list"
    )
    [listed] = report["modifiable_lists"]
    assert listed["kept"] == [2] and listed["narrowed_entity"] == card["entity"]
    [view] = report["entities"]
    assert "entity_type" in view["entity"] and "entity_type" not in view["visible"]
    assert "detail_url" not in view["visible"]["products"][0] and view["visible"]["title"] == "cups"


def test_a_result_the_check_refuses_is_reported_invalid(demo: Simulation) -> None:
    broken = {"content": [], "structuredContent": {"entities": [{"entity_type": "product_list"}]}}

    verdict = demo.report("search_products", broken)["verdict"]

    assert verdict["valid"] is False
    assert "search_products: entities[0].list_id: missing (the is_entity_id field)" in verdict["violations"]


def test_a_hidden_value_in_the_text_is_reported_naming_the_field(demo: Simulation) -> None:
    listed = product_list(1)
    listed["products"][0]["detail_url"] = "page/product?id=p-1000"
    leaked = {
        "content": [{"type": "text", "text": "See page/product?id=p-1000"}],
        "structuredContent": {"entities": [listed]},
    }

    verdict = demo.report("search_products", leaked)["verdict"]

    assert verdict["valid"] is False and verdict["violations"] == [
        "search_products: entities[0].products[0].detail_url: the field is llm_visible: false, but its value is in "
        "the result's text (content), which the model reads"
    ]


def test_a_bad_selection_or_tool_is_a_bad_request(demo: Simulation) -> None:
    result = entities([product_list(2)]).to_wire()
    with pytest.raises(BadRequest, match="not an llm_modifiable list"):
        demo.report("search_products", result, selections=[{"entity_index": 0, "field": "title", "keep": []}])
    with pytest.raises(BadRequest, match="needs entity_index, field and keep"):
        demo.report("search_products", result, selections=[{"field": "products"}])
    with pytest.raises(BadRequest, match="not in the manifest"):
        demo.report("no_such_tool", result)


@tool(description="Use in tests: returns a route without its id, which the manifest requires.")
def return_route() -> ToolResult:
    return entities([{"entity_type": "route", "minutes": 3}])


@tool(description="Use in tests: an action result.")
def return_action() -> ToolResult:
    return ToolResult(content=[], structured_content={"success": True})


@pytest.fixture
def probe() -> Iterator[tuple[McpTestClient, Simulation, LogCapture]]:
    business = Business(name="manifest_probe", tools=[return_route, return_action])
    settings = Settings.from_env({"BUSINESS": "manifest_probe", "MANIFEST_DIR": str(PROBE_MANIFESTS)})
    client = McpTestClient.over_handler(build_handler(business, settings), era=MODERN, capabilities={})
    path = PROBE_MANIFESTS / "manifest_probe.yaml"
    capture = LogCapture.attach(business.name)
    yield client, Simulation(business, path, bind_manifest(business, path)), capture
    capture.detach(business.name)


def test_a_rewritten_result_shows_the_violations_from_the_servers_log_line(
    probe: tuple[McpTestClient, Simulation, LogCapture],
) -> None:
    client, simulation, capture = probe
    reply = client.rpc("tools/call", {"name": "return_route", "arguments": {}}).body
    result = reply["result"]
    assert (
        result["structuredContent"]["code"] == ResultCode.RESULT_VIOLATES_MANIFEST
    )  # what the page receives

    lines = capture.lines_of([reply["id"]])
    verdict = simulation.report("return_route", result, lines)["verdict"]

    assert [line["event"] for line in lines] == ["mcp_tool_call_started", "mcp_tool_call_failed"]
    assert verdict == {
        "checked": True,
        "valid": False,
        "violations": [
            "return_route: entities[0].route_id: missing (the is_entity_id field)",
            "return_route: entities[0].route_id: missing (the is_refresh_key field)",
        ],
        "rewritten": True,
    }
    assert capture.lines_of(["another-id"]) == []


def test_a_business_without_a_manifest_is_reported_unchecked() -> None:
    simulation = Simulation.for_settings(Settings(business="conformance"))
    report = simulation.report("test_simple_text", {"content": [{"type": "text", "text": "hi"}]})
    assert report["verdict"]["checked"] is False and report["model_view"] is None
    assert report["manifest"] is None and report["business"] == "conformance"


# --- an error result is shown as what it is, as `make simulate` says it (issue #21, item 6) --------------------


@pytest.mark.parametrize(
    ("arguments", "code", "outcome", "advice"),
    [
        ({"product_id": "p-9999", "alert": "restock"}, 40401, "error_result", (False, "ask_user")),
        ({"product_id": 5}, 40000, "not_run", (False, "fix_arguments")),
    ],
)
def test_an_error_result_is_not_valid_but_what_make_simulate_calls_it(
    demo: Simulation, arguments: dict[str, Any], code: int, outcome: str, advice: tuple[bool, str]
) -> None:
    from businesses.demo import BUSINESS

    capture = LogCapture.attach(BUSINESS.name)
    client = McpTestClient.over_handler(
        build_handler(BUSINESS, Settings(business="demo")), era=MODERN, capabilities={}
    )
    try:
        reply = client.rpc("tools/call", {"name": "subscribe_product", "arguments": arguments or {}}).body
        report = demo.report("subscribe_product", reply["result"], capture.lines_of([reply["id"]]))
    finally:
        capture.detach(BUSINESS.name)
    simulated = simulate_json("subscribe_product", arguments)

    assert report["outcome"] == simulated["verdict"] == outcome
    assert report["error"]["code"] == code and report["error"]["family"] == f"{code // 100}xx"
    assert (report["error"]["retryable"], report["error"]["suggested_action"]) == advice
    assert report["verdict"]["valid"] is True  # the error object itself honours the manifest


def test_without_log_lines_the_error_code_decides(demo: Simulation) -> None:
    def error(code: int) -> dict[str, Any]:
        text = [{"type": "text", "text": "x"}]
        return {"content": text, "structuredContent": {"code": code, "message": "x"}, "isError": True}

    outcomes = {
        code: demo.report("subscribe_product", error(code))["outcome"] for code in (40401, 40000, 50000)
    }
    assert outcomes == {40401: "error_result", 40000: "not_run", 50000: "failed"}


def simulate_json(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """`make simulate FORMAT=json` for one call, as a person runs it."""
    import json
    import subprocess
    import sys

    done = subprocess.run(
        [sys.executable, "-m", "mcp_lambda_dev.simulate", "--business", "demo", "--tool", tool,
         "--args", json.dumps(arguments), "--format", "json"],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    return json.loads(done.stdout)  # type: ignore[no-any-return]


def test_the_report_sees_a_result_as_the_simulated_caller_does(demo: Simulation) -> None:
    staff = dataclasses.replace(demo, scopes=frozenset({"catalogue:costs"}))
    item = {"product_id": "p-1", "name": "Cup", "supplier_cost_yuan": 59}
    entity = {"list_id": "l-1", "entity_type": "product_list", "products": [item]}
    wire = {"content": [{"type": "text", "text": "One cup."}], "structuredContent": {"entities": [entity]}}

    assert staff.describe()["scopes"] == ["catalogue:costs"]
    assert staff.report("search_products", wire)["model_view"]["entities"][0]["products"] == [item]
    [seen] = demo.report("search_products", wire)["model_view"]["entities"]
    assert "supplier_cost_yuan" not in seen["products"][0]
