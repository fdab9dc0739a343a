"""The deadline of one invocation: when the answer must be on its way, whatever is still running.

The transport sets it for the whole request (the earlier of the Lambda context's remaining time and
`REQUEST_DEADLINE_MS`, less `DEADLINE_MARGIN_MS` for answering) in a context variable, the way the Logger keeps
its correlation id; every client the framework calls through (sessions, secrets, `ctx.http`, the platform client)
caps its timeouts by `current()`, and tools see the same value as `ctx.deadline` / `ctx.remaining_ms()`.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Awaitable, Callable
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, TypeVar

from .errors import ToolFailure
from .inline import loop_needed, resumed
from .scoped import Scoped
from .workers import WORKERS

T = TypeVar("T")


class DeadlineExceeded(ToolFailure):
    """The request's deadline passed before the work finished (the work itself may still be running)."""


class RequestCancelled(DeadlineExceeded):
    """The client cancelled the request (`notifications/cancelled`, `tasks/cancel`) while the work waited."""


@dataclass(frozen=True)
class Deadline:
    """A point on the monotonic clock (`time.monotonic()`); `math.inf` means none."""

    at: float = math.inf

    @classmethod
    def after_ms(cls, milliseconds: float) -> Deadline:
        return cls(time.monotonic() + max(0.0, milliseconds) / 1000)

    def remaining_seconds(self) -> float:
        return max(0.0, self.at - time.monotonic())

    def remaining_ms(self) -> int:
        """Whole milliseconds left (0 once passed); a large number when there is no deadline."""
        remaining = self.remaining_seconds()
        return int(remaining * 1000) if math.isfinite(remaining) else 2**31 - 1

    @property
    def expired(self) -> bool:
        return time.monotonic() >= self.at

    def cap(self, seconds: float) -> float:
        """`seconds`, or less when the deadline comes sooner."""
        return min(seconds, self.remaining_seconds())


NO_DEADLINE = Deadline()
_CURRENT: ContextVar[Deadline] = ContextVar("mcp_lambda_deadline", default=NO_DEADLINE)
# Whether the client has cancelled the request being served (None: it cannot, or nobody asks).
_CANCELLED: ContextVar[Callable[[], bool] | None] = ContextVar("mcp_lambda_cancelled", default=None)
# How often a wait asks whether the request was cancelled (each ask may read a store).
CANCEL_CHECK_SECONDS = 0.5


def current() -> Deadline:
    """The deadline of the request being served (NO_DEADLINE outside one)."""
    return _CURRENT.get()


def active(deadline: Deadline) -> Scoped[Deadline]:
    """Make `deadline` the current one for the duration of the `with` block (one request)."""
    return Scoped(_CURRENT, deadline)


def cancellable(probe: Callable[[], bool] | None) -> Scoped[Callable[[], bool] | None]:
    """Make `probe` (true once the client cancelled) the current request's for the duration of the `with` block, so
    the waits of the clients called meanwhile (`ctx.http`) stop as soon as it says so."""
    return Scoped(_CANCELLED, probe)


def call_within(timeout_seconds: float, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)` on a daemon worker thread, waited for at most `timeout_seconds` (TimeoutError),
    and no longer once the current request is cancelled (RequestCancelled; the thread is abandoned)."""
    future = WORKERS.submit(fn, *args, **kwargs)
    probe = _CANCELLED.get()
    if probe is None:
        return future.result(timeout=max(0.0, timeout_seconds))
    end = time.monotonic() + max(0.0, timeout_seconds)
    while True:
        if probe():
            raise RequestCancelled("the client cancelled the request while it waited")
        try:
            return future.result(timeout=max(0.0, min(end - time.monotonic(), CANCEL_CHECK_SECONDS)))
        except TimeoutError:
            if future.done() or time.monotonic() >= end:
                return future.result(timeout=0)


def request_deadline(lambda_remaining_ms: float | None, request_deadline_ms: int, margin_ms: int) -> Deadline:
    """The earlier of the Lambda context's remaining time and `request_deadline_ms`, less the answer margin."""
    budget = float(request_deadline_ms)
    if lambda_remaining_ms is not None:
        budget = min(budget, lambda_remaining_ms)
    return Deadline.after_ms(budget - margin_ms)


async def run_until(deadline: Deadline, start: Callable[[], Awaitable[T]], *, may_wait: bool = True) -> T:
    """Await `start()`, cancelling it at the deadline (DeadlineExceeded); nothing starts once it has passed.

    Its first step runs at once, as `await` would run it: most tools never wait on anything, and one that
    finishes there needs no timer (arming and cancelling the loop's timer is most of this function's cost
    otherwise). Only one that waits goes on under `asyncio.timeout`, which can cancel it only while it waits.

    Args:
        deadline: When to give up.
        start: Makes the awaitable (a business's coroutine).
        may_wait: False for a coroutine `inline.never_waits` vouches for: a request served inline runs it
            without the event loop (it would go onto the loop only if it waited after all).
    """
    if deadline.expired:
        raise DeadlineExceeded("the request deadline has passed")
    if may_wait:
        await loop_needed()  # a request served inline (inline.drive) goes onto the loop here
    steps = start().__await__()
    try:
        waiting_on = steps.send(None)
    except StopIteration as done:
        return done.value
    await loop_needed()  # (only if it waits after all: onto the loop before the timer, which needs its task)
    remaining = deadline.remaining_seconds()
    try:
        async with asyncio.timeout(remaining if math.isfinite(remaining) else None) as scope:
            return await resumed(steps, waiting_on)
    except TimeoutError:
        if scope.expired():  # our timeout, not one the work raised itself
            raise DeadlineExceeded("the request deadline passed before the work finished") from None
        raise


def run_blocking_until(deadline: Deadline, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)` on a daemon worker thread, waited for at most until the deadline (DeadlineExceeded;
    the thread is abandoned, its result dropped); nothing starts once the deadline has passed.

    The caller's thread waits on the call's future itself instead of awaiting it: on an event loop that serves one
    request (Mangum, stdio) nothing else could run meanwhile, and the loop's wake-up (the future's callback, the
    loop's self-pipe, its selector) would only add to every sync tool call (docs/performance.md).
    """
    if deadline.expired:
        raise DeadlineExceeded("the request deadline has passed")
    future = WORKERS.submit(fn, *args, **kwargs)
    remaining = deadline.remaining_seconds()
    try:
        return future.result(timeout=remaining if math.isfinite(remaining) else None)
    except TimeoutError:
        if future.done():  # the call's own TimeoutError, or it finished just as the wait gave up
            return future.result()
        raise DeadlineExceeded("the request deadline passed before the work finished") from None
