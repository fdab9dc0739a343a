"""Content, logging, progress, error and schema fixtures (tools-call-*, json-schema-2020-12, SEP-2243)."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from mcp_lambda.tools import ToolContext, ToolResult, ToolSpec, content_result, text, tool

from .media import PNG_BASE64, WAV_BASE64

NO_ARGS = {"type": "object", "properties": {}, "additionalProperties": False}


@tool(description="Returns a simple text response.")
def test_simple_text() -> ToolResult:
    return content_result(text("This is a simple text response for testing."))


@tool(description="Returns a PNG image.")
def test_image_content() -> ToolResult:
    return content_result({"type": "image", "data": PNG_BASE64, "mimeType": "image/png"})


@tool(description="Returns a WAV audio clip.")
def test_audio_content() -> ToolResult:
    return content_result({"type": "audio", "data": WAV_BASE64, "mimeType": "audio/wav"})


@tool(description="Returns an embedded text resource.")
def test_embedded_resource() -> ToolResult:
    return content_result(
        {
            "type": "resource",
            "resource": {
                "uri": "test://embedded-resource",
                "mimeType": "text/plain",
                "text": "This is an embedded resource content.",
            },
        }
    )


@tool(description="Returns text, an image and an embedded JSON resource.")
def test_multiple_content_types() -> ToolResult:
    return content_result(
        text("Multiple content types test:"),
        {"type": "image", "data": PNG_BASE64, "mimeType": "image/png"},
        {
            "type": "resource",
            "resource": {
                "uri": "test://mixed-content-resource",
                "mimeType": "application/json",
                "text": json.dumps({"test": "data", "value": 123}),
            },
        },
    )


@tool(description="Sends three info log notifications about 50 ms apart, then returns.")
async def test_tool_with_logging(ctx: ToolContext) -> ToolResult:
    ctx.log("info", "Tool execution started")
    await asyncio.sleep(0.05)
    ctx.log("info", "Tool processing data")
    await asyncio.sleep(0.05)
    ctx.log("info", "Tool execution completed")
    return content_result(text("Tool with logging executed successfully"))


@tool(description="Logs through notifications/message only when the request asked for a log level.")
def test_logging_tool(ctx: ToolContext) -> ToolResult:
    ctx.log("info", "test_logging_tool ran")
    return content_result(text("Logging tool executed"))


@tool(description="Reports progress 0, 50 and 100 of 100 about 50 ms apart when given a progress token.")
async def test_tool_with_progress(ctx: ToolContext) -> ToolResult:
    for step, progress in enumerate((0, 50, 100)):
        if step:
            await asyncio.sleep(0.05)
        ctx.report_progress(progress, 100)
    return content_result(text("Tool with progress executed successfully"))


@tool(description="Always fails with an error result.")
def test_error_handling() -> ToolResult:
    return content_result(text("This tool intentionally returns an error for testing"), is_error=True)


JSON_SCHEMA_2020_12 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}


@tool(description="Tool with JSON Schema 2020-12 features", input_schema=JSON_SCHEMA_2020_12)
def json_schema_2020_12_tool() -> ToolResult:
    return content_result(text("JSON Schema 2020-12 tool called"))


@tool(
    description="Echoes a region that is mirrored in the Mcp-Param-Region header.",
    input_schema={
        "type": "object",
        "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
        "required": ["region"],
    },
)
def test_x_mcp_header(region: str = "") -> ToolResult:
    return content_result(text(f"region={region}"))


CONTENT_TOOLS: list[ToolSpec[..., Any]] = [
    test_simple_text,
    test_image_content,
    test_audio_content,
    test_embedded_resource,
    test_multiple_content_types,
    test_tool_with_logging,
    test_logging_tool,
    test_tool_with_progress,
    test_error_handling,
    json_schema_2020_12_tool,
    test_x_mcp_header,
]
