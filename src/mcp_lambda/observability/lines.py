"""`log_event`: the lines the framework writes on every call, handed straight to the Logger's handler.

The line is the one Powertools' formatter builds for the record (it is `handler.handle(record)`); what is skipped
is the way there: the Powertools Logger's wrapper, the stdlib's caller lookup (`findCaller` walks the stack) and
`makeRecord`. Only public APIs are used: the Logger's `name`, `handlers` and `registered_formatter`, the
formatter's `get_current_keys`/`thread_safe_get_current_keys`, and the stdlib's `LogRecord` and `Handler.handle`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from aws_lambda_powertools.logging.filters import SuppressFilter
from aws_lambda_powertools.logging.formatter import RESERVED_LOG_ATTRS

from .formatter import RedactingFormatter
from .loggers import ToolLogger, stdlib_logger

# The levels `log_event` writes directly; "exception" (a stack) always takes the ordinary path.
_DIRECT_LEVELS = {
    "debug": logging.DEBUG,
    "info": logging.INFO,
    "warning": logging.WARNING,
    "error": logging.ERROR,
}
_RESERVED = frozenset(RESERVED_LOG_ATTRS)  # looked up for every key of every line
# The record attributes a formatter key may be templated on that a record made here has right.
_TEMPLATES_WITHOUT_A_CALLER = frozenset({"%(levelname)s", "%(asctime)s"})


def log_event(logger: ToolLogger, level: str, event: str, fields: Mapping[str, Any]) -> None:
    """`logger.<level>(event, extra=fields)`, for the lines the framework writes on every call.

    When `logger` is one of `get_logger`'s Powertools Loggers as it made it (its one JSON handler, no filter, no
    custom record factory, no ancestor handler that would see the line, no key templated on the caller), the
    record is made here and handed to that handler: the same bytes, sooner. Any other logger, or one a test or a
    business has given a handler or a filter, gets the ordinary call.

    Args:
        logger: The call's logger.
        level: "debug", "info", "warning", "error" (or "exception", always the ordinary call).
        event: The message (the line's `event` names it too, in `fields`).
        fields: The line's extra keys.
    """
    levelno = _DIRECT_LEVELS.get(level)
    std = stdlib_logger(logger) if levelno is not None else None
    if std is not None and levelno is not None:
        if not std.isEnabledFor(levelno):
            return
        handler = _direct_handler(std, levelno)
        if handler is not None:
            record = logging.LogRecord(std.name, levelno, "", 0, event, None, None)
            record.__dict__.update({k: v for k, v in fields.items() if k not in _RESERVED})
            handler.handle(record)
            return
    getattr(logger, level)(event, extra=dict(fields))


def _direct_handler(std: logging.Logger, levelno: int) -> logging.Handler | None:
    """The one handler a `levelno` record of `std` reaches when the ordinary call would add nothing to it (no
    filter, no record factory, no other handler, no key templated on the call site); else None."""
    if (
        std.filters
        or len(std.handlers) != 1
        or logging.getLogRecordFactory() is not logging.LogRecord
        or (std.propagate and _ancestors_would_write(std, levelno))
    ):
        return None
    handler = std.handlers[0]
    formatter = handler.formatter
    if (
        type(handler) is logging.StreamHandler
        and type(formatter) is RedactingFormatter
        and not handler.filters
        and levelno >= handler.level
        and not _needs_the_caller(formatter)
    ):
        return handler
    return None


def _needs_the_caller(formatter: RedactingFormatter) -> bool:
    """Whether a key of the line is templated on a record attribute only a real call site has (such as
    `location`, `%(funcName)s:%(lineno)d`)."""
    for keys in (formatter.get_current_keys(), formatter.thread_safe_get_current_keys()):
        for key, value in keys.items():
            if value and key in _RESERVED and value not in _TEMPLATES_WITHOUT_A_CALLER:
                return True
    return False


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
