"""McpServer: one endpoint, two eras. Routes each HTTP request by its MCP-Protocol-Version header."""

from __future__ import annotations

from typing import Any

from .legacy import LegacyEra
from .methods import McpMethods
from .modern import ModernEra
from .scope import Inbound, Outbound
from .versions import is_legacy_header


class McpServer:
    """The protocol layer's single entry: `handle(inbound) -> outbound`, whatever the revision."""

    def __init__(self, methods: McpMethods, sessions: Any, list_ttl_ms: int) -> None:
        business = methods.business
        server_info: dict[str, Any] = {"name": business.name, "version": business.version}
        if business.title:
            server_info["title"] = business.title
        self.methods = methods
        self.legacy = LegacyEra(methods, sessions, server_info)
        self.modern = ModernEra(methods, server_info, list_ttl_ms)

    async def handle(self, inbound: Inbound) -> Outbound:
        # mcp-wire §2: no header or a handshake revision -> legacy; anything else (incl. unknown) -> modern.
        legacy = is_legacy_header(inbound.header("mcp-protocol-version"))
        if inbound.http_method == "POST":
            return await (self.legacy.post(inbound) if legacy else self.modern.post(inbound))
        if not legacy:
            return await self.modern.reject_method(inbound)
        if inbound.http_method == "GET":
            return await self.legacy.get(inbound)
        if inbound.http_method == "DELETE":
            return await self.legacy.delete(inbound)
        return Outbound(405, headers={"allow": "POST, GET, DELETE"})
