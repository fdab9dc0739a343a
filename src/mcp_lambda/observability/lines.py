"""`log_event`: the lines the framework writes on every call, written straight to the Logger's handler's stream.

The line is the one Powertools' formatter builds for a record of the same fields (`RedactingFormatter.format_event`
builds it without the record); what is skipped is the way there: the Powertools Logger's wrapper, the stdlib's
caller lookup (`findCaller` walks the stack), the `LogRecord` and the handler's dispatch. Only public APIs are
used: the Logger's `name`, `handlers` and `filters`, the handler's `stream` (its `write` and `flush`),
`terminator`, `acquire`, `release` and `handleError` (what `StreamHandler.emit` itself does), and the formatter's
own.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping
from typing import Any

from aws_lambda_powertools.logging.filters import SuppressFilter

from .formatter import RESERVED_ATTRIBUTES, RedactingFormatter
from .loggers import ToolLogger, stdlib_logger

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
    custom record factory, no ancestor handler that would see the line, no key templated on the call site), the
    line its formatter would build is built from `fields` and written to that handler's stream: the same bytes,
    sooner. Any other logger, or one a test or a business has given a handler or a filter, gets the ordinary call.

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
            formatter: RedactingFormatter = handler.formatter  # type: ignore[assignment]
            # The record's `levelname` as `LogRecord` names it (a name `logging.addLevelName` gave included).
            line = formatter.format_event(logging.getLevelName(levelno), event, fields, time.time_ns())
            if line is not None:
                _emit(handler, line, std.name, levelno, event, fields)
                return
    getattr(logger, level)(event, extra=dict(fields))


def _emit(
    handler: logging.StreamHandler[Any],
    line: str,
    name: str,
    levelno: int,
    event: str,
    fields: Mapping[str, Any],
) -> None:
    """What `Handler.handle` and `StreamHandler.emit` do with a formatted line (the handler has no filter), the
    lock held once: `StreamHandler.flush` is its stream's flush under the same lock."""
    handler.acquire()
    try:
        stream = handler.stream
        stream.write(line + handler.terminator)
        stream.flush()
    except RecursionError:  # as emit: never swallowed
        raise
    except Exception:  # as emit: the handler reports it (to stderr), the call goes on
        record = logging.LogRecord(name, levelno, "", 0, event, None, None)
        record.__dict__.update({k: v for k, v in fields.items() if k not in RESERVED_ATTRIBUTES})
        handler.handleError(record)
    finally:
        handler.release()


def _direct_handler(std: logging.Logger, levelno: int) -> logging.StreamHandler[Any] | None:
    """The one handler a `levelno` record of `std` reaches when the ordinary call would add nothing to it (no
    filter, no record factory, no other handler); else None. A key templated on the call site is refused by
    `format_event` itself."""
    if (
        std.filters
        or len(std.handlers) != 1
        or logging.getLogRecordFactory() is not logging.LogRecord
        or (std.propagate and _ancestors_would_write(std, levelno))
    ):
        return None
    handler = std.handlers[0]
    if (
        type(handler) is logging.StreamHandler
        and type(handler.formatter) is RedactingFormatter
        and not handler.filters
        and levelno >= handler.level
    ):
        return handler
    return None


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
