"""The framework's exception -> error result table: one row per exception class, looked up most specific first
(like Starlette's exception handlers). A business adds rows with `Business(error_map={OrderLocked: (40920, "...")})`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from ..deadlines import DeadlineExceeded, RequestCancelled
from ..downstream import DownstreamTimeout, DownstreamUnavailable, EgressRefused
from ..errors import StoreUnavailable, ToolFailure
from ..tools.context import SecretUnavailable
from ..tools.results import ResultCode
from ..tools.spec import ToolSpec
from .quotas import QuotaExceeded
from .rate_limits import RateLimited

# A business's own exception -> (result code, message the client sees) rows.
ErrorMap = Mapping[type[BaseException], tuple[int, str]]


def describe_validation_error(exc: ValidationError) -> str:
    """One clause per bad field, naming the field path (never echoing the value)."""
    clauses = []
    for error in exc.errors():
        path = ".".join(str(part) for part in error["loc"]) or "arguments"
        message = error["msg"]
        if error["type"] == "extra_forbidden":
            message = "unknown argument"
        clauses.append(f"{path}: {message}")
    return "; ".join(clauses)


@dataclass(frozen=True)
class ErrorRule:
    """How one kind of exception raised by (or while calling) a tool becomes a result and a log line."""

    code: int
    outcome: (
        str  # "invalid_arguments" | "rate_limited" | "quota_exceeded" | "system_error" | "business_error"
    )
    message: Callable[[ToolSpec, Any], str]
    log_level: str = "info"  # "exception" logs the stack too
    error_id: bool = False  # the client gets an id to quote; the log line carries the same id
    # Overrides of the code's retry advice that depend on the exception (the error builder's keyword arguments).
    advice: Callable[[Any], dict[str, Any]] = lambda exc: {}
    # Fields the log line adds to diagnose the exception (names and places, never values).
    log_fields: Callable[[Any], dict[str, Any]] = lambda exc: {}


def _internal_message(spec: ToolSpec, error_id: str) -> str:
    return f"Tool '{spec.name}' failed with an internal error (error id {error_id})."


def _retry_after(exc: Any) -> dict[str, Any]:
    # When the failure knows how long to wait (a rate window, an open circuit); otherwise the code's default.
    return {"retry_after_ms": exc.retry_after_ms} if exc.retry_after_ms is not None else {}


INTERNAL = ErrorRule(
    ResultCode.INTERNAL_ERROR, "system_error", _internal_message, log_level="exception", error_id=True
)
FRAMEWORK_ERRORS: dict[type[BaseException], ErrorRule] = {
    ValidationError: ErrorRule(
        ResultCode.INVALID_ARGUMENTS,
        "invalid_arguments",
        lambda spec, exc: f"Invalid arguments for tool '{spec.name}': {describe_validation_error(exc)}",
    ),
    SecretUnavailable: ErrorRule(
        ResultCode.SECRET_UNAVAILABLE,
        "system_error",
        lambda spec, exc: f"Tool '{spec.name}' cannot run: a required secret is {exc.reason}.",
        # An unreachable secret service may come back; a missing or unreadable secret needs a person.
        advice=lambda exc: {"retryable": True} if exc.reason == "unavailable" else {},
        # A person must fix it: say which secret and where it was looked for (the name, never a value).
        log_level="error",
        log_fields=lambda exc: {
            "secret_name": exc.name,
            "secret_reason": exc.reason,
            "looked_in": exc.looked_in,
        },
    ),
    RateLimited: ErrorRule(
        ResultCode.RATE_LIMITED,
        "rate_limited",
        lambda spec, exc: (
            f"Tool '{spec.name}' is called too often (at most {exc.limit} per caller); retry later."
        ),
        advice=_retry_after,
    ),
    QuotaExceeded: ErrorRule(
        ResultCode.RATE_LIMITED,
        "quota_exceeded",
        lambda spec, exc: (
            f"Tool '{spec.name}' has reached its quota ({exc.quota} per caller); retry when it resets in "
            f"{math.ceil(exc.retry_after_ms / 1000)} s."
        ),
        advice=lambda exc: {"retry_after_ms": exc.retry_after_ms, "fields": {"quota": exc.quota}},
        log_fields=lambda exc: {"quota": exc.quota},
    ),
    # The client cancelled the call while the tool waited on ctx.http: nobody reads this answer.
    RequestCancelled: ErrorRule(
        ResultCode.DEADLINE_EXCEEDED,
        "cancelled",
        lambda spec, exc: f"Tool '{spec.name}' stopped: the client cancelled the call.",
        log_level="info",
        advice=lambda exc: {"retryable": False, "suggested_action": "skip_and_continue"},
    ),
    # The deadline passed with the tool still running (cancelled if async, its thread abandoned if sync).
    DeadlineExceeded: ErrorRule(
        ResultCode.DEADLINE_EXCEEDED,
        "system_error",
        lambda spec, exc: f"Tool '{spec.name}' did not finish before the request deadline; retry later.",
        log_level="warning",
    ),
    DownstreamTimeout: ErrorRule(
        ResultCode.DEADLINE_EXCEEDED,
        "system_error",
        lambda spec, exc: (
            f"Tool '{spec.name}' got no answer in time from a service it depends on; retry later."
        ),
        log_level="warning",
    ),
    DownstreamUnavailable: ErrorRule(
        ResultCode.DOWNSTREAM_UNAVAILABLE,
        "system_error",
        lambda spec, exc: f"Tool '{spec.name}' cannot reach a service it depends on; retry later.",
        log_level="warning",
        advice=_retry_after,
    ),
    # A business's own table (a `DynamoDBTable` subclass) throttled or unreachable: the tool depends on it like on
    # a downstream service, and a retry after its Retry-After may succeed. (The framework's own stores never reach
    # here: the session, task and exactly-once stores answer before or around the tool.)
    StoreUnavailable: ErrorRule(
        ResultCode.DOWNSTREAM_UNAVAILABLE,
        "system_error",
        lambda spec, exc: f"Tool '{spec.name}' cannot reach a store it depends on; retry later.",
        log_level="warning",
        advice=lambda exc: {"retry_after_ms": max(0, int(exc.retry_after_seconds * 1000))},
        log_fields=lambda exc: {"store_error": str(exc)},
    ),
    # Refused before any connection (never retried): the business must declare the host, or nobody may reach it.
    EgressRefused: ErrorRule(
        ResultCode.EGRESS_REFUSED,
        "system_error",
        lambda spec, exc: f"Tool '{spec.name}' may not reach {exc.origin or 'that URL'}: {exc.reason_text}.",
        log_level="warning",
        log_fields=lambda exc: {"refused": exc.origin, "reason": exc.reason, "address": exc.address},
    ),
    Exception: INTERNAL,  # the catch-all: the exception text and stack never reach the client
}


class ToolCrashed(ToolFailure):
    """A tool running as a task failed with an unexpected exception: the task fails with a JSON-RPC internal
    error (already logged, with `error_id`) instead of completing with an error result."""

    def __init__(self, message: str, error_id: str | None) -> None:
        super().__init__(message)
        self.message = message
        self.error_id = error_id


def business_rule(code: int, message: str) -> ErrorRule:
    return ErrorRule(code, "business_error", lambda spec, exc: message)
