"""Daemon worker threads for blocking calls that may have to be abandoned at a deadline.

A sync tool, an AWS call or an outbound HTTP request runs on one of these threads while its caller waits at most
until the request's deadline; a call still running then is abandoned: its thread finishes it unobserved (in
Lambda, frozen between invocations) and its result is dropped.

Hand-written because the pools at hand keep an abandoned call's cost: concurrent.futures and anyio
join their non-daemon workers at interpreter exit, and a fixed-size pool lets hung calls starve the next one.
Here an idle thread is reused (a hand-off is cheaper than a new thread) and a busy one never blocks anyone.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from concurrent.futures import Executor, Future
from queue import SimpleQueue
from typing import Any, TypeVar

T = TypeVar("T")
MAX_IDLE_THREADS = 4
_Job = tuple[Future[Any], contextvars.Context, Callable[..., Any], tuple[Any, ...], dict[str, Any]]


class DaemonWorkers(Executor):
    """An Executor whose calls run on daemon threads, each in a copy of the submitter's context variables."""

    def __init__(self, max_idle: int = MAX_IDLE_THREADS) -> None:
        self.max_idle = max_idle
        self._idle: list[SimpleQueue[_Job]] = []
        self._lock = threading.Lock()

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        future: Future[T] = Future()
        with self._lock:
            inbox = self._idle.pop() if self._idle else None
        if inbox is None:
            inbox = SimpleQueue()
            threading.Thread(target=self._work, args=(inbox,), name="mcp-worker", daemon=True).start()
        inbox.put((future, contextvars.copy_context(), fn, args, kwargs))
        return future

    def _work(self, inbox: SimpleQueue[_Job]) -> None:
        while True:
            future, context, fn, args, kwargs = inbox.get()
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(context.run(fn, *args, **kwargs))
                except BaseException as exc:  # handed to whoever waits; nothing is raised on this thread
                    future.set_exception(exc)
            del future, context, fn, args, kwargs
            with self._lock:
                if len(self._idle) >= self.max_idle:
                    return  # enough spare threads already: this one ends
                self._idle.append(inbox)


WORKERS = DaemonWorkers()  # one per container


def call_within(timeout_seconds: float, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """`fn(*args, **kwargs)` on a worker thread; TimeoutError when it has not returned within the timeout."""
    return WORKERS.submit(fn, *args, **kwargs).result(timeout=max(0.0, timeout_seconds))
