"""The HTML a view is served as: the generic card view (package files `generic/`, filled in with the widget's
entity schema and actions) or a business's own file, each one self-contained (the CSP allows no script source)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

from ..manifest import EntitySpec, FieldSpec
from ..tools.cards import CardAction

# A business view that holds this comment gets the framework's small MCP Apps helper (`McpApp`) in its place.
HELPER_MARKER = "<!-- mcp-app-helper -->"
# Fields the generic view never shows: the entity's type tag (its ids are shown only to actions).
NOT_SHOWN = frozenset({"entity_type"})


@cache
def _asset(name: str) -> str:
    return (resources.files(__package__) / "generic" / name).read_text(encoding="utf-8")


def _script(source: str) -> str:
    return f"<script>\n{source}</script>"


def _field(spec: FieldSpec) -> dict[str, Any]:
    described: dict[str, Any] = {"type": spec.type}
    if spec.description:
        described["description"] = spec.description
    if spec.is_entity_id:
        described["id"] = True
    if spec.items is not None and spec.items.properties:
        described["items"] = {name: _field(item) for name, item in spec.items.properties.items()}
    return described


def card_config(
    widget: str, business_title: str, entities: Mapping[str, EntitySpec], actions: Sequence[CardAction]
) -> dict[str, Any]:
    """What the generic view knows of its widget: each entity type's fields (in manifest order) and the actions."""
    return {
        "widget": widget,
        "business": business_title,
        "entities": {
            entity_type: {
                "description": entity.description or "",
                "fields": {n: _field(f) for n, f in entity.fields.items() if n not in NOT_SHOWN},
            }
            for entity_type, entity in entities.items()
        },
        "actions": [
            {"tool": action.tool, "label": action.label, "arguments": dict(action.arguments)}
            for action in actions
        ],
    }


def _json_for_script(value: Any) -> str:
    # `<` escaped: no `</script>` (nor `<!--`) can end the data block early.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":")).replace("<", "\\u003c")


def generic_view(
    widget: str, business_title: str, entities: Mapping[str, EntitySpec], actions: Sequence[CardAction]
) -> str:
    """The generic card view of `widget`: one HTML document with its style, the helper, the card script and the
    widget's schema inlined."""
    config = _json_for_script(card_config(widget, business_title, entities, actions))
    return (
        _asset("card.html")
        .replace("{{title}}", widget.replace("_", " "))
        .replace("{{style}}", f"<style>\n{_asset('card.css')}</style>")
        .replace("{{config}}", f'<script type="application/json" id="card-config">{config}</script>')
        .replace("{{helper}}", _script(_asset("mcp-app.js")))
        .replace("{{card}}", _script(_asset("card.js")))
    )


def own_view(html: str) -> str:
    """A business's own view, with the helper put where it asks for it (`<!-- mcp-app-helper -->`)."""
    return html.replace(HELPER_MARKER, _script(_asset("mcp-app.js")), 1)
