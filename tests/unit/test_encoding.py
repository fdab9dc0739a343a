"""An answer holding parts encoded once (`Encoded`) is written exactly as the same answer built of plain objects,
by every encoder of an answer: the HTTP body (orjson and its json.dumps fallback), the SSE stream and stdio."""

from __future__ import annotations

import json
from typing import Any

import pytest

from mcp_lambda.encoding import Encoded, json_bytes, plain
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
