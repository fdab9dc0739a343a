"""OpenAI Agents (`MCPServerStreamableHttp`, its default `use_structured_content=False`) running its own agent loop
with a scripted `Model`: the model reads each `function_call_output` the Runner hands it, nothing else.
Usage: python drive_openai_agents.py URL"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

from agents.items import ModelResponse
from agents.mcp import MCPServerStreamableHttp
from agents.models.interface import Model
from agents.usage import Usage
from common import SAME_PLACE, Script, emit, version_of
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage, ResponseOutputText

from agents import Agent, Runner, set_tracing_disabled


class ScriptedModel(Model):
    """A `Model` that plays the script: each turn it reads the last tool output in its input and calls on."""

    def __init__(self, script: Script) -> None:
        self.script = script
        self.turn = 0

    async def get_response(
        self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any
    ) -> ModelResponse:
        self.turn += 1
        outputs = [
            item for item in input if isinstance(item, dict) and item.get("type") == "function_call_output"
        ]
        call = self.script.next_call(outputs[-1]["output"] if outputs else None)
        if call is None:
            text = ResponseOutputText(type="output_text", text="done", annotations=[])
            message = ResponseOutputMessage(
                id=f"msg_{self.turn}", type="message", role="assistant", status="completed", content=[text]
            )
            return ModelResponse(output=[message], usage=Usage(), response_id=None)
        name, arguments = call
        tool_call = ResponseFunctionToolCall(
            type="function_call",
            id=f"fc_{self.turn}",
            call_id=f"call_{self.turn}",
            name=name,
            arguments=json.dumps(arguments),
            status="completed",
        )
        return ModelResponse(output=[tool_call], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError("the suite runs the agent without streaming")


async def main(url: str) -> dict[str, Any]:
    set_tracing_disabled(True)
    report: dict[str, Any] = {"versions": version_of("openai-agents", "mcp")}
    script = Script()

    def keep_error(context: Any) -> None:  # what the app (not the model) can read of a result
        if dict(context.arguments) == SAME_PLACE:
            report["error_surfaced"] = {
                "is_error": context.is_error,
                **dict(context.structured_content or {}),
            }

    server = MCPServerStreamableHttp(
        params={"url": url}, name="demo", client_session_timeout_seconds=30, custom_data_extractor=keep_error
    )
    async with server:
        report["tools"] = [tool.name for tool in await server.list_tools()]
        agent = Agent(
            name="shopper", instructions="Use the tools.", model=ScriptedModel(script), mcp_servers=[server]
        )
        result = await Runner.run(agent, "Find me a cup and tell me when it gets cheaper; export my day.")
        report["final_output"] = result.final_output
    report["task_support"] = (
        "none: the call is answered synchronously (no progress callback in the agent loop)"
    )
    return {**report, **script.report()}


if __name__ == "__main__":
    emit(asyncio.run(asyncio.wait_for(main(sys.argv[1]), timeout=60)))
