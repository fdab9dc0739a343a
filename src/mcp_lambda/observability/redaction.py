"""What never reaches a log line: credentials (masked on every line), and argument values (summarized as shapes
unless the tool declared a field safe).

Two kinds of credential are known here. A process's: every value `ctx.secret()` handed out (and every other value
of the secret it came from, the platform AppSecret among them) and the framework's own keys, registered with
`register_secret_value` and kept for the container's life. A request's: the caller's bearer token, known only
while that request runs (`request_credentials`), and forgotten when it ends. Every log line passes through
`redact` once, after serialization: a substring search for each (nothing at all when none is known), and one
compiled pattern (longest first) rewriting the rare line that holds one. `credentials_in` finds them in any text
(a tool's result, before it leaves).
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterable, Mapping
from contextlib import AbstractContextManager, nullcontext
from contextvars import ContextVar
from typing import Any

from ..scoped import Scoped

MASK = "***"
# Shorter values are not masked: they would mask ordinary text.
MIN_MASKED_CHARS = 4

_LOCK = threading.Lock()


class _Known:
    """The credentials known in one context, ready to search: every form (as it is, JSON-escaped with and without
    ASCII escapes) longest first, what each is a form of, and one pattern of them, compiled on the first hit.

    Lines are searched form by form with `in` (CPython's fast substring search) and rewritten by the pattern only
    when one is there: faster than the alternation alone (`re` has no multi-literal search: a pattern of values
    with different first characters tries every branch at every position; docs/performance.md has the numbers).
    """

    __slots__ = ("_pattern", "forms", "values")

    def __init__(self, values: Mapping[str, str]) -> None:
        self.values = dict(values)
        self.forms = tuple(sorted(self.values, key=len, reverse=True))
        self._pattern: re.Pattern[str] | None = None

    @property
    def pattern(self) -> re.Pattern[str]:
        if self._pattern is None:
            self._pattern = re.compile("|".join(re.escape(form) for form in self.forms))
        return self._pattern

    def found_in(self, text: str) -> bool:
        for form in self.forms:  # noqa: SIM110 (any() over a generator costs a frame switch per form)
            if form in text:
                return True
        return False


# The process's credentials (replaced whole on each registration: readers never see a half-built one).
_PROCESS: _Known | None = None
_PROCESS_VERSION = 0  # bumped with every new process credential: a request's view is rebuilt after it


class _RequestCredentials:
    """One request's credentials, and the view of them and the process's (rebuilt when the process learns more)."""

    __slots__ = ("forms", "known", "version")

    def __init__(self, forms: dict[str, str]) -> None:
        self.forms = forms
        self.known: _Known | None = None
        self.version = -1

    def current(self) -> _Known:
        if self.known is None or self.version != _PROCESS_VERSION:
            process = _PROCESS
            self.version = _PROCESS_VERSION
            self.known = _Known({**(process.values if process else {}), **self.forms})
        return self.known


_REQUEST: ContextVar[_RequestCredentials | None] = ContextVar("mcp_lambda_request_credentials", default=None)


def _forms(value: str) -> dict[str, str]:
    return {
        value: value,
        json.dumps(value, ensure_ascii=False)[1:-1]: value,
        json.dumps(value)[1:-1]: value,
    }


def register_secret_value(value: str) -> None:
    """Mask this value (and its JSON-escaped forms) in every log line from now on, for the container's life.

    Args:
        value: The secret; values shorter than MIN_MASKED_CHARS are not masked (they would mask ordinary text).
    """
    global _PROCESS, _PROCESS_VERSION
    if len(value) < MIN_MASKED_CHARS:
        return
    with _LOCK:
        known = _PROCESS.values if _PROCESS is not None else {}
        if value in known:
            return
        _PROCESS = _Known({**known, **_forms(value)})
        _PROCESS_VERSION += 1


def register_secret_values(values: Iterable[object]) -> None:
    """`register_secret_value` for every string among `values` (the values of one secret, fetched together).

    Args:
        values: The values; those that are not strings are skipped.
    """
    for value in values:
        if isinstance(value, str):
            register_secret_value(value)


def request_credentials(*values: str | None) -> AbstractContextManager[Any]:
    """Mask `values` (the caller's bearer token) on every line written while the `with` block runs: in this context
    and in the worker threads it starts (they run in a copy of it); forgotten when the block ends.

    Args:
        *values: The request's credentials; None and values shorter than MIN_MASKED_CHARS are skipped.
    """
    forms: dict[str, str] = {}
    for value in values:
        if value is not None and len(value) >= MIN_MASKED_CHARS:
            forms.update(_forms(value))
    if not forms:
        return _NOTHING
    return Scoped(_REQUEST, _RequestCredentials(forms))


_NOTHING = nullcontext()  # reusable: it holds no state


def _current() -> _Known | None:
    request = _REQUEST.get()
    return _PROCESS if request is None else request.current()


def redact(text: str) -> str:
    """`text` with every known credential replaced by MASK (longest first); `text` itself when none is there."""
    known = _current()
    if known is None or not known.found_in(text):
        return text
    return known.pattern.sub(MASK, text)


def credentials_known() -> bool:
    """Whether any credential is known now (in this request's context): when none is, nothing can leak."""
    return _PROCESS is not None or _REQUEST.get() is not None


def credentials_in(text: str) -> list[str]:
    """The known credentials `text` contains (each once, in the order found; JSON-escaped forms count).

    Args:
        text: Any text (a result's JSON, one of its strings).

    Returns:
        The credentials themselves (for a fingerprint: never log them); empty when there is none.
    """
    known = _current()
    if known is None or not known.found_in(text):
        return []
    found: dict[str, None] = {}
    for match in known.pattern.finditer(text):
        found[known.values[match.group()]] = None
    return list(found)


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
