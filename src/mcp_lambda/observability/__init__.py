"""Logging, metrics, tracing and redaction, on Powertools for AWS Lambda through its public API only.

Tool-call log lines follow doubao-protocol.md §5. One job per module:

- `formatter`: the JSON line (Powertools' `LambdaPowertoolsFormatter`, our redaction in `serialize()`);
- `redaction`: credentials (secrets, the caller's token) masked on every line, argument summaries;
- `loggers`: one Powertools Logger per business, log formats, error ids, ids on lines;
- `lines`: `log_event`, the framework's per-call lines handed straight to the Logger's handler;
- `metrics`: the one EMF writer, the tool-call record, counted events, the handler's `Metrics`;
- `tracing`: the subsegment and EMF record per tool call, and when tracing is on;
- `process`: the process-wide logging settings, applied once by the composition root.

Only Powertools' own variables are read here (`POWERTOOLS_*`, and the Lambda/X-Ray ones it reads itself).
"""

from __future__ import annotations

from .formatter import TIMESTAMP_FORMAT, RedactingFormatter, dumps, writable
from .lines import log_event
from .loggers import _FORMATS as _FORMATS  # the registry itself (a test takes a format out of it)
from .loggers import (
    LAMBDA_CONTEXT_KEYS,
    LogFormat,
    ToolLogger,
    current_correlation_id,
    get_logger,
    log_internal_error,
    new_error_id,
    register_log_format,
    trace_id_on_lines,
)
from .metrics import (
    DEFAULT_METRICS_NAMESPACE,
    ERROR_OUTCOMES,
    EmfRecord,
    ToolCallEmf,
    get_metrics,
    metrics_disabled,
    metrics_namespace,
    write_count_metric,
    write_emf,
)
from .process import configure_process, quiet_libraries
from .redaction import (
    MASK,
    MIN_MASKED_CHARS,
    credentials_in,
    credentials_known,
    redact,
    register_secret_value,
    register_secret_values,
    request_credentials,
    summarize_arguments,
)
from .tracing import NoTelemetry, ToolCallRecord, ToolTelemetry, tracing_enabled

__all__ = [
    "DEFAULT_METRICS_NAMESPACE",
    "ERROR_OUTCOMES",
    "LAMBDA_CONTEXT_KEYS",
    "MASK",
    "MIN_MASKED_CHARS",
    "TIMESTAMP_FORMAT",
    "EmfRecord",
    "LogFormat",
    "NoTelemetry",
    "RedactingFormatter",
    "ToolCallEmf",
    "ToolCallRecord",
    "ToolLogger",
    "ToolTelemetry",
    "configure_process",
    "credentials_in",
    "credentials_known",
    "current_correlation_id",
    "dumps",
    "get_logger",
    "get_metrics",
    "log_event",
    "log_internal_error",
    "metrics_disabled",
    "metrics_namespace",
    "new_error_id",
    "quiet_libraries",
    "redact",
    "register_log_format",
    "register_secret_value",
    "register_secret_values",
    "request_credentials",
    "summarize_arguments",
    "trace_id_on_lines",
    "tracing_enabled",
    "writable",
    "write_count_metric",
    "write_emf",
]
