"""The kit's side of request framing: the eras it speaks, its client info, and the Mcp-Param-* headers of a tool's
arguments. The envelope and routing headers themselves are the shipped `mcp_lambda.protocol.framing`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..protocol.framing import encode_header_value
from ..wire import MODERN_REVISION, REVISIONS

MODERN = MODERN_REVISION
# Every revision the kit speaks, newest first: wire.py's one ordered list (the modern revision, then the
# legacy revisions).
ERAS: tuple[str, ...] = tuple(reversed(REVISIONS))
CLIENT_INFO = {"name": "mcp-lambda-testing", "version": "1.0"}


def param_headers(input_schema: Mapping[str, Any] | None, arguments: Any) -> dict[str, str]:
    """The Mcp-Param-* headers of the arguments a tool's input schema mirrors (`x-mcp-header`).

    Args:
        input_schema: The tool's `inputSchema` (None: an unknown tool, no headers).
        arguments: The call's arguments.

    Returns:
        The headers (lower-case names).
    """
    properties = input_schema.get("properties") if input_schema is not None else None
    if not isinstance(properties, dict) or not isinstance(arguments, dict):
        return {}
    headers = {}
    for name, schema in properties.items():
        suffix = schema.get("x-mcp-header") if isinstance(schema, dict) else None
        value = arguments.get(name)
        if not isinstance(suffix, str) or value is None:
            continue
        if isinstance(value, bool):
            headers[f"mcp-param-{suffix.lower()}"] = "true" if value else "false"
        elif isinstance(value, int | str):
            headers[f"mcp-param-{suffix.lower()}"] = encode_header_value(str(value))
    return headers
