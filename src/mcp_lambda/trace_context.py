"""The caller's W3C trace context (SEP-414: `traceparent` / `tracestate` in `params._meta`, or the HTTP headers).

The protocol reads it once per request (`parse`, only when a value is present); the executor makes it current for
the tool call (`active`), so its trace id is on the call's log lines, and `ctx.http` sends each downstream request
`current().child().headers()`: the same trace id and flags, a new parent id, the caller's `tracestate` (SEP-2028's
default for the trace-context group). A value that is not valid W3C Trace Context is ignored, never an error.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

# version-trace_id-parent_id-flags; a future version may append fields, version 00 may not (W3C §3.2.4).
_TRACEPARENT = re.compile(r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-[\x21-\x7e]*)?")
# One list member: key=value (W3C §3.3.1), keys lower-case, values printable ASCII without ',' and '='.
_TRACESTATE = re.compile(
    r"[a-z0-9][a-z0-9_\-*/@]{0,255}=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]"
    r"(?:[ \t]*,[ \t]*[a-z0-9][a-z0-9_\-*/@]{0,255}=[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e])*"
)
# SEP-2028 §3.1 bounds a forwarded value at 256 characters; W3C asks that 512 of tracestate be kept.
MAX_TRACEPARENT = 256
MAX_TRACESTATE = 512
_ZERO_TRACE = "0" * 32
_ZERO_SPAN = "0" * 16


@dataclass(frozen=True)
class TraceContext:
    """A validated trace context: the trace it belongs to, the parent span, its flags and vendor state.

    Attributes:
        trace_id: 32 lower-case hex digits, not all zero (what the log lines carry as `trace_id`).
        parent_id: The caller's span, 16 lower-case hex digits, not all zero.
        flags: Two hex digits (`01`: sampled).
        tracestate: The caller's `tracestate`, when it sent a valid one.
    """

    trace_id: str
    parent_id: str
    flags: str = "01"
    tracestate: str | None = None

    @property
    def traceparent(self) -> str:
        """This context as a version-00 `traceparent` value."""
        return f"00-{self.trace_id}-{self.parent_id}-{self.flags}"

    def child(self) -> TraceContext:
        """A new span of the same trace, whose parent is this one (for one downstream request).

        Returns:
            The same trace id, flags and tracestate, with a fresh random parent id.
        """
        span = secrets.token_hex(8)
        while span == _ZERO_SPAN:  # pragma: no cover - one chance in 2**64
            span = secrets.token_hex(8)
        return TraceContext(self.trace_id, span, self.flags, self.tracestate)

    def headers(self) -> dict[str, str]:
        """The HTTP headers that carry this context.

        Returns:
            `traceparent`, and `tracestate` when there is one.
        """
        found = {"traceparent": self.traceparent}
        if self.tracestate:
            found["tracestate"] = self.tracestate
        return found


def parse(traceparent: object, tracestate: object = None) -> TraceContext | None:
    """The trace context of a `traceparent` (and `tracestate`) value, or None when it is not valid.

    Args:
        traceparent: The value as received (any JSON value from `_meta`, or a header string).
        tracestate: The `tracestate` value as received; an invalid one is dropped, the traceparent kept.

    Returns:
        The context, or None for anything but a W3C traceparent (wrong shape, upper-case hex, all-zero ids,
        version ff, more than 256 characters, non-ASCII).
    """
    if not isinstance(traceparent, str) or len(traceparent) > MAX_TRACEPARENT or not traceparent.isascii():
        return None
    match = _TRACEPARENT.fullmatch(traceparent)
    if match is None:
        return None
    version, trace_id, parent_id, flags, rest = match.groups()
    if version == "ff" or (version == "00" and rest is not None):
        return None
    if trace_id == _ZERO_TRACE or parent_id == _ZERO_SPAN:
        return None
    return TraceContext(trace_id, parent_id, flags, _valid_tracestate(tracestate))


def _valid_tracestate(value: object) -> str | None:
    if not isinstance(value, str) or not value or len(value) > MAX_TRACESTATE or not value.isascii():
        return None
    value = value.strip(" \t")
    return value if _TRACESTATE.fullmatch(value) else None


_CURRENT: ContextVar[TraceContext | None] = ContextVar("mcp_lambda_trace_context", default=None)


def current() -> TraceContext | None:
    """The trace context of the tool call being run (None outside one, or when the caller sent none)."""
    return _CURRENT.get()


@contextmanager
def active(trace: TraceContext | None) -> Iterator[TraceContext | None]:
    """Make `trace` the current context for the duration of the block (one tool call)."""
    token = _CURRENT.set(trace)
    try:
        yield trace
    finally:
        _CURRENT.reset(token)
