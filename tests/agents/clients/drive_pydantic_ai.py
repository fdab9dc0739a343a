"""Pydantic AI (`MCPToolset`, on FastMCP's client) running its own agent loop with a `FunctionModel`: the scripted
model reads each `ToolReturnPart` / `RetryPromptPart` as the agent renders it for a model.
Usage: python drive_pydantic_ai.py URL"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

from common import Script, emit, version_of
from pydantic_ai import Agent
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel


def play(script: Script, report: dict[str, Any]) -> Any:
    turn = 0

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        nonlocal turn
        turn += 1
        last = messages[-1]
        read: Any = None
        if isinstance(last, ModelRequest):
            for part in last.parts:
                if isinstance(part, ToolReturnPart):
                    read = part.model_response_str()
                elif isinstance(part, RetryPromptPart):
                    read = part.model_response()
                    report["error_surfaced"] = {"part": type(part).__name__, "content": part.content}
        call = script.next_call(read)
        if call is None:
            return ModelResponse(parts=[TextPart("done")])
        name, arguments = call
        return ModelResponse(parts=[ToolCallPart(name, arguments, tool_call_id=f"call_{turn}")])

    return model


async def main(url: str) -> dict[str, Any]:
    report: dict[str, Any] = {"versions": version_of("pydantic-ai-slim", "fastmcp", "mcp")}
    script = Script()
    toolset: MCPToolset[Any] = MCPToolset(url)
    agent = Agent(FunctionModel(play(script, report)), toolsets=[toolset], retries=2)
    async with agent:
        report["tools"] = [
            tool["name"] if isinstance(tool, dict) else tool.name
            for tool in await toolset.client.list_tools()
        ]
        result = await agent.run("Find me a cup and tell me when it gets cheaper; export my day.")
        report["final_output"] = result.output
    report["task_support"] = "see reads.task"
    return {**report, **script.report()}


if __name__ == "__main__":
    emit(asyncio.run(asyncio.wait_for(main(sys.argv[1]), timeout=60)))
