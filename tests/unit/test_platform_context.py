"""Tools reach the platform OpenAPI client through their context, configured by DOUBAO_OPENAPI_BASE_DOMAIN."""

from __future__ import annotations

import asyncio
import json

from mcp_lambda.app import create_app
from mcp_lambda.lambda_adapter import lambda_handler
from mcp_lambda.local.events import LocalContext, http_event
from mcp_lambda.sessions import MemorySessionStore
from mcp_lambda.settings import Settings
from mcp_lambda.tools import Business, ToolContext, ToolResult, content_result, text, tool


@tool(description="Reports where the platform client points. Test only.")
def where(ctx: ToolContext) -> ToolResult:
    client = ctx.platform_api
    return content_result(text(client.base_url if client is not None else "none"))


def _call(settings: Settings) -> str:
    asyncio.set_event_loop(asyncio.new_event_loop())
    app = create_app(settings, Business(name="probe", tools=[where]), MemorySessionStore())
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {
            "name": "where",
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
            },
        },
    }
    headers = {
        "content-type": "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "where",
    }
    response = lambda_handler(app)(http_event("POST", "/mcp", headers, json.dumps(body)), LocalContext())
    return str(json.loads(response["body"])["result"]["content"][0]["text"])


def test_platform_client_is_in_the_tool_context_when_configured() -> None:
    settings = Settings(business="probe", doubao_openapi_base_domain="open.example.test")
    assert _call(settings) == "https://open.example.test"


def test_no_platform_client_without_a_base_domain() -> None:
    assert _call(Settings(business="probe")) == "none"
