"""What a business declares about its cards for MCP Apps hosts: `CardViews` and `CardAction` (docs/cards.md).

The widget a tool's card is shown in comes from the manifest's `tool_card_binding`; these say where the business's
own views are, which outside origins a view may load images from or connect to, and which app-only tools a card's
buttons call.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class CardAction:
    """A button of the generic card view that calls an app-visible tool with values taken from the card.

    Example: `CardAction(tool="refresh_route", label="Refresh", arguments={"route_id": "route_id"})`: the button
    calls `refresh_route` with the card entity's `route_id` and shows the answer in the card.

    Args:
        tool: The tool to call; its `@tool(access=Access(visibility=...))` must include `"app"`.
        label: The button's text.
        arguments: Tool argument name -> the entity field whose value it takes (a field the model need not see).
    """

    tool: str
    label: str
    arguments: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CardViews:
    """The business's MCP Apps views: `Business(card_views=CardViews(...))`.

    Every widget the manifest binds gets a view served as `ui://<business>/<widget>`: the file
    `<directory>/<widget>.html` when the business has one, else the framework's generic card view.

    Args:
        directory: Where the business's own views are (one self-contained HTML file per widget), usually
            `Path(__file__).parent / "views"`; None: every widget gets the generic view.
        image_domains: Origins the views load images (and other static files) from, e.g.
            `("https://img.example.com",)`: the view's CSP `resourceDomains`; nothing else is allowed.
        connect_domains: Origins a view's own scripts may fetch from (CSP `connectDomains`); usually none, since
            a view calls the business's tools through the host instead.
        actions: Widget -> the buttons the generic view shows on its cards.
    """

    directory: Path | None = None
    image_domains: Sequence[str] = ()
    connect_domains: Sequence[str] = ()
    actions: Mapping[str, Sequence[CardAction]] = field(default_factory=dict)
