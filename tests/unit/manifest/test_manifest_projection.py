"""Projection (model view, cards, modifiable lists) and the derived outputSchema, on the seed's cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from mcp_lambda.manifest import BoundManifest, Manifest, load_manifest
from mcp_lambda.tools import business_error, entities, execution_result
from mcp_lambda.tools.error_schema import TOOL_ERROR_SCHEMA
from mcp_lambda_dev.projection import card_candidates, model_view, modifiable_lists

SEED = Path(__file__).resolve().parents[2] / "fixtures" / "manifests" / "valid" / "seed_cases.yaml"
ROUTE = {
    "entity_id": "route_1",
    "entity_type": "route",
    "title": "公司到机场",
    "duration_minutes": 42,
    "price_yuan": 128,
    "summary": "预计 42 分钟到达",
    "deeplink": "page/route?id=route_1",
}
PRODUCTS = {"entity_id": "product_list_1", "entity_type": "product_list", "title": "推荐 2 个保温杯",
            "summary": "按性价比排序", "products": [
                {"product_id": "p1", "name": "轻量保温杯", "selling_point": "适合通勤", "price_yuan": 99,
                 "detail_url": "u1", "image": "i1"},
                {"product_id": "p2", "name": "大容量保温杯", "selling_point": "适合出差", "price_yuan": 129},
            ]}  # fmt: skip


@pytest.fixture(scope="module")
def manifest() -> Manifest:
    return load_manifest(SEED)


def test_case_1_model_sees_declared_visible_fields_and_one_card(manifest: Manifest) -> None:
    result = entities([ROUTE], text="找到 1 条可用路线。")
    view = model_view(manifest, "search_routes", result)
    visible = {"entity_id": "route_1", "title": "公司到机场", "duration_minutes": 42, "price_yuan": 128,
               "summary": "预计 42 分钟到达"}  # fmt: skip
    projection = json.dumps({"entities": [visible]}, ensure_ascii=False, separators=(",", ":"))
    assert view == {"text": f"找到 1 条可用路线。\n{projection}", "entities": [visible]}
    assert card_candidates(manifest, "search_routes", result) == [{
        "entity_index": 0, "entity_type": "route", "entity_id": "route_1", "widget_id": "route_result_card",
        "refresh_key": "route_1",
        "history_card_refresh": {"enabled": True, "scope": "same_conversation", "refresh_to": "fixed_style"},
    }]  # fmt: skip


def test_case_2_same_entity_from_another_tool_gives_no_card(manifest: Manifest) -> None:
    result = entities([ROUTE])
    assert card_candidates(manifest, "search_routes_for_reference", result) == []
    assert model_view(manifest, "search_routes_for_reference", result)["entities"][0]["title"] == "公司到机场"


def test_case_3_list_items_are_selectable_as_the_model_sees_them(manifest: Manifest) -> None:
    result = entities([PRODUCTS]).to_wire()
    [listed] = modifiable_lists(manifest, "search_products", result)
    assert listed["field"] == "products" and listed["entity_id"] == "product_list_1"
    assert listed["items"][0] == {
        "index": 0,
        "item": {"product_id": "p1", "name": "轻量保温杯", "selling_point": "适合通勤", "price_yuan": 99},
    }
    assert [card["widget_id"] for card in card_candidates(manifest, "search_products", result)] == [
        "product_list_widget"
    ]
    assert card_candidates(manifest, "search_products", result)[0]["refresh_key"] is None


def test_case_4_and_errors_never_make_cards(manifest: Manifest) -> None:
    done = execution_result({"success": True, "message": "订阅成功"}, text="订阅成功。")
    assert model_view(manifest, "subscribe_product", done) == {
        "text": "订阅成功。", "result": {"success": True, "message": "订阅成功"}}  # fmt: skip
    failed = business_error(40001, "缺少目的地")
    assert model_view(manifest, "search_routes", failed)["error"] == {
        "code": 40001,
        "message": "缺少目的地",
        "retryable": False,
        "suggested_action": "fix_arguments",
        "retry_after_ms": 0,
    }
    for tool, result in (("subscribe_product", done), ("search_routes", failed)):
        assert card_candidates(manifest, tool, result) == []
        assert modifiable_lists(manifest, tool, result) == []


def test_output_schema_only_for_entities_tools(manifest: Manifest) -> None:
    bound = BoundManifest.from_manifest(manifest)
    assert bound.output_schema("subscribe_product") is None
    published = bound.output_schema("search_products")
    assert published is not None and published["type"] == "object"
    schema, error = published["anyOf"]  # the success shape, or the error object
    assert error == {"$ref": "#/$defs/tool_error"} and published["$defs"]["tool_error"] == TOOL_ERROR_SCHEMA
    assert schema["type"] == "object" and schema["required"] == ["entities"]
    entity = schema["properties"]["entities"]["items"]
    assert entity["required"] == ["entity_type", "entity_id"]
    assert entity["properties"]["entity_type"] == {"type": "string", "const": "product_list"}
    assert entity["properties"]["products"]["items"]["properties"]["price_yuan"] == {"type": "integer"}
    assert "additionalProperties" not in entity  # undeclared, card-only fields are allowed


def test_output_schema_accepts_what_the_check_accepts(manifest: Manifest) -> None:
    jsonschema = pytest.importorskip(
        "jsonschema", reason="jsonschema comes with the dev dependencies: make venv"
    )
    bound = BoundManifest.from_manifest(manifest)
    jsonschema.validate(entities([PRODUCTS]).structured_content, bound.output_schema("search_products"))
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(entities([ROUTE]).structured_content, bound.output_schema("search_products"))
