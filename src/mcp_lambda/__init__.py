"""mcp_lambda: a serverless runtime for MCP tool servers (every MCP revision, one Lambda per business)."""

__version__ = "0.1.0"
