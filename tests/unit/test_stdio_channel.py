"""The stdio channel's era routing without headers (2026-07-28 basic/versioning, Backward Compatibility)."""

from __future__ import annotations

from typing import Any

import pytest

from mcp_lambda.protocol.scope import SESSION_HEADER, Outbound
from mcp_lambda_dev.stdio_channel import StdioChannel, carries_modern_envelope

ENVELOPE = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}


def _request(method: str, meta: Any = None) -> dict[str, Any]:
    params = {} if meta is None else {"_meta": meta}
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


@pytest.mark.parametrize(
    ("body", "modern"),
    [
        (_request("tools/list", ENVELOPE), True),
        (_request("tools/list", {**ENVELOPE, "io.modelcontextprotocol/protocolVersion": "1999"}), True),
        (_request("initialize", ENVELOPE), False),  # initialize always selects the legacy era
        (_request("tools/list"), False),
        (_request("tools/call", {"progressToken": 1}), False),  # a bare _meta is no envelope
        ({"jsonrpc": "2.0", "method": "tools/list", "params": []}, False),
        ([_request("tools/list"), _request("tools/list", ENVELOPE)], True),  # refused by the 2026 era
        ([_request("tools/list")], False),
        ("not a message", False),
    ],
)
def test_the_envelope_routes_a_message(body: Any, modern: bool) -> None:
    assert carries_modern_envelope(body) is modern
    channel = StdioChannel()
    assert channel.routes_modern(channel.inbound(body)) is modern


def test_the_session_is_the_last_one_initialize_opened() -> None:
    channel = StdioChannel()
    inbound = channel.inbound(_request("tools/list"))
    assert channel.session_id(inbound) is None
    channel.answered(Outbound(200, {}))
    assert channel.session_id(inbound) is None
    channel.answered(Outbound(200, {}, {SESSION_HEADER: "s-1"}))
    channel.answered(Outbound(200, {}, {SESSION_HEADER: "s-2"}))
    assert channel.session_id(inbound) == "s-2"
    assert not channel.header_layer and inbound.accepts_sse
