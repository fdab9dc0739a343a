"""Prompt and completion fixtures (prompts-*, completion-complete, input-required-result-non-tool-request)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from mcp_lambda.tools import InputRequired, ToolContext, elicit, input_required, prompt, user

from .media import PNG_BASE64


@prompt(description="A simple prompt without arguments.")
def test_simple_prompt() -> list[dict[str, Any]]:
    return [user("This is a simple prompt for testing.")]


@prompt(description="A prompt with two required arguments.")
def test_prompt_with_arguments(
    arg1: Annotated[str, Field(description="First test argument")],
    arg2: Annotated[str, Field(description="Second test argument")],
) -> list[dict[str, Any]]:
    return [user(f"Prompt with arguments: arg1='{arg1}', arg2='{arg2}'")]


@prompt(description="A prompt that embeds a resource.")
def test_prompt_with_embedded_resource(
    resourceUri: Annotated[str, Field(description="URI of the resource to embed")],
) -> list[dict[str, Any]]:
    return [
        user(
            {
                "type": "resource",
                "resource": {
                    "uri": resourceUri,
                    "mimeType": "text/plain",
                    "text": "Embedded resource content for testing.",
                },
            }
        ),
        user("Please process the embedded resource above."),
    ]


@prompt(description="A prompt with an image.")
def test_prompt_with_image() -> list[dict[str, Any]]:
    return [
        user({"type": "image", "data": PNG_BASE64, "mimeType": "image/png"}),
        user("Please analyze the image above."),
    ]


@prompt(description="A prompt that first asks the user for context (input_required).")
def test_input_required_result_prompt(ctx: ToolContext) -> list[dict[str, Any]] | InputRequired:
    answer = ctx.input_responses.get("user_context")
    if not isinstance(answer, dict):
        return input_required(
            user_context=elicit(
                "What context should the prompt use?", {"context": {"type": "string"}}, ["context"]
            )
        )
    context = (answer.get("content") or {}).get("context", "")
    return [user(f"Use this context: {context}")]


PROMPTS = [
    test_simple_prompt,
    test_prompt_with_arguments,
    test_prompt_with_embedded_resource,
    test_prompt_with_image,
    test_input_required_result_prompt,
]

_SUGGESTIONS = ["paris", "park", "party", "hello", "world"]


def complete(ref: dict[str, Any], argument: str, value: str, context: dict[str, Any]) -> list[str]:
    return [s for s in _SUGGESTIONS if s.startswith(value.lower())]
