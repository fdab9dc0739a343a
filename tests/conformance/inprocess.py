"""Call the conformance business in-process through Mangum, exactly as the Lambda handler does (the one
in-process driver, tests/support/lambda_client.py, so every reply also passes the wire oracle)."""

from __future__ import annotations

import json
from typing import Any

from tests.support.lambda_client import LambdaClient, build_handler

from businesses.conformance import BUSINESS
from mcp_lambda.settings import Settings

MODERN = "2026-07-28"
ALL_CAPS = {"sampling": {}, "elicitation": {}, "roots": {}}


class Caller:
    def __init__(self, **settings: Any) -> None:
        self.client = LambdaClient(build_handler(BUSINESS, Settings(business="conformance", **settings)))
        self._next_id = 0

    def raw(
        self, headers: dict[str, str], body: Any, method: str = "POST"
    ) -> tuple[int, dict[str, str], bytes]:
        base = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
        reply = self.client.send(method, body, {**base, **headers})
        return reply.status, reply.headers, reply.raw

    def modern(
        self,
        method: str,
        params: dict[str, Any] | None = None,
        caps: dict[str, Any] | None = None,
        headers: dict[str, str] | None = None,
    ) -> tuple[int, dict[str, Any]]:
        self._next_id += 1
        params = dict(params or {})
        params["_meta"] = {
            "io.modelcontextprotocol/protocolVersion": MODERN,
            "io.modelcontextprotocol/clientCapabilities": ALL_CAPS if caps is None else caps,
            **params.get("_meta", {}),
        }
        wire_headers = {"mcp-protocol-version": MODERN, "mcp-method": method}
        if method in ("tools/call", "prompts/get"):
            wire_headers["mcp-name"] = params["name"]
        if method == "resources/read":
            wire_headers["mcp-name"] = params["uri"]
        wire_headers.update(headers or {})
        status, _, body = self.raw(
            wire_headers, {"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params}
        )
        return status, json.loads(body)

    def legacy_session(self, version: str = "2025-11-25") -> str:
        status, headers, _ = self.raw(
            {},
            {
                "jsonrpc": "2.0",
                "id": 0,
                "method": "initialize",
                "params": {
                    "protocolVersion": version,
                    "capabilities": {},
                    "clientInfo": {"name": "t", "version": "1"},
                },
            },
        )
        assert status == 200
        return headers["mcp-session-id"]

    def legacy(
        self, session_id: str, method: str, params: dict[str, Any] | None = None, accept_sse: bool = False
    ) -> tuple[int, dict[str, str], bytes]:
        self._next_id += 1
        headers = {"mcp-session-id": session_id, "mcp-protocol-version": "2025-11-25"}
        if not accept_sse:
            headers["accept"] = "application/json"
        return self.raw(
            headers, {"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params or {}}
        )
