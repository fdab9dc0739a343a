"""Logger, Tracer, Metrics and redaction: the tool-call log lines of doubao-protocol.md §5, EMF metrics, the
subsegment per tool call, a lean cold start, and the platform OpenAPI client's log line."""

from __future__ import annotations

import io
import json
import logging
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from tests.support.business import TEST_BUSINESS
from tests.support.fake_tracer import FakeTracer
from tests.support.handlers import build_handler

from mcp_lambda.observability import (
    RedactingFormatter,
    ToolTelemetry,
    get_logger,
    redact,
    register_secret_value,
    summarize_arguments,
    tracing_enabled,
)
from mcp_lambda.platform_api import PlatformApiClient, PlatformApiError
from mcp_lambda.settings import Settings
from mcp_lambda.testing import McpTestClient

REPO_ROOT = Path(__file__).resolve().parents[2]


@contextmanager
def captured(name: str) -> Iterator[io.StringIO]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(get_logger(name).registered_formatter)
    logging.getLogger(name).addHandler(handler)
    try:
        yield stream
    finally:
        logging.getLogger(name).removeHandler(handler)


def _lines(stream: io.StringIO) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stream.getvalue().splitlines() if line.strip()]


# --- redaction -----------------------------------------------------------------------------------------------


def test_argument_summary_shows_shapes_and_only_safe_values() -> None:
    summary = summarize_arguments(
        {
            "city": "Beijing",
            "phone": "13800138000",
            "limit": 5,
            "tags": ["a", "b"],
            "filters": {"x": 1},
            "note": None,
            "long": "x" * 100,
        },
        safe_fields=("city", "limit", "long"),
    )
    assert summary == {
        "city": "Beijing",
        "phone": "str[11]",
        "limit": 5,
        "tags": "array[2]",
        "filters": "object[1]",
        "note": "null",
        "long": "str[100]",
    }


def test_registered_secret_values_are_masked_in_formatted_lines() -> None:
    register_secret_value('s3cr"et-value')
    register_secret_value("abc")  # too short to mask safely
    record = logging.LogRecord("x", logging.INFO, __file__, 1, 'token s3cr"et-value here', None, None)

    line = RedactingFormatter().format(record)

    assert "s3cr" not in line
    assert "***" in line
    assert redact("abc") == "abc"


# --- tool-call log lines through the handler -----------------------------------------------------------------


def test_tool_call_lines_carry_the_section_5_fields() -> None:
    legacy = McpTestClient.over_handler(
        build_handler(TEST_BUSINESS, Settings(business="testbiz")), era="2025-03-26"
    )
    legacy.initialize()
    with captured(TEST_BUSINESS.name) as stream:
        legacy.rpc(
            "tools/call",
            {"name": "echo", "arguments": {"message": "hi"}, "_meta": {"tool_call_id": "call-9"}},
        )
        legacy.rpc("tools/call", {"name": "add", "arguments": {"a": 500, "b": 1}})
        legacy.rpc("tools/call", {"name": "explode", "arguments": {}})
    lines = _lines(stream)
    events = [(line["event"], line["tool_name"]) for line in lines]

    assert events == [
        ("mcp_tool_call_started", "echo"),
        ("mcp_tool_call_finished", "echo"),
        ("mcp_tool_call_started", "add"),
        ("mcp_tool_call_failed", "add"),
        ("mcp_tool_call_started", "explode"),
        ("mcp_tool_call_failed", "explode"),
    ]
    started, finished = lines[0], lines[1]
    # request_id is the API Gateway request id of the event (one per HTTP request), not the JSON-RPC id.
    assert started["request_id"] == finished["request_id"] != lines[2]["request_id"]
    assert isinstance(started["request_id"], str) and len(started["request_id"]) == 36
    assert isinstance(started["jsonrpc_id"], int)
    assert started["tool_call_id"] == finished["tool_call_id"] == "call-9"
    assert started["arguments"] == {"message": "hi"}
    assert finished["outcome"] == "success" and finished["code"] == 0
    assert isinstance(finished["duration_ms"], float)
    assert lines[3]["outcome"] == "invalid_arguments" and lines[3]["error_type"] == "ValidationError"
    assert lines[5]["outcome"] == "system_error" and lines[5]["error_type"] == "RuntimeError"
    assert all("result" not in line and "structuredContent" not in json.dumps(line) for line in lines)


# --- tracing and metrics ---------------------------------------------------------------------------------------


def test_each_tool_call_gets_a_subsegment_annotated_with_tool_and_outcome(
    capsys: pytest.CaptureFixture[str],
) -> None:
    tracer = FakeTracer()
    telemetry = ToolTelemetry("testbiz", tracing=True, tracer=tracer)

    with telemetry.tool_call("search_routes") as record:
        record.outcome = "business_error"

    assert [name for name, _ in tracer.subsegments] == ["## tool search_routes"]
    assert tracer.subsegments[0][1].annotations == {"tool": "search_routes", "outcome": "business_error"}


def test_powertools_metrics_switches_are_read_once_per_container(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def emitted() -> bool:
        # A container: the switch as its environment has it.
        telemetry = ToolTelemetry("testbiz", tracing=False)
        capsys.readouterr()
        with telemetry.tool_call("search_routes"):
            pass
        return '"_aws"' in capsys.readouterr().out

    monkeypatch.delenv("POWERTOOLS_DEV", raising=False)
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    assert emitted()
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    assert not emitted()
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED")
    monkeypatch.setenv("POWERTOOLS_DEV", "true")  # dev mode without the switch: off, as in Powertools
    assert not emitted()
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "false")
    assert emitted()


def test_the_metrics_switch_is_not_read_again_on_each_call(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("POWERTOOLS_DEV", raising=False)
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    telemetry = ToolTelemetry("testbiz", tracing=False)
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    capsys.readouterr()
    with telemetry.tool_call("search_routes"):
        pass
    assert '"_aws"' in capsys.readouterr().out
    assert not ToolTelemetry("testbiz", tracing=False, metrics=False).metrics


def test_each_tool_call_emits_emf_calls_errors_and_latency(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    telemetry = ToolTelemetry("testbiz", tracing=False, namespace="McpTest")

    with telemetry.tool_call("explode") as record:
        record.outcome = "system_error"

    blob = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    directive = blob["_aws"]["CloudWatchMetrics"][0]
    assert directive["Namespace"] == "McpTest"
    assert sorted(directive["Dimensions"][0]) == ["service", "tool"]
    assert {m["Name"] for m in directive["Metrics"]} == {
        "ToolCalls",
        "ToolErrors",
        "ToolBusinessErrors",
        "ToolReplays",
        "ToolLatency",
    }
    assert blob["tool"] == "explode" and blob["ToolErrors"] == [1.0] and blob["ToolBusinessErrors"] == [0.0]
    assert blob["ToolReplays"] == [0.0]


@pytest.mark.parametrize(
    ("env", "enabled"),
    [
        ({}, False),
        ({"AWS_LAMBDA_FUNCTION_NAME": "f"}, True),
        ({"AWS_LAMBDA_FUNCTION_NAME": "f", "POWERTOOLS_TRACE_DISABLED": "true"}, False),
        ({"AWS_LAMBDA_FUNCTION_NAME": "f", "AWS_SAM_LOCAL": "true"}, False),
        ({"AWS_XRAY_DAEMON_ADDRESS": "127.0.0.1:2000"}, True),
    ],
)
def test_tracing_is_on_in_lambda_and_off_locally(env: dict[str, str], enabled: bool) -> None:
    assert tracing_enabled(env) is enabled


def test_cold_start_imports_no_tracer_and_no_boto3_and_logs_a_clean_start_line() -> None:
    script = (
        "import json, sys\n"
        "from mcp_lambda_dev.local.events import LocalContext, http_event\n"
        "from mcp_lambda import handler\n"
        "h = {'content-type': 'application/json', 'accept': 'application/json, text/event-stream'}\n"
        "body = {'jsonrpc': '2.0', 'id': 1, 'method': 'initialize', 'params': {'protocolVersion': '2024-11-05',"
        " 'capabilities': {}, 'clientInfo': {'name': 'x', 'version': '1'}}}\n"
        "handler.handler(http_event('POST', '/mcp', h, json.dumps(body)), LocalContext())\n"
        "print(json.dumps({'loaded': sorted(m for m in ('aws_xray_sdk', 'boto3') if m in sys.modules)}))\n"
    )
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": f"{REPO_ROOT / 'src'}:{REPO_ROOT / 'dev'}:{REPO_ROOT}",
        "BUSINESS": "demo",
        "ENVIRONMENT": "test",
        "SECRET_HINT": "value-that-must-not-be-logged",
    }
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60, check=True
    ).stdout
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]

    started = next(line for line in lines if line.get("event") == "server_started")
    assert started["version"] and started["environment"] == "test" and started["tool_count"] >= 1
    assert "value-that-must-not-be-logged" not in out
    cold = [line for line in lines if "ColdStart" in line]
    assert cold and cold[0]["ColdStart"] == [1.0]
    assert lines[-1] == {"loaded": []}


def test_a_metric_business_code_adds_with_its_own_metrics_is_flushed_by_the_invocation_that_added_it() -> (
    None
):
    script = (
        "import json, sys\n"
        "from aws_lambda_powertools import Metrics\n"
        "from aws_lambda_powertools.metrics import MetricUnit\n"
        "from mcp_lambda_dev.local.events import LocalContext, http_event\n"
        "from mcp_lambda import handler\n"
        "from mcp_lambda.protocol.framing import modern_request\n"
        "body, headers = modern_request('tools/list')\n"
        "event = http_event('POST', '/mcp', headers, json.dumps(body))\n"
        "served = handler._asgi_handler\n"
        "def adding(event, context):\n"
        "    Metrics().add_metric(name='OrdersPlaced', unit=MetricUnit.Count, value=1)\n"
        "    return served(event, context)\n"
        "for wrap in (False, False, True, False):\n"
        "    handler._asgi_handler = adding if wrap else served\n"
        "    print(json.dumps({'invocation': handler.handler(event, LocalContext())['statusCode']}))\n"
        "    sys.stdout.flush()\n"
    )
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": f"{REPO_ROOT / 'src'}:{REPO_ROOT / 'dev'}:{REPO_ROOT}",
        "BUSINESS": "demo",
    }
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    marks = [index for index, line in enumerate(lines) if "invocation" in line]
    assert len(marks) == 4 and all(lines[i]["invocation"] == 200 for i in marks)
    orders = [index for index, line in enumerate(lines) if "OrdersPlaced" in line]
    assert len(orders) == 1 and marks[1] < orders[0] < marks[2]  # written by the third invocation, once
    assert lines[orders[0]]["OrdersPlaced"] == [1.0]
    cold = [index for index, line in enumerate(lines) if "ColdStart" in line]
    assert len(cold) == 1 and cold[0] < marks[0]


# --- the platform OpenAPI client -----------------------------------------------------------------------------


class _Platform(BaseHTTPRequestHandler):
    script: list[tuple[int, dict[str, Any]]] = []

    def do_POST(self) -> None:
        self._answer()

    def do_GET(self) -> None:
        self._answer()

    def _answer(self) -> None:
        status, body = self.script.pop(0)
        payload = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("x-tt-logid", "20260101-abc")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def platform() -> Iterator[str]:
    # Accept connections until told to stop; serve_forever() would make the teardown wait out its
    # 0.5 s poll. Stopping is deterministic: set the flag, then wake the blocked handle_request() with an empty
    # connection (which BaseHTTPRequestHandler drops without a reply or a log line) and join the thread.
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Platform)
    stopping = threading.Event()

    def serve() -> None:
        while not stopping.is_set():
            server.handle_request()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    stopping.set()
    socket.create_connection(("127.0.0.1", server.server_port), timeout=5).close()
    thread.join(timeout=5)
    assert not thread.is_alive(), "the platform stand-in did not stop"
    server.server_close()


def test_platform_call_logs_interface_status_code_duration_and_log_id(platform: str) -> None:
    _Platform.script = [(200, {"code": 0, "data": {"ok": True}})]
    client = PlatformApiClient(platform, get_logger("testbiz"))
    with captured("testbiz") as stream:
        response = client.call(
            "user.profile",
            "/open/v1/profile",
            json_body={"code": "login-code-123"},
            headers={"authorization": "Bearer t0k"},
        )
    line = _lines(stream)[-1]

    assert response.data == {"ok": True}
    assert {k: line[k] for k in ("event", "interface", "http_status", "business_code", "log_id")} == {
        "event": "platform_api_call",
        "interface": "user.profile",
        "http_status": 200,
        "business_code": 0,
        "log_id": "20260101-abc",
    }
    assert "duration_ms" in line
    assert "login-code-123" not in stream.getvalue() and "t0k" not in stream.getvalue()


def test_platform_call_retries_idempotent_calls_on_5xx_then_gives_up(platform: str) -> None:
    _Platform.script = [(503, {"code": 1}), (502, {}), (503, {"code": 7, "log_id": "L-3"})]
    client = PlatformApiClient(platform, get_logger("testbiz"), backoff_seconds=0.01)
    with pytest.raises(PlatformApiError) as caught:
        client.call("items.list", "/open/v1/items", method="GET")
    assert (caught.value.status, caught.value.business_code, caught.value.log_id) == (503, 7, "L-3")
    assert _Platform.script == []


def test_platform_business_error_is_raised_without_retrying_a_post(platform: str) -> None:
    _Platform.script = [(200, {"code": 40001, "msg": "bad"})]
    client = PlatformApiClient(platform, get_logger("testbiz"))
    with pytest.raises(PlatformApiError) as caught:
        client.call("order.create", "/open/v1/order")
    assert caught.value.business_code == 40001


def test_unreachable_platform_is_a_platform_api_error() -> None:
    client = PlatformApiClient("http://127.0.0.1:9", get_logger("testbiz"), max_attempts=2, backoff_seconds=0)
    with pytest.raises(PlatformApiError) as caught:
        client.call("ping", "/ping", method="GET")
    assert caught.value.status is None


def test_platform_client_needs_the_base_domain() -> None:
    assert PlatformApiClient.from_settings(Settings(), get_logger("testbiz")) is None
    client = PlatformApiClient.from_settings(
        Settings(doubao_openapi_base_domain="open.example.com"), get_logger("testbiz")
    )
    assert client is not None and client.base_url == "https://open.example.com"


def test_the_human_format_is_one_redacted_line_per_call_and_drops_the_started_line() -> None:
    import logging as std_logging

    from mcp_lambda_dev import log_format

    log_format.install()
    register_secret_value("sk-human-format-9f3a")
    formatter = log_format.HumanFormatter()
    finished = std_logging.LogRecord(
        "svc", std_logging.ERROR, __file__, 1, "mcp_tool_call_failed", None, None
    )
    for key, value in {
        "event": "mcp_tool_call_failed",
        "tool_name": "open_vault",
        "outcome": "system_error",
        "code": 50020,
        "duration_ms": 0.42,
        "error_type": "SecretUnavailable",
        "looked_in": "a file mentioning sk-human-format-9f3a",
    }.items():
        setattr(finished, key, value)
    line = formatter.format(finished)
    assert "\n" not in line and "sk-human-format-9f3a" not in line
    assert " ERROR tools/call open_vault system_error code=50020 0.4ms error_type=SecretUnavailable " in line
    assert 'looked_in="a file mentioning ***"' in line

    logger = get_logger("human-format-test", "text")
    started = std_logging.LogRecord(
        "human-format-test", std_logging.INFO, __file__, 1, "mcp_tool_call_started", None, None
    )
    started.event = "mcp_tool_call_started"
    assert not logger.registered_handler.filter(started)


def test_log_format_text_writes_json_where_nothing_registered_it(monkeypatch: pytest.MonkeyPatch) -> None:
    # In Lambda nothing installs the compact format (it lives in dev/): LOG_FORMAT=text must still log JSON.
    import mcp_lambda.observability as observability

    monkeypatch.delitem(observability._FORMATS, "text", raising=False)
    logger = get_logger("text-unregistered-test", "text")
    handler = logger.registered_handler
    assert type(handler.formatter) is observability.RedactingFormatter
    assert not handler.filters
    record = logging.LogRecord("text-unregistered-test", logging.INFO, __file__, 1, "hello", None, None)
    assert json.loads(handler.formatter.format(record))["message"] == "hello"


# --- the cost of a line and of a metrics record ----------------------------------------------------------------


def _record(msg: object = "mcp_tool_call_finished", args: Any = None, **extra: Any) -> logging.LogRecord:
    record = logging.LogRecord("testbiz", logging.INFO, __file__, 12, msg, args, None, func="finish")
    record.__dict__.update(extra)
    return record


@pytest.mark.parametrize(
    "record",
    [
        _record(event="mcp_tool_call_finished", tool_name="echo", duration_ms=0.5, arguments={"k": "str[3]"}),
        _record("total %d of %s", (3, "x")),
        _record('{"already": "json"}'),
        _record("42"),
        _record({"a": "dict message"}),
        _record(" [1, 2]"),
    ],
    ids=["extras", "args", "json-object", "json-number", "dict", "json-array"],
)
def test_a_line_is_what_powertools_formats_for_the_same_options(
    record: logging.LogRecord, monkeypatch: pytest.MonkeyPatch
) -> None:
    from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter

    monkeypatch.setenv("_X_AMZN_TRACE_ID", "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8")
    options: dict[str, Any] = {
        "datefmt": "%Y-%m-%dT%H:%M:%S.%FZ",
        "utc": True,
        "location": None,
        "xray_trace_id": None,
    }
    ours, theirs = RedactingFormatter(), LambdaPowertoolsFormatter(**options)
    for formatter in (ours, theirs):
        formatter.append_keys(correlation_id="req-1", service="testbiz", sampling_rate=None)
    assert ours.format(record) == theirs.format(record)
    # ...and with Powertools' own defaults put back (location, the X-Ray trace id, its timestamp format).
    defaults: dict[str, Any] = {"datefmt": None, "utc": False}
    ours = RedactingFormatter(location="%(funcName)s:%(lineno)d", **defaults)
    ours.remove_keys(["xray_trace_id"])  # Powertools: a key set to None is off; without it, the id is added
    theirs = LambdaPowertoolsFormatter()
    assert json.loads(ours.format(record)) == json.loads(theirs.format(record))
    assert list(json.loads(ours.format(record))) == list(json.loads(theirs.format(record)))


def test_values_json_has_no_spelling_for_are_written_as_powertools_json_dumps_writes_them() -> None:
    """Keys that are not strings, datetimes, dataclasses, integers beyond 64 bits, a lone surrogate: Powertools'
    serializer is `json.dumps(default=str)`; ours (orjson first) writes the same JSON for each."""
    import dataclasses
    from datetime import UTC, datetime

    from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter

    @dataclasses.dataclass
    class Point:
        x: int

    options: dict[str, Any] = {"datefmt": "%Y-%m-%dT%H:%M:%S.%FZ", "utc": True, "location": None}
    ours, theirs = RedactingFormatter(**options), LambdaPowertoolsFormatter(**options, xray_trace_id=None)
    extras: list[dict[str, Any]] = [
        {"counts": {1: "one", 2.5: "half", False: "no", None: "none"}},
        {"nested": {"ok": [{3: "three"}]}},
        {"at": datetime(2026, 7, 28, 18, 20, 1, 234000, tzinfo=UTC), "point": Point(1)},
        {"big": 2**70},
        {"odd": "\ud800"},
    ]
    for extra in extras:
        record = _record(event="e", **extra)
        line, powertools_line = ours.format(record), theirs.format(record)
        assert json.loads(line) == json.loads(powertools_line), extra
        assert line.encode("utf-8")  # one writable line, whatever the value


def test_thread_safe_keys_templates_and_none_extras_are_formatted_as_powertools_does() -> None:
    from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter

    record = _record(
        event="mcp_tool_call_started",
        dropped=None,
        code=0,
        exception="given",
        stack_trace="x",
        xray_trace_id="y",
    )
    options: dict[str, Any] = {"datefmt": "%Y-%m-%dT%H:%M:%S.%FZ", "utc": True, "location": None}
    ours, theirs = RedactingFormatter(**options), LambdaPowertoolsFormatter(**options, xray_trace_id=None)
    for formatter in (ours, theirs):
        formatter.append_keys(service="testbiz", where="%(funcName)s", empty="", module="%(module)s")
        formatter.thread_safe_append_keys(trace_id="t-1", level_again="%(levelname)s")
    try:
        assert ours.format(record) == theirs.format(record)
        assert json.loads(ours.format(record))["module"] == "test_observability"
    finally:
        ours.thread_safe_clear_keys()


def test_an_exception_line_is_what_powertools_formats() -> None:
    from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter

    try:
        raise ValueError("boom")
    except ValueError:
        record = _record("failed", event="unhandled_error", error_id="e1")
        record.exc_info = sys.exc_info()
    ours = RedactingFormatter()
    theirs = LambdaPowertoolsFormatter(
        datefmt="%Y-%m-%dT%H:%M:%S.%FZ", utc=True, location=None, xray_trace_id=None
    )
    assert ours.format(record) == theirs.format(record)
    assert json.loads(ours.format(record))["exception_name"] == "ValueError"


def test_a_deployed_tool_call_line_carries_the_request_ids_and_no_lambda_context_fields() -> None:
    from mcp_lambda.observability import LAMBDA_CONTEXT_KEYS

    script = (
        "import json\n"
        "from mcp_lambda_dev.local.events import LocalContext, http_event\n"
        "from mcp_lambda import handler\n"
        "meta = {'io.modelcontextprotocol/protocolVersion': '2026-07-28', "
        "'io.modelcontextprotocol/clientCapabilities': {}}\n"
        "body = {'jsonrpc': '2.0', 'id': 7, 'method': 'tools/call', 'params': {'name': 'search_products', "
        "'arguments': {'keyword': 'cup'}, '_meta': meta}}\n"
        "h = {'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', "
        "'mcp-method': 'tools/call', 'mcp-name': 'search_products'}\n"
        "handler.handler(http_event('POST', '/mcp', h, json.dumps(body), request_id='apigw-1'), LocalContext())\n"
    )
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": f"{REPO_ROOT / 'src'}:{REPO_ROOT / 'dev'}:{REPO_ROOT}",
        "BUSINESS": "demo",
        "POWERTOOLS_METRICS_DISABLED": "true",
        "_X_AMZN_TRACE_ID": "Root=1-5759e988-bd862e3fe1be46a994272793;Sampled=1",
    }
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60, check=True
    ).stdout
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    calls = [line for line in lines if str(line.get("event", "")).startswith("mcp_tool_call_")]
    assert [line["event"] for line in calls] == ["mcp_tool_call_started", "mcp_tool_call_finished"]
    for line in calls:
        assert line["correlation_id"] == line["request_id"] == "apigw-1" and line["jsonrpc_id"] == 7
        assert line["timestamp"].endswith("Z") and line["level"] == "INFO"
        assert not set(line) & {*LAMBDA_CONTEXT_KEYS, "location", "xray_trace_id", "taskName"}


def test_the_emf_record_is_what_powertools_serializes(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from aws_lambda_powertools.metrics import EphemeralMetrics, MetricUnit

    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    telemetry = ToolTelemetry("testbiz", tracing=False, namespace="McpTest")
    with telemetry.tool_call("search_routes") as record:
        record.outcome = "replayed"
    ours = json.loads(capsys.readouterr().out.strip().splitlines()[-1])

    metrics = EphemeralMetrics(namespace="McpTest", service="testbiz")
    metrics.add_dimension(name="tool", value="search_routes")
    for name, value in (("ToolCalls", 1), ("ToolErrors", 0), ("ToolBusinessErrors", 0), ("ToolReplays", 1)):
        metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)
    metrics.add_metric(name="ToolLatency", unit=MetricUnit.Milliseconds, value=ours["ToolLatency"][0])
    theirs = metrics.serialize_metric_set()
    ours["_aws"]["Timestamp"] = theirs["_aws"]["Timestamp"]
    assert ours == theirs


def test_concurrent_tool_calls_each_write_their_own_record_without_warnings(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # make run's task workers share the app with the request thread: the shared Powertools instance this replaced
    # raced there (`Dimension 'tool' has already been added`, a record with another call's tool).
    import warnings

    monkeypatch.delenv("POWERTOOLS_METRICS_DISABLED", raising=False)
    telemetry = ToolTelemetry("testbiz", tracing=False, namespace="McpTest")
    barrier = threading.Barrier(8)

    def calls(worker: int) -> None:
        barrier.wait()
        for call in range(100):
            with telemetry.tool_call(f"tool_{worker}_{call}") as record:
                record.outcome = "success" if call % 2 else "business_error"

    switching = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # threads take turns between any two bytecodes: a shared record would tear
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            threads = [threading.Thread(target=calls, args=(worker,)) for worker in range(8)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
    finally:
        sys.setswitchinterval(switching)
    blobs = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith('{"_aws"')]
    assert sorted(blob["tool"] for blob in blobs) == sorted(
        f"tool_{w}_{c}" for w in range(8) for c in range(100)
    )
    for blob in blobs:
        call = int(blob["tool"].rsplit("_", 1)[1])
        assert blob["ToolBusinessErrors"] == [0.0 if call % 2 else 1.0] and blob["ToolCalls"] == [1.0]
