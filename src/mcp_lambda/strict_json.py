"""Strict JSON: what a result may hold (no NaN or Infinity, string keys, JSON types only), and where it does not."""

from __future__ import annotations

import json
import marshal
import math
from collections.abc import Mapping
from typing import Any

import orjson

# Made once: json.dumps with any option makes an encoder per call.
_STRICT_JSON = json.JSONEncoder(allow_nan=False, separators=(",", ":"))
# orjson refuses a datetime, a dataclass and a subclass of str, int, dict or list with these (json does too, or
# reads them as json does: then the slow path decides).
_ORJSON_PLAIN = (
    orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME | orjson.OPT_PASSTHROUGH_SUBCLASS
)


def json_problem(value: Any, name: str = "result") -> str | None:
    """None when `value` encodes as strict JSON (no NaN/Infinity); else where and why it does not.

    Args:
        value: The value.
        name: What the value is called in the answer (the path's root).

    Returns:
        None, or e.g. `result.structuredContent.ratio is nan (not a JSON number)`.
    """
    if _round_trips(value):
        return None
    try:
        _STRICT_JSON.encode(value)
        return None
    except (ValueError, TypeError, RecursionError):
        return _locate(value, name, 0) or f"{name} cannot be encoded as JSON"


def _round_trips(value: Any) -> bool:
    """The fast yes (cheaper than json's strict encode: docs/performance.md): what orjson writes holds no `null`
    and the value is made of Python's core types only; else orjson reads back an equal value.

    orjson writes NaN and Infinity as null, and a UUID, an Enum or a Fragment as JSON, where json refuses them.
    Without a null there is no NaN or Infinity; and `marshal` writes only the core types (exactly: no subclass,
    no Enum, no UUID) and refuses anything else, in one pass in C where a Python walk would cost more than the
    round trip. With a null, or a type marshal refuses, orjson's reading must come back equal: NaN and Infinity
    come back as null, a UUID or an Enum as a string or its value. What orjson itself refuses (a key that is not a
    string, an integer beyond 64 bits, a set, bytes, a type it is told to refuse) raises: json's own strict encode
    then decides, as before.
    """
    try:
        text = orjson.dumps(value, option=_ORJSON_PLAIN)
    except (TypeError, RecursionError):  # orjson.JSONEncodeError is a TypeError
        return False
    if b"null" not in text:
        try:
            marshal.dumps(value)
        except (ValueError, RecursionError):  # "unmarshallable object": a type json may refuse
            pass
        else:
            return True
    return bool(orjson.loads(text) == value)


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


def strict_object(value: Any, name: str) -> dict[str, Any]:
    """`value` as a JSON object, checked strictly: string keys at every depth and strict JSON values.

    Args:
        value: A mapping.
        name: What it is called in the error (e.g. `business_error details`).

    Returns:
        A plain dict copy.

    Raises:
        TypeError: `value` is not a mapping.
        ValueError: A key is not a string (JSON would silently turn it into one), or a value is not JSON.
    """
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a mapping (a JSON object), not {type(value).__name__}")
    checked = dict(value)
    root = name.split()[-1]  # "business_error details" -> paths like details.slots[0]
    problem = _non_string_key(checked, root) or json_problem(checked, root)
    if problem is not None:
        raise ValueError(f"{name} must be strict JSON: {problem}")
    return checked


def _non_string_key(value: Any, path: str) -> str | None:
    # json would turn a number key into a string silently: the agent would read another key than was written.
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                return f"{path} has a key of type {type(key).__name__} (JSON keys are strings)"
            found = _non_string_key(item, f"{path}.{key}")
            if found:
                return found
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found = _non_string_key(item, f"{path}[{index}]")
            if found:
                return found
    return None
