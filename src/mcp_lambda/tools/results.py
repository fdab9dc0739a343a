"""ToolResult and its builders: the three result shapes of the business contract (doubao-protocol.md §1)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

# Framework result codes (the error branch's `structuredContent.code`); businesses use their own ranges.
INVALID_ARGUMENTS = 40000
INPUT_REQUIRED_UNSUPPORTED = 40010
INTERNAL_ERROR = 50000
RESULT_VIOLATES_MANIFEST = 50010
SECRET_UNAVAILABLE = 50020


class ToolResult(BaseModel):
    """What a tool returns: MCP `CallToolResult` content, `structuredContent` and the error flag."""

    model_config = ConfigDict(frozen=True)

    content: list[dict[str, Any]] = Field(default_factory=list)
    structured_content: Any = None
    is_error: bool = False

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"content": list(self.content)}
        if self.structured_content is not None:
            wire["structuredContent"] = self.structured_content
        if self.is_error:
            wire["isError"] = True
        return wire


def text(value: str) -> dict[str, Any]:
    """A text content block."""
    return {"type": "text", "text": value}


def _json_text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def entities(items: Sequence[Mapping[str, Any]], text: str | None = None) -> ToolResult:
    """An `entities` result: `structuredContent = {"entities": [...]}`; `text` is what the model reads first."""
    structured = {"entities": [dict(item) for item in items]}
    return ToolResult(content=[_text_block(text, structured)], structured_content=structured)


def execution_result(result: Mapping[str, Any], text: str | None = None) -> ToolResult:
    """An `execution_result`: the action's own result object (no entities, never a card)."""
    structured = dict(result)
    return ToolResult(content=[_text_block(text, structured)], structured_content=structured)


def business_error(code: int, message: str) -> ToolResult:
    """The error branch: `isError: true` and `structuredContent = {"code", "message"}`."""
    if isinstance(code, bool) or not isinstance(code, int):
        raise TypeError("business_error code must be an int")
    structured = {"code": code, "message": message}
    return ToolResult(
        content=[{"type": "text", "text": message}], structured_content=structured, is_error=True
    )


def content_result(
    *blocks: Mapping[str, Any], structured_content: Any = None, is_error: bool = False
) -> ToolResult:
    """A result made of raw MCP content blocks (text, image, audio, resource, resource_link)."""
    return ToolResult(
        content=[dict(b) for b in blocks], structured_content=structured_content, is_error=is_error
    )


def _text_block(value: str | None, structured: Any) -> dict[str, Any]:
    # MCP asks servers to mirror structuredContent as text when no summary is given.
    return {"type": "text", "text": value if value is not None else _json_text(structured)}
