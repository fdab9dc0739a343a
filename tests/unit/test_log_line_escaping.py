"""Every log line is one line, whatever a client sent: both formats (Powertools JSON, the compact `make run`
line) and both JSON paths (the Logger's, `log_event`'s direct write) turn lone surrogates, NUL, newlines and
every other control character into escapes, never into a failed write ("--- Logging error ---", the line
lost) or a second line (a forged one)."""

from __future__ import annotations

import io
import json
import logging
import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from aws_lambda_powertools import Logger

from mcp_lambda.observability import get_logger, log_event
from mcp_lambda_dev import log_format
from mcp_lambda_dev.local.access_log import access_line

# Every kind of string a client can send that a terminal or a line reader could choke on.
KINDS = {
    "high-surrogate": "\ud800",
    "low-surrogate": "\udc80",  # surrogateescape (stdout in a C.UTF-8 locale) would write a raw 0x80 byte
    "nul": "\x00",
    "newline": "\n",
    "carriage-return": "\r",
    "tab": "\t",
    "escape": "\x1b[31m",
    "del": "\x7f",
    "line-separator": "\u2028",
    "paragraph-separator": "\u2029",
    "next-line": "\u0085",
    "c1": "\x9b",
    "emoji": "\U0001f600",
    "forged-line": "\n12:00:00.000 INFO  tools/call forged success code=0 0.1ms",
}
# What the compact line must never hold raw: C0, DEL, C1, the Unicode line and paragraph separators.
RAW_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def _fields(kind: str) -> dict[str, Any]:
    """A tool-call line with `kind` everywhere a client's text can land: a safe-field argument, a dict key, the
    tool name, an extra field."""
    return {
        "event": "mcp_tool_call_finished",
        "request_id": "req-1",
        "tool_name": f"search{kind}products",
        "outcome": "success",
        "code": 0,
        "duration_ms": 1.25,
        "arguments": {"keyword": f"cup{kind}", f"key{kind}": "str[3]"},
        "tool_call_id": f"call{kind}1",
    }


def _strict_stream() -> tuple[io.BytesIO, io.TextIOWrapper]:
    """A stream that encodes as strictly as a real stdout can: UTF-8 and nothing else."""
    raw = io.BytesIO()
    return raw, io.TextIOWrapper(raw, encoding="utf-8", errors="strict", write_through=True)


@pytest.fixture
def no_root_handlers(monkeypatch: pytest.MonkeyPatch) -> None:
    # As in Lambda (the runtime's root handler carries Powertools' SuppressFilter): log_event writes directly.
    monkeypatch.setattr(logging.root, "handlers", [])


@pytest.fixture
def json_logger(no_root_handlers: None) -> Iterator[tuple[Logger, io.BytesIO]]:
    logger = get_logger(f"escape-json-{uuid.uuid4().hex[:8]}")
    raw, stream = _strict_stream()
    logger.registered_handler.setStream(stream)  # type: ignore[attr-defined]
    yield logger, raw


@pytest.fixture
def text_logger(no_root_handlers: None) -> Iterator[tuple[Logger, io.BytesIO]]:
    log_format.install()
    logger = get_logger(f"escape-text-{uuid.uuid4().hex[:8]}", "text")
    assert type(logger.registered_handler.formatter) is log_format.HumanFormatter
    raw, stream = _strict_stream()
    logger.registered_handler.setStream(stream)  # type: ignore[attr-defined]
    yield logger, raw


def _one_line(raw: io.BytesIO) -> str:
    """The one line written, as UTF-8 (strictly decoded), without its terminator."""
    data = raw.getvalue()
    assert data.endswith(b"\n") and data.count(b"\n") == 1, data
    line = data[:-1].decode("utf-8")  # raises on a lone surrogate written raw
    assert len(line.splitlines()) == 1, line  # no U+2028, U+0085 or \r a line reader would split on
    return line


@pytest.fixture(autouse=True)
def no_logging_error(capsys: pytest.CaptureFixture[str]) -> Iterator[None]:
    """What logging prints to stderr when a handler fails to write a line."""
    yield
    assert "Logging error" not in capsys.readouterr().err


def _written(logger: Logger, raw: io.BytesIO, path: str, value: str) -> str:
    """The one line a tool-call record with `value` everywhere writes, by log_event or by the Logger."""
    fields = _fields(value)
    if path == "direct":
        log_event(logger, "info", f"mcp_tool_call{value}finished", fields)
    else:
        logger.info(f"mcp_tool_call{value}finished", extra=fields)
    return _one_line(raw)


EVERY_KIND_BY_BOTH_PATHS = pytest.mark.parametrize(
    ("kind", "path"), [(kind, path) for kind in KINDS for path in ("direct", "ordinary")]
)


@EVERY_KIND_BY_BOTH_PATHS
def test_a_json_line_is_one_valid_utf8_line_that_reads_back_every_value(
    kind: str, path: str, json_logger: tuple[Logger, io.BytesIO]
) -> None:
    value = KINDS[kind]

    record = json.loads(_written(*json_logger, path, value))
    assert record["message"] == f"mcp_tool_call{value}finished"
    assert record["tool_name"] == f"search{value}products" and record["tool_call_id"] == f"call{value}1"
    assert record["arguments"] == {"keyword": f"cup{value}", f"key{value}": "str[3]"}


@EVERY_KIND_BY_BOTH_PATHS
def test_a_compact_line_is_one_line_with_every_control_character_escaped(
    kind: str, path: str, text_logger: tuple[Logger, io.BytesIO]
) -> None:
    value = KINDS[kind]

    line = _written(*text_logger, path, value)
    assert not RAW_CONTROL.search(line), line
    assert " INFO  tools/call search" in line and " success code=0 1.2ms " in line
    # Shown in all four places (tool name, keyword, key, tool_call_id): as its JSON escape (\ud800, \n,
    # \u001b, ...), or as it is when printable.
    shown = value if value == KINDS["emoji"] else json.dumps(value)[1:-1]
    assert line.count(shown) == 4, line


@pytest.mark.parametrize("kind", list(KINDS))
def test_a_compact_message_line_is_one_line(kind: str, text_logger: tuple[Logger, io.BytesIO]) -> None:
    logger, raw = text_logger
    value = KINDS[kind]

    logger.warning(f"downstream{value}failed", extra={"event": "x", f"host{value}": f"a b{value}", "n": 1})

    line = _one_line(raw)
    assert not RAW_CONTROL.search(line), line
    assert " WARN  downstream" in line and " n=1" in line


def test_a_compact_stack_trace_cannot_start_a_line_of_its_own(text_logger: tuple[Logger, io.BytesIO]) -> None:
    logger, raw = text_logger
    try:
        raise ValueError("bad input\n12:00:00.000 INFO  tools/call forged success code=0 0.1ms\ud800")
    except ValueError:
        logger.exception("unhandled_error", extra={"event": "unhandled_error"})

    first, *trace = raw.getvalue().decode("utf-8").splitlines()
    assert " ERROR unhandled_error" in first and trace
    assert all(line.startswith(" ") for line in trace), trace  # the trace is indented under its line
    assert not any(RAW_CONTROL.search(line) for line in trace)


@pytest.mark.parametrize("kind", list(KINDS))
def test_the_access_line_of_a_forged_method_is_one_line(kind: str) -> None:
    value = KINDS[kind]
    request = json.dumps({"jsonrpc": "2.0", "id": 1, "method": f"tools/list{value}", "params": {}}).encode()
    reply = json.dumps({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "nope"}}).encode()

    line = access_line(0.0, request, 200, reply, "application/json", 0.5)

    assert line is not None
    _, text = line
    assert len(text.splitlines()) == 1 and not RAW_CONTROL.search(text), text
    text.encode("utf-8")  # no lone surrogate: print() to stdout would fail
    assert " tools/list" in text and " error code=-32601 " in text
