"""Whether a value is strict JSON (no NaN or Infinity, string keys, not too deep), and where it is not."""

from __future__ import annotations

import json
import math
from typing import Any

# Made once: json.dumps with any option makes an encoder per call.
_STRICT_JSON = json.JSONEncoder(allow_nan=False, separators=(",", ":"))


def json_problem(value: Any) -> str | None:
    """None when `value` encodes as strict JSON (no NaN/Infinity); else where and why it does not."""
    try:
        _STRICT_JSON.encode(value)
        return None
    except (ValueError, TypeError, RecursionError):
        return _locate(value, "result", 0) or "result cannot be encoded as JSON"


def _locate(value: Any, path: str, depth: int) -> str | None:
    if depth > 64:
        return f"{path} is nested too deeply"
    if isinstance(value, float) and not math.isfinite(value):
        return f"{path} is {value!r} (not a JSON number)"
    if isinstance(value, dict):
        for key, item in value.items():
            if not isinstance(key, str | int | float | bool) and key is not None:
                return f"{path} has a key of type {type(key).__name__}"
            found = _locate(item, f"{path}.{key}", depth + 1)
            if found:
                return found
        return None
    if isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found = _locate(item, f"{path}[{index}]", depth + 1)
            if found:
                return found
        return None
    if value is None or isinstance(value, str | int | float | bool):
        return None
    return f"{path} is a {type(value).__name__} (not JSON)"
