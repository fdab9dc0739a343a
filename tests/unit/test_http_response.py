"""`transport.http_response`: the headers and body Starlette's `Response` sends for the same arguments, without
Starlette on the Lambda path."""

from __future__ import annotations

import itertools

import pytest
from starlette.responses import Response

from mcp_lambda.transport import http_response

BODIES = [b"", b'{"jsonrpc":"2.0"}', "数据".encode()]
STATUSES = [100, 200, 202, 204, 304, 401, 503]
MEDIA_TYPES = [None, "application/json", "text/event-stream", "text/plain; Charset=latin-1"]
HEADERS: list[dict[str, str] | None] = [
    None,
    {},
    {"Cache-Control": "no-cache", "mcp-session-id": "abc"},
    {"content-length": "999"},
    {"Content-Type": "application/x-custom", "WWW-Authenticate": 'Bearer error="invalid_token"'},
]


def test_the_response_is_starlettes_for_every_combination() -> None:
    for body, status, media_type, headers in itertools.product(BODIES, STATUSES, MEDIA_TYPES, HEADERS):
        ours = http_response(body, status, media_type, headers)
        theirs = Response(body, status_code=status, headers=headers, media_type=media_type)
        got = (ours.status, ours.raw_headers, ours.body)
        assert got == (theirs.status_code, theirs.raw_headers, theirs.body), (
            body,
            status,
            media_type,
            headers,
        )


def test_a_header_that_is_not_latin_1_is_refused_as_starlette_refuses_it() -> None:
    with pytest.raises(UnicodeEncodeError):
        Response(b"", headers={"x-note": "数据"})
    with pytest.raises(UnicodeEncodeError):
        http_response(b"", headers={"x-note": "数据"})
