"""The stdio protocol stream: a request's notifications until its response, and nothing once the client left."""

from __future__ import annotations

import io
import json

from mcp_lambda_dev.stdio import LineWriter, RequestStream, encode_line


def _note(step: int) -> dict[str, object]:
    return {
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {"progressToken": "t", "progress": step},
    }


def test_a_notification_after_the_request_closed_is_dropped() -> None:
    out = io.BytesIO()
    stream = RequestStream(LineWriter(out, encode_line))

    stream(_note(1))
    stream.close()
    stream(_note(2))  # a tool abandoned at its deadline, still reporting

    assert [json.loads(line)["params"]["progress"] for line in out.getvalue().splitlines()] == [1]


def test_a_client_that_stopped_reading_ends_the_writes() -> None:
    class Closed(io.BytesIO):
        def write(self, data: object) -> int:
            raise BrokenPipeError

    writer = LineWriter(Closed(), encode_line)
    writer.write(_note(1))
    assert writer.broken
    writer.write(_note(2))  # nothing raised: the loop ends on `broken`
