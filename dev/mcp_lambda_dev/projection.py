"""What the platform does with a result (doubao-protocol.md §3.3): the model's view, the cards, the lists.

Each function takes the result as it travels on the wire (`content`, `structuredContent`, `isError`) or a
ToolResult (its text settled as the server settles it), and assumes it has passed the check; entities of
undeclared types are left out. What the model may see is `mcp_lambda.manifest.visibility`'s one projection.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from mcp_lambda.manifest.models import Manifest
from mcp_lambda.manifest.visibility import declared_entities, model_projection, project_value, with_model_text
from mcp_lambda.tools import ToolResult


def model_view(
    manifest: Manifest,
    tool: str,
    result: ToolResult | Mapping[str, Any],
    scopes: Collection[str] = frozenset(),
) -> dict[str, Any]:
    """The text and the structured data the model reads: declared fields with `llm_visible` not false (and,
    with `requires_scope`, only those `scopes` grant)."""
    wire = _wire(manifest, tool, result, scopes)
    structured = wire.get("structuredContent")
    view: dict[str, Any] = {"text": _text(wire)}
    if wire.get("isError") is True:
        view["error"] = structured
    elif manifest.tools[tool].output.kind == "execution_result":
        view["result"] = structured
    else:
        view["entities"] = model_projection(manifest, tool, structured, scopes=scopes)["entities"]
    return view


def card_candidates(
    manifest: Manifest, tool: str, result: ToolResult | Mapping[str, Any]
) -> list[dict[str, Any]]:
    """One card per entity whose (tool, entity_type) hits a `tool_card_binding`."""
    wire = _wire(manifest, tool, result)
    if wire.get("isError") is True or manifest.tools[tool].output.kind != "entities":
        return []
    cards = []
    for index, entity, spec in declared_entities(manifest, wire.get("structuredContent")):
        widget_id = spec.tool_card_binding.get(tool)
        if widget_id is None:
            continue
        refresh_field = spec.refresh_key_field
        history = spec.history_card_refresh
        cards.append(
            {
                "entity_index": index,
                "entity_type": entity["entity_type"],
                "entity_id": entity.get(spec.id_field),
                "widget_id": widget_id,
                "refresh_key": entity.get(refresh_field) if refresh_field else None,
                "history_card_refresh": history.model_dump() if history is not None else None,
            }
        )
    return cards


def modifiable_lists(
    manifest: Manifest, tool: str, result: ToolResult | Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The `llm_modifiable` arrays: the items (as the model sees them) it may select a subset of."""
    wire = _wire(manifest, tool, result)
    if wire.get("isError") is True or manifest.tools[tool].output.kind != "entities":
        return []
    lists = []
    for index, entity, spec in declared_entities(manifest, wire.get("structuredContent")):
        for field, field_spec in spec.fields.items():
            value = entity.get(field)
            if not field_spec.llm_modifiable or not isinstance(value, list):
                continue
            items = [
                {"index": position, "item": project_value(field_spec.items, item)}
                for position, item in enumerate(value)
            ]
            lists.append(
                {
                    "entity_index": index,
                    "entity_type": entity["entity_type"],
                    "entity_id": entity.get(spec.id_field),
                    "field": field,
                    "items": items,
                }
            )
    return lists


def narrowed_entities(
    manifest: Manifest,
    tool: str,
    result: ToolResult | Mapping[str, Any],
    keep: Mapping[tuple[int, str], Sequence[int]],
) -> list[dict[str, Any]]:
    """The entities as the card receives them once the model has narrowed `llm_modifiable` lists.

    `keep[(entity_index, field)]` are the positions of the items the model kept: a subset, in the original
    order (the model never adds, reorders or rewrites items); lists not named in `keep` stay whole. Raises
    ValueError for a field that is not one of this result's modifiable lists, or a position out of range.
    """
    wire = _wire(manifest, tool, result)
    listed = {
        (entry["entity_index"], entry["field"]): entry for entry in modifiable_lists(manifest, tool, wire)
    }
    structured = wire.get("structuredContent")
    entities = [dict(entity) for entity in (structured or {}).get("entities") or []]
    for (index, field), positions in keep.items():
        if (index, field) not in listed:
            raise ValueError(f"entities[{index}].{field} is not an llm_modifiable list of this result")
        items = entities[index][field]
        bad = [position for position in positions if not 0 <= position < len(items)]
        if bad:
            raise ValueError(f"entities[{index}].{field} has no item {bad[0]} (it has {len(items)})")
        entities[index][field] = [items[position] for position in sorted(set(positions))]
    return entities


def _text(wire: Mapping[str, Any]) -> str | None:
    texts = [block["text"] for block in wire.get("content") or [] if block.get("type") == "text"]
    return "\n".join(texts) if texts else None


def _wire(
    manifest: Manifest,
    tool: str,
    result: ToolResult | Mapping[str, Any],
    scopes: Collection[str] = frozenset(),
) -> Mapping[str, Any]:
    if isinstance(result, ToolResult):
        return with_model_text(manifest, tool, result, scopes).to_wire()
    return result
