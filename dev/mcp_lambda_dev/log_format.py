"""The compact human log line (`LOG_FORMAT=text`, what `make run` prints by default): one line per call.

    18:20:01.234 INFO  tools/call search_products success code=0 1.2ms
    18:20:01.240 ERROR tools/call open_vault system_error code=50020 0.4ms error_type=SecretUnavailable ...

Lambda keeps Powertools' JSON lines (`LOG_FORMAT=json`, the default); this only renders the same record, after
redaction, for a person at a terminal. Hand-written because Powertools has JSON formatters only. It lives in dev/
(never in the Lambda package): `install()` registers it as the "text" format of `mcp_lambda.observability`, which
make run and make stdio call first; where nobody installs it (Lambda), LOG_FORMAT=text writes JSON lines.

A line is always one line a terminal shows as it is: whatever a client sent (a lone surrogate, NUL, a newline,
an escape sequence, U+2028) is written as its JSON escape (`\\ud800`, `\\u0000`, `\\n`, `\\u001b`), so no
write fails and no client text can start a line of its own; a stack trace follows indented under its line.
"""

from __future__ import annotations

import json
import logging
import re
import time
from typing import Any

from mcp_lambda.observability import LogFormat, RedactingFormatter, register_log_format

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
# What a terminal line never holds raw: C0 and C1 controls, DEL, the Unicode line and paragraph separators, the
# bidirectional overrides (they reorder what follows), and lone surrogates (not writable as UTF-8).
UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
TRACE_INDENT = "    "


def clock(created: float) -> str:
    """Local wall-clock time with milliseconds: 18:20:01.234."""
    return time.strftime("%H:%M:%S", time.localtime(created)) + f".{int(created % 1 * 1000):03d}"


def printable(text: str) -> str:
    """`text` with every `UNPRINTABLE` character as its JSON escape: one line, writable as UTF-8.

    Args:
        text: Any text, a client's included.

    Returns:
        The text, unchanged when it holds none of them.
    """
    return UNPRINTABLE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    return json.dumps(match.group())[1:-1]


def human_line(created: float, level: str, words: list[str], fields: dict[str, Any] | None = None) -> str:
    """`time LEVEL word word key=value ...`, values JSON-quoted only when they need it, always one line."""
    tail = [f"{key}={_value(value)}" for key, value in (fields or {}).items() if value is not None]
    return printable(" ".join([clock(created), f"{SHORT_LEVELS.get(level, level):<5}", *words, *tail]))


def render(data: dict[str, Any], created: float) -> str:
    """One Powertools JSON record (already redacted) as a human line; a stack trace follows on its own lines,
    indented (its text may quote a client's, which must not pass for a line of its own)."""
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
    if not isinstance(exception, str) or not exception:
        return line
    return "\n".join([line, *(TRACE_INDENT + printable(part) for part in exception.split("\n"))])


# A value holding one of these is JSON-quoted: a space or `=` would read as the next field, a backslash or an
# unprintable character as an escape.
_NEEDS_QUOTES = re.compile(r'[\s="\\]|' + UNPRINTABLE.pattern)


def _value(value: Any) -> str:
    if isinstance(value, str) and value and not _NEEDS_QUOTES.search(value):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class HumanFormatter(RedactingFormatter):
    """The same redacted record as one compact line for a terminal (LOG_FORMAT=text, the make run default)."""

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        try:
            return render(json.loads(line), record.created)
        except ValueError:  # never lose a line: the redacted JSON is still readable
            return line


# Lines another line already tells at a terminal: a call's start (its finishing line follows), and a handshake's
# revision (make run's access line for the initialize / server/discover request names it).
DEBUG_ONLY_EVENTS = frozenset({"mcp_tool_call_started", "mcp_initialized", "mcp_discovered"})


def one_line_per_call(record: logging.LogRecord) -> bool:
    """In the human format the finishing line is the call's line; the started line shows only at DEBUG, like
    the handshake's line (the request's access line names its revision)."""
    if getattr(record, "event", None) not in DEBUG_ONLY_EVENTS:
        return True
    return logging.getLogger(record.name).getEffectiveLevel() <= logging.DEBUG


def install() -> None:
    """Register the compact format as LOG_FORMAT=text (for loggers created afterwards)."""
    register_log_format("text", LogFormat(HumanFormatter, one_line_per_call))
