"""The official MCP Python client (`mcp.Client`, mode "auto") as a host uses it: it hands its model each result's
text content. Usage: python drive_mcp.py URL"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from common import SAME_PLACE, Script, emit, version_of
from mcp import Client


async def main(url: str) -> dict[str, Any]:
    report: dict[str, Any] = {"versions": version_of("mcp"), "progress": []}
    script = Script()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        report["progress"].append([progress, total])

    async with Client(url) as client:
        report["protocol_version"] = client.protocol_version
        report["tools"] = [tool.name for tool in (await client.list_tools()).tools]
        output: Any = None
        while (call := script.next_call(output)) is not None:
            name, arguments = call
            result = await client.call_tool(name, arguments, progress_callback=on_progress)
            output = [{"text": block.text} for block in result.content if block.type == "text"]
            if arguments == SAME_PLACE:
                report["error_surfaced"] = {"is_error": result.is_error, **(result.structured_content or {})}
    report["task_support"] = "none: the call is answered synchronously"
    return {**report, **script.report()}


if __name__ == "__main__":
    emit(asyncio.run(asyncio.wait_for(main(sys.argv[1]), timeout=60)))
