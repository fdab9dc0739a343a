"""The run-time check: one test per violation type, against the seed-cases manifest."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcp_lambda.manifest import BoundManifest, load_manifest
from mcp_lambda.manifest.check import MAX_VIOLATIONS
from mcp_lambda.tools import ToolResult, business_error, entities, execution_result

SEED = Path(__file__).resolve().parents[2] / "fixtures" / "manifests" / "valid" / "seed_cases.yaml"


@pytest.fixture(scope="module")
def bound() -> BoundManifest:
    return BoundManifest.from_manifest(load_manifest(SEED))


def route(**overrides: Any) -> dict[str, Any]:
    base = {
        "entity_id": "route_1",
        "entity_type": "route",
        "title": "Office to airport",
        "duration_minutes": 42,
        "price_yuan": 128,
        "summary": "42 min",
        "deeplink": "page/route?id=route_1",
        "map": {"zoom": 3},
    }
    return {**base, **overrides}


def product_list(*products: Any) -> dict[str, Any]:
    return {
        "entity_id": "pl_1",
        "entity_type": "product_list",
        "title": "Cups",
        "summary": "by price",
        "products": list(products),
    }


def item(**overrides: Any) -> dict[str, Any]:
    return {"product_id": "p1", "name": "Cup", "selling_point": "light", "price_yuan": 99, **overrides}


def test_a_valid_entities_result_passes_with_undeclared_fields_untouched(bound: BoundManifest) -> None:
    assert bound.check("search_routes", entities([route(extra={"anything": [1, "x"]})])) == []
    assert (
        bound.check("search_products", entities([product_list(item(), item(image="u", price_yuan=1))])) == []
    )
    assert bound.check("search_products", entities([])) == []


def test_valid_execution_results_and_business_errors_pass(bound: BoundManifest) -> None:
    assert bound.check("subscribe_product", execution_result({"success": True, "message": "ok"})) == []
    assert bound.check("search_routes", business_error(40001, "missing destination")) == []


def test_structured_content_must_be_an_object(bound: BoundManifest) -> None:
    result = ToolResult(content=[{"type": "text", "text": "hi"}], structured_content=[1, 2])
    assert bound.check("search_routes", result) == [
        "search_routes: structuredContent must be an object, got array"
    ]
    assert "got null" in bound.check("subscribe_product", ToolResult(content=[]))[0]


def test_entities_kind_needs_an_entities_array(bound: BoundManifest) -> None:
    [message] = bound.check("search_routes", execution_result({"success": True}))
    assert (
        message
        == "search_routes: structuredContent.entities must be an array (output.kind entities), got nothing"
    )


def test_an_execution_result_must_not_carry_entities(bound: BoundManifest) -> None:
    [message] = bound.check("subscribe_product", entities([route()]))
    assert "an execution_result must not return entities" in message


def test_an_entity_must_be_an_object(bound: BoundManifest) -> None:
    result = ToolResult(content=[], structured_content={"entities": ["route_1"]})
    assert bound.check("search_routes", result) == [
        "search_routes: entities[0]: an entity must be an object, got string"
    ]


def test_entity_type_missing(bound: BoundManifest) -> None:
    entity = route()
    del entity["entity_type"]
    assert bound.check("search_routes", entities([route(), entity])) == [
        "search_routes: entities[1].entity_type: missing"
    ]


def test_entity_type_not_declared(bound: BoundManifest) -> None:
    [message] = bound.check("search_routes", entities([route(entity_type="hotel")]))
    assert (
        message
        == "search_routes: entities[0].entity_type: 'hotel' is not an entity type declared in the manifest"
    )


def test_entity_type_not_allowed_for_this_tool(bound: BoundManifest) -> None:
    [message] = bound.check("search_routes", entities([product_list()]))
    assert (
        message
        == "search_routes: entities[0].entity_type: 'product_list' is not in output.entity_types of this tool"
    )


def test_id_field_missing_or_empty(bound: BoundManifest) -> None:
    entity = route()
    del entity["entity_id"]
    messages = bound.check("search_routes", entities([entity]))
    assert "search_routes: entities[0].entity_id: missing (the is_entity_id field)" in messages
    assert bound.check("search_routes", entities([route(entity_id="")])) == [
        "search_routes: entities[0].entity_id: the entity id is empty"
    ]


@pytest.mark.parametrize(
    ("value", "got"),
    [
        ("42", "string"),
        (42.0, "float"),
        (True, "boolean"),
        (None, "null"),
        ([42], "array"),
        ({"m": 42}, "object"),
    ],
)
def test_int_is_not_float_is_not_bool(bound: BoundManifest, value: Any, got: str) -> None:
    [message] = bound.check("search_routes", entities([route(duration_minutes=value)]))
    assert message == f"search_routes: entities[0].duration_minutes: expected int, got {got}"


def test_nested_item_fields_are_checked_with_their_path(bound: BoundManifest) -> None:
    result = entities([product_list(item(), item(price_yuan=99.5), item(name=7))])
    assert bound.check("search_products", result) == [
        "search_products: entities[0].products[1].price_yuan: expected int, got float",
        "search_products: entities[0].products[2].name: expected string, got int",
    ]


def test_an_array_field_must_be_an_array_and_items_objects(bound: BoundManifest) -> None:
    bad_list = product_list()
    bad_list["products"] = {"p1": item()}
    assert bound.check("search_products", entities([bad_list])) == [
        "search_products: entities[0].products: expected array, got object"
    ]
    assert bound.check("search_products", entities([product_list("p1")])) == [
        "search_products: entities[0].products[0]: expected object, got string"
    ]


def test_an_error_result_needs_a_numeric_code_and_a_message(bound: BoundManifest) -> None:
    result = ToolResult(content=[], structured_content={"code": "E1"}, is_error=True)
    assert bound.check("search_routes", result) == [
        "search_routes: error result: structuredContent.code must be an int, got string",
        "search_routes: error result: structuredContent.message must be a string, got null",
    ]


def test_a_text_block_needs_text(bound: BoundManifest) -> None:
    result = ToolResult(content=[{"type": "text"}], structured_content={"success": True})
    assert bound.check("subscribe_product", result) == [
        "subscribe_product: content[0].text: a text block needs a string text"
    ]


def test_a_tool_missing_from_the_manifest_is_a_violation(bound: BoundManifest) -> None:
    assert bound.check("nope", execution_result({})) == ["nope: the tool has no entry in the manifest"]


def test_violations_are_capped_and_never_echo_values(bound: BoundManifest) -> None:
    items = [item(price_yuan=f"secret-{n}") for n in range(50)]
    messages = bound.check("search_products", entities([product_list(*items)]))
    assert len(messages) == MAX_VIOLATIONS + 1
    assert messages[-1] == "search_products: ... and 30 more violations"
    assert not any("secret" in message for message in messages)
