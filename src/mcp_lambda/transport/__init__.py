"""HTTP only: headers, Origin, content negotiation, status mapping, SSE framing."""

from .http import McpEndpoint, to_response

__all__ = ["McpEndpoint", "to_response"]
