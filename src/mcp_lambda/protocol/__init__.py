"""JSON-RPC 2.0 and MCP methods, with version routing between the legacy and 2026-07-28 eras."""

from .scope import CallScope, Era, Inbound, Outbound
from .server import McpServer

__all__ = ["CallScope", "Era", "Inbound", "McpServer", "Outbound"]
