"""The JSON text of the server's answers, and the parts of them encoded once; the JSON a request is read from.

`json_bytes` is the one encoder of an answer's body; `Encoded` is a JSON object that never changes between
requests (a tool's tools/list entry), encoded when the server starts and written as those bytes ever after: the
tools list is most of a tools/list answer, and encoding it again was most of that answer's cost
(docs/performance.md). An `Encoded` reads as the object it holds (a read-only mapping, equal to it), so code and
tests that look inside an answer see no difference; every encoder of an answer writes it as that object
(`json_bytes` as its bytes, `json.dumps` through `plain`).

`loads` and `dumps_for_parse` are json.loads and json.dumps as the endpoint and the argument check use them,
value for value, with orjson's speed wherever orjson would give the same values.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

import orjson


class Encoded(Mapping[str, Any]):
    """A JSON object encoded once. The object must not change afterwards (its bytes would not follow).

    Args:
        value: The object.
    """

    __slots__ = ("fragment", "value")

    def __init__(self, value: Mapping[str, Any]) -> None:
        self.value = value
        # orjson's documented way to put bytes already encoded into a document.
        self.fragment = orjson.Fragment(json_bytes(value))

    def __getitem__(self, key: str) -> Any:
        return self.value[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.value)

    def __len__(self) -> int:
        return len(self.value)

    def __repr__(self) -> str:
        return f"Encoded({self.value!r})"


def plain(value: Any) -> Any:
    """`json.dumps`' `default`: an `Encoded` as the object it holds (anything else is refused, as without one).

    Raises:
        TypeError: `value` is not an `Encoded`.
    """
    if isinstance(value, Encoded):
        return value.value
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _fragment(value: Any) -> Any:
    if type(value) is Encoded:  # called once per entry of every tools/list: the exact type, the cheapest test
        return value.fragment
    raise TypeError(f"Type is not JSON serializable: {type(value).__name__}")


def json_bytes(value: Any) -> bytes:
    """The compact UTF-8 JSON of an answer: orjson (faster than json.dumps, byte for byte the same),
    `strict_json_bytes` for what orjson refuses (a lone surrogate echoed from the request; an integer beyond 64
    bits; a key that is not a string). Tool results are checked for strict JSON before they get here."""
    try:
        return orjson.dumps(value, default=_fragment)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return strict_json_bytes(value)


def strict_json_bytes(value: Any) -> bytes:
    """`json.dumps`' compact UTF-8 JSON, strict (NaN and Infinity raise ValueError), an `Encoded` as its object;
    a lone surrogate (echoed from a request) written as its escape instead of failing the encoding."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False, default=plain)
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(
            value, ensure_ascii=True, separators=(",", ":"), allow_nan=False, default=plain
        ).encode("ascii")


# Nineteen digits in a row (perhaps an integer beyond 64 bits, which orjson reads as a float; json.loads: an int),
# found as nineteen zeros once every digit is a zero and every other byte a space: two C loops over the text, where
# a regular expression would try a match at every position.
_DIGITS_AS_ZEROS = bytes(b"0"[0] if b"0"[0] <= byte <= b"9"[0] else b" "[0] for byte in range(256))
_LONG_DIGITS = b"0" * 19


def loads(raw: bytes) -> Any:
    """`json.loads(raw)`, value for value: orjson's parse where it reads the same values, json.loads itself for
    the rest: text with a run of 19 digits (an integer orjson would read as a float; a string with such a run
    only costs the slower parse), and every text orjson refuses (NaN, Infinity, 1e400, a lone surrogate escape,
    a byte-order mark, UTF-16, nesting deeper than 1024, and text that is not JSON at all: json.loads' own error).

    Raises:
        ValueError: Not JSON (json.JSONDecodeError, or UnicodeDecodeError for bytes json.loads cannot decode).
        RecursionError: Nested too deeply for json.loads.
    """
    if _LONG_DIGITS not in raw.translate(_DIGITS_AS_ZEROS):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError:
            pass
    return json.loads(raw)


# Made once: json.dumps with any option makes an encoder per call.
_TEXT_ENCODER = json.JSONEncoder(ensure_ascii=False)


def dumps_for_parse(value: Mapping[str, Any]) -> bytes | str:
    """JSON text that a JSON parser reads back as `json.dumps(value, ensure_ascii=False)` (which is what a strict
    model's `model_validate_json` is given): orjson's bytes, or json.dumps' text where orjson's would read back
    differently (a NaN or an Infinity, which orjson writes as `null`: any `null` in its text sends the value to
    json.dumps) or where orjson refuses the value (a lone surrogate, an integer beyond 64 bits, a mapping that is
    not a dict).

    Raises:
        TypeError: `value` holds something JSON cannot (as json.dumps raises).
    """
    try:
        text: bytes | None = orjson.dumps(value)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        text = None
    if text is None or b"null" in text:
        return _TEXT_ENCODER.encode(dict(value))
    return text
