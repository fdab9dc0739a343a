"""The kit's side of request framing: the eras it speaks, its client info, and the Mcp-Param-* headers of a tool's
arguments. The envelope and routing headers themselves are the shipped `mcp_lambda.protocol.framing`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from ..protocol.framing import encode_header_value
from ..wire import STATELESS_REVISION

Era = Literal["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"]
MODERN: Era = STATELESS_REVISION  # type: ignore[assignment]  # the literal above names the same revision
# Every era the kit speaks: the stateless one first, then the session (handshake) eras, newest first.
ERAS: tuple[Era, ...] = (MODERN, "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
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
