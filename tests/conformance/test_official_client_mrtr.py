"""The official MCP client (mcp 2.x, mode auto) drives multi round-trip tools to completion."""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types
from mcp import Client


async def _elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
    properties = params.requested_schema.get("properties", {}) if hasattr(params, "requested_schema") else {}
    content: dict[str, Any] = {}
    for name in properties:
        content[name] = {"name": "Ada", "color": "teal", "ok": True}.get(name, "x")
    return types.ElicitResult(action="accept", content=content)


def test_auto_mode_completes_a_two_round_tool(conformance_url: str) -> None:
    async def run() -> tuple[str, Any]:
        async with Client(conformance_url, mode="auto", elicitation_callback=_elicit) as client:
            result = await client.call_tool("test_input_required_result_multi_round", {})
            return client.protocol_version, result

    version, result = anyio.run(run)
    assert version == "2026-07-28"
    assert result.is_error is not True
    assert result.content[0].text == "Done: Ada likes teal"


def test_auto_mode_round_trips_signed_state(conformance_url: str) -> None:
    async def run() -> Any:
        async with Client(conformance_url, mode="auto", elicitation_callback=_elicit) as client:
            return await client.call_tool("test_input_required_result_request_state", {})

    result = anyio.run(run)
    assert "state-ok" in result.content[0].text
