"""HTTP only: headers, Origin, content negotiation, status mapping, SSE framing."""

from .http import McpEndpoint, http_error, to_response

__all__ = ["McpEndpoint", "http_error", "to_response"]
