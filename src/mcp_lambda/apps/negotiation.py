"""The extension's name, the view MIME type, and whether a client declared that it renders views."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

UI_EXTENSION = "io.modelcontextprotocol/ui"
VIEW_MIME_TYPE = "text/html;profile=mcp-app"


def declares_ui(capabilities: Mapping[str, Any]) -> bool:
    """Whether the client capabilities declare the MCP Apps extension with the HTML view type.

    A session client declares them in `initialize`, a 2026-07-28 client in each request's `_meta`; either way
    `capabilities.extensions["io.modelcontextprotocol/ui"].mimeTypes` must list `text/html;profile=mcp-app`
    (the spec marks `mimeTypes` required).

    Args:
        capabilities: The client's capabilities as the request carried them.

    Returns:
        True when tools/list may point at views and app-only tools may be listed and called.
    """
    # None and dict first: what a parsed request holds, without the ABC check a Mapping costs (read on every
    # request).
    extensions = capabilities.get("extensions")
    if extensions is None:
        return False
    settings = extensions.get(UI_EXTENSION) if isinstance(extensions, (dict, Mapping)) else None
    mime_types = (
        settings.get("mimeTypes") if settings is not None and isinstance(settings, (dict, Mapping)) else None
    )
    return isinstance(mime_types, list) and VIEW_MIME_TYPE in mime_types
