"""The card views of one business: which widget each tool's card is shown in (the manifest's `tool_card_binding`),
each widget's HTML (the business's own file, else the generic view) and CSP, and what a UI client sees of them."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..errors import StartupError
from ..manifest import EntitySpec, Manifest
from ..tools import Business, ToolSpec
from ..tools.cards import CardAction, CardViews
from .generic import generic_view, own_view
from .negotiation import VIEW_MIME_TYPE

# An origin a view may load from: scheme, host (a leading `*.` wildcard allowed), optional port; no path.
ORIGIN = re.compile(r"^https?://(\*\.)?[A-Za-z0-9.-]+(:\d{1,5})?$")


class CardViewError(StartupError, ValueError):
    """`Business(card_views=...)` does not fit the manifest or the tools (each problem named)."""


@dataclass(frozen=True)
class CardView:
    """One widget's view: its `ui://` URI, its HTML, and the `_meta.ui` the resource carries (its CSP)."""

    uri: str
    widget: str
    description: str
    html: str
    meta: Mapping[str, Any]

    def to_wire(self) -> dict[str, Any]:
        """The view's entry in resources/list."""
        return {
            "uri": self.uri,
            "name": self.widget,
            "description": self.description,
            "mimeType": VIEW_MIME_TYPE,
            "_meta": {"ui": dict(self.meta)},
        }

    def contents(self) -> dict[str, Any]:
        """The view as resources/read answers it (one text content with the same `_meta.ui`)."""
        return {
            "uri": self.uri,
            "mimeType": VIEW_MIME_TYPE,
            "text": self.html,
            "_meta": {"ui": dict(self.meta)},
        }


class CardViewSet:
    """Every view of a business, and the `_meta.ui` each of its tools carries for a client that renders views."""

    def __init__(self, views: Sequence[CardView], view_of_tool: Mapping[str, str], tools: Sequence[ToolSpec]):
        self.views = list(views)
        self._by_uri = {view.uri: view for view in views}
        self._tool_meta: dict[str, dict[str, Any]] = {}
        for spec in tools:
            ui: dict[str, Any] = {}
            if spec.name in view_of_tool:
                ui["resourceUri"] = view_of_tool[spec.name]
            if spec.visibility is not None:
                ui["visibility"] = list(spec.visibility)
            if ui:
                self._tool_meta[spec.name] = ui

    @classmethod
    def build(cls, business: Business, manifest: Manifest | None) -> CardViewSet | None:
        """The business's views; None when no tool is bound to a card nor declares a visibility (nothing to add).

        Raises:
            CardViewError: a view file for a widget the manifest does not bind, an action of an unknown widget
                or of a tool that is not app-visible, or a domain that is not an origin.
        """
        config = business.card_views or CardViews()
        widgets = _widgets(manifest)
        tools = {spec.name: spec for spec in business.tools}
        # Without a manifest (served unchecked, with a warning) there is no binding to hold the views against.
        problems = _problems(business.name, config, widgets, tools, bound=manifest is not None)
        if problems:
            raise CardViewError("; ".join(problems))
        if not widgets and not any(spec.visibility is not None for spec in business.tools):
            return None
        meta = _ui_meta(config)
        views: list[CardView] = []
        view_of_tool: dict[str, str] = {}
        for widget, (entity_specs, bound_tools) in sorted(widgets.items()):
            uri = f"ui://{business.name}/{widget}"
            own = config.directory / f"{widget}.html" if config.directory else None
            if own is not None and own.is_file():
                html = own_view(own.read_text(encoding="utf-8"))
            else:
                html = generic_view(
                    widget, business.title or business.name, entity_specs, config.actions.get(widget, ())
                )
            names = ", ".join(sorted(bound_tools))
            views.append(CardView(uri, widget, f"The {widget} card of {names}", html, meta))
            view_of_tool.update(dict.fromkeys(bound_tools, uri))
        return cls(views, view_of_tool, business.tools)

    def view(self, uri: str) -> CardView | None:
        """The view served at `uri`, if any."""
        return self._by_uri.get(uri)

    def tool_entry(self, spec: ToolSpec, wire: Mapping[str, Any]) -> dict[str, Any]:
        """A tools/list entry as a UI client sees it: `_meta.ui` (resourceUri, visibility) added when declared."""
        ui = self._tool_meta.get(spec.name)
        if ui is None:
            return dict(wire)
        meta = dict(wire.get("_meta") or {})
        meta["ui"] = {**(meta.get("ui") or {}), **ui}
        return {**wire, "_meta": meta}


def _widgets(manifest: Manifest | None) -> dict[str, tuple[dict[str, EntitySpec], set[str]]]:
    """widget -> (entity type -> spec, the tools bound to it), from every entity's `tool_card_binding`."""
    widgets: dict[str, tuple[dict[str, EntitySpec], set[str]]] = {}
    for entity_type, entity in manifest.entities.items() if manifest else ():
        for tool_name, widget in entity.tool_card_binding.items():
            entity_specs, bound_tools = widgets.setdefault(widget, ({}, set()))
            entity_specs[entity_type] = entity
            bound_tools.add(tool_name)
    return widgets


def _ui_meta(config: CardViews) -> dict[str, Any]:
    """The resource's `_meta.ui`: the CSP (only what the business declared) and a bordered card."""
    csp: dict[str, list[str]] = {}
    if config.image_domains:
        csp["resourceDomains"] = list(config.image_domains)
    if config.connect_domains:
        csp["connectDomains"] = list(config.connect_domains)
    return {"csp": csp, "prefersBorder": True}


def _problems(
    business: str,
    config: CardViews,
    widgets: Mapping[str, tuple[dict[str, EntitySpec], set[str]]],
    tools: Mapping[str, ToolSpec],
    bound: bool,
) -> list[str]:
    where = f"business '{business}': card_views"
    problems = [
        f"{where}: '{domain}' is not an origin such as https://img.example.com"
        for domain in (*config.image_domains, *config.connect_domains)
        if not isinstance(domain, str) or not ORIGIN.match(domain)
    ]
    if not bound:
        return problems
    if config.directory is not None:
        problems += [
            f"{where}: {path.name} is the view of no widget the manifest binds (known: {', '.join(sorted(widgets))})"
            for path in sorted(config.directory.glob("*.html"))
            if path.stem not in widgets
        ]
    for widget, actions in config.actions.items():
        if widget not in widgets:
            problems.append(f"{where}: actions of '{widget}', a widget the manifest does not bind")
            continue
        problems += [_action_problem(where, widget, action, widgets[widget][0], tools) for action in actions]
    return [problem for problem in problems if problem]


def _action_problem(
    where: str,
    widget: str,
    action: CardAction,
    entities: Mapping[str, EntitySpec],
    tools: Mapping[str, ToolSpec],
) -> str:
    spec = tools.get(action.tool)
    if spec is None:
        return f"{where}: the '{widget}' action '{action.label}' calls '{action.tool}', a tool the business lacks"
    if spec.visibility is None or "app" not in spec.visibility:
        return (
            f"{where}: the '{widget}' action '{action.label}' calls '{action.tool}', which must be declared "
            '@tool(access=Access(visibility=["app"])) or ["model", "app"]'
        )
    fields = {name for entity in entities.values() for name in entity.fields}
    unknown = sorted(set(action.arguments.values()) - fields)
    if unknown:
        return f"{where}: the '{widget}' action '{action.label}' takes {', '.join(unknown)}, not fields of its entities"
    return ""
