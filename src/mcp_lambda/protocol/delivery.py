"""What of a tool result each client receives: the fields its caller's scopes grant, and the manifest's hidden
values only for a client that renders cards (docs/manifest.md, "Who sees which field")."""

from __future__ import annotations

from typing import Any

from ..apps import declares_ui
from ..manifest.models import Manifest
from ..manifest.visibility import delivered
from ..tools import Business
from .scope import CallScope

# The revision the Doubao platform speaks: its sessions render the manifest's cards from structuredContent.
PLATFORM_REVISION = "2024-11-05"


class ResultDelivery:
    """Shapes each `tools/call` result (and each completed task's) for the request that receives it.

    Args:
        business: The business (its `hidden_values` choice).
        manifest: Its manifest; None when results are served unchecked (then they go out as they are).
    """

    def __init__(self, business: Business, manifest: Manifest | None) -> None:
        self.manifest = manifest
        self.hidden_to_model_clients = business.hidden_values == "card_clients"

    def renders_cards(self, scope: CallScope) -> bool:
        """Whether the request's client shows cards: a platform session (2024-11-05) or an MCP Apps host."""
        # The session's own revision: a header cannot turn a session into the platform's.
        version = scope.session.protocol_version if scope.session is not None else scope.protocol_version
        return version == PLATFORM_REVISION or declares_ui(scope.client_capabilities)

    def wire(self, scope: CallScope, tool: str, wire: dict[str, Any]) -> dict[str, Any]:
        """The result as this request's client receives it.

        Args:
            scope: The request receiving the result.
            tool: The tool that answered.
            wire: The result (`content`, `structuredContent`, `isError`).

        Returns:
            `wire` with its `structuredContent` for this client (the same dict when nothing changes).
        """
        structured = wire.get("structuredContent")
        if self.manifest is None or structured is None or wire.get("isError") is True:
            return wire
        caller = scope.auth.caller
        scopes = caller.scopes if scope.auth.enforced and caller is not None else frozenset()
        cards = not self.hidden_to_model_clients or self.renders_cards(scope)
        shown = delivered(self.manifest, tool, structured, scopes, cards)
        return wire if shown is structured else {**wire, "structuredContent": shown}
