"""Reading request params, with -32602 naming the field."""

from __future__ import annotations

from typing import Any

from ..wire import INVALID_PARAMS
from .jsonrpc import RpcError

# The deepest nesting of arrays and objects accepted in a client value that is stored or encoded again (session
# items, tool arguments, round answers): far beyond any real one, far below what JSON encoding can recurse into.
MAX_CLIENT_VALUE_DEPTH = 64


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


def check_depth(value: Any, field: str, limit: int = MAX_CLIENT_VALUE_DEPTH) -> Any:
    """`value`, or -32602 naming `params.<field>` when its arrays and objects nest deeper than `limit`."""
    pending = [(value, 1)]
    while pending:  # iterative: the value may be deeper than the interpreter's recursion limit
        item, depth = pending.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > limit:
            raise RpcError(INVALID_PARAMS, f"params.{field} is nested more than {limit} levels deep")
        pending.extend((child, depth + 1) for child in children)
    return value
