"""The official MCP Python client (mcp 2.x) against the `make run` server, in each of its modes."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from mcp import Client

pytestmark = pytest.mark.interop

ROUTE_ARGS = {"origin": "guomao", "destination": "capital_airport_t3"}
EXPECTED_VERSION = {"auto": "2026-07-28", "2026-07-28": "2026-07-28", "legacy": "2025-11-25"}


async def _session(url: str, mode: Any) -> dict[str, Any]:
    async with Client(url, mode=mode) as client:
        tools = await client.list_tools()
        result = await client.call_tool("search_routes", ROUTE_ARGS)
        bad = await client.call_tool("search_routes", {"origin": "nowhere"})
        return {"version": client.protocol_version, "tools": tools, "result": result, "bad": bad}


@pytest.mark.parametrize("mode", ["auto", "legacy", "2026-07-28"])
def test_official_client_lists_and_calls_tools(server_url: str, mode: str) -> None:
    seen = asyncio.run(asyncio.wait_for(_session(server_url, mode), timeout=30))
    assert seen["version"] == EXPECTED_VERSION[mode]
    names = [tool.name for tool in seen["tools"].tools]
    assert "search_routes" in names and "search_products" in names
    assert all(tool.description for tool in seen["tools"].tools)
    result = seen["result"]
    assert not result.is_error
    assert result.structured_content["entities"][0]["entity_type"] == "route"
    assert result.content and result.content[0].type == "text"
    assert seen["bad"].is_error


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28"])
def test_official_client_works_with_a_trailing_slash_url(server_url: str, mode: str) -> None:
    seen = asyncio.run(asyncio.wait_for(_session(server_url + "/", mode), timeout=30))
    assert seen["version"] == EXPECTED_VERSION[mode]
    assert not seen["result"].is_error
