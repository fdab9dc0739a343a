"""What the model may see of a result, from the manifest: the one projection the server's text, the lint and the
simulator use.

A declared field whose `llm_visible` is not false is the model's, a list's items are projected by their item
schema, and an undeclared field is the card's, not the model's. A container whose inside is not declared is shown
whole: the manifest declared the field, not its parts.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from ..tools import ToolResult
from ..tools.results import sentence_and_json
from .models import EntitySpec, FieldSpec, Manifest

# A hidden value shorter than this is too common a string ("taxi", "42") to call its presence in text a leak.
MIN_LEAK_LENGTH = 6


def project_fields(fields: Mapping[str, FieldSpec], value: Mapping[str, Any]) -> dict[str, Any]:
    """The declared, model-visible part of an object, recursively.

    Args:
        fields: The object's declared fields (an entity's `schema`, or a nested object's `properties`).
        value: The object.

    Returns:
        Only the fields declared and not marked `llm_visible: false`, each projected by its own spec.
    """
    return {
        name: _project(spec, value[name])
        for name, spec in fields.items()
        if spec.llm_visible and name in value
    }


def project_value(spec: FieldSpec | None, value: Any) -> Any:
    """One declared value as the model sees it: an object by its properties, a list by its item schema.

    Args:
        spec: The value's field spec; None when its inside is not declared (then it is shown whole).
        value: The value.

    Returns:
        The model-visible part of the value.
    """
    return _project(spec, value)


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


def model_projection(manifest: Manifest, tool: str, structured: Any, is_error: bool = False) -> Any:
    """The model-visible projection of a result's `structuredContent`.

    Args:
        manifest: The manifest.
        tool: The tool that answered (its `output.kind` decides).
        structured: The result's `structuredContent`.
        is_error: Whether the result is an error (the error object is the model's whole).

    Returns:
        For an `entities` result `{"entities": [...]}` with each entity's declared, model-visible fields; an
        `execution_result` or an error is the model's as it is.
    """
    entry = manifest.tools.get(tool)
    if is_error or entry is None or entry.output.kind != "entities":
        return structured
    return {
        "entities": [
            project_fields(spec.fields, entity) for _, entity, spec in declared_entities(manifest, structured)
        ]
    }


def with_model_text(manifest: Manifest, tool: str, result: ToolResult) -> ToolResult:
    """The result with the text the model reads: the business's sentence, then the projection as compact JSON.

    Only a result `entities(...)` built (its `append_projection` is set) is rewritten; any other is returned as
    it is.

    Args:
        manifest: The manifest.
        tool: The tool that answered.
        result: Its result.

    Returns:
        The result as it leaves the server.
    """
    if not result.append_projection or result.is_error:
        return result
    projection = model_projection(manifest, tool, result.structured_content)
    return result.with_text(sentence_and_json(result.sentence, projection))


def leaked_fields(
    manifest: Manifest, tool: str, result: ToolResult, hidden: Mapping[str, Any] | None = None
) -> list[str]:
    """The hidden fields whose value the result's text carries: one path per leak, never the value.

    A hidden field is one declared `llm_visible: false` (its whole value, inside included); a string of
    MIN_LEAK_LENGTH characters or more counts when a text block contains it exactly, unless a model-visible
    string of the same result contains it too (then the business itself shows it). `entity_type` is exempt: its
    value is the declared type name, which the manifest publishes.

    Args:
        manifest: The manifest.
        tool: The tool that answered.
        result: Its result.
        hidden: `hidden_node` of each entity type, compiled once (the run-time check's); None computes them.

    Returns:
        Paths such as `entities[0].products[1].detail_url`, in order.
    """
    entry = manifest.tools.get(tool)
    if result.is_error or entry is None or entry.output.kind != "entities":
        return []
    text = "\n".join(block["text"] for block in result.content if isinstance(block.get("text"), str))
    entities = list(declared_entities(manifest, result.structured_content))
    # The common case, fast: no hidden value is in the text at all (only the fields on a way to a hidden one).
    suspects: list[str] = []
    for _, entity, spec in entities:
        node = hidden.get(entity["entity_type"]) if hidden is not None else hidden_node(spec)
        _hidden_strings(node, entity, suspects)
    if not any(value in text for value in suspects):
        return []
    found: list[tuple[str, str]] = []  # (path, hidden string)
    visible: list[str] = []
    for index, entity, spec in entities:
        for name, field in spec.fields.items():
            if name in entity and name != "entity_type":
                _split(field, entity[name], f"entities[{index}].{name}", found, visible)
    leaks: dict[str, None] = {}  # ordered, each path once
    for path, value in found:
        if value in text and not any(value in shown for shown in visible):
            leaks[path] = None
    return list(leaks)


# What of a declared value is hidden: ALL of it, nothing (None), ("object", {field: node}) or ("array", node of
# the items), keeping only the ways that lead to a hidden field.
ALL = "all"


def hidden_node(spec: EntitySpec) -> Any:
    """The ways to the hidden fields of an entity spec (`entity_type` left out); compile it once per manifest.

    Args:
        spec: An entity spec.

    Returns:
        The pruned node `leaked_fields` walks first; None when nothing of the entity is hidden.
    """
    return _object_node({name: field for name, field in spec.fields.items() if name != "entity_type"})


def _object_node(fields: Mapping[str, FieldSpec]) -> Any:
    children = {name: child for name, field in fields.items() if (child := _node(field)) is not None}
    return ("object", children) if children else None


def _node(spec: FieldSpec) -> Any:
    if not spec.llm_visible:
        return ALL
    if spec.type == "object" and spec.properties:
        return _object_node(spec.properties)
    if spec.type == "array" and spec.items is not None:
        items = _node(spec.items)
        return ("array", items) if items is not None else None
    return None


def _hidden_strings(node: Any, value: Any, out: list[str]) -> None:
    """The strings of `value` the node marks hidden (as `_split` sorts them), MIN_LEAK_LENGTH or longer."""
    if node is None:
        return
    if node == ALL:
        out.extend(text for text in _strings(value) if len(text) >= MIN_LEAK_LENGTH)
        return
    kind, sub = node
    if kind == "object" and isinstance(value, Mapping):
        for name, child in sub.items():
            if name in value:
                _hidden_strings(child, value[name], out)
    elif kind == "array" and isinstance(value, list):
        for item in value:
            _hidden_strings(sub, item, out)


def _project(spec: FieldSpec | None, value: Any) -> Any:
    if spec is None:
        return value
    if spec.type == "object" and spec.properties and isinstance(value, Mapping):
        return project_fields(spec.properties, value)
    if spec.type == "array" and spec.items is not None and isinstance(value, list):
        # Items marked llm_visible: false are the card's: the model sees the list without them.
        return [_project(spec.items, item) for item in value] if spec.items.llm_visible else []
    return value


def _split(
    spec: FieldSpec | None, value: Any, path: str, hidden: list[tuple[str, str]], visible: list[str]
) -> None:
    """Sort the strings of a declared value into hidden (with their field's path) and model-visible."""
    if spec is not None and not spec.llm_visible:
        hidden.extend((path, text) for text in _strings(value) if len(text) >= MIN_LEAK_LENGTH)
        return
    if spec is not None and spec.type == "object" and spec.properties and isinstance(value, Mapping):
        for name, child in spec.properties.items():
            if name in value:
                _split(child, value[name], f"{path}.{name}", hidden, visible)
        return
    if spec is not None and spec.type == "array" and spec.items is not None and isinstance(value, list):
        for index, item in enumerate(value):
            _split(spec.items, item, f"{path}[{index}]", hidden, visible)
        return
    visible.extend(_strings(value))


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for child in value.values():
            yield from _strings(child)
    elif isinstance(value, list | tuple):
        for child in value:
            yield from _strings(child)
