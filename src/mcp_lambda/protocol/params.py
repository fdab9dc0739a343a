"""Reading request params, with -32602 naming the field."""

from __future__ import annotations

from typing import Any

from .jsonrpc import INVALID_PARAMS, RpcError


def required_string(params: dict[str, Any], field: str) -> str:
    value = params.get(field)
    if not isinstance(value, str) or not value:
        raise RpcError(INVALID_PARAMS, f"params.{field} must be a non-empty string")
    return value


def optional_object(params: dict[str, Any], field: str) -> dict[str, Any]:
    """`params.<field>` as an object; absent or null is `{}`."""
    value = params.get(field)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise RpcError(INVALID_PARAMS, f"params.{field} must be an object")
    return value
