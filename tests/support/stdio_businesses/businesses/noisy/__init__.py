"""A business whose tool writes to stdout every way a careless tool can: for the stdio tests only.

`tests/support/stdio_businesses` goes on the server's PYTHONPATH; `businesses` spans every such directory.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from mcp_lambda.tools import Business, ToolContext, ToolResult, execution_result, tool

NOISE = ("noise from print", "noise from sys.__stdout__", "noise from fd 1", "noise from a child process")


@tool(description="Use to test stdio hygiene: prints to stdout, reports progress and logs, then answers.")
def noisy(ctx: ToolContext) -> ToolResult:
    print(NOISE[0])
    if sys.__stdout__ is not None:
        sys.__stdout__.write(NOISE[1] + "\n")
        sys.__stdout__.flush()
    os.write(1, (NOISE[2] + "\n").encode())
    subprocess.run([sys.executable, "-c", f"print({NOISE[3]!r})"], check=True)
    ctx.report_progress(50, total=100)
    ctx.log("info", {"step": "halfway"})
    return execution_result({"quiet": True}, text="done")


@tool(description="Use to test that notifications stream: reports progress, then waits for release_file.")
def waits(release_file: str, ctx: ToolContext) -> ToolResult:
    ctx.report_progress(1, total=2, message="waiting")
    deadline = time.monotonic() + 20
    while not Path(release_file).exists() and time.monotonic() < deadline:
        time.sleep(0.02)
    released = Path(release_file).exists()
    ctx.log("info", {"released": released})
    return execution_result({"released": released}, text=f"released: {released}")


BUSINESS = Business(name="noisy", title="Noisy", version="1.0.0", tools=[noisy, waits])
