"""Call the conformance business in-process through Mangum, exactly as the Lambda handler does, with the one MCP
client (`McpTestClient`), so every reply also passes the wire oracle."""

from __future__ import annotations

from typing import Any

from tests.support.handlers import build_handler

from businesses.conformance import BUSINESS
from mcp_lambda.settings import Settings
from mcp_lambda.testing import McpTestClient

ALL_CAPS = {"sampling": {}, "elicitation": {}, "roots": {}}


class Caller:
    def __init__(self, **settings: Any) -> None:
        handler = build_handler(BUSINESS, Settings(business="conformance", **settings))
        # No business named: the driver sends no Mcp-Param-* headers of its own (a test sends them itself).
        self.client = McpTestClient.over_handler(handler, capabilities=ALL_CAPS)

    def raw(
        self, headers: dict[str, str], body: Any, method: str = "POST"
    ) -> tuple[int, dict[str, str], bytes]:
        base = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
        reply = self.client.send(method, body, {**base, **headers})
        return reply.status, dict(reply.headers), reply.raw

    def modern(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        caps: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, Any]]:
        params = dict(params or {})
        meta = params.pop("_meta", None)
        reply = self.client.rpc(method, params, meta=meta, capabilities=caps, headers=headers)
        return reply.status, reply.body

    def legacy_session(self, version: str = "2025-11-25") -> str:
        session = self.client.clone(era=version)
        session.initialize()
        assert session.session_id is not None
        return session.session_id

    def legacy(
        self, session_id: str, method: str, params: dict[str, Any] | None = None, accept_sse: bool = False
    ) -> tuple[int, dict[str, str], bytes]:
        session = self.client.clone(era="2025-11-25")
        session.session_id = session_id
        reply = session.rpc(
            method, params or {}, headers=None if accept_sse else {"accept": "application/json"}
        )
        return reply.status, dict(reply.headers), reply.raw
