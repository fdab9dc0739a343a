"""tools/call in both eras: unknown tools, argument validation, and a tool that raises."""

from __future__ import annotations

import datetime
import enum
import logging
import re
from collections.abc import Iterator
from typing import Any, Literal

import pytest
from pydantic import BaseModel
from tests.support.business import SECRET_FAILURE_TEXT
from tests.support.handlers import build_handler
from tests.support.wire import check_legacy, check_modern

from mcp_lambda.testing import MODERN, HttpReply, McpTestClient
from mcp_lambda.tools import Business, ToolResult, execution_result, tool


class Caller:
    """One tools/call interface over either era, with the matching wire oracle."""

    def __init__(self, era: str, client: McpTestClient) -> None:
        self.era = era
        if era == "modern":
            self.session: Any = client.clone(era=MODERN, capabilities={})
        else:
            self.session = client.clone(era="2025-11-25")
            self.session.initialize()

    def call(self, name: str, arguments: Any = None) -> HttpReply:
        params: dict[str, Any] = {"name": name}
        if arguments is not None:
            params["arguments"] = arguments
        reply = self.session.rpc("tools/call", params)
        (check_modern if self.era == "modern" else check_legacy)(reply.body, "tools/call")
        return reply

    @property
    def error_status(self) -> int:
        return 400 if self.era == "modern" else 200


@pytest.fixture(params=["legacy", "modern"])
def caller(request: pytest.FixtureRequest, client: McpTestClient) -> Caller:
    return Caller(request.param, client)


class RecordingHandler(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def tool_log() -> Iterator[RecordingHandler]:
    # The Powertools Logger of a business writes through the stdlib logger named after the service.
    handler = RecordingHandler()
    logger = logging.getLogger("testbiz")
    logger.addHandler(handler)
    try:
        yield handler
    finally:
        logger.removeHandler(handler)


def test_successful_call_returns_structured_content_and_text(caller: Caller) -> None:
    result = caller.call("add", {"a": 2, "b": 3}).result
    assert result["structuredContent"] == {"sum": 5}
    assert result["content"][0]["type"] == "text"
    assert "isError" not in result


def test_unknown_tool_gets_32602(caller: Caller) -> None:
    reply = caller.call("no_such_tool", {})
    assert reply.status == caller.error_status
    assert reply.error["code"] == -32602
    assert "no_such_tool" in reply.error["message"]


@pytest.mark.parametrize("params", [{}, {"name": ""}, {"name": 5}, {"name": "add", "arguments": [1, 2]}])
def test_malformed_call_params_get_32602(client: McpTestClient, params: dict[str, Any]) -> None:
    session = client.clone(era="2025-11-25")
    session.initialize()
    reply = session.rpc("tools/call", params)
    assert reply.error["code"] == -32602


def test_bad_arguments_give_an_error_result_naming_each_bad_field(caller: Caller) -> None:
    reply = caller.call("add", {"a": "zzz-not-a-number", "b": 500, "extra": True})
    assert reply.status == 200
    result = reply.result
    assert result["isError"] is True
    message = result["content"][0]["text"]
    for field in ("a", "b", "extra"):
        assert re.search(rf"\b{field}\b", message), f"{field} is not named in {message!r}"
    assert "zzz-not-a-number" not in message
    assert result["structuredContent"]["code"] == 40000


def test_missing_required_argument_is_named(caller: Caller) -> None:
    message = caller.call("add", {"a": 1}).result["content"][0]["text"]
    assert re.search(r"\bb\b", message)


def test_missing_arguments_object_is_treated_as_empty(caller: Caller) -> None:
    result = caller.call("echo").result
    assert result["isError"] is True
    assert "message" in result["content"][0]["text"]


def test_tool_exception_gives_a_generic_error_result_with_an_error_id(
    caller: Caller, tool_log: RecordingHandler
) -> None:
    reply = caller.call("explode", {})
    assert reply.status == 200
    result = reply.result
    assert result["isError"] is True
    text = result["content"][0]["text"]
    match = re.search(r"error id ([0-9a-f]{8,})", text)
    assert match, text
    assert SECRET_FAILURE_TEXT not in reply.raw.decode()
    assert "Traceback" not in reply.raw.decode() and "RuntimeError" not in reply.raw.decode()
    failed = [r for r in tool_log.records if getattr(r, "error_id", None) == match.group(1)]
    assert len(failed) == 1, "the error id must appear in exactly one log record"
    assert failed[0].exc_info is not None, "the stack goes to the log"


def test_tool_exception_does_not_break_the_next_call(caller: Caller) -> None:
    caller.call("explode", {})
    assert caller.call("add", {"a": 1, "b": 1}).result["structuredContent"] == {"sum": 2}


def test_argument_values_are_not_logged_unless_declared_safe(
    caller: Caller, tool_log: RecordingHandler
) -> None:
    caller.call("add", {"a": 41, "b": 1})
    caller.call("echo", {"message": "visible"})
    started = [r for r in tool_log.records if getattr(r, "event", None) == "mcp_tool_call_started"]
    summaries = {r.tool_name: r.arguments for r in started}  # type: ignore[attr-defined]
    assert summaries["add"] == {"a": "int", "b": "int"}
    assert summaries["echo"] == {"message": "visible"}


@pytest.mark.parametrize(
    ("arguments", "field"),
    [
        ({"a": "2", "b": 3}, "a"),
        ({"a": 2, "b": True}, "b"),
        ({"a": 2, "b": [3]}, "b"),
        ({"a": 2.5, "b": 3}, "a"),
    ],
)
def test_arguments_are_validated_strictly_against_the_schema(
    caller: Caller, arguments: dict[str, Any], field: str
) -> None:
    result = caller.call("add", arguments).result
    assert result["isError"] is True and result["structuredContent"]["code"] == 40000
    assert re.search(rf"\b{field}: Input should be a valid integer", result["content"][0]["text"])


class Colour(enum.Enum):
    RED = "red"


class Point(BaseModel):
    x: float
    y: float


@tool(description="Use to test argument types.")
def typed(
    day: datetime.date,
    colour: Colour,
    size: Literal["s", "m"],
    at: Point,
    pair: tuple[int, int],
    ratio: float,
) -> ToolResult:
    assert isinstance(day, datetime.date) and colour is Colour.RED and isinstance(at, Point)
    return execution_result({"day": day.isoformat(), "pair": list(pair), "ratio": ratio, "x": at.x})


def test_json_spellings_of_dates_enums_and_objects_still_validate() -> None:
    session = McpTestClient.over_handler(
        build_handler(Business(name="typed", tools=[typed])), era=MODERN, capabilities={}
    )
    arguments = {
        "day": "2026-08-01",
        "colour": "red",
        "size": "m",
        "at": {"x": 1, "y": 2.5},
        "pair": [1, 2],
        "ratio": 3,
    }
    result = session.rpc("tools/call", {"name": "typed", "arguments": arguments or {}}).result
    assert result["structuredContent"] == {"day": "2026-08-01", "pair": [1, 2], "ratio": 3.0, "x": 1.0}
    refused = session.rpc(
        "tools/call", {"name": "typed", "arguments": {**arguments, "day": "2026-02-30"}}
    ).result
    assert refused["isError"] is True and "day" in refused["content"][0]["text"]
