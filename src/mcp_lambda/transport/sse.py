"""Server-Sent Events framing for a buffered, request-scoped stream (Lambda delivers it whole)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any


def encode_sse(messages: Iterable[dict[str, Any]]) -> bytes:
    """One `event: message` per JSON-RPC message, in order; the response comes last."""
    chunks = []
    for message in messages:
        data = json.dumps(message, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
        chunks.append(f"event: message\ndata: {data}\n\n")
    return "".join(chunks).encode("utf-8")
