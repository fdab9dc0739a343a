"""`business_error(..., details={...})`: what the agent can act on, as data under `structuredContent.details`."""

from __future__ import annotations

import math
from typing import Any

import pytest

from mcp_lambda.testing import McpTestClient
from mcp_lambda.tools import Business, ToolResult, business_error, tool

FREE = {"free_slots": ["09:00", "09:30", "11:00"], "nearest": {"time": "09:00", "minutes_away": 30}}


def test_details_ride_under_structured_content_details() -> None:
    result = business_error(40930, "That slot is taken.", details=FREE)

    assert result.structured_content == {
        "code": 40930,
        "message": "That slot is taken.",
        "retryable": False,
        "suggested_action": "fix_arguments",
        "retry_after_ms": 0,
        "details": FREE,
    }
    assert result.content == [{"type": "text", "text": "That slot is taken."}]
    assert "details" not in business_error(40930, "That slot is taken.").structured_content


@pytest.mark.parametrize(
    ("details", "error", "says"),
    [
        ({"ratio": math.nan}, ValueError, "details.ratio is nan"),
        ({"slots": [{"at": math.inf}]}, ValueError, r"details\.slots\[0\]\.at is inf"),
        ({"slots": {1: "09:00"}}, ValueError, "details.slots has a key of type int"),
        ({"tags": {"a", "b"}}, ValueError, "details.tags is a set"),
        (["09:00"], TypeError, "must be a mapping"),
    ],
)
def test_details_that_are_not_strict_json_are_refused_where_they_are_built(
    details: Any, error: type[Exception], says: str
) -> None:
    with pytest.raises(error, match=says):
        business_error(40930, "That slot is taken.", details=details)


@tool(description="Use to book a slot.")
def book(at: str) -> ToolResult:
    if at == "nan":
        return business_error(40930, "taken", details={"ratio": math.nan})
    return business_error(40930, f"{at} is taken.", details=FREE)


def test_the_kit_types_the_details_and_a_bad_one_is_an_internal_error_not_a_5xx() -> None:
    with McpTestClient(Business(name="slots", tools=[book]), "2026-07-28") as client:
        taken = client.call_tool("book", {"at": "10:00"})
        broken = client.call_tool("book", {"at": "nan"})

    assert (taken.code, taken.details) == (40930, FREE)
    assert broken.code == 50000 and broken.details is None and broken.http_status == 200
