"""The wire oracle itself (tests/support/wire.py): it must reject what the official types reject."""

from __future__ import annotations

from typing import Any

import pytest
from tests.support.wire import check_legacy, check_modern

from mcp_lambda.settings import Settings

SERVER_INFO = {"io.modelcontextprotocol/serverInfo": {"name": "x", "version": "1"}}
TOOLS_LIST = {
    "tools": [{"name": "t", "description": "d", "inputSchema": {"type": "object"}}],
    "resultType": "complete",
    "ttlMs": 1000,
    "cacheScope": "public",
    "_meta": SERVER_INFO,
}


def _response(result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "result": result}


def test_a_valid_modern_tools_list_passes() -> None:
    check_modern(_response(TOOLS_LIST), "tools/list")


@pytest.mark.parametrize("missing", ["resultType", "ttlMs", "cacheScope"])
def test_modern_tools_list_without_a_required_field_fails(missing: str) -> None:
    result = {k: v for k, v in TOOLS_LIST.items() if k != missing}
    with pytest.raises((AssertionError, ValueError)):
        check_modern(_response(result), "tools/list")


def test_modern_unsupported_version_error_needs_its_data() -> None:
    with pytest.raises(ValueError):
        check_modern({"jsonrpc": "2.0", "id": 1, "error": {"code": -32022, "message": "x"}})


@pytest.mark.parametrize("field", ["resultType", "ttlMs", "cacheScope"])
def test_legacy_result_with_a_2026_field_fails(field: str) -> None:
    with pytest.raises(AssertionError):
        check_legacy(_response({"tools": [], field: 1}), "tools/list")


def test_legacy_ping_must_be_exactly_empty() -> None:
    check_legacy(_response({}), "ping")
    with pytest.raises(AssertionError):
        check_legacy(_response({"_meta": {}}), "ping")


def test_tool_without_description_fails() -> None:
    result = {**TOOLS_LIST, "tools": [{"name": "t", "inputSchema": {"type": "object"}}]}
    with pytest.raises(AssertionError):
        check_modern(_response(result), "tools/list")


def test_tools_page_size_comes_from_the_environment() -> None:
    assert Settings.from_env({"TOOLS_PAGE_SIZE": "1"}).tools_page_size == 1
