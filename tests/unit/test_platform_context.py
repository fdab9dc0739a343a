"""Tools reach the platform OpenAPI client through their context, configured by DOUBAO_OPENAPI_BASE_DOMAIN."""

from __future__ import annotations

from tests.support.handlers import build_handler

from mcp_lambda.settings import Settings
from mcp_lambda.testing import MODERN, McpTestClient
from mcp_lambda.tools import Business, ToolContext, ToolResult, content_result, text, tool


@tool(description="Reports where the platform client points. Test only.")
def where(ctx: ToolContext) -> ToolResult:
    client = ctx.platform_api
    return content_result(text(client.base_url if client is not None else "none"))


def _call(settings: Settings) -> str:
    client = McpTestClient.over_handler(
        build_handler(Business(name="probe", tools=[where]), settings), era=MODERN, capabilities={}
    )
    return str(client.rpc("tools/call", {"name": "where", "arguments": {}}).result["content"][0]["text"])


def test_platform_client_is_in_the_tool_context_when_configured() -> None:
    settings = Settings(business="probe", doubao_openapi_base_domain="open.example.test")
    assert _call(settings) == "https://open.example.test"


def test_no_platform_client_without_a_base_domain() -> None:
    assert _call(Settings(business="probe")) == "none"
