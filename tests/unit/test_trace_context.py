"""Trace context (SEP-414, W3C Trace Context): a `traceparent` in `params._meta`, or the HTTP `traceparent` header,
continues the caller's trace. Its trace id is on the call's log lines (the per-call lines, written directly, and
the tool's own `ctx.logger` lines) and `ctx.http` sends the downstream a child `traceparent` (same trace id, a new
parent id) with the caller's `tracestate`. An invalid value is ignored: never an error, never logged."""

from __future__ import annotations

import io
import json
import logging
import re
from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.support.fake_tracer import FakeTracer

from mcp_lambda import observability, trace_context
from mcp_lambda.observability import get_logger
from mcp_lambda.testing import ERAS, MODERN, FakeService, McpTestClient, fake_service
from mcp_lambda.tools import Business, TaskConfig, ToolContext, ToolResult, execution_result, tool

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"
TRACEPARENT = f"00-{TRACE_ID}-{PARENT_ID}-01"
TRACESTATE = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7"
W3C = re.compile(r"00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})")
SERVICE = "tracebiz"


@tool(description="Use to read a downstream URL and say so in the log.")
def fetch(url: str, ctx: ToolContext) -> ToolResult:
    ctx.logger.info("tool_fetching", extra={"event": "tool_fetching"})
    answer = ctx.http.get(url)
    return execution_result({"status": answer.status}, text=str(answer.status))


@tool(description="Use to read a downstream URL later, as a task.", task=TaskConfig(mode="required"))
def fetch_later(url: str, ctx: ToolContext) -> ToolResult:
    ctx.logger.info("tool_fetching", extra={"event": "tool_fetching"})
    answer = ctx.http.get(url)
    return execution_result({"status": answer.status}, text=str(answer.status))


BUSINESS = Business(name=SERVICE, tools=[fetch, fetch_later])


@pytest.fixture
def downstream() -> Iterator[FakeService]:
    with fake_service() as running:
        yield running


@pytest.fixture
def written(monkeypatch: pytest.MonkeyPatch) -> Iterator[io.StringIO]:
    """The lines the business's logger writes, through its own handler (pytest's capture handler, added after
    the fixtures, sends them down the ordinary path: `test_the_direct_write_carries_the_trace_id` takes the
    other)."""
    logger = get_logger(SERVICE)
    handler = logger.registered_handler  # type: ignore[attr-defined]
    stream = io.StringIO()
    previous = handler.setStream(stream)
    monkeypatch.setattr(logging.root, "handlers", [])
    std = logging.getLogger(SERVICE)
    level = std.level
    std.setLevel(logging.INFO)
    try:
        yield stream
    finally:
        std.setLevel(level)
        handler.setStream(previous)


def lines_of(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]


def call_with_meta(era: str, url: str, meta: Mapping[str, Any]) -> None:
    with McpTestClient(BUSINESS, era) as client:
        answer, _, status = client.request(
            "tools/call", {"name": "fetch", "arguments": {"url": url}}, meta=meta
        )
    assert status == 200 and not answer["result"].get("isError"), answer


def call_with_header(url: str, headers: Mapping[str, str]) -> None:
    client = McpTestClient(BUSINESS)
    reply = client.rpc("tools/call", {"name": "fetch", "arguments": {"url": url}}, headers=headers)
    assert reply.status == 200, reply


def call_lines(stream: io.StringIO) -> list[dict[str, Any]]:
    events = ("mcp_tool_call_started", "mcp_tool_call_finished", "tool_fetching", "downstream_call")
    lines = [line for line in lines_of(stream) if line.get("event") in events]
    assert {line["event"] for line in lines} == set(events), lines
    return lines


@pytest.mark.parametrize("era", ERAS)
def test_a_meta_traceparent_reaches_the_log_lines_and_the_downstream(
    era: str, downstream: FakeService, written: io.StringIO
) -> None:
    call_with_meta(era, downstream.url, {"traceparent": TRACEPARENT, "tracestate": TRACESTATE})

    for line in call_lines(written):
        assert line["trace_id"] == TRACE_ID, line
        assert TRACEPARENT not in json.dumps(line)  # the trace id alone, not the caller's value
    (seen,) = downstream.seen
    sent = W3C.fullmatch(seen.headers["traceparent"])
    assert sent is not None, seen.headers
    assert sent.group(1) == TRACE_ID
    assert sent.group(2) not in (PARENT_ID, "0" * 16)  # our own span, a child of the caller's
    assert sent.group(3) == "01"  # the caller's sampling decision
    assert seen.headers["tracestate"] == TRACESTATE


def test_a_task_worker_continues_the_trace_of_the_request_that_created_it(
    downstream: FakeService, written: io.StringIO
) -> None:
    with McpTestClient(BUSINESS) as client:
        handle = client.call_tool_as_task(
            "fetch_later",
            {"url": downstream.url},
            meta={"traceparent": TRACEPARENT, "tracestate": TRACESTATE},
        )
        state = handle.wait()
    assert state.status == "completed", state

    worker_lines = [
        line for line in lines_of(written) if line.get("event") in ("tool_fetching", "downstream_call")
    ]
    assert len(worker_lines) == 2, worker_lines
    assert all(line["trace_id"] == TRACE_ID for line in worker_lines), worker_lines
    (seen,) = downstream.seen
    sent = W3C.fullmatch(seen.headers["traceparent"])
    assert sent is not None and sent.group(1) == TRACE_ID and sent.group(2) != PARENT_ID
    assert seen.headers["tracestate"] == TRACESTATE


def test_a_task_created_without_a_trace_runs_without_one(
    downstream: FakeService, written: io.StringIO
) -> None:
    with McpTestClient(BUSINESS) as client:
        assert client.call_tool_as_task("fetch_later", {"url": downstream.url}).wait().status == "completed"
    assert all("trace_id" not in line for line in lines_of(written))
    assert "traceparent" not in downstream.seen[0].headers


def test_each_downstream_call_is_a_span_of_its_own(downstream: FakeService, written: io.StringIO) -> None:
    call_with_meta(MODERN, downstream.url, {"traceparent": TRACEPARENT})
    call_with_meta(MODERN, downstream.url, {"traceparent": TRACEPARENT})

    parents = [seen.headers["traceparent"].split("-")[2] for seen in downstream.seen]
    assert len(set(parents)) == 2
    assert all("tracestate" not in seen.headers for seen in downstream.seen)


def test_the_http_traceparent_header_continues_the_trace(
    downstream: FakeService, written: io.StringIO
) -> None:
    call_with_header(downstream.url, {"traceparent": TRACEPARENT, "tracestate": TRACESTATE})

    assert all(line["trace_id"] == TRACE_ID for line in call_lines(written))
    (seen,) = downstream.seen
    assert seen.headers["traceparent"].split("-")[1] == TRACE_ID
    assert seen.headers["tracestate"] == TRACESTATE


def test_meta_wins_over_the_header(downstream: FakeService, written: io.StringIO) -> None:
    other = f"00-{'a' * 32}-{'b' * 16}-00"
    client = McpTestClient(BUSINESS)
    call = {"name": "fetch", "arguments": {"url": downstream.url}}
    assert client.rpc("tools/call", call, meta={"traceparent": TRACEPARENT}, traceparent=other).status == 200

    assert all(line["trace_id"] == TRACE_ID for line in call_lines(written))
    assert downstream.seen[0].headers["traceparent"].split("-")[1] == TRACE_ID


def test_without_a_traceparent_no_trace_is_invented(downstream: FakeService, written: io.StringIO) -> None:
    call_with_meta(MODERN, downstream.url, {})

    assert all("trace_id" not in line for line in call_lines(written))
    assert "traceparent" not in downstream.seen[0].headers
    assert "tracestate" not in downstream.seen[0].headers


def test_a_tracestate_without_a_traceparent_is_not_forwarded(
    downstream: FakeService, written: io.StringIO
) -> None:
    call_with_meta(MODERN, downstream.url, {"tracestate": TRACESTATE})

    assert "tracestate" not in downstream.seen[0].headers


def test_the_trace_ends_with_the_call(downstream: FakeService, written: io.StringIO) -> None:
    call_with_meta(MODERN, downstream.url, {"traceparent": TRACEPARENT})
    get_logger(SERVICE).info("after_the_call", extra={"event": "after_the_call"})

    (after,) = [line for line in lines_of(written) if line.get("event") == "after_the_call"]
    assert "trace_id" not in after
    assert trace_context.current() is None


INVALID = [
    "",
    "00",
    TRACEPARENT.upper(),  # W3C: lower-case hex only
    f"00-{'0' * 32}-{PARENT_ID}-01",  # all-zero trace id
    f"00-{TRACE_ID}-{'0' * 16}-01",  # all-zero parent id
    f"ff-{TRACE_ID}-{PARENT_ID}-01",  # version ff is forbidden
    f"00-{TRACE_ID}-{PARENT_ID}-01-extra",  # version 00 has exactly four fields
    f"00-{TRACE_ID}-{PARENT_ID}-01\n",
    f" 00-{TRACE_ID}-{PARENT_ID}-01",
    f"00-{TRACE_ID}-{PARENT_ID}-0g",
    f"00_{TRACE_ID}_{PARENT_ID}_01",
    f"01-{TRACE_ID}-{PARENT_ID}-01-" + "x" * 600,  # a future version, too long to be worth reading
    f"00-{TRACE_ID[:-1]}\ud800-{PARENT_ID}-01",  # a lone surrogate
    f"00-{TRACE_ID[:-1]}é-{PARENT_ID}-01",
]


@pytest.mark.parametrize("value", INVALID)
def test_an_invalid_traceparent_is_ignored(value: str, downstream: FakeService, written: io.StringIO) -> None:
    call_with_meta(MODERN, downstream.url, {"traceparent": value, "tracestate": TRACESTATE})

    lines = call_lines(written)
    assert all("trace_id" not in line for line in lines)
    assert "traceparent" not in downstream.seen[0].headers
    assert "tracestate" not in downstream.seen[0].headers
    if len(value) > 8:  # never on a line, nor its (bogus) trace id
        assert all(value not in json.dumps(line) and TRACE_ID not in json.dumps(line) for line in lines)


@pytest.mark.parametrize("value", [7, None, ["00"], {"v": TRACEPARENT}])
def test_a_traceparent_that_is_not_a_string_is_ignored(
    value: Any, downstream: FakeService, written: io.StringIO
) -> None:
    call_with_meta(MODERN, downstream.url, {"traceparent": value})

    assert all("trace_id" not in line for line in call_lines(written))
    assert "traceparent" not in downstream.seen[0].headers


def test_an_invalid_tracestate_is_dropped_and_the_traceparent_kept(
    downstream: FakeService, written: io.StringIO
) -> None:
    call_with_meta(MODERN, downstream.url, {"traceparent": TRACEPARENT, "tracestate": "bad\r\nx-injected: 1"})

    assert downstream.seen[0].headers["traceparent"].split("-")[1] == TRACE_ID
    assert "tracestate" not in downstream.seen[0].headers
    assert "x-injected" not in downstream.seen[0].headers


def test_a_future_version_is_read_by_its_first_four_fields() -> None:
    parsed = trace_context.parse(f"cc-{TRACE_ID}-{PARENT_ID}-01-what-comes-next")

    assert parsed is not None and parsed.trace_id == TRACE_ID and parsed.flags == "01"
    assert W3C.fullmatch(parsed.child().traceparent)


def test_a_valid_traceparent_round_trips() -> None:
    parsed = trace_context.parse(TRACEPARENT, TRACESTATE)

    assert parsed == trace_context.TraceContext(TRACE_ID, PARENT_ID, "01", TRACESTATE)
    child = parsed.child()
    assert child.trace_id == TRACE_ID and child.parent_id != PARENT_ID
    assert child.headers() == {"traceparent": child.traceparent, "tracestate": TRACESTATE}


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=80) | st.from_regex(W3C, fullmatch=True), st.text(max_size=80))
def test_any_string_either_parses_to_a_valid_context_or_is_ignored(traceparent: str, tracestate: str) -> None:
    parsed = trace_context.parse(traceparent, tracestate)

    if parsed is None:
        return
    assert W3C.fullmatch(parsed.child().traceparent)
    assert parsed.trace_id != "0" * 32 and parsed.parent_id != "0" * 16
    for value in parsed.child().headers().values():
        assert value.isascii() and value.isprintable() and len(value) <= 512


@settings(max_examples=100, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(value=st.text(max_size=64) | st.from_regex(W3C, fullmatch=True))
def test_no_traceparent_the_client_sends_fails_the_call(
    value: str, downstream: FakeService, written: io.StringIO
) -> None:
    call_with_meta(MODERN, downstream.url, {"traceparent": value, "tracestate": value})

    sent = downstream.seen[-1].headers.get("traceparent")
    expected = trace_context.parse(value)
    assert (sent is None) == (expected is None)
    if expected is not None:
        assert sent is not None and sent.split("-")[1] == expected.trace_id


@pytest.mark.parametrize("meta", [{"traceparent": TRACEPARENT}, {}])
def test_the_tool_calls_subsegment_is_annotated_with_the_callers_trace_id(
    meta: dict[str, str], downstream: FakeService, monkeypatch: pytest.MonkeyPatch
) -> None:
    tracer = FakeTracer()
    monkeypatch.setattr(observability, "tracing_enabled", lambda env=None: True)
    monkeypatch.setattr(observability.ToolTelemetry, "tracer", property(lambda self: tracer))
    call_with_meta(MODERN, downstream.url, meta)

    ((_, subsegment),) = tracer.subsegments
    assert subsegment.annotations.get("caller_trace_id") == (TRACE_ID if meta else None)
    assert subsegment.annotations["outcome"] == "success"


def test_tracing_off_creates_no_tracer(downstream: FakeService) -> None:
    telemetry = observability.ToolTelemetry(SERVICE, tracing=False)
    with telemetry.tool_call("fetch", TRACE_ID):
        pass
    assert telemetry._tracer is None


def test_the_direct_write_carries_the_trace_id(monkeypatch: pytest.MonkeyPatch) -> None:
    logger = get_logger(f"direct-{TRACE_ID[:6]}")
    stream = io.StringIO()
    logger.registered_handler.setStream(stream)  # type: ignore[attr-defined]
    monkeypatch.setattr(logging.root, "handlers", [])  # as in Lambda: no ancestor handler sees the line
    made: list[str] = []
    original = logging.Logger.makeRecord
    monkeypatch.setattr(logging.Logger, "makeRecord", lambda *a, **k: made.append("r") or original(*a, **k))

    with observability.trace_id_on_lines(logger, TRACE_ID):
        observability.log_event(logger, "info", "mcp_tool_call_started", {"event": "mcp_tool_call_started"})
    observability.log_event(logger, "info", "mcp_tool_call_finished", {"event": "mcp_tool_call_finished"})

    inside, after = lines_of(stream)
    assert made == []  # written directly, without a LogRecord
    assert inside["trace_id"] == TRACE_ID and "trace_id" not in after


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(
    value=st.text(st.characters(min_codepoint=0x20, max_codepoint=0xFF), max_size=64)
    | st.from_regex(W3C, fullmatch=True)
)
def test_no_traceparent_header_fails_the_call(
    value: str, downstream: FakeService, written: io.StringIO
) -> None:
    call_with_header(downstream.url, {"traceparent": value, "tracestate": value})

    sent = downstream.seen[-1].headers.get("traceparent")
    expected = trace_context.parse(value.strip(" \t"))  # HTTP drops the whitespace around a header value
    assert (sent is None) == (expected is None)


def test_the_header_may_have_whitespace_around_it(downstream: FakeService, written: io.StringIO) -> None:
    call_with_header(downstream.url, {"traceparent": f" {TRACEPARENT}\t"})

    assert downstream.seen[0].headers["traceparent"].split("-")[1] == TRACE_ID
