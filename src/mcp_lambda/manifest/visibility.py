"""Who sees what of a result, from the manifest: the one projection the server's text, the lint and the simulator
use, and what each client receives in `structuredContent`.

A declared field whose `llm_visible` is not false is the model's, a list's items are projected by their item
schema, and an undeclared field is the card's, not the model's. A container whose inside is not declared is shown
whole: the manifest declared the field, not its parts. A field with `requires_scope` exists only for a caller
granted that scope: for any other it is left out of the projection and removed from `structuredContent`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from typing import Any

from ..tools import ToolResult
from ..tools.results import sentence_and_json
from .models import EntitySpec, FieldSpec, Manifest

NO_SCOPES: frozenset[str] = frozenset()


def granted(spec: FieldSpec, scopes: Collection[str]) -> bool:
    """Whether a caller holding `scopes` may receive the field at all (its `requires_scope`, if any, is held)."""
    return spec.requires_scope is None or spec.requires_scope in scopes


def project_fields(
    fields: Mapping[str, FieldSpec], value: Mapping[str, Any], scopes: Collection[str] = NO_SCOPES
) -> dict[str, Any]:
    """The declared, model-visible part of an object, recursively.

    Args:
        fields: The object's declared fields (an entity's `schema`, or a nested object's `properties`).
        value: The object.
        scopes: The scopes the caller was granted (a field requiring another is left out).

    Returns:
        Only the fields declared, not marked `llm_visible: false` and granted, each projected by its own spec.
    """
    return {
        name: _project(spec, value[name], scopes)
        for name, spec in fields.items()
        if spec.llm_visible and name in value and granted(spec, scopes)
    }


def project_value(spec: FieldSpec | None, value: Any, scopes: Collection[str] = NO_SCOPES) -> Any:
    """One declared value as the model sees it: an object by its properties, a list by its item schema.

    Args:
        spec: The value's field spec; None when its inside is not declared (then it is shown whole).
        value: The value.
        scopes: The scopes the caller was granted.

    Returns:
        The model-visible part of the value.
    """
    return _project(spec, value, scopes)


def declared_entities(
    manifest: Manifest, structured: Any
) -> Iterator[tuple[int, dict[str, Any], EntitySpec]]:
    """The entities of `structuredContent` whose type the manifest declares: (index, entity, its spec).

    Args:
        manifest: The manifest.
        structured: A result's `structuredContent` (anything: what is not an entity list gives nothing).

    Yields:
        One triple per entity of a declared type, in order.
    """
    items = structured.get("entities") if isinstance(structured, Mapping) else None
    for index, entity in enumerate(items if isinstance(items, list) else []):
        entity_type = entity.get("entity_type") if isinstance(entity, dict) else None
        spec = manifest.entities.get(entity_type) if isinstance(entity_type, str) else None
        if spec is not None:
            yield index, entity, spec


def model_projection(
    manifest: Manifest,
    tool: str,
    structured: Any,
    is_error: bool = False,
    scopes: Collection[str] = NO_SCOPES,
) -> Any:
    """The model-visible projection of a result's `structuredContent`.

    Args:
        manifest: The manifest.
        tool: The tool that answered (its `output.kind` decides).
        structured: The result's `structuredContent`.
        is_error: Whether the result is an error (the error object is the model's whole).
        scopes: The scopes the caller was granted.

    Returns:
        For an `entities` result `{"entities": [...]}` with each entity's declared, model-visible, granted
        fields; an `execution_result` or an error is the model's as it is.
    """
    entry = manifest.tools.get(tool)
    if is_error or entry is None or entry.output.kind != "entities":
        return structured
    return {
        "entities": [
            project_fields(spec.fields, entity, scopes)
            for _, entity, spec in declared_entities(manifest, structured)
        ]
    }


def with_model_text(
    manifest: Manifest, tool: str, result: ToolResult, scopes: Collection[str] = NO_SCOPES
) -> ToolResult:
    """The result with the text the model reads: the business's sentence, then the projection as compact JSON.

    Only a result `entities(...)` built (its `append_projection` is set) is rewritten; any other is returned as
    it is.

    Args:
        manifest: The manifest.
        tool: The tool that answered.
        result: Its result.
        scopes: The scopes the caller was granted.

    Returns:
        The result as it leaves the server.
    """
    if not result.append_projection or result.is_error:
        return result
    projection = model_projection(manifest, tool, result.structured_content, scopes=scopes)
    return result.with_text(sentence_and_json(result.sentence, projection))


def delivered(
    manifest: Manifest, tool: str, structured: Any, scopes: Collection[str], renders_cards: bool
) -> Any:
    """The `structuredContent` one client receives.

    A client that renders cards gets every field but those needing a scope the caller lacks. A client that
    renders none hands `structuredContent` to its model, so it gets what the model may see: the projection, with
    each entity's `entity_type` (the declared type name, which the published schema names anyway).

    Args:
        manifest: The manifest.
        tool: The tool that answered.
        structured: The result's `structuredContent` (an error's or an `execution_result`'s is returned as is).
        scopes: The scopes the caller was granted.
        renders_cards: Whether the client shows cards (the platform, an MCP Apps host).

    Returns:
        The `structuredContent` for this client (the same object when nothing is removed).
    """
    entry = manifest.tools.get(tool)
    if entry is None or entry.output.kind != "entities" or not isinstance(structured, Mapping):
        return structured
    items = structured.get("entities")
    if not isinstance(items, list):
        return structured
    shown: list[Any] = list(items)
    for index, entity, spec in declared_entities(manifest, structured):
        if renders_cards:
            shown[index] = _granted_part(spec.fields, entity, scopes)
        else:  # in the tool's own order
            seen = project_fields(spec.fields, entity, scopes)
            shown[index] = {
                name: seen.get(name, value)
                for name, value in entity.items()
                if name == "entity_type" or name in seen
            }
    return {**structured, "entities": shown} if renders_cards else {"entities": shown}


def all_fields(manifest: Manifest) -> Iterator[tuple[str, FieldSpec]]:
    """Every field spec of every entity, nested ones too: (path, spec)."""
    for name, entity in manifest.entities.items():
        yield from _walk(f"entities.{name}.schema", entity.fields)


def _walk(path: str, fields: Mapping[str, FieldSpec]) -> Iterator[tuple[str, FieldSpec]]:
    for name, spec in fields.items():
        yield f"{path}.{name}", spec
        yield from _walk(f"{path}.{name}.properties", spec.properties or {})
        if spec.items is not None:
            yield f"{path}.{name}.items", spec.items
            yield from _walk(f"{path}.{name}.items.properties", spec.items.properties or {})


def _granted_part(fields: Mapping[str, FieldSpec], value: Mapping[str, Any], scopes: Collection[str]) -> Any:
    """The object without the declared fields whose scope the caller lacks (undeclared ones kept: the card's)."""
    out: dict[str, Any] = {}
    for name, child in value.items():
        spec = fields.get(name)
        if spec is None:
            out[name] = child
        elif granted(spec, scopes):
            out[name] = _granted_value(spec, child, scopes)
    return out


def _granted_value(spec: FieldSpec, value: Any, scopes: Collection[str]) -> Any:
    if spec.type == "object" and spec.properties and isinstance(value, Mapping):
        return _granted_part(spec.properties, value, scopes)
    if spec.type == "array" and spec.items is not None and isinstance(value, list):
        if not granted(spec.items, scopes):
            return []
        return [_granted_value(spec.items, item, scopes) for item in value]
    return value


def _project(spec: FieldSpec | None, value: Any, scopes: Collection[str]) -> Any:
    if spec is None:
        return value
    if spec.type == "object" and spec.properties and isinstance(value, Mapping):
        return project_fields(spec.properties, value, scopes)
    if spec.type == "array" and spec.items is not None and isinstance(value, list):
        # Items marked llm_visible: false (or needing a scope not granted) are not the model's: an empty list.
        if not spec.items.llm_visible or not granted(spec.items, scopes):
            return []
        return [_project(spec.items, item, scopes) for item in value]
    return value
