"""An answer holding parts encoded once (`Encoded`) is written exactly as the same answer built of plain objects,
by every encoder of an answer: the HTTP body (orjson and its json.dumps fallback), the SSE stream and stdio.
`loads` reads every request as json.loads does, and `dumps_for_parse` writes arguments that read back as
json.dumps' text does."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, ConfigDict, ValidationError

from mcp_lambda.encoding import Encoded, dumps_for_parse, json_bytes, loads, plain
from mcp_lambda.transport.sse import decode_sse, encode_sse
from mcp_lambda_dev.stdio import encode_line

ENTRY = {
    "name": "search_products",
    "description": 'Find products — 杯子, \u2028 and "quotes"',
    "inputSchema": {"type": "object", "properties": {"limit": {"type": "integer", "maximum": 50}}},
    "annotations": {"readOnlyHint": True, "ratio": 0.5},
}


def answer(entry: Any, request_id: Any = 2) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": {"tools": [entry, entry]}}


@pytest.mark.parametrize(
    "request_id",
    [2, "abc", 2**70, "\ud800 lone surrogate", None],
    ids=["int", "string", "beyond 64 bits (json.dumps)", "lone surrogate (escaped)", "null"],
)
def test_every_encoder_writes_an_encoded_part_as_the_plain_object(request_id: Any) -> None:
    encoded, same = answer(Encoded(ENTRY), request_id), answer(dict(ENTRY), request_id)
    assert json_bytes(encoded) == json_bytes(same)
    assert encode_sse([encoded]) == encode_sse([same])
    assert encode_line(encoded) == encode_line(same)
    if request_id != "\ud800 lone surrogate":
        assert json.loads(json_bytes(encoded)) == same
        assert decode_sse(encode_sse([encoded])) == [same]


def test_an_encoded_object_reads_as_the_object_it_holds() -> None:
    entry = Encoded(ENTRY)
    assert entry == ENTRY and dict(entry) == ENTRY
    assert entry["name"] == "search_products" and len(entry) == len(ENTRY) and list(entry) == list(ENTRY)
    assert plain(entry) is ENTRY
    with pytest.raises(TypeError, match="not JSON serializable"):
        plain(object())


def test_what_no_encoder_can_write_is_still_refused() -> None:
    with pytest.raises(TypeError):
        json_bytes({"value": object(), "entry": Encoded(ENTRY)})


# Texts where orjson and json.loads part ways, or only one of them reads the text at all.
TRICKY_TEXTS = [
    b'{"id": 18446744073709551615}',  # the largest 64-bit unsigned: both read an int
    b'{"id": 18446744073709551616}',  # one more: orjson would read a float
    b"-9223372036854775809",
    b"123456789012345678901234567890",
    b'{"note": "order 1234567890123456789"}',  # 19 digits inside a string: json.loads, the same value
    b"1e400",
    b"-1e400",
    b"[NaN, Infinity, -Infinity]",
    b'"\\ud800"',
    b'"\\ud83d\\ude00"',
    b"\xef\xbb\xbf{}",  # a UTF-8 byte-order mark
    '{"a": "é"}'.encode("utf-16"),
    b'"\xed\xa0\x80"',  # a surrogate encoded in UTF-8
    b'{"a": 1, "a": 2}',
    b"[" * 1100 + b"]" * 1100,
    b"[" * 100_000 + b"]" * 100_000,
    b"",
    b"{",
    b"[1,]",
    b"\xff",
    b'"\x01"',
    b"-0",
    b"-0.0",
    b"4.9e-324",
    b"2.2250738585072011e-308",
    '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {"arguments": {"q": "杯子\\u2028"}}}'.encode(),
]


def outcome(read: Any, text: bytes) -> tuple[str, str]:
    """What reading `text` gives: the value's repr (types and key order included), or the error's type."""
    try:
        return "value", repr(read(text))
    except (ValueError, RecursionError) as exc:
        return "error", type(exc).__name__


@pytest.mark.parametrize("text", TRICKY_TEXTS, ids=range(len(TRICKY_TEXTS)))
def test_loads_reads_every_text_as_json_loads_does(text: bytes) -> None:
    assert outcome(loads, text) == outcome(json.loads, text)


JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES)
def test_loads_reads_any_json_as_json_loads_does(value: Any) -> None:
    for text in (json.dumps(value), json.dumps(value, ensure_ascii=False)):
        raw = text.encode("utf-8", "surrogatepass")
        assert outcome(loads, raw) == outcome(json.loads, raw)


ARGUMENT_VALUES = [
    {"keyword": "cup", "limit": 10},
    {"price": 1e16, "small": 1e-7, "neg": -0.0},
    {"ratio": float("nan")},  # orjson would write null
    {"ratio": float("inf"), "other": None},
    {"q": "\ud800"},  # a lone surrogate: orjson refuses it
    {"id": 2**70},
    {"text": "nullable"},  # `null` inside a string: json.dumps, the same value
    {"nested": {"list": [1, 2.5, "三", True, None]}},
]


class Strict(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow")


@pytest.mark.parametrize("value", ARGUMENT_VALUES, ids=range(len(ARGUMENT_VALUES)))
def test_dumps_for_parse_reads_back_as_json_dumps(value: dict[str, Any]) -> None:
    ours, theirs = dumps_for_parse(value), json.dumps(value, ensure_ascii=False)

    def validated(text: str | bytes) -> str:
        try:
            return repr(Strict.model_validate_json(text).model_extra)
        except ValidationError as exc:
            return repr([(e["type"], e["loc"]) for e in exc.errors()])

    assert validated(ours) == validated(theirs)
    if isinstance(ours, bytes):
        assert repr(json.loads(ours)) == repr(json.loads(theirs))


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=8), JSON_VALUES, max_size=5))
def test_dumps_for_parse_reads_back_as_json_dumps_for_any_arguments(value: dict[str, Any]) -> None:
    ours, theirs = dumps_for_parse(value), json.dumps(value, ensure_ascii=False)
    assert outcome(
        json.loads, ours.encode("utf-8", "surrogatepass") if isinstance(ours, str) else ours
    ) == outcome(json.loads, theirs.encode("utf-8", "surrogatepass"))
