"""Serving a request's coroutine without the event loop, until something in it needs the loop.

The framework's own request path never waits on the loop: its stores and clients are synchronous, and a sync
tool runs on a worker thread. Only a business's coroutine (an `async def` tool, resource, prompt or hook) may
wait, and every one of them starts through `deadlines.run_until`, which first awaits `loop_needed()` (but for an
`async def` tool that `never_waits` vouches cannot suspend or reach the loop). So a request is driven inline
(`drive`): its steps run in the caller's thread, in a copy of its context as a task would run them, and a request
that reaches `loop_needed()` goes on as a task of the loop from exactly there. What the loop would add to a
request that never waits (a task, the loop's start and stop, two selector polls) is left out: docs/performance.md
has the figures.
"""

from __future__ import annotations

import asyncio
import contextvars
import dis
import inspect
import types
from collections.abc import Callable, Coroutine, Generator
from typing import Any, TypeVar

T = TypeVar("T")

# What `loop_needed()` yields to `drive` while a request is served inline: "go on as a task from here".
_ONTO_THE_LOOP = object()
# True in a request's context while `drive` serves it inline (a context variable: read without an exception).
_INLINE: contextvars.ContextVar[bool] = contextvars.ContextVar("mcp_lambda_inline", default=False)
# The instructions an `async def` suspends through (`await`, `async for`, `async with`: each ends in YIELD_VALUE,
# the others are their first steps, listed so that no Python version's spelling of one is missed).
_SUSPENDING = frozenset(
    {"YIELD_VALUE", "YIELD_FROM", "SEND", "GET_AWAITABLE", "GET_ANEXT", "BEFORE_ASYNC_WITH"}
)
# The names an `async def` would use to reach the running loop or its task without awaiting (any reference to
# asyncio itself included): such a function needs the loop even in a step that never waits.
_LOOP_NAMES = frozenset(
    {
        "asyncio",
        "anyio",
        "trio",
        "get_running_loop",
        "get_event_loop",
        "current_task",
        "all_tasks",
        "create_task",
        "ensure_future",
        "run_coroutine_threadsafe",
        "run_in_executor",
        "call_soon",
        "call_soon_threadsafe",
        "call_later",
        "call_at",
        "create_future",
        "TaskGroup",
        "to_thread",
        "timeout",
        "timeout_at",
    }
)


@types.coroutine
def loop_needed() -> Generator[Any, Any, None]:
    """Await this before a step that may need a running loop (a business's coroutine).

    Served inline by `drive`, the request moves onto the loop here; anywhere else (on a running loop), it does
    nothing.
    """
    if _INLINE.get():
        yield _ONTO_THE_LOOP


def never_waits(function: Callable[..., Any]) -> bool:
    """Whether `function` is an `async def` that runs to its end in one step, needing no event loop: it has no
    `await`, `async for` or `async with` (so it cannot suspend), and names nothing that reaches the running loop or
    its task (`asyncio`, `get_running_loop`, `create_task`, ...; a nested function or comprehension counted).

    A business's coroutine started through `deadlines.run_until` may then skip `loop_needed()`: served inline, a
    tool that only computes never starts the loop.

    Args:
        function: A tool's function (read once, when `@tool` makes its `ToolSpec`).

    Returns:
        True only for such an `async def`; False for anything else (another callable, a wrapper, a function that
        awaits or names the loop).
    """
    if not (inspect.isfunction(function) and inspect.iscoroutinefunction(function)):
        return False
    code = function.__code__
    if any(instruction.opname in _SUSPENDING for instruction in dis.get_instructions(code)):
        return False
    return not _names_the_loop(code)


def _names_the_loop(code: types.CodeType) -> bool:
    if not _LOOP_NAMES.isdisjoint(code.co_names) or not _LOOP_NAMES.isdisjoint(code.co_freevars):
        return True
    return any(_names_the_loop(const) for const in code.co_consts if isinstance(const, types.CodeType))


def drive(coroutine: Coroutine[Any, Any, T], loop: asyncio.AbstractEventLoop) -> T:
    """Run `coroutine` to its end and return its result (or raise its exception), as
    `loop.run_until_complete` would: inline while it never waits, as a task of `loop` from its first wait.

    Args:
        coroutine: The request's coroutine, not started.
        loop: The loop to go on with if the coroutine waits (not running).

    Returns:
        What the coroutine returns.
    """
    context = contextvars.copy_context()  # as a task runs its steps: what they set stays in the request
    context.run(_INLINE.set, True)
    try:
        waiting_on = context.run(coroutine.send, None)
    except StopIteration as done:
        return done.value
    task = loop.create_task(_continued(coroutine, waiting_on, loop), context=context)
    while not task.done():  # (only a loop.stop() of the request's own would end a run before its last step)
        loop.run_forever()
    return task.result()


def _continued(
    coroutine: Coroutine[Any, Any, T], waiting_on: Any, loop: asyncio.AbstractEventLoop
) -> Coroutine[Any, Any, T]:
    """The rest of `coroutine`, which has stopped at `loop_needed()` or on a future, as a coroutine for a task of
    `loop` that stops the loop in its last step (`run_until_complete` would run the loop once more to stop it)."""

    async def rest() -> T:
        try:
            _INLINE.set(False)  # in the request's context, which the task runs in
            # Either `loop_needed()`'s marker or a future awaited without it first (one made with
            # `get_event_loop()`), which the task waits on.
            next_wait = waiting_on
            if waiting_on is _ONTO_THE_LOOP:  # `loop_needed()` returns, now on the loop
                try:
                    next_wait = coroutine.send(None)
                except StopIteration as done:
                    return done.value
            return await resumed(coroutine, next_wait)
        finally:
            loop.stop()

    return rest()


@types.coroutine
def resumed(
    steps: Generator[Any, Any, Any] | Coroutine[Any, Any, Any], waiting_on: Any
) -> Generator[Any, Any, Any]:
    """The rest of an awaitable that has taken its first step and is waiting on `waiting_on`: what `await`
    (`yield from`, PEP 380) does from there, passing the task's wake-ups, throws and close to it."""
    while True:
        try:
            sent = yield waiting_on
        except GeneratorExit:
            steps.close()
            raise
        except BaseException as exc:  # a cancellation (the deadline), or whatever the task throws in
            try:
                waiting_on = steps.throw(exc)
            except StopIteration as done:
                return done.value
        else:
            try:
                waiting_on = steps.send(sent)
            except StopIteration as done:
                return done.value
