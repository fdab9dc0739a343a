"""A tiny business whose tools wait until the client cancels them: one watching `ctx.cancelled()`, one waiting
on a slow downstream through `ctx.http` (the tests of `notifications/cancelled`)."""

from __future__ import annotations

import threading
import time
from typing import Annotated, Any

from pydantic import Field

from mcp_lambda.tools import Business, ToolContext, ToolResult, execution_result, tool

STARTED = threading.Event()  # set once a tool is running, so a test cancels a call in flight
TARGET: dict[str, Any] = {"url": ""}


@tool(description="Use to wait until the call is cancelled, at most `seconds`.")
def wait_until_cancelled(seconds: Annotated[float, Field(gt=0, le=60)], ctx: ToolContext) -> ToolResult:
    STARTED.set()
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if ctx.cancelled():
            return execution_result({"success": False, "cancelled": True, "message": "stopped: cancelled"})
        time.sleep(0.05)
    return execution_result({"success": True, "cancelled": False, "message": "waited it out"})


@tool(description="Use to fetch from a slow service.")
def slow_fetch(ctx: ToolContext) -> ToolResult:
    STARTED.set()
    answer = ctx.http.get(f"{TARGET['url']}/slow", interface="slow.get")
    return execution_result({"success": True, "status": answer.status, "message": "fetched"})


CANCEL_BUSINESS = Business(name="cancelbiz", tools=[wait_until_cancelled, slow_fetch])
