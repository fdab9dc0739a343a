"""MCP Apps (SEP-1865, `io.modelcontextprotocol/ui`, 2026-01-26): the cards a business's manifest binds, served
as `ui://<business>/<widget>` HTML views that MCP Apps hosts render beside a tool's result (docs/cards.md).

`CardViewSet.build(business, manifest)` makes the set at start; the protocol layer asks it for the view
resources and for each tool's `_meta.ui`, only for a client that declared the extension (`declares_ui`).
"""

from .negotiation import UI_EXTENSION, VIEW_MIME_TYPE, declares_ui
from .views import CardView, CardViewError, CardViewSet

__all__ = [
    "UI_EXTENSION",
    "VIEW_MIME_TYPE",
    "CardView",
    "CardViewError",
    "CardViewSet",
    "declares_ui",
]
