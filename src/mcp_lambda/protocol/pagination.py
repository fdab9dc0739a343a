"""Paginated list results: deterministic pages with opaque cursors; anything not issued by us is -32602."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Sequence
from typing import Any

from ..wire import INVALID_PARAMS
from .jsonrpc import RpcError

MAX_CURSOR_LENGTH = 256


def encode_cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"o": offset}).encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> int:
    """The offset a cursor of ours encodes; -32602 for anything else (cursors are opaque to clients)."""
    invalid = RpcError(INVALID_PARAMS, "params.cursor: cursor is not one this server issued")
    if len(cursor) > MAX_CURSOR_LENGTH:
        raise invalid
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        value = json.loads(base64.urlsafe_b64decode(padded.encode()))
        offset = value["o"]
    except (binascii.Error, ValueError, TypeError, KeyError, UnicodeDecodeError, RecursionError):
        raise invalid from None
    if not isinstance(offset, int) or isinstance(offset, bool) or offset < 0:
        raise invalid
    return offset


def page_of(items: Sequence[Any], params: dict[str, Any], page_size: int) -> tuple[list[Any], str | None]:
    """One page of `items` from `params.cursor`, and the next page's cursor (None on the last page)."""
    cursor = params.get("cursor")
    if cursor is not None and not isinstance(cursor, str):
        raise RpcError(INVALID_PARAMS, "params.cursor must be a string")
    start = decode_cursor(cursor) if cursor is not None else 0
    if start > len(items):
        raise RpcError(INVALID_PARAMS, "params.cursor: cursor is past the end of the list")
    end = start + page_size
    return list(items[start:end]), encode_cursor(end) if end < len(items) else None


def listing(
    key: str, items: Sequence[Any], params: dict[str, Any], page_size: int, to_wire: Callable[[Any], Any]
) -> dict[str, Any]:
    """One page of a list result (`{key: [...], nextCursor?}`) in declaration order."""
    page, next_cursor = page_of(items, params, page_size)
    result: dict[str, Any] = {key: [to_wire(item) for item in page]}
    if next_cursor is not None:
        result["nextCursor"] = next_cursor
    return result
