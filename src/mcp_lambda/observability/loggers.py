"""The business Logger: one Powertools Logger per service, its format, and the helpers that put ids on lines.

Only Powertools' public Logger API is used (`append_keys`, `thread_safe_*`, `get_correlation_id`,
`registered_handler`); no process-wide logging setting changes here (that is `process.configure_process`).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

from aws_lambda_powertools import Logger

from .formatter import RedactingFormatter

# Lambda records these once per invocation already (the log group is the function, REPORT has the request id,
# memory, init duration and X-Ray trace id): repeating them on every line only costs ingestion.
LAMBDA_CONTEXT_KEYS = (
    "cold_start",
    "function_name",
    "function_memory_size",
    "function_arn",
    "function_request_id",
)


class ToolLogger(Protocol):
    """The logging surface the framework and tools use (a Powertools Logger in production)."""

    def info(self, msg: str, *args: Any, **kwargs: Any) -> None: ...
    def warning(self, msg: str, *args: Any, **kwargs: Any) -> None: ...
    def error(self, msg: str, *args: Any, **kwargs: Any) -> None: ...
    def debug(self, msg: str, *args: Any, **kwargs: Any) -> None: ...
    def exception(self, msg: str, *args: Any, **kwargs: Any) -> None: ...


@dataclass(frozen=True)
class LogFormat:
    """A LOG_FORMAT other than JSON: how to build its formatter, and an optional filter for its handler."""

    formatter: Callable[[], RedactingFormatter]
    record_filter: Callable[..., bool] | None = None


# LOG_FORMAT names beyond "json". Nothing in the Lambda package registers one: the development tools register
# "text" (mcp_lambda_dev.log_format) for make run and make stdio, so in Lambda every format writes JSON lines.
_FORMATS: dict[str, LogFormat] = {}
_LOGGERS: dict[str, Logger] = {}
_STDLIB: dict[str, logging.Logger] = {}  # the stdlib logger under each of them (the same object for its life)


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
        registered = _FORMATS.get(log_format)
        formatter = registered.formatter() if registered else RedactingFormatter()
        logger = Logger(service=service, logger_formatter=formatter)
        if registered and registered.record_filter:
            logger.registered_handler.addFilter(registered.record_filter)
        _LOGGERS[service] = logger
        _STDLIB[service] = logging.getLogger(logger.name)
    return logger


def stdlib_logger(logger: object) -> logging.Logger | None:
    """The stdlib logger under `logger` when it is the Logger `get_logger` made for its service (so: no log
    buffering, our formatter); None for any other logger."""
    if type(logger) is Logger and _LOGGERS.get(logger.service) is logger:
        return _STDLIB[logger.service]
    return None


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
