"""LangChain (`langchain-mcp-adapters`' `MultiServerMCPClient`): each tool is invoked with a tool call, as an agent
loop does, and the model reads the `ToolMessage`'s content (structured content goes to its `artifact`, which a
model never sees). Usage: python drive_langchain.py URL"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from common import SAME_PLACE, Script, emit, version_of
from langchain_core.messages import ToolMessage
from langchain_mcp_adapters.callbacks import Callbacks
from langchain_mcp_adapters.client import MultiServerMCPClient


async def main(url: str) -> dict[str, Any]:
    report: dict[str, Any] = {
        "versions": version_of("langchain-mcp-adapters", "langchain-core", "mcp"),
        "progress": [],
    }
    script = Script()

    async def on_progress(progress: float, total: float | None, message: str | None, context: Any) -> None:
        report["progress"].append([progress, total])

    client = MultiServerMCPClient(
        {"demo": {"url": url, "transport": "streamable_http"}}, callbacks=Callbacks(on_progress=on_progress)
    )
    tools = {tool.name: tool for tool in await client.get_tools()}
    report["tools"] = list(tools)
    output: Any = None
    turn = 0
    while (call := script.next_call(output)) is not None:
        name, arguments = call
        turn += 1
        message = await tools[name].ainvoke(
            {"type": "tool_call", "id": f"call_{turn}", "name": name, "args": arguments}
        )
        assert isinstance(message, ToolMessage), message
        output = message.content
        if arguments == SAME_PLACE:
            report["error_surfaced"] = {"status": message.status, "artifact": message.artifact}
    report["task_support"] = "none: the call is answered synchronously"
    return {**report, **script.report()}


if __name__ == "__main__":
    emit(asyncio.run(asyncio.wait_for(main(sys.argv[1]), timeout=60)))
