"""Manifest-checked results through the real Lambda handler: every violation type becomes a 50010 error result
and a mcp_tool_call_failed log line; valid results and outputSchema reach the client."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.handlers import build_handler

from mcp_lambda.apps import UI_EXTENSION, VIEW_MIME_TYPE
from mcp_lambda.settings import Settings
from mcp_lambda.testing import MODERN, McpTestClient
from mcp_lambda.tools import Business, ResultCode, ToolResult, business_error, entities, tool
from mcp_lambda.tools import execution_result as action_result

MANIFESTS = Path(__file__).resolve().parents[1] / "fixtures" / "manifests" / "handler"
GOOD_ROUTE = {"route_id": "r1", "entity_type": "route", "minutes": 42, "legs": [{"mode": "walk", "km": 0.5}],
              "card_only": {"x": 1}}  # fmt: skip
# case name -> (what the tool returns, the violation message the client must see)
BAD: dict[str, tuple[Any, str]] = {
    "not_an_object": ("just text", "return_route: structuredContent must be an object, got string"),
    "no_entities": ({"route": GOOD_ROUTE}, "return_route: structuredContent.entities must be an array"),
    "entity_type_missing": (
        {"entities": [{k: v for k, v in GOOD_ROUTE.items() if k != "entity_type"}]},
        "return_route: entities[0].entity_type: missing",
    ),
    "entity_type_undeclared": (
        {"entities": [{**GOOD_ROUTE, "entity_type": "flight"}]},
        "return_route: entities[0].entity_type: 'flight' is not an entity type declared in the manifest",
    ),
    "entity_type_not_allowed": (
        {"entities": [{"entity_type": "hotel", "hotel_id": "h1"}]},
        "return_route: entities[0].entity_type: 'hotel' is not in output.entity_types of this tool",
    ),
    "id_missing": (
        {"entities": [GOOD_ROUTE, {k: v for k, v in GOOD_ROUTE.items() if k != "route_id"}]},
        "return_route: entities[1].route_id: missing (the is_entity_id field)",
    ),
    "wrong_scalar": (
        {"entities": [{**GOOD_ROUTE, "minutes": 42.0}]},
        "entities[0].minutes: expected int, got float",
    ),
    "bool_is_not_int": (
        {"entities": [{**GOOD_ROUTE, "minutes": True}]},
        "entities[0].minutes: expected int, got boolean",
    ),
    "wrong_nested": (
        {"entities": [{**GOOD_ROUTE, "legs": [{"mode": "walk", "km": 1}]}]},
        "return_route: entities[0].legs[0].km: expected float, got int",
    ),
}


@tool(description="Use in tests: returns the structuredContent named by `case`. Not for production.")
def return_route(case: str) -> ToolResult:
    if case == "good":
        return entities([GOOD_ROUTE], text="one route")
    if case == "business_error":
        return business_error(40001, "missing destination")
    if case == "bad_error":
        return ToolResult(content=[], structured_content={"code": "40001", "message": "x"}, is_error=True)
    return ToolResult(content=[{"type": "text", "text": "x"}], structured_content=BAD[case][0])


@tool(description="Use in tests: an action result, or one that wrongly carries entities. Not for production.")
def return_action(with_entities: bool = False) -> ToolResult:
    if with_entities:
        return ToolResult(content=[], structured_content={"success": True, "entities": [GOOD_ROUTE]})
    return action_result({"success": True, "message": "done"}, text="done")


class Lines(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture(scope="module")
def client() -> McpTestClient:
    business = Business(name="manifest_probe", tools=[return_route, return_action])
    handler = build_handler(
        business, Settings.from_env({"BUSINESS": "manifest_probe", "MANIFEST_DIR": str(MANIFESTS)})
    )
    return McpTestClient.over_handler(handler, era=MODERN, capabilities={})


@pytest.fixture
def logs() -> Iterator[Lines]:
    lines = Lines()
    logger = logging.getLogger("manifest_probe")
    logger.addHandler(lines)
    yield lines
    logger.removeHandler(lines)


def call(client: McpTestClient, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    reply = client.rpc("tools/call", {"name": name, "arguments": arguments or {}})
    assert reply.status == 200, reply.raw
    result: dict[str, Any] = reply.body["result"]
    return result


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_violation_reaches_the_client_only_as_an_error_result(
    client: McpTestClient, logs: Lines, case: str
) -> None:
    result = call(client, "return_route", {"case": case})
    assert result["isError"] is True
    assert result["structuredContent"]["code"] == ResultCode.RESULT_VIOLATES_MANIFEST
    assert BAD[case][1] in result["structuredContent"]["message"]
    assert "entities" not in result["structuredContent"]
    failed = [r for r in logs.records if getattr(r, "event", None) == "mcp_tool_call_failed"]
    assert len(failed) == 1 and failed[0].code == ResultCode.RESULT_VIOLATES_MANIFEST  # type: ignore[attr-defined]


def test_an_error_result_with_a_non_numeric_code_is_a_violation(client: McpTestClient) -> None:
    result = call(client, "return_route", {"case": "bad_error"})
    assert result["structuredContent"]["code"] == ResultCode.RESULT_VIOLATES_MANIFEST
    assert "structuredContent.code must be an int, got string" in result["structuredContent"]["message"]


def test_an_execution_result_carrying_entities_is_a_violation(client: McpTestClient) -> None:
    result = call(client, "return_action", {"with_entities": True})
    assert result["structuredContent"]["code"] == ResultCode.RESULT_VIOLATES_MANIFEST


def test_valid_results_pass_untouched(client: McpTestClient, logs: Lines) -> None:
    # A client that renders cards receives the whole result (others do not get its hidden values: docs/manifest.md).
    cards = client.clone(capabilities={"extensions": {UI_EXTENSION: {"mimeTypes": [VIEW_MIME_TYPE]}}})
    result = call(cards, "return_route", {"case": "good"})
    assert result["structuredContent"] == {"entities": [GOOD_ROUTE]} and "isError" not in result
    assert call(client, "return_route", {"case": "business_error"})["structuredContent"]["code"] == 40001
    assert call(client, "return_action", {})["structuredContent"] == {"success": True, "message": "done"}
    assert not [r for r in logs.records if getattr(r, "event", None) == "mcp_tool_call_failed"]


def test_tools_list_shows_the_manifest_output_schema_for_entities_tools(client: McpTestClient) -> None:
    tools = {t["name"]: t for t in client.rpc("tools/list").body["result"]["tools"]}
    success, error = tools["return_route"]["outputSchema"]["anyOf"]
    assert success["properties"]["entities"]["items"]["required"] == ["entity_type", "route_id"]
    assert error == {"$ref": "#/$defs/tool_error"}
    assert "outputSchema" not in tools["return_action"]


def test_the_check_result_is_plain_json(client: McpTestClient) -> None:
    json.dumps(call(client, "return_route", {"case": "wrong_nested"}))
