"""The handshake's log line names the protocol revision the client uses: initialize's negotiated one (and what it
asked for), server/discover's own; make run's access line for those requests says `revision=`."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.support.business import TEST_BUSINESS

from mcp_lambda.testing import McpTestClient
from mcp_lambda_dev.local.access_log import access_line


def _events(caplog: pytest.LogCaptureFixture, event: str) -> list[dict[str, Any]]:
    return [vars(record) for record in caplog.records if getattr(record, "event", None) == event]


def test_initialize_logs_the_negotiated_revision_and_the_client(caplog: pytest.LogCaptureFixture) -> None:
    with McpTestClient(TEST_BUSINESS, "2025-06-18") as client:
        params = {"protocolVersion": "2099-01-01", "capabilities": {}, "clientInfo": {"name": "x" * 500}}
        body = {"jsonrpc": "2.0", "id": 99, "method": "initialize", "params": params}
        client.post(
            body, {"mcp-protocol-version": "2025-06-18", "mcp-session-id": None}
        )  # a second handshake

    asked, newer = _events(caplog, "mcp_initialized")
    assert (asked["protocol_version"], asked["requested_version"]) == ("2025-06-18", "2025-06-18")
    assert (asked["client_name"], asked["client_version"]) == ("mcp-lambda-testing", "1.0")
    # An unknown revision is answered with the newest legacy revision; client text is bounded.
    assert (newer["protocol_version"], newer["requested_version"]) == ("2025-11-25", "2099-01-01")
    assert newer["client_name"] == "x" * 64 and "client_version" not in newer


def test_server_discover_logs_the_request_revision(caplog: pytest.LogCaptureFixture) -> None:
    with McpTestClient(TEST_BUSINESS, "2026-07-28") as client:
        client.request("server/discover")

    [line] = _events(caplog, "mcp_discovered")
    assert (line["protocol_version"], line["client_name"]) == ("2026-07-28", "mcp-lambda-testing")


def test_make_run_access_lines_name_the_revision() -> None:
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": "2099-01-01"},
    }
    answered = {"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": "2025-11-25"}}
    discover = {"jsonrpc": "2.0", "id": 2, "method": "server/discover",
                "params": {"_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}  # fmt: skip

    seen = access_line(
        0.0, json.dumps(initialize).encode(), 200, json.dumps(answered).encode(), "application/json", 1
    )
    found = access_line(
        0.0,
        json.dumps(discover).encode(),
        200,
        b'{"jsonrpc":"2.0","id":2,"result":{}}',
        "application/json",
        1,
    )

    assert seen is not None and " initialize success revision=2025-11-25 code=0 " in seen[1]
    assert found is not None and " server/discover success revision=2026-07-28 code=0 " in found[1]
