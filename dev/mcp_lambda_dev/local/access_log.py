"""`make run`'s line per request (LOG_FORMAT=text): the JSON-RPC method, the outcome, the code, the duration;
for `initialize` and `server/discover` also the protocol revision the client uses (`revision=2025-11-25`).

A tools/call that reached its tool is not repeated here: the executor's `tools/call <tool> <outcome>` line is
that call's one line. Everything else (initialize, tools/list, a refused request, an unknown tool) gets one.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_lambda.transport.sse import decode_sse
from mcp_lambda.wire import META_VERSION

from ..log_format import human_line


def _messages(payload: bytes, content_type: str) -> list[Any]:
    """The JSON-RPC messages of a request or response body (JSON, a batch, or an SSE stream)."""
    if not payload:
        return []
    try:
        if content_type.startswith("text/event-stream"):
            return decode_sse(payload)
        value = json.loads(payload)
    except (UnicodeDecodeError, ValueError, RecursionError):
        return []
    return value if isinstance(value, list) else [value]


def _revision(method: str, params: Any, replies: list[dict[str, Any]]) -> str | None:
    """The revision a handshake settled on: initialize's answer, or the revision server/discover was sent at."""
    if method == "initialize" and replies and isinstance(replies[0].get("result"), dict):
        version = replies[0]["result"].get("protocolVersion")
    elif method == "server/discover" and isinstance(params, dict) and isinstance(params.get("_meta"), dict):
        version = params["_meta"].get(META_VERSION)
    else:
        return None
    return version if isinstance(version, str) else None


def access_line(
    created: float,
    request: bytes | None,
    status: int,
    response: bytes,
    content_type: str,
    duration_ms: float,
    http_method: str = "POST",
) -> tuple[str, str] | None:
    """(level, line) for one request, or None when the executor's tools/call line already covers it."""
    sent = [m for m in _messages(request or b"", "application/json") if isinstance(m, dict)]
    replies = [m for m in _messages(response, content_type) if isinstance(m, dict) and "id" in m]
    method = ",".join(str(m.get("method")) for m in sent) if sent else http_method
    params = sent[0].get("params") if len(sent) == 1 else None
    name = params.get("name") or params.get("uri") if isinstance(params, dict) else None
    errors = [reply["error"] for reply in replies if isinstance(reply.get("error"), dict)]
    if method == "tools/call" and replies and not errors:
        return None  # the executor logged this call's line
    if errors:
        outcome, code, level = "error", errors[0].get("code"), "WARNING"
    elif status >= 400:
        outcome, code, level = "refused", None, "WARNING"
    else:
        outcome, code, level = ("success" if replies else "accepted"), 0, "INFO"
    words = [method, *([str(name)] if isinstance(name, str) else []), outcome]
    revision = _revision(method, params, replies) if not errors else None
    if revision is not None:
        words.append(f"revision={revision}")
    if code is not None:
        words.append(f"code={code}")
    words += [f"http={status}", f"{duration_ms:.1f}ms"]
    return level, human_line(created, level, words)
