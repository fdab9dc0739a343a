"""The compact human log line (`LOG_FORMAT=text`, what `make run` prints by default): one line per call.

    18:20:01.234 INFO  tools/call search_products success code=0 1.2ms
    18:20:01.240 ERROR tools/call open_vault system_error code=50020 0.4ms error_type=SecretUnavailable ...

Lambda keeps Powertools' JSON lines (`LOG_FORMAT=json`, the default); this only renders the same record, after
redaction, for a person at a terminal. Hand-written because Powertools has JSON formatters only.
"""

from __future__ import annotations

import json
import time
from typing import Any

# The tool-call lines: the executor's started/finished/failed events, rendered as "tools/call <tool> <outcome>".
CALL_EVENTS = frozenset({"mcp_tool_call_finished", "mcp_tool_call_failed"})
# Keys every Powertools line carries (or that the call line already shows): noise at a terminal.
QUIET_KEYS = frozenset(
    {
        "level",
        "location",
        "message",
        "timestamp",
        "service",
        "event",
        "cold_start",
        "function_name",
        "function_memory_size",
        "function_arn",
        "function_request_id",
        "correlation_id",
        "xray_trace_id",
        "sampling_rate",
        "request_id",
        "jsonrpc_id",
        "tool_name",
        "outcome",
        "code",
        "duration_ms",
        "exception",
        "exception_name",
        "stack_trace",
    }
)


SHORT_LEVELS = {"WARNING": "WARN", "CRITICAL": "CRIT"}


def clock(created: float) -> str:
    """Local wall-clock time with milliseconds: 18:20:01.234."""
    return time.strftime("%H:%M:%S", time.localtime(created)) + f".{int(created % 1 * 1000):03d}"


def human_line(created: float, level: str, words: list[str], fields: dict[str, Any] | None = None) -> str:
    """`time LEVEL word word key=value ...`, values JSON-quoted only when they need it."""
    tail = [f"{key}={_value(value)}" for key, value in (fields or {}).items() if value is not None]
    return " ".join([clock(created), f"{SHORT_LEVELS.get(level, level):<5}", *words, *tail])


def render(data: dict[str, Any], created: float) -> str:
    """One Powertools JSON record (already redacted) as a human line; a stack trace follows on its own lines."""
    level = str(data.get("level", "INFO"))
    fields = {key: value for key, value in data.items() if key not in QUIET_KEYS}
    if data.get("event") in CALL_EVENTS:
        duration = data.get("duration_ms")
        words = [
            "tools/call",
            str(data.get("tool_name")),
            str(data.get("outcome")),
            f"code={data.get('code')}",
            f"{duration:.1f}ms" if isinstance(duration, int | float) else "",
        ]
        line = human_line(created, level, [word for word in words if word], fields)
    else:
        line = human_line(created, level, [str(data.get("message", ""))], fields)
    exception = data.get("exception")
    return f"{line}\n{exception}" if isinstance(exception, str) and exception else line


def _value(value: Any) -> str:
    if isinstance(value, str) and value and " " not in value and "=" not in value and '"' not in value:
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
