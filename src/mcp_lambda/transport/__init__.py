"""HTTP only: headers, Origin, content negotiation, status mapping, SSE framing."""

from .http import (
    MCP_METHODS,
    MCP_PATHS,
    HttpRequest,
    HttpResponse,
    McpEndpoint,
    http_error,
    http_response,
    internal_error_response,
    to_response,
)

__all__ = [
    "MCP_METHODS",
    "MCP_PATHS",
    "HttpRequest",
    "HttpResponse",
    "McpEndpoint",
    "http_error",
    "http_response",
    "internal_error_response",
    "to_response",
]
