"""The text the model reads: an `entities` result's sentence and its model-visible projection, and hidden fields
whose value reaches the text (a manifest violation naming the field)."""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from pathlib import Path
from typing import Any

import pytest

from mcp_lambda.calls.executor import ToolExecutor
from mcp_lambda.manifest import BoundManifest, load_manifest
from mcp_lambda.manifest.leaks import leaked_fields
from mcp_lambda.manifest.visibility import model_projection
from mcp_lambda.tools import ToolContext, ToolResult, business_error, entities, execution_result, tool
from mcp_lambda.tools.results import META_EXECUTION_ID, sentence_and_json

SEED = Path(__file__).resolve().parents[2] / "fixtures" / "manifests" / "valid" / "seed_cases.yaml"
ROUTE = {
    "entity_id": "route_1",
    "entity_type": "route",
    "title": "Office to airport",
    "duration_minutes": 42,
    "deeplink": "page/route?id=route_1",
    "map_image": "https://maps.example/r1.png",
}
PRODUCTS = {
    "entity_id": "pl_1",
    "entity_type": "product_list",
    "title": "Cups",
    "products": [
        {
            "product_id": "p-1001",
            "name": "Cup",
            "detail_url": "https://shop.example/p-1001",
            "image": "i.png",
        },
        {"product_id": "p-1002", "name": "Mug", "detail_url": "u"},
    ],
}


@pytest.fixture(scope="module")
def bound() -> BoundManifest:
    return BoundManifest.from_manifest(load_manifest(SEED))


def _text(result: Any) -> str:
    [block] = result.content
    return str(block["text"])


def _compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def test_the_text_is_the_sentence_then_the_model_visible_projection(bound: BoundManifest) -> None:
    result = bound.model_text("search_products", entities([PRODUCTS], text="Found 2 cups."))

    sentence, projection = _text(result).split("\n")
    assert sentence == "Found 2 cups."
    # Hidden (detail_url, entity_type) and undeclared (image) fields are the card's; the ids are the model's.
    assert json.loads(projection) == {
        "entities": [
            {
                "entity_id": "pl_1",
                "title": "Cups",
                "products": [
                    {"product_id": "p-1001", "name": "Cup"},
                    {"product_id": "p-1002", "name": "Mug"},
                ],
            }
        ]
    }
    assert result.structured_content == {"entities": [PRODUCTS]}  # the card still gets everything
    assert bound.check("search_products", result) == []


def test_without_a_sentence_the_text_is_the_projection_alone(bound: BoundManifest) -> None:
    result = bound.model_text("search_routes", entities([ROUTE]))

    assert _text(result) == _compact(model_projection(bound.manifest, "search_routes", {"entities": [ROUTE]}))
    assert "deeplink" not in _text(result) and "map_image" not in _text(result)


def test_a_tool_may_opt_out_when_its_sentence_carries_the_ids(bound: BoundManifest) -> None:
    result = entities([ROUTE], text="Route route_1: 42 minutes.", append_projection=False)

    assert _text(bound.model_text("search_routes", result)) == "Route route_1: 42 minutes."
    assert bound.check("search_routes", result) == []
    with pytest.raises(ValueError, match="needs the text"):
        entities([ROUTE], append_projection=False)


def test_an_execution_result_and_an_error_keep_their_text(bound: BoundManifest) -> None:
    done = execution_result({"success": True, "message": "ok"})
    failed = business_error(40001, "missing destination")

    assert bound.model_text("subscribe_product", done) is done
    assert _text(done) == '{"success":true,"message":"ok"}'
    assert bound.model_text("search_routes", failed) is failed


def test_a_hidden_value_in_the_sentence_is_a_violation_naming_the_field(bound: BoundManifest) -> None:
    result = entities([ROUTE], text="Open page/route?id=route_1 for the map.")

    assert bound.check("search_routes", result) == [
        "search_routes: entities[0].deeplink: the field is llm_visible: false, but its value is in the "
        "result's text (content), which the model reads"
    ]


def test_a_hidden_field_inside_a_list_item_is_named_by_its_path(bound: BoundManifest) -> None:
    result = entities([PRODUCTS], text="See https://shop.example/p-1001", append_projection=False)

    assert leaked_fields(bound.manifest, "search_products", result) == ["entities[0].products[0].detail_url"]
    [violation] = bound.check("search_products", result)
    assert "entities[0].products[0].detail_url" in violation and "https://" not in violation


def test_short_hidden_values_and_values_the_model_sees_anyway_are_not_leaks(bound: BoundManifest) -> None:
    # "u" is too short to tell apart from ordinary words; the title shows the deeplink's value itself.
    shown = {**ROUTE, "title": "Open page/route?id=route_1", "deeplink": "page/route?id=route_1"}
    assert bound.check("search_routes", entities([shown], text="Open page/route?id=route_1")) == []
    assert bound.check("search_products", entities([PRODUCTS], text="u u u", append_projection=False)) == []


def test_the_entity_type_is_no_secret(bound: BoundManifest) -> None:
    # entity_type is declared llm_visible: false in the seed, but its value is the published type name.
    result = entities([PRODUCTS], text="One product_list found.")

    assert bound.check("search_products", result) == []


def test_hidden_list_items_and_nested_lists_are_found(tmp_path: Path) -> None:
    path = tmp_path / "notes.yaml"
    path.write_text(
        "tools:\n  find: {output: {kind: entities, entity_types: [note]}}\n"
        "entities:\n  note:\n    schema:\n"
        "      note_id: {type: string, is_entity_id: true}\n"
        "      codes: {type: array, items: {type: string, llm_visible: false}}\n"
        "      grid:\n        type: array\n        items:\n          type: array\n"
        "          items: {type: object, properties: {secret: {type: string, llm_visible: false}}}\n",
        encoding="utf-8",
    )
    bound = BoundManifest.from_manifest(load_manifest(path))
    note = {
        "note_id": "n1",
        "entity_type": "note",
        "codes": ["ABC-123", "XYZ-789"],
        "grid": [[{"secret": "s3cr3t!"}]],
    }

    leaked = entities([note], text="Codes XYZ-789 and s3cr3t!", append_projection=False)
    assert leaked_fields(bound.manifest, "find", leaked) == [
        "entities[0].codes[1]",
        "entities[0].grid[0][0].secret",
    ]
    assert bound.check("find", entities([note], text="One note.")) == []
    assert "XYZ-789" not in bound.model_text("find", entities([note], text="One note.")).content[0]["text"]


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ({"entities": [{"n": "é\u2028"}]}, '{"entities":[{"n":"é\u2028"}]}'),
        ({"counts": {1: "a", 2.5: "b", False: "c"}}, '{"counts":{"1":"a","2.5":"b","false":"c"}}'),
        ({"by_id": {uuid.UUID(int=1): "u"}}, '{"by_id":{"00000000-0000-0000-0000-000000000001":"u"}}'),
        ({"big": 2**70}, '{"big":1180591620717411303424}'),  # beyond orjson: json's text
    ],
)
def test_the_text_is_compact_json_whatever_the_keys(value: dict[str, Any], text: str) -> None:
    """Keys that are not strings are written as before orjson was asked for them only on need (the strict-JSON
    check, not the text, refuses a result that is not JSON)."""
    assert sentence_and_json("Found.", value) == f"Found.\n{text}"


@pytest.mark.parametrize("sentence", ["One route.", None])
def test_a_tool_in_a_server_that_writes_its_text_leaves_the_whole_result_out(
    bound: BoundManifest, sentence: str | None
) -> None:
    """In an executor with the manifest's view, `entities` writes its sentence alone (the view writes the text the
    model reads); without a view (no manifest) or called directly, the sentence and the whole result. What leaves
    the executor is the same text either way."""
    built: list[str] = []

    @tool(name="search_routes", description="Use to test the text of an entities result.")
    async def search_routes() -> ToolResult:
        result = entities([ROUTE], text=sentence)
        built.append(_text(result))
        return result

    def run(executor: ToolExecutor) -> Any:
        ctx = ToolContext(
            request_id=1, tool_name="search_routes", logger=logging.getLogger("test_model_text")
        )
        return asyncio.run(executor.run(search_routes, {}, ctx))

    served = run(ToolExecutor(result_view=bound.model_text))
    unchecked = run(ToolExecutor())
    whole = sentence_and_json(sentence, {"entities": [ROUTE]})
    assert built == [sentence or "", whole]
    assert _text(entities([ROUTE], text=sentence)) == whole  # a direct call (a test of the tool)
    assert _text(served) == _text(bound.model_text("search_routes", entities([ROUTE], text=sentence)))
    assert _text(unchecked) == whole
    assert META_EXECUTION_ID in served.meta and META_EXECUTION_ID in unchecked.meta
