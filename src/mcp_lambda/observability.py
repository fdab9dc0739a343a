"""Logger, Tracer and Metrics set-up, and redaction. Tool-call log lines follow doubao-protocol.md §5.

Only Powertools' own variables are read here (`POWERTOOLS_*`, and the Lambda/X-Ray ones it reads itself).
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import time
import warnings
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.logging.formatter import LambdaPowertoolsFormatter

from .log_format import render

DEFAULT_METRICS_NAMESPACE = "McpTools"
MASK = "***"
# Outcomes that mean the server, not the caller's business case, went wrong.
ERROR_OUTCOMES = frozenset({"system_error", "invalid_arguments"})

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

    A line is always writable as UTF-8: a lone surrogate from the client (`"\\ud800"` in an argument or a
    tool_call_id) is written as its JSON escape instead of failing the write, which would lose the whole line.
    """

    def format(self, record: logging.LogRecord) -> str:
        line = redact(super().format(record))
        try:
            line.encode("utf-8")
        except UnicodeEncodeError:
            # Inside a JSON string `\udXXX` is a valid escape, so the line stays valid JSON.
            line = line.encode("utf-8", "backslashreplace").decode("utf-8")
        return line


class HumanFormatter(RedactingFormatter):
    """The same redacted record as one compact line for a terminal (LOG_FORMAT=text, the make run default)."""

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        try:
            return render(json.loads(line), record.created)
        except ValueError:  # never lose a line: the redacted JSON is still readable
            return line


def _one_line_per_call(record: logging.LogRecord) -> bool:
    # In the human format the finishing line is the call's line; the started line shows only at DEBUG.
    if getattr(record, "event", None) != "mcp_tool_call_started":
        return True
    return logging.getLogger(record.name).getEffectiveLevel() <= logging.DEBUG


def get_logger(service: str, log_format: str = "json") -> Logger:
    """One Powertools Logger per service (= business), created once per container: JSON lines, or with
    `log_format="text"` compact human lines. The first call for a service decides its format."""
    logger = _LOGGERS.get(service)
    if logger is None:
        # Our lines never show thread or process fields: skip computing them for every record.
        logging.logThreads = logging.logProcesses = logging.logMultiprocessing = False
        formatter = HumanFormatter() if log_format == "text" else RedactingFormatter()
        logger = Logger(service=service, logger_formatter=formatter)
        if log_format == "text":
            logger.registered_handler.addFilter(_one_line_per_call)
        _LOGGERS[service] = logger
    return logger


def metrics_namespace() -> str:
    """Powertools' POWERTOOLS_METRICS_NAMESPACE, or our default."""
    return os.environ.get("POWERTOOLS_METRICS_NAMESPACE") or DEFAULT_METRICS_NAMESPACE


def _metrics_disabled() -> bool:
    """Powertools' own rule (POWERTOOLS_METRICS_DISABLED, or POWERTOOLS_DEV without it)."""
    from aws_lambda_powertools.metrics.functions import is_metrics_disabled

    return bool(is_metrics_disabled())


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


class ToolTelemetry:
    """A tracing subsegment and EMF metrics per tool call.

    The Tracer is created on the first traced tool call, never when tracing is off: importing and patching the
    X-Ray SDK costs 110-220 ms, which requests that call no tool (initialize, tools/list) should not pay.
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
        self._metrics: Any = None

    @property
    def tracer(self) -> Any:
        if not self.tracing:
            return None
        if self._tracer is None:
            from aws_lambda_powertools import Tracer

            self._tracer = Tracer(service=self.service, patch_modules=("botocore",))
        return self._tracer

    @contextmanager
    def tool_call(self, tool_name: str) -> Iterator[ToolCallRecord]:
        record = ToolCallRecord(tool_name)
        started = time.perf_counter()
        tracer = self.tracer
        if tracer is None:
            try:
                yield record
            finally:
                self._emit_metrics(record, started)
            return
        with tracer.provider.in_subsegment(f"## tool {tool_name}") as subsegment:
            try:
                yield record
            finally:
                if subsegment is not None:
                    subsegment.put_annotation("tool", tool_name)
                    subsegment.put_annotation("outcome", record.outcome)
                self._emit_metrics(record, started)

    def _emit_metrics(self, record: ToolCallRecord, started: float) -> None:
        if _metrics_disabled():  # Powertools would neither print nor clear them: values would pile up
            return
        from aws_lambda_powertools.metrics import EphemeralMetrics, MetricUnit

        # One EMF blob per call: the `tool` dimension differs between calls, so it cannot share a flush.
        # The instance is reused (a flush clears it); building one per call cost ~16 us in `make bench`.
        if self._metrics is None:
            self._metrics = EphemeralMetrics(namespace=self.namespace, service=self.service)
        metrics = self._metrics
        metrics.add_dimension(name="tool", value=record.tool_name)
        metrics.add_metric(name="ToolCalls", unit=MetricUnit.Count, value=1)
        metrics.add_metric(
            name="ToolErrors", unit=MetricUnit.Count, value=int(record.outcome in ERROR_OUTCOMES)
        )
        metrics.add_metric(
            name="ToolBusinessErrors", unit=MetricUnit.Count, value=int(record.outcome == "business_error")
        )
        metrics.add_metric(name="ToolReplays", unit=MetricUnit.Count, value=int(record.outcome == "replayed"))
        metrics.add_metric(
            name="ToolLatency",
            unit=MetricUnit.Milliseconds,
            value=round((time.perf_counter() - started) * 1000, 3),
        )
        metrics.flush_metrics()


class NoTelemetry:
    """Tool calls without tracing or metrics (unit tests, and apps wired without telemetry)."""

    @contextmanager
    def tool_call(self, tool_name: str) -> Iterator[ToolCallRecord]:
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
