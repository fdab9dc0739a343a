"""What a business author gets from @tool: input schemas from the signature, typed annotations, checked
safe_fields — seen through tools/list and tools/call on the Lambda handler where possible."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Any, Literal

import pytest
from pydantic import Field
from tests.support.handlers import build_handler

from mcp_lambda.testing import MODERN, McpTestClient
from mcp_lambda.tools import Business, ToolAnnotations, ToolContext, ToolResult, execution_result, tool
from mcp_lambda.tools.errors import ToolSignatureError

HAND_WRITTEN = {
    "type": "object",
    "properties": {"limit": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None}},
    "additionalProperties": False,
}


@tool(
    description="Use to list orders. Not for one order.",
    annotations=ToolAnnotations(read_only=True),
    safe_fields=("limit", "status"),
)
def list_orders(
    ctx: ToolContext,
    limit: int | None = None,
    page: Annotated[int | None, Field(ge=1, description="Page number, from 1.")] = None,
    status: Literal["open", "closed"] | None = None,
    since: Annotated[date | None, Field(description="Only orders placed on or after this day.")] = None,
    sort: Annotated[str, Field(description="Sort key.")] = "newest",
) -> ToolResult:
    return execution_result(
        {"limit": limit, "page": page, "status": status, "since": str(since), "sort": sort}
    )


@tool(
    description="Use to tag an order. Not for anything else.",
    annotations=ToolAnnotations(destructive=False, idempotent=True),
)
def tag_order(note: str | None, priority: int | None = 3) -> ToolResult:
    return execution_result({"note": note, "priority": priority})


@tool(description="Use to test a hand-written schema.", input_schema=HAND_WRITTEN)
def hand_written(arguments: dict[str, Any]) -> ToolResult:
    return execution_result({"seen": arguments})


BUSINESS = Business(name="schemas", tools=[list_orders, tag_order, hand_written])


@pytest.fixture
def modern() -> McpTestClient:
    return McpTestClient.over_handler(build_handler(BUSINESS), era=MODERN, capabilities={})


def _listed(modern: McpTestClient) -> dict[str, dict[str, Any]]:
    reply = modern.rpc("tools/list")
    assert reply.status == 200, reply.raw
    return {entry["name"]: entry for entry in reply.result["tools"]}


def test_optional_int_with_none_default_is_listed_as_a_plain_integer(modern: McpTestClient) -> None:
    assert _listed(modern)["list_orders"]["inputSchema"]["properties"]["limit"] == {"type": "integer"}


def test_optional_arguments_keep_their_constraints_and_descriptions_but_no_null(
    modern: McpTestClient,
) -> None:
    properties = _listed(modern)["list_orders"]["inputSchema"]["properties"]
    assert properties["page"] == {"type": "integer", "minimum": 1, "description": "Page number, from 1."}
    assert properties["status"] == {"type": "string", "enum": ["open", "closed"]}
    assert properties["since"] == {
        "type": "string",
        "format": "date",
        "description": "Only orders placed on or after this day.",
    }
    assert "null" not in str(properties) and "None" not in str(properties)


def test_non_none_defaults_still_appear(modern: McpTestClient) -> None:
    properties = _listed(modern)["list_orders"]["inputSchema"]["properties"]
    assert properties["sort"] == {"type": "string", "default": "newest", "description": "Sort key."}


def test_optional_arguments_are_not_required(modern: McpTestClient) -> None:
    assert "required" not in _listed(modern)["list_orders"]["inputSchema"]


def test_null_stays_where_it_means_something(modern: McpTestClient) -> None:
    # Required but nullable, and nullable with another default: null is then a value of its own.
    schema = _listed(modern)["tag_order"]["inputSchema"]
    assert schema["properties"]["note"] == {"anyOf": [{"type": "string"}, {"type": "null"}]}
    assert schema["properties"]["priority"] == {
        "anyOf": [{"type": "integer"}, {"type": "null"}],
        "default": 3,
    }
    assert schema["required"] == ["note"]


def test_hand_written_schema_is_served_verbatim(modern: McpTestClient) -> None:
    assert _listed(modern)["hand_written"]["inputSchema"] == HAND_WRITTEN


def test_leaving_an_optional_argument_out_gives_none(modern: McpTestClient) -> None:
    reply = modern.rpc("tools/call", {"name": "list_orders", "arguments": {}})
    assert reply.result["structuredContent"] == {
        "limit": None,
        "page": None,
        "status": None,
        "since": "None",
        "sort": "newest",
    }


def test_optional_argument_constraints_are_still_enforced(modern: McpTestClient) -> None:
    reply = modern.rpc("tools/call", {"name": "list_orders", "arguments": {"page": 0}})
    assert reply.result["isError"] is True


# --- annotations ---------------------------------------------------------------------------------------------


def test_typed_annotation_keywords_become_wire_hints(modern: McpTestClient) -> None:
    listed = _listed(modern)
    assert listed["list_orders"]["annotations"] == {"readOnlyHint": True}
    assert listed["tag_order"]["annotations"] == {"destructiveHint": False, "idempotentHint": True}
    assert "annotations" not in listed["hand_written"]


def test_annotations_are_served_to_handshake_clients_too() -> None:
    session = McpTestClient.over_handler(build_handler(BUSINESS), era="2025-06-18")
    session.initialize()
    tools = {entry["name"]: entry for entry in session.rpc("tools/list").result["tools"]}
    assert tools["list_orders"]["annotations"] == {"readOnlyHint": True}


def test_all_four_hints_are_listed_in_the_spec_order() -> None:
    @tool(
        description="Use to test.",
        annotations=ToolAnnotations(open_world=False, idempotent=True, destructive=False, read_only=False),
    )
    def every_hint() -> ToolResult:
        return execution_result({})

    assert list(every_hint.to_wire()["annotations"].items()) == [
        ("readOnlyHint", False),
        ("destructiveHint", False),
        ("idempotentHint", True),
        ("openWorldHint", False),
    ]


def test_spec_accessors_answer_with_the_mcp_defaults_when_a_hint_is_left_out() -> None:
    assert (tag_order.read_only, tag_order.destructive, tag_order.idempotent, tag_order.open_world) == (
        False,
        False,
        True,
        True,
    )
    assert (hand_written.read_only, hand_written.destructive, hand_written.idempotent) == (False, True, False)
    assert list_orders.read_only is True and list_orders.destructive is False


def test_an_annotations_title_is_served_inside_annotations_not_as_the_tool_title() -> None:
    @tool(description="Use to test.", annotations=ToolAnnotations(title="For older clients", read_only=True))
    def titled_inside() -> ToolResult:
        return execution_result({})

    wire = titled_inside.to_wire()
    assert wire["annotations"] == {"title": "For older clients", "readOnlyHint": True}
    assert "title" not in wire
    assert titled_inside.read_only is True


def test_title_keyword_is_the_top_level_tool_title() -> None:
    @tool(description="Use to test.", title="Nice name", annotations=ToolAnnotations(read_only=True))
    def titled() -> ToolResult:
        return execution_result({})

    wire = titled.to_wire()
    assert wire["title"] == "Nice name"
    assert wire["annotations"] == {"readOnlyHint": True}


# --- safe_fields ---------------------------------------------------------------------------------------------


def test_safe_fields_naming_a_missing_argument_fails_at_decoration_time() -> None:
    with pytest.raises(ToolSignatureError, match=r"tool 'find_order'.*safe_fields.*'order_number'"):

        @tool(description="Use to find one order.", safe_fields=("order_id", "order_number"))
        def find_order(order_id: str, ctx: ToolContext) -> ToolResult:
            return execution_result({})


def test_safe_fields_may_not_name_the_context_parameter() -> None:
    with pytest.raises(ToolSignatureError, match=r"'ctx'"):

        @tool(description="Use to test.", safe_fields=("ctx",))
        def logs_context(ctx: ToolContext) -> ToolResult:
            return execution_result({})


def test_safe_fields_given_as_one_string_is_an_error() -> None:
    with pytest.raises(ToolSignatureError, match=r"tuple of names"):

        @tool(description="Use to test.", safe_fields="order_id")  # type: ignore[arg-type]
        def forgot_the_comma(order_id: str) -> ToolResult:
            return execution_result({})


def test_safe_fields_may_name_properties_of_a_hand_written_schema() -> None:
    @tool(description="Use to test.", input_schema=HAND_WRITTEN, safe_fields=("limit",))
    def hand_written_safe(arguments: dict[str, Any]) -> ToolResult:
        return execution_result({})

    assert hand_written_safe.safe_fields == frozenset({"limit"})
