"""MCP Apps on the wire: what a client that declared `io.modelcontextprotocol/ui` sees beyond what any other client
sees — the card views as resources, `_meta.ui` on tools/list entries, and the app-only tools (docs/cards.md).

A client that declared nothing sees exactly what it saw before views existed: no `_meta.ui`, no view resources,
and no app-only tool (a model-facing list must not hold one; SEP-1865 "Visibility"), which it cannot call either.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from ..apps import CardViewSet, declares_ui
from ..tools import ToolSpec
from .scope import CallScope


class AppViews:
    """The card views of a business (None: it binds no card) as each request's client may see them."""

    def __init__(self, views: CardViewSet | None) -> None:
        self.views = views

    def serves(self, client_capabilities: Mapping[str, Any]) -> bool:
        """Whether this client gets views: the business has some and the client declared the extension."""
        return self.views is not None and declares_ui(client_capabilities)

    def shapes_the_list(self, scope: CallScope, app_only_tools: bool = False) -> bool:
        """Whether this client's list differs because it renders views (a view's `_meta.ui`, an app-only tool, a
        `ui://` resource): such a list is this client's, never one a shared cache may serve a client without views.

        Args:
            scope: The request.
            app_only_tools: Whether the list being built holds tools only an app may see.

        Returns:
            True when the client declared the extension and something in the list depends on it.
        """
        return declares_ui(scope.client_capabilities) and (self.views is not None or app_only_tools)

    def visible(self, scope: CallScope, spec: ToolSpec) -> bool:
        """Whether the tool is listed to and callable by this client: an app-only tool only for a UI client."""
        return spec.model_visible or declares_ui(scope.client_capabilities)

    def listed(self, scope: CallScope, tools: Iterable[ToolSpec]) -> list[ToolSpec]:
        """The tools this client is listed (`visible`), its capabilities read once for the whole list."""
        if declares_ui(scope.client_capabilities):
            return list(tools)
        return [spec for spec in tools if spec.model_visible]

    def tool_entries(
        self, scope: CallScope, wire: Mapping[str, dict[str, Any]], encoded: Mapping[str, Any] | None = None
    ) -> Callable[[ToolSpec], Mapping[str, Any]]:
        """What makes a tool's tools/list entry for this client (from `wire`, by name): with `_meta.ui` for a UI
        client; for any other, the same entry as encoded once (`encoded`, by name, when given). The client's
        capabilities are read once for the whole list."""
        views = self.views
        if views is None or not declares_ui(scope.client_capabilities):
            same = wire if encoded is None else encoded
            return lambda spec: same[spec.name]
        return lambda spec: views.tool_entry(spec, wire[spec.name])

    def resources(self, scope: CallScope) -> list[dict[str, Any]]:
        """The view resources resources/list shows this client (none to a client without the extension)."""
        if self.views is None or not declares_ui(scope.client_capabilities):
            return []
        return [view.to_wire() for view in self.views.views]

    def read(self, scope: CallScope, uri: str) -> dict[str, Any] | None:
        """resources/read of a view for a UI client; None when `uri` is no view (or the client has none)."""
        if self.views is None or not declares_ui(scope.client_capabilities):
            return None
        view = self.views.view(uri)
        return None if view is None else {"contents": [view.contents()]}
