"""The error object's JSON Schema, defined once, and the outputSchema that admits it beside the success shape."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .advice import SUGGESTED_ACTIONS

# The error object: `structuredContent` of every error result (isError: true), business or framework. Defined once
# here and published under `$defs` of every tool's outputSchema (`admitting_errors`), so a client that validates
# structured content against the schema even for errors (the TypeScript SDK 1.x does) keeps the error.
TOOL_ERROR = "tool_error"
TOOL_ERROR_SCHEMA: dict[str, Any] = {
    "type": "object",
    "description": "An error result's structuredContent (isError: true): route on code and suggested_action.",
    "properties": {
        "code": {"type": "integer", "description": "The business's or the framework's result code."},
        "message": {"type": "string", "description": "What went wrong, for the model and the user."},
        "retryable": {"type": "boolean", "description": "Whether the same call may succeed later."},
        "suggested_action": {"type": "string", "enum": list(SUGGESTED_ACTIONS)},
        "retry_after_ms": {
            "type": "integer",
            "minimum": 0,
            "description": "How long to wait before a retry; 0 when retrying will not help.",
        },
        "retry_strategy": {
            "type": "object",
            "description": "How to space retries of a retryable error: wait base_ms, double each time (kind "
            "exponential_backoff) up to max_ms, at most attempts tries.",
            "properties": {
                "kind": {"type": "string", "enum": ["exponential_backoff", "fixed"]},
                "base_ms": {"type": "integer", "minimum": 0},
                "max_ms": {"type": "integer", "minimum": 0},
                "attempts": {"type": "integer", "minimum": 1},
            },
            "required": ["kind", "base_ms", "max_ms", "attempts"],
        },
        "details": {"type": "object", "description": "What the agent can act on, as data (business_error)."},
    },
    "required": ["code", "message"],
}


def admitting_errors(schema: Mapping[str, Any]) -> dict[str, Any]:
    """An outputSchema that also admits the error object: the success shape, or `{code, message, ...}`.

    Args:
        schema: The JSON Schema of a successful result's `structuredContent` (an object schema).

    Returns:
        `{"type": "object", "anyOf": [schema, {"$ref": "#/$defs/tool_error"}], "$defs": {...}}`; the success
        shape's own `$defs`/`definitions` move to the root, where its `$ref`s resolve.
    """
    success = dict(schema)
    root: dict[str, Any] = {"type": "object"}
    if "$schema" in success:
        root["$schema"] = success.pop("$schema")
    root["anyOf"] = [success, {"$ref": f"#/$defs/{TOOL_ERROR}"}]
    if "definitions" in success:
        root["definitions"] = success.pop("definitions")
    root["$defs"] = {**success.pop("$defs", {}), TOOL_ERROR: TOOL_ERROR_SCHEMA}
    return root
