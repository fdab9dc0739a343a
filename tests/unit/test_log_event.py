"""`log_event`: the framework's per-call lines written without a LogRecord are byte for byte the lines the
Logger writes for the same fields, and every logger that is not exactly as `get_logger` made it (a filter, a
second handler, an ancestor handler that would also see the line, a record factory, a key templated on a record
attribute) gets the ordinary call."""

from __future__ import annotations

import io
import json
import logging
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from aws_lambda_powertools import Logger

from mcp_lambda.observability import get_logger, log_event, register_secret_value
from mcp_lambda.observability.loggers import stdlib_logger

FIELDS: dict[str, Any] = {
    "request_id": "req-1",
    "jsonrpc_id": 7,
    "tool_name": "search_routes",
    "event": "mcp_tool_call_finished",
    "outcome": "success",
    "code": 0,
    "error_type": None,  # None values are left out, as Powertools does
    "arguments": {"origin": "guomao", "note": "str[3]", "nested": {"a": [1, 2.5, True]}},
    "caller": "\ud800 lone surrogate",  # written as its JSON escape, never a failed write
    "duration_ms": 0.123,
}


class Counted:
    """Counts LogRecords made: the ordinary path makes one per line, the direct path none."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.made = 0
        original = logging.Logger.makeRecord

        def make(logger: logging.Logger, *args: Any, **kwargs: Any) -> logging.LogRecord:
            self.made += 1
            return original(logger, *args, **kwargs)

        monkeypatch.setattr(logging.Logger, "makeRecord", make)


@pytest.fixture
def service() -> Iterator[tuple[Logger, io.StringIO]]:
    """A fresh service logger writing to a buffer."""
    logger = get_logger(f"svc-{uuid.uuid4().hex[:8]}")
    stream = io.StringIO()
    logger.registered_handler.setStream(stream)  # type: ignore[attr-defined]
    yield logger, stream


def _no_root_handlers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Take pytest's capture handlers off the root logger for this test (they are added after the fixtures):
    as in Lambda, where the runtime's root handler carries Powertools' SuppressFilter."""
    monkeypatch.setattr(logging.root, "handlers", [])


def _two_lines(logger: Logger, stream: io.StringIO, level: str = "info") -> tuple[str, str]:
    """The direct line and the ordinary one for FIELDS, timestamps made equal."""
    log_event(logger, level, "mcp_tool_call_finished", FIELDS)
    getattr(logger, level)("mcp_tool_call_finished", extra=dict(FIELDS))
    direct, ordinary = stream.getvalue().splitlines()
    a, b = json.loads(direct), json.loads(ordinary)
    a["timestamp"] = b["timestamp"] = "T"
    return json.dumps(a), json.dumps(b)


def test_the_direct_line_is_the_loggers_line(
    service: tuple[Logger, io.StringIO], monkeypatch: pytest.MonkeyPatch
) -> None:
    logger, stream = service
    _no_root_handlers(monkeypatch)
    counted = Counted(monkeypatch)
    direct, ordinary = _two_lines(logger, stream)
    assert direct == ordinary  # same keys, same order, same values
    assert counted.made == 1  # only the ordinary call made a record
    line = json.loads(stream.getvalue().splitlines()[0])
    assert line["level"] == "INFO" and line["message"] == "mcp_tool_call_finished"
    assert "error_type" not in line and line["caller"] == "\ud800 lone surrogate"
    assert "\\ud800" in stream.getvalue().splitlines()[0]  # escaped: the line is valid UTF-8


def test_appended_and_context_keys_secrets_and_levels_are_kept(
    service: tuple[Logger, io.StringIO], monkeypatch: pytest.MonkeyPatch
) -> None:
    logger, stream = service
    _no_root_handlers(monkeypatch)
    logger.append_keys(correlation_id="corr-9", tenant="t-1")
    register_secret_value("guomao")
    monkeypatch.setenv("_X_AMZN_TRACE_ID", "Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8")
    counted = Counted(monkeypatch)
    with logger.append_context_keys(task_id="task-3"):
        direct, ordinary = _two_lines(logger, stream, "warning")
    assert direct == ordinary and counted.made == 1
    line = json.loads(direct)
    assert line["level"] == "WARNING" and line["tenant"] == "t-1" and line["task_id"] == "task-3"
    assert line["arguments"]["origin"] == "***"  # a registered secret value is masked on both paths


def test_a_line_below_the_level_is_not_written(
    service: tuple[Logger, io.StringIO], monkeypatch: pytest.MonkeyPatch
) -> None:
    logger, stream = service
    _no_root_handlers(monkeypatch)
    logger.setLevel(logging.WARNING)
    log_event(logger, "info", "mcp_tool_call_started", FIELDS)
    assert stream.getvalue() == ""


def _ordinary_only(logger: Logger, stream: io.StringIO, monkeypatch: pytest.MonkeyPatch) -> int:
    counted = Counted(monkeypatch)
    log_event(logger, "info", "mcp_tool_call_started", FIELDS)
    return counted.made


def test_a_filter_on_the_handler_gets_the_ordinary_call(
    service: tuple[Logger, io.StringIO], monkeypatch: pytest.MonkeyPatch
) -> None:
    logger, stream = service
    _no_root_handlers(monkeypatch)
    logger.registered_handler.addFilter(lambda record: False)  # type: ignore[attr-defined]
    assert _ordinary_only(logger, stream, monkeypatch) == 1
    assert stream.getvalue() == ""  # ...which the filter then refused


def test_a_second_handler_or_a_logger_filter_gets_the_ordinary_call(
    service: tuple[Logger, io.StringIO], monkeypatch: pytest.MonkeyPatch
) -> None:
    logger, stream = service
    _no_root_handlers(monkeypatch)
    extra = io.StringIO()
    logging.getLogger(logger.name).addHandler(logging.StreamHandler(extra))
    assert _ordinary_only(logger, stream, monkeypatch) == 1
    assert stream.getvalue() and extra.getvalue()  # both handlers saw the line


def test_an_ancestor_handler_that_would_see_the_line_gets_the_ordinary_call(
    service: tuple[Logger, io.StringIO], monkeypatch: pytest.MonkeyPatch
) -> None:
    logger, stream = service
    _no_root_handlers(monkeypatch)
    root = io.StringIO()
    monkeypatch.setattr(logging.root, "handlers", [logging.StreamHandler(root)])  # like pytest's caplog
    assert _ordinary_only(logger, stream, monkeypatch) == 1
    assert stream.getvalue() and root.getvalue()


def test_a_root_handler_with_powertools_suppress_filter_keeps_the_direct_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # In Lambda the runtime's root handler exists before the Logger, which gives it a SuppressFilter.
    root = io.StringIO()
    monkeypatch.setattr(logging.root, "handlers", [logging.StreamHandler(root)])
    logger = get_logger(f"svc-{uuid.uuid4().hex[:8]}")
    stream = io.StringIO()
    logger.registered_handler.setStream(stream)  # type: ignore[attr-defined]
    counted = Counted(monkeypatch)
    log_event(logger, "info", "mcp_tool_call_started", FIELDS)
    assert counted.made == 0 and stream.getvalue() and root.getvalue() == ""


def test_a_record_factory_or_a_templated_key_gets_the_ordinary_call(
    service: tuple[Logger, io.StringIO], monkeypatch: pytest.MonkeyPatch
) -> None:
    logger, stream = service
    _no_root_handlers(monkeypatch)
    factory = logging.getLogRecordFactory()
    monkeypatch.setattr(logging, "_logRecordFactory", lambda *a, **k: factory(*a, **k))
    assert _ordinary_only(logger, stream, monkeypatch) == 1
    monkeypatch.setattr(logging, "_logRecordFactory", factory)
    logger.append_keys(location="%(funcName)s:%(lineno)d")  # needs the caller: only a record has it
    assert _ordinary_only(logger, stream, monkeypatch) == 1
    assert json.loads(stream.getvalue().splitlines()[-1])["location"].startswith("log_event:")


def test_any_other_logger_gets_the_ordinary_call() -> None:
    seen: list[tuple[str, dict[str, Any]]] = []

    class Recorder:
        def info(self, msg: str, *args: Any, **kwargs: Any) -> None:
            seen.append((msg, kwargs["extra"]))

    log_event(Recorder(), "info", "mcp_tool_call_started", FIELDS)  # type: ignore[arg-type]
    assert seen == [("mcp_tool_call_started", FIELDS)]


def test_a_field_named_like_a_formatter_key_and_a_removed_key_keep_formats_order(
    service: tuple[Logger, io.StringIO], monkeypatch: pytest.MonkeyPatch
) -> None:
    logger, stream = service
    _no_root_handlers(monkeypatch)
    logger.append_keys(request_id="from-the-formatter", zone="a")  # the field of the same name wins, in place
    counted = Counted(monkeypatch)
    direct, ordinary = _two_lines(logger, stream)
    assert direct == ordinary and counted.made == 1
    assert json.loads(direct)["request_id"] == "req-1"
    stream.seek(0)
    stream.truncate()
    logger.remove_keys(["message", "xray_trace_id"])  # then the message comes after the fields
    direct, ordinary = _two_lines(logger, stream)
    assert direct == ordinary and list(json.loads(direct))[-1] == "message"


def test_the_encoded_keys_follow_append_keys_line_by_line(
    service: tuple[Logger, io.StringIO], monkeypatch: pytest.MonkeyPatch
) -> None:
    logger, stream = service
    _no_root_handlers(monkeypatch)
    for value in ("first", "second"):
        logger.append_keys(correlation_id=value)
        log_event(logger, "info", "mcp_tool_call_started", FIELDS)
    assert [json.loads(line)["correlation_id"] for line in stream.getvalue().splitlines()] == [
        "first",
        "second",
    ]


@pytest.fixture
def alone(service: tuple[Logger, io.StringIO], monkeypatch: pytest.MonkeyPatch) -> tuple[Logger, io.StringIO]:
    """The service logger with no ancestor handler to see its lines (as in Lambda): its lines stop at its own
    logger. pytest adds its capture handlers to the root logger after the fixtures, so emptying the root's
    handlers here (`_no_root_handlers`) would not last into the test, which would then compare the ordinary
    line with itself."""
    logger, stream = service
    monkeypatch.setattr(stdlib_logger(logger), "propagate", False)
    made = Counted(monkeypatch)
    log_event(logger, "info", "probe", {})
    assert made.made == 0, "the direct path is not taken"
    stream.seek(0)
    stream.truncate()
    return service


def test_the_direct_lines_timestamp_is_the_formatters_for_its_instant(
    alone: tuple[Logger, io.StringIO],
) -> None:
    logger, stream = alone
    before = time.time()
    log_event(logger, "info", "mcp_tool_call_started", FIELDS)
    after = time.time()
    stamp = json.loads(stream.getvalue())[
        "timestamp"
    ]  # RFC 3339 in UTC, milliseconds: 2026-12-06T22:20:01.234Z
    written = datetime.strptime(stamp, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC).timestamp()
    assert before - 0.001 <= written <= after


def test_the_last_millisecond_of_a_second_stays_in_that_second(alone: tuple[Logger, io.StringIO]) -> None:
    """A line made at 12:00:08.9999999 reads 08.999, as the stdlib's record of that instant reads (the seconds
    and the milliseconds both from the same integer nanoseconds, not a float that rounds up to 09)."""
    logger, _ = alone
    formatter = logger.registered_formatter
    instant = 1_796_620_788 * 1_000_000_000 + 999_999_999
    for created_ns in (instant, instant + 1, instant - 999_999_999):  # the second's end, the next, its start
        line = formatter.format_event("INFO", "e", {}, created_ns)  # type: ignore[attr-defined]
        record = logging.LogRecord("x", logging.INFO, __file__, 1, "e", None, None)
        record.created, record.msecs = created_ns / 1e9, (created_ns // 1_000_000) % 1000
        expected = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(created_ns // 1_000_000_000))
        assert json.loads(line)["timestamp"] == f"{expected}.{record.msecs:03d}Z"


def test_powertools_own_timestamp_formats_get_the_ordinary_call(
    alone: tuple[Logger, io.StringIO], monkeypatch: pytest.MonkeyPatch
) -> None:
    logger, stream = alone
    monkeypatch.setattr(logger.registered_formatter, "use_rfc3339_iso8601", True)
    assert _ordinary_only(logger, stream, monkeypatch) == 1
    assert "T" in json.loads(stream.getvalue())["timestamp"]


class BrokenStream(io.StringIO):
    def write(self, text: str) -> int:
        raise OSError("the pipe is gone")


def test_a_failed_write_is_reported_as_the_handler_reports_it_and_the_call_goes_on(
    alone: tuple[Logger, io.StringIO], capsys: pytest.CaptureFixture[str]
) -> None:
    logger, _ = alone
    logger.registered_handler.setStream(BrokenStream())  # type: ignore[attr-defined]
    log_event(logger, "info", "mcp_tool_call_started", FIELDS)  # never raises
    direct = capsys.readouterr().err
    logger.info("mcp_tool_call_started", extra=dict(FIELDS))
    ordinary = capsys.readouterr().err
    assert "--- Logging error ---" in direct and "OSError: the pipe is gone" in direct
    assert "--- Logging error ---" in ordinary and "OSError: the pipe is gone" in ordinary


def test_the_direct_line_follows_keys_appended_and_removed_between_lines(
    alone: tuple[Logger, io.StringIO],
) -> None:
    logger, stream = alone
    for change in (
        lambda: logger.append_keys(correlation_id="c-1"),
        lambda: logger.append_keys(correlation_id="c-2", zone="z"),
        lambda: logger.remove_keys(["zone"]),
        lambda: logger.append_keys(level="fixed"),  # no longer the level's template: a plain value
    ):
        change()
        direct, ordinary = _two_lines(logger, stream)
        assert direct == ordinary
        stream.seek(0)
        stream.truncate()
    assert json.loads(direct)["level"] == "fixed" and "zone" not in json.loads(direct)


def test_keys_left_unset_or_unset_later_are_dropped_and_a_field_setting_one_keeps_its_place(
    service: tuple[Logger, io.StringIO], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The formatter's None keys (`sampling_rate`, `location`, `xray_trace_id`) are dropped from the line before
    the fields join it: a field of the same name must still take the key's place, and a key set to None between
    lines must still be dropped."""
    logger, stream = service
    _no_root_handlers(monkeypatch)
    counted = Counted(monkeypatch)
    lines: list[tuple[str, str]] = []
    for change in (
        lambda: None,  # as get_logger made it
        lambda: FIELDS.__setitem__("sampling_rate", 0.5),  # a field sets a key the formatter holds as None
        lambda: None,  # that field gone again
        lambda: logger.append_keys(correlation_id="c-1"),
        lambda: logger.append_keys(correlation_id=None),  # set, then None: no longer on the line
        lambda: logger.append_keys(sampling_rate=0.25),  # None, then set: on the line, in its place
    ):
        try:
            change()
            lines.append(_two_lines(logger, stream))
        finally:
            FIELDS.pop("sampling_rate", None)
        stream.seek(0)
        stream.truncate()
    assert counted.made == len(lines)  # each direct line was written directly
    for direct, ordinary in lines:
        assert direct == ordinary
    keys = [list(json.loads(direct)) for direct, _ in lines]
    assert "sampling_rate" not in keys[0] and "location" not in keys[0]
    assert keys[1].index("sampling_rate") < keys[1].index("request_id")  # the formatter's place, not the end
    assert "correlation_id" in keys[3] and "correlation_id" not in keys[4]
    assert keys[5].index("sampling_rate") < keys[5].index("request_id")


def test_a_level_renamed_with_add_level_name_is_named_alike(alone: tuple[Logger, io.StringIO]) -> None:
    logger, stream = alone
    logging.addLevelName(logging.INFO, "NOTICE")
    try:
        direct, ordinary = _two_lines(logger, stream)
    finally:
        logging.addLevelName(logging.INFO, "INFO")
    assert direct == ordinary and json.loads(direct)["level"] == "NOTICE"


@pytest.mark.parametrize(
    "message", ["mcp_tool_call_finished", '{"a": [1, 2]}', "42", " [1]", "", "NaN", "{oops"]
)
def test_a_message_is_decoded_as_the_formatter_decodes_it(
    message: str, service: tuple[Logger, io.StringIO], monkeypatch: pytest.MonkeyPatch
) -> None:
    logger, stream = service
    _no_root_handlers(monkeypatch)
    log_event(logger, "info", message, {"event": "e"})
    logger.info(message, extra={"event": "e"})
    direct, ordinary = (json.loads(line) for line in stream.getvalue().splitlines())
    direct["timestamp"] = ordinary["timestamp"] = "T"
    assert direct == ordinary and list(direct) == list(ordinary)
