"""FastMCP's `Client` as a host uses it: the model gets each result's text content; an error result raises
`ToolError` (call_tool's default), whose message is what the host can show. Usage: python drive_fastmcp.py URL"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from common import SAME_PLACE, Script, emit, version_of
from fastmcp import Client
from fastmcp.exceptions import ToolError


async def main(url: str) -> dict[str, Any]:
    report: dict[str, Any] = {"versions": version_of("fastmcp", "mcp"), "progress": []}
    script = Script()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        report["progress"].append([progress, total])

    async with Client(url) as client:
        report["tools"] = [tool.name for tool in await client.list_tools()]
        output: Any = None
        while (call := script.next_call(output)) is not None:
            name, arguments = call
            try:
                result = await client.call_tool(name, arguments, progress_handler=on_progress)
            except ToolError as error:  # the default: an error result raises, with the text as its message
                output = str(error)
                raw = await client.call_tool(name, arguments, raise_on_error=False)
                report["error_surfaced"] = {
                    "raised": type(error).__name__,
                    "is_error": raw.is_error,
                    **(raw.structured_content or {}),
                }
                continue
            output = [{"text": block.text} for block in result.content if block.type == "text"]
            if arguments == SAME_PLACE:
                report["error_surfaced"] = {"raised": None, "is_error": result.is_error}
    report["task_support"] = "none for this server's 2026-07-28 tasks extension: answered synchronously"
    return {**report, **script.report()}


if __name__ == "__main__":
    emit(asyncio.run(asyncio.wait_for(main(sys.argv[1]), timeout=60)))
