"""Logger, Tracer and Metrics set-up, and redaction. Tool-call log lines follow doubao-protocol.md §5.

Only Powertools' own variables are read here (`POWERTOOLS_*`, and the Lambda/X-Ray ones it reads itself).
"""

from __future__ import annotations

import json
import logging
import os
import re
import secrets
import sys
import time
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

import orjson
from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.logging.filters import SuppressFilter
from aws_lambda_powertools.logging.formatter import (
    RESERVED_LOG_ATTRS,
    LambdaPowertoolsFormatter,
    _get_context,
)
from aws_lambda_powertools.metrics.functions import is_metrics_disabled  # Powertools' own rule

DEFAULT_METRICS_NAMESPACE = "McpTools"
MASK = "***"
# Outcomes that mean the server, not the caller's business case, went wrong.
ERROR_OUTCOMES = frozenset({"system_error", "invalid_arguments"})

# Lambda records these once per invocation already (the log group is the function, REPORT has the request id,
# memory, init duration and X-Ray trace id): repeating them on every line only costs ingestion.
LAMBDA_CONTEXT_KEYS = (
    "cold_start",
    "function_name",
    "function_memory_size",
    "function_arn",
    "function_request_id",
)
# RFC 3339 in UTC, milliseconds (Powertools' %F): 2026-07-28T18:20:01.234Z, shorter than its default.
TIMESTAMP_FORMAT = "%Y-%m-%dT%H:%M:%S.%FZ"
_RESERVED = frozenset(RESERVED_LOG_ATTRS)  # looked up for every key of every line
_ORJSON_OPTIONS = orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_DATACLASS

_LOGGERS: dict[str, Logger] = {}
_METRICS: dict[str, Metrics] = {}
_SECRET_VALUES: set[str] = set()

# Invocations that only touch sessions publish no application metric; that is normal, not worth a warning.
warnings.filterwarnings("ignore", message="No application metrics to publish")


class ToolLogger(Protocol):
    """The logging surface the framework and tools use (a Powertools Logger in production)."""

    def info(self, msg: str, *args: Any, **kwargs: Any) -> None: ...
    def warning(self, msg: str, *args: Any, **kwargs: Any) -> None: ...
    def error(self, msg: str, *args: Any, **kwargs: Any) -> None: ...
    def debug(self, msg: str, *args: Any, **kwargs: Any) -> None: ...
    def exception(self, msg: str, *args: Any, **kwargs: Any) -> None: ...


def dumps(value: Any) -> str:
    """Compact JSON text for a log line: orjson (faster than json.dumps), with json.dumps' choices
    (`default=str`, datetimes and dataclasses through it); json.dumps itself for what orjson refuses (a lone
    surrogate, an integer beyond 64 bits)."""
    try:
        return orjson.dumps(value, default=str, option=_ORJSON_OPTIONS).decode()
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return json.dumps(value, default=str, separators=(",", ":"), ensure_ascii=False)


def new_error_id() -> str:
    """The id an internal error is reported under: the client gets it, the log line carries it and the cause."""
    return secrets.token_hex(8)


def log_internal_error(logger: ToolLogger, event: str, exc: BaseException, **fields: Any) -> str:
    """Log an unexpected failure once, with its stack, under a fresh error id; return the id for the client."""
    error_id = new_error_id()
    logger.exception(
        event,
        exc_info=exc,
        extra={"event": event, "error_id": error_id, "error_type": type(exc).__name__, **fields},
    )
    return error_id


def register_secret_value(value: str) -> None:
    """Mask this value (and its JSON-escaped form) in every log line from now on."""
    if len(value) >= 4:
        _SECRET_VALUES.add(value)
        escaped = json.dumps(value, ensure_ascii=False)[1:-1]
        _SECRET_VALUES.add(escaped)
        _SECRET_VALUES.add(json.dumps(value)[1:-1])


def redact(text: str) -> str:
    """`text` with every registered secret value replaced by a mask, longest values first."""
    for value in sorted(_SECRET_VALUES, key=len, reverse=True):
        if value in text:
            text = text.replace(value, MASK)
    return text


class RedactingFormatter(LambdaPowertoolsFormatter):
    """Powertools' JSON lines, with any secret a tool has read masked: a last guard behind the summaries.

    The line is the one `LambdaPowertoolsFormatter.format` builds (same keys, same order; every Powertools option
    and `append_keys`/`remove_keys` still apply), built in fewer steps: orjson, the timestamp's date and time
    formatted once per second, and a message decoded as JSON only when it could be JSON. Its defaults differ from
    Powertools' in three keys: no `location` (on the framework's lines it only ever named the framework's own
    function), no `xray_trace_id` (the invocation's REPORT line has it), RFC 3339 UTC timestamps.

    A line is always one line writable as UTF-8: a lone surrogate from the client (`"\\ud800"` in an argument or
    a tool_call_id) is written as its JSON escape instead of failing the write, which would lose the whole line,
    and so are U+2028, U+2029 and the C1 controls, which JSON allows raw but a line reader may split on.
    """

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("json_serializer", dumps)
        kwargs.setdefault("datefmt", TIMESTAMP_FORMAT)
        kwargs.setdefault("utc", True)
        kwargs.setdefault("location", None)
        kwargs.setdefault("xray_trace_id", None)  # the REPORT line has it
        super().__init__(**kwargs)
        self._seconds: tuple[tuple[int, str], str] = ((-1, ""), "")  # one tuple: threads swap it whole

    def format(self, record: logging.LogRecord) -> str:
        return _writable(redact(self._json_line(record)))

    def event_line(self, levelname: str, message: str, fields: Mapping[str, Any]) -> str | None:
        """The line `format` writes for a `levelname` record of `message` with `fields` as its extras, stamped
        now, built without a LogRecord (the framework's per-call lines); None when this formatter's keys need a
        real record (a key templated on a record attribute other than the level and the time)."""
        if message[:1] in _JSON_STARTS:
            return None
        log: dict[str, Any] = {}
        for source in (self.log_format, _get_context().get()):
            for key, value in source.items():
                if value and key in _RESERVED:
                    if value == "%(levelname)s":
                        log[key] = levelname
                    elif value == "%(asctime)s":
                        log[key] = self.formatTime(_Stamp(time.time()))  # type: ignore[arg-type]
                    else:
                        return None
                else:
                    log[key] = value
        for key, value in fields.items():
            if key not in _RESERVED:
                log[key] = value
        log["message"] = message
        log["xray_trace_id"] = self._get_latest_trace_id()
        line = redact(self.serialize(log={k: v for k, v in log.items() if v is not None}))
        return _writable(line)

    def _json_line(self, record: logging.LogRecord) -> str:
        """What `LambdaPowertoolsFormatter.format` returns for `record`."""
        fields = record.__dict__
        log: dict[str, Any] = {}
        for source in (self.log_format, _get_context().get()):
            for key, value in source.items():
                if value and key in _RESERVED:
                    if not isinstance(value, str):
                        raise ValueError(
                            "Logging keys that override reserved log attributes need to be type 'str', "
                            f"instead got '{type(value).__name__}'",
                        )
                    log[key] = self._reserved(value, record)
                else:
                    log[key] = value
        for key, value in fields.items():
            if key not in _RESERVED:
                log[key] = value
        log["message"] = self._message(record)
        if record.exc_info:
            exception, exception_name, notes = self._extract_log_exception(log_record=record)
            log["exception"] = log.get("exception", exception)
            log["exception_name"] = log.get("exception_name", exception_name)
            log["exception_notes"] = log.get("exception_notes", notes)
        if self.serialize_stacktrace:
            log["stack_trace"] = self._serialize_stacktrace(log_record=record) if record.exc_info else None
        log["xray_trace_id"] = self._get_latest_trace_id()
        return self.serialize(log={k: v for k, v in log.items() if v is not None})

    def _reserved(self, template: str, record: logging.LogRecord) -> str:
        if template == "%(levelname)s":
            return record.levelname
        if template == "%(asctime)s":
            return self.formatTime(record)
        return template % {**record.__dict__, "asctime": self.formatTime(record)}

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:
        # Powertools' formatTime for a plain `time.strftime` format, with the seconds formatted once per second.
        datefmt = datefmt or self.datefmt
        if self.use_rfc3339_iso8601 or self.use_datetime_directive or not datefmt:
            return super().formatTime(record, datefmt)
        key = (int(record.created), datefmt)
        cached, text = self._seconds
        if cached != key:
            marker = datefmt.replace(self.custom_ms_time_directive, "\ue000")
            text = time.strftime(marker, self.converter(record.created))
            self._seconds = (key, text)
        return text.replace("\ue000", "%03d" % record.msecs)  # noqa: UP031 (Powertools' own)

    def _message(self, record: logging.LogRecord) -> Any:
        # Powertools decodes a str message that is JSON; most are words, which cannot be: skip the attempt.
        message = record.msg
        if isinstance(message, str) and not record.args and message[:1] not in _JSON_STARTS:
            return message
        return self._extract_log_message(log_record=record)


# How a JSON value (or NaN/Infinity, which json.loads takes) can start, leading whitespace included.
_JSON_STARTS = frozenset('{["-0123456789tfnNI \t\n\r')


class _Stamp:
    """What `formatTime` reads of a record."""

    __slots__ = ("created", "msecs")

    def __init__(self, created: float) -> None:
        self.created = created
        self.msecs = int((created - int(created)) * 1000) + 0.0  # LogRecord's own rule


# What JSON leaves raw that a line reader may split a line on (U+0085 NEL, U+2028, U+2029: Python's
# `str.splitlines`, JavaScript), with the rest of C1 (terminal controls).
_LINE_BREAKERS = re.compile("[\x80-\x9f\u2028\u2029]")


def _writable(line: str) -> str:
    """`line`, always one line writable as UTF-8: a lone surrogate becomes its JSON escape (`\\udXXX` is a valid
    escape inside a JSON string, so the line stays valid JSON) instead of failing the write and losing the line,
    and so does a C1 control or a Unicode line separator (a second line to a reader that splits on them). Every
    non-ASCII character of a JSON line is inside a string and never part of an escape, so both are safe there."""
    if line.isascii():
        return line
    line = _LINE_BREAKERS.sub(_unicode_escape, line)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:
        line = line.encode("utf-8", "backslashreplace").decode("utf-8")
    return line


def _unicode_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


# The levels `log_event` writes directly; "exception" (a stack) always takes the ordinary path.
_DIRECT_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}


def log_event(logger: ToolLogger, level: str, event: str, fields: Mapping[str, Any]) -> None:
    """`logger.<level>(event, extra=fields)`, for the lines the framework writes on every call.

    When `logger` is one of `get_logger`'s Powertools Loggers as it made it (its one JSON handler, no filter, no
    custom record factory, no buffering, no ancestor handler that would see the line), the line is built and
    written directly: the same bytes, sooner (no LogRecord, caller lookup or handler chain). Any other
    logger, or one a test or a business has given a handler or a filter, gets the ordinary call.
    """
    levelno = _DIRECT_LEVELS.get(level)
    std = getattr(logger, "_logger", None)
    if (
        levelno is not None
        and type(logger) is Logger
        and type(std) is logging.Logger
        and not getattr(logger, "_buffer_config", None)
        and not std.filters
        and len(std.handlers) == 1
        and logging.getLogRecordFactory() is logging.LogRecord
        and not (std.propagate and _ancestors_would_write(std, levelno))
    ):
        if not std.isEnabledFor(levelno):
            return
        handler = std.handlers[0]
        formatter = handler.formatter
        if (
            type(handler) is logging.StreamHandler
            and type(formatter) is RedactingFormatter
            and not handler.filters
            and levelno >= handler.level
        ):
            line = formatter.event_line(logging.getLevelName(levelno), event, fields)
            if line is not None and _write(handler, line):
                return
    getattr(logger, level)(event, extra=dict(fields))


def _ancestors_would_write(std: logging.Logger, levelno: int) -> bool:
    """Whether a record of `std` would also reach a handler of an ancestor logger: one that Powertools has not
    given its SuppressFilter for this service (in Lambda, the runtime's root handler has it; pytest's caplog
    handler never does)."""
    parent = std.parent
    while parent is not None:
        for handler in parent.handlers:
            if levelno >= handler.level and not any(
                type(f) is SuppressFilter and f.logger in std.name for f in handler.filters
            ):
                return True
        if not parent.propagate:
            return False
        parent = parent.parent
    return False


def _write(handler: logging.StreamHandler[Any], line: str) -> bool:
    """StreamHandler.emit for a formatted line; False (so the ordinary call writes and reports it) on failure."""
    try:
        with handler.lock:  # type: ignore[union-attr]
            stream = handler.stream
            stream.write(line + handler.terminator)
            stream.flush()  # StreamHandler.flush, without taking the lock a second time
        return True
    except Exception:
        return False


@dataclass(frozen=True)
class LogFormat:
    """A LOG_FORMAT other than JSON: how to build its formatter, and an optional filter for its handler."""

    formatter: Callable[[], RedactingFormatter]
    record_filter: Callable[[logging.LogRecord], bool] | None = None


# LOG_FORMAT names beyond "json". Nothing in the Lambda package registers one: the development tools register
# "text" (mcp_lambda_dev.log_format) for make run and make stdio, so in Lambda every format writes JSON lines.
_FORMATS: dict[str, LogFormat] = {}


def register_log_format(name: str, log_format: LogFormat) -> None:
    """Make `get_logger(service, name)` use `log_format` (for loggers created after this call).

    Args:
        name: the LOG_FORMAT value, e.g. "text".
        log_format: its formatter factory and handler filter.
    """
    _FORMATS[name] = log_format


def get_logger(service: str, log_format: str = "json") -> Logger:
    """One Powertools Logger per service (= business), created once per container.

    Args:
        service: the business name (the lines' `service`).
        log_format: "json", or a format registered with `register_log_format`; a format nobody registered (such
            as "text" in Lambda) writes JSON lines, so the function's logs stay machine-readable.

    Returns:
        The service's Logger; the first call for a service decides its format.
    """
    logger = _LOGGERS.get(service)
    if logger is None:
        # Our lines never show thread, process or asyncio task fields: skip computing them for every record.
        logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
        logging.logAsyncioTasks = False  # type: ignore[attr-defined]  # 3.12+: else every line gets `taskName`
        registered = _FORMATS.get(log_format)
        formatter = registered.formatter() if registered else RedactingFormatter()
        logger = Logger(service=service, logger_formatter=formatter)
        if registered and registered.record_filter:
            logger.registered_handler.addFilter(registered.record_filter)
        _LOGGERS[service] = logger
    return logger


def metrics_namespace() -> str:
    """Powertools' POWERTOOLS_METRICS_NAMESPACE, or our default."""
    return os.environ.get("POWERTOOLS_METRICS_NAMESPACE") or DEFAULT_METRICS_NAMESPACE


def get_metrics(service: str) -> Metrics:
    """The container's EMF Metrics for the handler decorator (cold start)."""
    metrics = _METRICS.get(service)
    if metrics is None:
        metrics = Metrics(namespace=metrics_namespace(), service=service)
        _METRICS[service] = metrics
    return metrics


def current_correlation_id(logger: Any) -> str | None:
    """The API Gateway request id that `inject_lambda_context` put on the Logger, when there is one."""
    getter = getattr(logger, "get_correlation_id", None)
    value = getter() if callable(getter) else None
    return value if isinstance(value, str) else None


@contextmanager
def trace_id_on_lines(logger: Any, trace_id: str | None) -> Iterator[None]:
    """Put `trace_id` on every line `logger` writes in this context (thread or task) during the block: a tool's
    own `ctx.logger` lines and the framework's, direct writes included (they read the same context keys).

    Args:
        logger: The call's logger; one without Powertools' context keys (a test's) is left as it is.
        trace_id: The caller's trace id; None leaves the lines as they are.
    """
    append = getattr(logger, "thread_safe_append_keys", None)
    if trace_id is None or not callable(append):
        yield
        return
    append(trace_id=trace_id)
    try:
        yield
    finally:
        logger.thread_safe_remove_keys(["trace_id"])


def tracing_enabled(env: Mapping[str, str] | None = None) -> bool:
    """Powertools' rule, without importing the X-Ray SDK: on in Lambda (or beside an X-Ray daemon), off locally."""
    env = os.environ if env is None else env
    if env.get("POWERTOOLS_TRACE_DISABLED", "").lower() in ("1", "true", "yes", "on"):
        return False
    if env.get("AWS_SAM_LOCAL") or env.get("CHALICE_LOCAL"):
        return False
    return bool(env.get("AWS_LAMBDA_FUNCTION_NAME") or env.get("AWS_XRAY_DAEMON_ADDRESS"))


@dataclass
class ToolCallRecord:
    """Filled in by the executor once the outcome is known."""

    tool_name: str
    outcome: str = "system_error"


class ToolCallEmf:
    """The EMF record of one tool call, as Powertools' EphemeralMetrics would serialize it (dimensions `tool` and
    `service`; ToolCalls, ToolErrors, ToolBusinessErrors, ToolReplays, ToolLatency), written from a template.

    Hand-written: the metric names, units and dimensions never change, so Powertools' per-call validation and
    dimension bookkeeping only cost time, and one shared instance raced between threads (`Dimension
    'tool' has already been added`). This keeps no state between calls.
    """

    METRICS = (
        ("ToolCalls", "Count"),
        ("ToolErrors", "Count"),
        ("ToolBusinessErrors", "Count"),
        ("ToolReplays", "Count"),
        ("ToolLatency", "Milliseconds"),
    )

    def __init__(self, namespace: str, service: str) -> None:
        directive = [
            {
                "Namespace": namespace,
                "Dimensions": [["tool", "service"]],
                "Metrics": [{"Name": name, "Unit": unit} for name, unit in self.METRICS],
            }
        ]
        self._head = '{"_aws":{"Timestamp":'
        self._directive = ',"CloudWatchMetrics":' + dumps(directive) + '},"tool":'
        self._service = ',"service":' + dumps(service)
        self._tools: dict[str, str] = {}

    def blob(self, tool: str, outcome: str, latency_ms: float) -> str:
        tool_json = self._tools.get(tool)
        if tool_json is None:
            tool_json = self._tools.setdefault(tool, dumps(tool))
        errors = "1.0" if outcome in ERROR_OUTCOMES else "0.0"
        business = "1.0" if outcome == "business_error" else "0.0"
        replays = "1.0" if outcome == "replayed" else "0.0"
        return (
            f"{self._head}{int(time.time() * 1000)}{self._directive}{tool_json}{self._service}"
            f',"ToolCalls":[1.0],"ToolErrors":[{errors}],"ToolBusinessErrors":[{business}],'
            f'"ToolReplays":[{replays}],"ToolLatency":[{float(latency_ms)!r}]}}'
        )


class ToolTelemetry:
    """A tracing subsegment and EMF metrics per tool call.

    The Tracer is created on the first traced tool call, never when tracing is off: importing and patching the
    X-Ray SDK is a large part of a cold start, which requests that call no tool (initialize, tools/list) should not pay.
    """

    def __init__(
        self,
        service: str,
        *,
        namespace: str | None = None,
        tracing: bool | None = None,
        tracer: Any = None,
    ) -> None:
        self.service = service
        self.namespace = namespace or metrics_namespace()
        self.tracing = tracing_enabled() if tracing is None else tracing
        self._tracer = tracer
        self._emf = ToolCallEmf(self.namespace, self.service)

    @property
    def tracer(self) -> Any:
        if not self.tracing:
            return None
        if self._tracer is None:
            from aws_lambda_powertools import Tracer

            self._tracer = Tracer(service=self.service, patch_modules=("botocore",))
        return self._tracer

    def tool_call(
        self, tool_name: str, trace_id: str | None = None
    ) -> AbstractContextManager[ToolCallRecord]:
        """Measure one tool call (and trace it, when tracing is on).

        Args:
            tool_name: The tool.
            trace_id: The caller's W3C trace id, annotated on the subsegment (`caller_trace_id`) to find it by.

        Returns:
            A context manager yielding the record whose `outcome` the caller sets.
        """
        tracer = self.tracer
        if tracer is None:
            return _MeasuredCall(self, ToolCallRecord(tool_name))  # a plain class: no generator per call
        return self._traced_call(tracer, tool_name, trace_id)

    @contextmanager
    def _traced_call(self, tracer: Any, tool_name: str, trace_id: str | None) -> Iterator[ToolCallRecord]:
        record = ToolCallRecord(tool_name)
        started = time.perf_counter()
        with tracer.provider.in_subsegment(f"## tool {tool_name}") as subsegment:
            try:
                yield record
            finally:
                if subsegment is not None:
                    subsegment.put_annotation("tool", tool_name)
                    subsegment.put_annotation("outcome", record.outcome)
                    if trace_id is not None:
                        subsegment.put_annotation("caller_trace_id", trace_id)
                self._emit_metrics(record, started)

    def _emit_metrics(self, record: ToolCallRecord, started: float) -> None:
        if metrics_disabled():
            return
        latency = round((time.perf_counter() - started) * 1000, 3)
        # To stdout, as Powertools' Metrics print theirs, in one write: print() writes the newline apart, and the
        # records of two threads could run together on one line.
        sys.stdout.write(self._emf.blob(record.tool_name, record.outcome, latency) + "\n")


# The two variables as last read, and Powertools' answer for them: one tuple, which threads replace whole.
_UNSET: tuple[tuple[str | None, str | None], bool] = ((None, None), False)
_METRICS_SWITCH = _UNSET


def metrics_disabled() -> bool:
    """Powertools' own switch (`is_metrics_disabled`: POWERTOOLS_METRICS_DISABLED, or POWERTOOLS_DEV without it),
    asked again only when either variable has changed: the variables are read on every call, the rule is not."""
    global _METRICS_SWITCH
    seen = (os.environ.get("POWERTOOLS_METRICS_DISABLED"), os.environ.get("POWERTOOLS_DEV"))
    switch = _METRICS_SWITCH
    if seen != switch[0] or switch is _UNSET:
        switch = _METRICS_SWITCH = (seen, bool(is_metrics_disabled()))
    return switch[1]


def write_count_metric(metric: str, service: str, properties: Mapping[str, Any] | None = None) -> None:
    """One EMF record counting `metric` once (Count, dimension `service` only), switched off as Powertools' are.

    Args:
        metric: The metric's name, e.g. `QuotaRejections`.
        service: The business (the `service` dimension).
        properties: Fields the record carries beside it (searchable in Logs Insights, not dimensions).
    """
    if metrics_disabled():
        return
    directive = {
        "Namespace": metrics_namespace(),
        "Dimensions": [["service"]],
        "Metrics": [{"Name": metric, "Unit": "Count"}],
    }
    record = {
        **(properties or {}),
        "_aws": {"Timestamp": int(time.time() * 1000), "CloudWatchMetrics": [directive]},
        "service": service,
        metric: [1.0],
    }
    sys.stdout.write(dumps(record) + "\n")  # one write, as ToolTelemetry's records


class _MeasuredCall:
    """`ToolTelemetry.tool_call` without tracing: the call's EMF record when the block ends."""

    __slots__ = ("record", "started", "telemetry")

    def __init__(self, telemetry: ToolTelemetry, record: ToolCallRecord) -> None:
        self.telemetry, self.record = telemetry, record

    def __enter__(self) -> ToolCallRecord:
        self.started = time.perf_counter()
        return self.record

    def __exit__(self, *exc: object) -> None:
        self.telemetry._emit_metrics(self.record, self.started)


class NoTelemetry:
    """Tool calls without tracing or metrics (unit tests, and apps wired without telemetry)."""

    @contextmanager
    def tool_call(self, tool_name: str, trace_id: str | None = None) -> Iterator[ToolCallRecord]:
        yield ToolCallRecord(tool_name)


def summarize_arguments(arguments: Mapping[str, Any], safe_fields: Iterable[str] = ()) -> dict[str, Any]:
    """A redacted argument summary: keys, types and sizes; values only for fields declared safe."""
    safe = set(safe_fields)
    summary: dict[str, Any] = {}
    for key, value in arguments.items():
        if key in safe and _is_short_scalar(value):
            summary[key] = value
        else:
            summary[key] = _shape(value)
    return summary


def _is_short_scalar(value: Any) -> bool:
    if isinstance(value, str):
        return len(value) <= 64
    return isinstance(value, bool | int | float)


def _shape(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return type(value).__name__
    if isinstance(value, str):
        return f"str[{len(value)}]"
    if isinstance(value, list | tuple):
        return f"array[{len(value)}]"
    if isinstance(value, dict):
        return f"object[{len(value)}]"
    return type(value).__name__


def quiet_libraries() -> None:
    """Keep third-party debug chatter (and any bodies it might print) out of the logs."""
    for name in ("botocore", "boto3", "urllib3", "mangum", "aws_xray_sdk"):
        logging.getLogger(name).setLevel(logging.WARNING)
    # urllib3 warns on each retry with the request path and query, which may carry user data: our one
    # platform_api_call line already reports attempts.
    logging.getLogger("urllib3.connectionpool").setLevel(logging.ERROR)
