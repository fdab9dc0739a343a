"""What never reaches a log line: secret values a tool has read (masked on every line), and argument values
(summarized as shapes unless the tool declared a field safe)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

MASK = "***"

_SECRET_VALUES: set[str] = set()


def register_secret_value(value: str) -> None:
    """Mask this value (and its JSON-escaped forms) in every log line from now on.

    Args:
        value: The secret; values shorter than 4 characters are not masked (they would mask ordinary text).
    """
    if len(value) >= 4:
        _SECRET_VALUES.add(value)
        _SECRET_VALUES.add(json.dumps(value, ensure_ascii=False)[1:-1])
        _SECRET_VALUES.add(json.dumps(value)[1:-1])


def redact(text: str) -> str:
    """`text` with every registered secret value replaced by a mask, longest values first."""
    for value in sorted(_SECRET_VALUES, key=len, reverse=True):
        if value in text:
            text = text.replace(value, MASK)
    return text


def summarize_arguments(arguments: Mapping[str, Any], safe_fields: Iterable[str] = ()) -> dict[str, Any]:
    """A redacted argument summary: keys, types and sizes; values only for fields declared safe.

    Args:
        arguments: The tool call's arguments.
        safe_fields: The fields whose short scalar values may be shown as they are.

    Returns:
        The summary a tool-call line carries as `arguments`.
    """
    safe = set(safe_fields)
    summary: dict[str, Any] = {}
    for key, value in arguments.items():
        if key in safe and _is_short_scalar(value):
            summary[key] = value
        else:
            summary[key] = _shape(value)
    return summary


def _is_short_scalar(value: Any) -> bool:
    if isinstance(value, str):
        return len(value) <= 64
    return isinstance(value, bool | int | float)


def _shape(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return type(value).__name__
    if isinstance(value, str):
        return f"str[{len(value)}]"
    if isinstance(value, list | tuple):
        return f"array[{len(value)}]"
    if isinstance(value, dict):
        return f"object[{len(value)}]"
    return type(value).__name__
