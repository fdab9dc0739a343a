"""HTTP request policy checks: Origin/Host allow-lists and content negotiation."""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase
from functools import lru_cache


def origin_allowed(origin: str | None, allowed: Iterable[str]) -> bool:
    """No Origin header (a non-browser client) is allowed; otherwise it must match an entry ('*' wildcards)."""
    if origin is None:
        return True
    origin = origin.strip().lower()
    return any(pattern == "*" or fnmatchcase(origin, pattern.lower()) for pattern in allowed)


def host_allowed(host: str | None, allowed: Iterable[str]) -> bool:
    """An empty allow-list means any Host (the API Gateway case); local servers list their own names."""
    patterns = list(allowed)
    if not patterns:
        return True
    if host is None:
        return False
    host = host.strip().lower()
    return any(pattern == "*" or fnmatchcase(host, pattern.lower()) for pattern in patterns)


@lru_cache(maxsize=64)  # a client sends the same Accept with every request
def _media_ranges(accept: str) -> tuple[str, ...]:
    return tuple(part.split(";")[0].strip().lower() for part in accept.split(",") if part.strip())


def accepts_json(accept: str | None) -> bool:
    """No Accept header means anything is acceptable (RFC 9110 §12.5.1)."""
    if accept is None or not accept.strip():
        return True
    return any(r in ("application/json", "application/*", "*/*") for r in _media_ranges(accept))


def accepts_sse(accept: str | None) -> bool:
    if accept is None:
        return False
    return any(r in ("text/event-stream", "text/*") for r in _media_ranges(accept))


def is_json_content_type(content_type: str | None) -> bool:
    if not content_type:
        return False
    media = content_type.split(";")[0].strip().lower()
    return media == "application/json" or (media.startswith("application/") and media.endswith("+json"))
