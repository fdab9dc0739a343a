"""What every error tells an agent about retrying: `retry_after_ms`, and for a retryable one `retry_strategy`.

Shared by a tool's error results (`business_error`, `system_error`) and the JSON-RPC errors the protocol layer
refuses a request with (a store down, an overload): the same fields, so an agent reads one shape (docs/errors.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

# What an agent should do about an error (docs/errors.md): route on this, not on the message.
SUGGESTED_ACTIONS = ("fix_arguments", "ask_user", "wait_and_retry", "skip_and_continue", "escalate_to_human")
DEFAULT_RETRY_AFTER_MS = 1000
# The backoff an agent is told to follow when it retries (`retry_strategy`): doubling from the first wait.
BACKOFF_MAX_MS = 30_000
BACKOFF_ATTEMPTS = 5


@dataclass(frozen=True)
class RetryStrategy:
    """How an agent should space its retries of a retryable error (`structuredContent.retry_strategy`).

    `exponential_backoff`: wait `base_ms`, then twice as long each time, never more than `max_ms`, at most
    `attempts` tries; `fixed`: wait `base_ms` each time.

    Args:
        base_ms: The first wait (an int >= 0).
        max_ms: The longest wait (an int >= base_ms).
        attempts: The most retries worth making (an int >= 1).
        kind: `exponential_backoff` or `fixed`.
    """

    base_ms: int
    max_ms: int
    attempts: int = BACKOFF_ATTEMPTS
    kind: Literal["exponential_backoff", "fixed"] = "exponential_backoff"

    def __post_init__(self) -> None:
        if self.kind not in ("exponential_backoff", "fixed"):
            raise ValueError("retry_strategy kind must be 'exponential_backoff' or 'fixed'")
        for name in ("base_ms", "max_ms", "attempts"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"retry_strategy {name} must be an integer >= 0")
        if self.max_ms < self.base_ms or self.attempts < 1:
            raise ValueError("retry_strategy needs max_ms >= base_ms and attempts >= 1")

    @classmethod
    def backoff_from(cls, retry_after_ms: int) -> RetryStrategy:
        """The default: exponential backoff from the first wait (1000 ms when none is known), up to 30 s."""
        base = retry_after_ms or DEFAULT_RETRY_AFTER_MS
        return cls(base_ms=base, max_ms=max(base, BACKOFF_MAX_MS))

    def to_wire(self) -> dict[str, Any]:
        """`{"kind", "base_ms", "max_ms", "attempts"}`."""
        return {"kind": self.kind, "base_ms": self.base_ms, "max_ms": self.max_ms, "attempts": self.attempts}


def retry_hints(
    retryable: bool, retry_after_ms: int | None = None, strategy: RetryStrategy | None = None
) -> dict[str, Any]:
    """The retry fields every error carries, in a tool result or a JSON-RPC error's `data`.

    Args:
        retryable: Whether the same call may succeed later.
        retry_after_ms: How long to wait first; default 1000 when retryable, 0 when not.
        strategy: The backoff; default `RetryStrategy.backoff_from(retry_after_ms)` when retryable.

    Returns:
        `{"retryable", "retry_after_ms", "retry_strategy"?}` (the strategy only when retryable).
    """
    if retry_after_ms is not None and (
        isinstance(retry_after_ms, bool) or not isinstance(retry_after_ms, int) or retry_after_ms < 0
    ):
        raise ValueError("retry_after_ms must be an integer >= 0")
    if retry_after_ms is None:
        retry_after_ms = DEFAULT_RETRY_AFTER_MS if retryable else 0
    hints: dict[str, Any] = {"retryable": retryable, "retry_after_ms": retry_after_ms}
    if retryable:
        hints["retry_strategy"] = (strategy or RetryStrategy.backoff_from(retry_after_ms)).to_wire()
    return hints
