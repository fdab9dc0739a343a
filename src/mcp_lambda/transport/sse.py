"""Server-Sent Events framing for a buffered, request-scoped stream (Lambda delivers it whole): the encoder the
server uses, and the decoder every client of this repository (the test kit, make smoke) reads it with."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ..encoding import plain


def encode_sse(messages: Iterable[dict[str, Any]]) -> bytes:
    """One `event: message` per JSON-RPC message, in order; the response comes last."""
    chunks = []
    for message in messages:
        data = json.dumps(message, ensure_ascii=True, separators=(",", ":"), allow_nan=False, default=plain)
        chunks.append(f"event: message\ndata: {data}\n\n")
    return "".join(chunks).encode("utf-8")


def decode_sse(body: bytes | str) -> list[Any]:
    """The JSON value of each event of a text/event-stream body, in order (events without `data:` skipped).

    Args:
        body: The whole stream.

    Returns:
        The parsed `data` of each event (multi-line data joined with newlines, as the SSE standard says).

    Raises:
        ValueError: An event's data is not JSON.
    """
    text = body.decode("utf-8") if isinstance(body, bytes) else body
    found = []
    for block in text.replace("\r\n", "\n").split("\n\n"):
        data = [line[5:].removeprefix(" ") for line in block.splitlines() if line.startswith("data:")]
        if data:
            found.append(json.loads("\n".join(data)))
    return found
