"""A request is served inline until something in it needs the event loop (mcp_lambda/inline.py): the result, the
exceptions and the context are what `loop.run_until_complete` gives, and a business coroutine always runs as a
task of a running loop, through the Lambda handler too."""

from __future__ import annotations

import asyncio
import contextvars
import json
import logging
from collections.abc import Iterator
from typing import Any

import pytest
from tests.support.handlers import build_handler
from tests.support.wire import modern_headers, modern_request

from mcp_lambda.deadlines import Deadline, DeadlineExceeded, run_until
from mcp_lambda.inline import drive, loop_needed, never_waits
from mcp_lambda.tools import Business, ToolContext, ToolResult, execution_result, tool
from mcp_lambda_dev.local.events import LocalContext, http_event

SEEN: contextvars.ContextVar[str] = contextvars.ContextVar("test_inline_seen", default="unset")


@pytest.fixture()
def loop() -> Iterator[asyncio.AbstractEventLoop]:
    loop = asyncio.new_event_loop()
    yield loop
    loop.close()


def running() -> bool:
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def test_a_coroutine_that_never_waits_is_answered_without_the_loop(loop: asyncio.AbstractEventLoop) -> None:
    async def answer() -> tuple[bool, Any]:
        return running(), asyncio.current_task(loop) if running() else None

    assert drive(answer(), loop) == (False, None)


def test_after_loop_needed_the_rest_runs_as_a_task_of_the_running_loop(
    loop: asyncio.AbstractEventLoop,
) -> None:
    async def answer() -> dict[str, Any]:
        before = running()
        await loop_needed()
        task = asyncio.current_task()
        await asyncio.sleep(0)
        ready = asyncio.get_running_loop().create_future()
        asyncio.get_running_loop().call_soon(ready.set_result, 41)
        return {"before": before, "after": running(), "task": task is not None, "value": await ready + 1}

    assert drive(answer(), loop) == {"before": False, "after": True, "task": True, "value": 42}


def test_loop_needed_on_a_running_loop_does_nothing(loop: asyncio.AbstractEventLoop) -> None:
    async def answer() -> str:
        await loop_needed()
        await loop_needed()
        return "done"

    assert loop.run_until_complete(answer()) == "done"
    assert drive(answer(), loop) == "done"


def test_a_future_awaited_without_loop_needed_is_still_waited_for(loop: asyncio.AbstractEventLoop) -> None:
    asyncio.set_event_loop(loop)
    try:

        async def answer() -> int:
            ready = asyncio.get_event_loop().create_future()  # the thread's loop, not a running one
            loop.call_soon(ready.set_result, 7)
            return await ready

        assert drive(answer(), loop) == 7
    finally:
        asyncio.set_event_loop(None)


@pytest.mark.parametrize("waits", [False, True])
def test_an_exception_is_raised_as_the_loop_raises_it(loop: asyncio.AbstractEventLoop, waits: bool) -> None:
    async def answer() -> None:
        if waits:
            await loop_needed()
            await asyncio.sleep(0)
        raise LookupError("the answer failed")

    with pytest.raises(LookupError, match="the answer failed"):
        drive(answer(), loop)


@pytest.mark.parametrize("waits", [False, True])
def test_what_the_request_sets_in_its_context_stays_in_the_request(
    loop: asyncio.AbstractEventLoop, waits: bool
) -> None:
    async def answer() -> str:
        SEEN.set("set inline")
        if waits:
            await loop_needed()
            assert SEEN.get() == "set inline"  # the task goes on in the same context
            SEEN.set("set on the loop")
            await asyncio.sleep(0)
        return SEEN.get()

    assert drive(answer(), loop) == ("set on the loop" if waits else "set inline")
    assert SEEN.get() == "unset"


@tool(description="Use to test the inline path: an async tool that reports its task and loop, then waits.")
async def reports_its_loop(ctx: ToolContext) -> ToolResult:
    task = asyncio.current_task()
    await asyncio.sleep(0)
    return execution_result({"task": task is not None, "running": running(), "seen": SEEN.get()})


@tool(description="Use to test the inline path: a sync tool that answers at once.")
def answers_at_once(ctx: ToolContext) -> ToolResult:
    return execution_result({"answered": True})


def call(handler: Any, name: str) -> dict[str, Any]:
    body = modern_request("tools/call", {"name": name, "arguments": {}})
    headers = {"host": "localhost", "content-type": "application/json", **modern_headers("tools/call", name)}
    response = handler(http_event("POST", "/mcp", headers, json.dumps(body)), LocalContext())
    assert response["statusCode"] == 200, response
    return json.loads(response["body"])["result"]["structuredContent"]  # type: ignore[no-any-return]


def test_through_the_handler_an_async_tool_runs_on_the_loop_and_a_sync_one_answers() -> None:
    handler = build_handler(Business(name="inline", tools=[reports_its_loop, answers_at_once]))
    for _ in range(2):  # and again on the same container
        assert call(handler, "reports_its_loop") == {"task": True, "running": True, "seen": "unset"}
        assert call(handler, "answers_at_once") == {"answered": True}


@tool(
    description="Use to test the inline path: an async tool that only computes, reporting whether a loop runs."
)
async def only_computes(ctx: ToolContext) -> ToolResult:
    return execution_result({"running": running(), "seen": SEEN.get()})


def test_through_the_handler_an_async_tool_that_never_waits_runs_without_the_loop() -> None:
    assert only_computes.one_step and not reports_its_loop.one_step and not answers_at_once.one_step
    handler = build_handler(Business(name="inline", tools=[only_computes, reports_its_loop]))
    for _ in range(2):
        assert call(handler, "only_computes") == {"running": False, "seen": "unset"}
        assert call(handler, "reports_its_loop") == {"task": True, "running": True, "seen": "unset"}


async def _computes(value: int) -> int:
    return sum(range(value)) + len([v for v in range(3)])


async def _awaits(value: int) -> int:
    await asyncio.sleep(0)
    return value


async def _iterates(values: Any) -> int:
    return sum([v async for v in values])


async def _enters(lock: Any) -> int:
    async with lock:
        return 1


async def _awaits_in_a_comprehension(values: list[Any]) -> list[Any]:
    return [await v for v in values]


async def _reaches_for_the_loop() -> Any:
    return asyncio.get_running_loop()


async def _names_the_task() -> Any:
    from asyncio import current_task

    return current_task()


async def _starts_a_task(factory: Any) -> Any:
    return [f.create_task(factory()) for f in (factory,)]  # in a comprehension: a nested code object


def _plain(value: int) -> int:
    return value


@pytest.mark.parametrize(
    ("function", "expected"),
    [
        (_computes, True),
        (only_computes.fn, True),
        (_awaits, False),
        (_iterates, False),
        (_enters, False),
        (_awaits_in_a_comprehension, False),
        (_reaches_for_the_loop, False),
        (_names_the_task, False),
        (_starts_a_task, False),
        (_plain, False),
        (reports_its_loop.fn, False),
        (lambda: _computes(1), False),  # returns a coroutine, but is not one: what it returns may wait
        (contextvars.copy_context().run, False),
    ],
)
def test_never_waits_vouches_only_for_an_async_def_without_await_or_the_loop(
    function: Any, expected: bool
) -> None:
    assert never_waits(function) is expected


def test_a_coroutine_run_as_one_step_that_waits_after_all_goes_onto_the_loop(
    loop: asyncio.AbstractEventLoop,
) -> None:
    async def answer() -> tuple[bool, bool, int]:
        before = running()
        value = await run_until(Deadline.after_ms(60_000), lambda: _awaits(5), may_wait=False)
        return before, running(), value

    assert drive(answer(), loop) == (False, True, 5)


def test_a_one_step_coroutine_gets_no_start_after_the_deadline(loop: asyncio.AbstractEventLoop) -> None:
    started: list[int] = []

    async def work() -> int:
        started.append(1)
        return 1

    async def answer() -> int:
        return await run_until(Deadline.after_ms(-1), work, may_wait=False)

    with pytest.raises(DeadlineExceeded):
        drive(answer(), loop)
    assert started == []


def _the_running_loop() -> Any:
    return asyncio.get_running_loop()  # a helper: the tool that calls it never names the loop itself


@tool(description="Use to test the inline path: an async tool that reaches the loop only through a helper.")
async def reaches_through_a_helper(ctx: ToolContext) -> ToolResult:
    return execution_result({"loop": repr(_the_running_loop())})


def test_a_one_step_tool_that_reaches_the_loop_through_a_helper_fails_with_a_hint(
    caplog: pytest.LogCaptureFixture,
) -> None:
    assert reaches_through_a_helper.one_step
    handler = build_handler(Business(name="inline", tools=[reaches_through_a_helper]))
    body = modern_request("tools/call", {"name": "reaches_through_a_helper", "arguments": {}})
    headers = {
        "host": "localhost",
        "content-type": "application/json",
        **modern_headers("tools/call", "reaches_through_a_helper"),
    }
    with caplog.at_level(logging.INFO):
        response = handler(http_event("POST", "/mcp", headers, json.dumps(body)), LocalContext())
    result = json.loads(response["body"])["result"]
    assert result["isError"] and result["structuredContent"]["code"] == 50000
    failed = [r for r in caplog.records if getattr(r, "event", None) == "mcp_tool_call_failed"]
    assert len(failed) == 1 and "ran as one step without the event loop" in failed[0].hint  # type: ignore[attr-defined]
