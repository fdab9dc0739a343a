"""Reading request params: required strings and paginated listings, with -32602 naming the field."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..tools.business import InvalidCursor, paginate
from .jsonrpc import INVALID_PARAMS, RpcError


def required_string(params: dict[str, Any], field: str) -> str:
    value = params.get(field)
    if not isinstance(value, str) or not value:
        raise RpcError(INVALID_PARAMS, f"params.{field} must be a non-empty string")
    return value


def page_of(items: Sequence[Any], params: dict[str, Any], page_size: int) -> tuple[list[Any], str | None]:
    cursor = params.get("cursor")
    if cursor is not None and not isinstance(cursor, str):
        raise RpcError(INVALID_PARAMS, "params.cursor must be a string")
    try:
        return paginate(items, cursor, page_size)
    except InvalidCursor as exc:
        raise RpcError(INVALID_PARAMS, f"params.cursor: {exc}") from None


def listing(
    key: str, items: Sequence[Any], params: dict[str, Any], page_size: int, to_wire: Callable[[Any], Any]
) -> dict[str, Any]:
    """One page of a list result (`{key: [...], nextCursor?}`) in declaration order."""
    page, next_cursor = page_of(items, params, page_size)
    result: dict[str, Any] = {key: [to_wire(item) for item in page]}
    if next_cursor is not None:
        result["nextCursor"] = next_cursor
    return result
