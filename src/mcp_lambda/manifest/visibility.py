"""Who sees what of a result, from the manifest: the one projection the server's text, the lint and the simulator
use, and what each client receives in `structuredContent`.

A declared field whose `llm_visible` is not false is the model's, a list's items are projected by their item
schema, and an undeclared field is the card's, not the model's. A container whose inside is not declared is shown
whole: the manifest declared the field, not its parts. A field with `requires_scope` exists only for a caller
granted that scope: for any other it is left out of the projection and removed from `structuredContent`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from contextvars import ContextVar
from typing import Any, NamedTuple

from ..tools import ToolResult
from ..tools.results import sentence_and_json
from .compiled import CompiledOnce
from .fast_projection import entity_projection
from .models import EntitySpec, FieldSpec, Manifest, walk_fields

NO_SCOPES: frozenset[str] = frozenset()


class Projected(NamedTuple):
    """The last projection `with_model_text` computed in this context: for which `structuredContent` (the object
    itself) and scopes, each declared entity's projection (in `declared_entities` order), and the text built."""

    structured: Any
    scopes: Collection[str]
    entities: list[dict[str, Any]]
    text: str
    sentence: str | None


# The delivery of the same result and the leak check read it instead of projecting again (the executor settles
# the text, checks it, and the request delivers it, all in one context).
_LAST: ContextVar[Projected | None] = ContextVar("mcp_lambda_last_projection", default=None)


def last_projection(structured: Any, scopes: Collection[str]) -> Projected | None:
    """The projection `with_model_text` computed for this very `structuredContent` and these scopes, if it did."""
    last = _LAST.get()
    if last is not None and last.structured is structured and last.scopes == scopes:
        return last
    return None


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
    out: dict[str, Any] = {}
    for name, inner, scope in _plan(fields):
        if name in value and (scope is None or scope in scopes):
            out[name] = value[name] if inner is None else _project(inner, value[name], scopes)
    return out


def _compile_plan(fields: Mapping[str, FieldSpec]) -> tuple[tuple[str, FieldSpec | None, str | None], ...]:
    return tuple(
        (name, spec if _has_inside(spec) else None, spec.requires_scope)
        for name, spec in fields.items()
        if spec.llm_visible
    )


# A field mapping compiled for the projection, once per mapping: for each model-visible field its name, its spec
# when it has an inside to project (None: the value as it is) and the scope it requires. Every result walks only
# these.
_plan = CompiledOnce(_compile_plan)


def _has_inside(spec: FieldSpec) -> bool:
    return (spec.type == "object" and bool(spec.properties)) or (
        spec.type == "array" and spec.items is not None
    )


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
    # A dict is tested first: the usual case, without the Mapping ABC's check (called several times a request).
    items = structured.get("entities") if isinstance(structured, (dict, Mapping)) else None
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
            entity_projection(spec, entity, scopes)  # project_fields, compiled: fast_projection.py
            for _, entity, spec in declared_entities(manifest, structured)
        ]
    }


def with_model_text(
    manifest: Manifest,
    tool: str,
    result: ToolResult,
    scopes: Collection[str] = NO_SCOPES,
    meta: Mapping[str, Any] | None = None,
) -> ToolResult:
    """The result with the text the model reads: the business's sentence, then the projection as compact JSON.

    Only a result `entities(...)` built (its `append_projection` is set) is rewritten; any other is returned as
    it is.

    Args:
        manifest: The manifest.
        tool: The tool that answered.
        result: Its result.
        scopes: The scopes the caller was granted.
        meta: `_meta` entries a rewritten result also gets, in the same copy (`ToolResult.with_text`); a result
            returned as it is does not get them.

    Returns:
        The result as it leaves the server.
    """
    if not result.append_projection or result.is_error:
        return result
    structured = result.structured_content
    projection = model_projection(manifest, tool, structured, scopes=scopes)
    text = sentence_and_json(result.sentence, projection)
    if projection is not structured:  # an entities result: remembered for its delivery and its leak check
        _LAST.set(Projected(structured, scopes, projection["entities"], text, result.sentence))
    return result.with_text(text, meta)


# The top-level keys of an entities result a model reads besides the entities (the seed's "found nothing").
MODEL_KEYS = ("result_status",)


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
    if entry is None or entry.output.kind != "entities" or not isinstance(structured, (dict, Mapping)):
        return structured
    items = structured.get("entities")
    if not isinstance(items, list):
        return structured
    shown: list[Any] = list(items)
    known = None if renders_cards else last_projection(structured, scopes)
    for position, (index, entity, spec) in enumerate(declared_entities(manifest, structured)):
        if renders_cards:
            shown[index] = _granted_part(spec.fields, entity, scopes)
        else:  # in the tool's own order
            seen = (
                known.entities[position] if known is not None else project_fields(spec.fields, entity, scopes)
            )
            shown[index] = {
                name: seen.get(name, value)
                for name, value in entity.items()
                if name == "entity_type" or name in seen
            }
    if renders_cards:
        if all(new is old for new, old in zip(shown, items, strict=True)):
            return structured  # nothing this caller may not see
        return {**structured, "entities": shown}
    # A model-only client: the entities as the model may see them, and the outcome an agent branches on.
    return {"entities": shown, **{key: structured[key] for key in MODEL_KEYS if key in structured}}


def all_fields(manifest: Manifest) -> Iterator[tuple[str, FieldSpec]]:
    """Every field spec of every entity, nested ones too, at any depth: (path, spec)."""
    for name, entity in manifest.entities.items():
        for path, _name, spec, _depth in walk_fields(f"entities.{name}.schema", entity.fields):
            yield path, spec


_REMOVED = object()


def _compile_scoped_ways(fields: Mapping[str, FieldSpec]) -> dict[str, Any] | None:
    ways = {name: node for name, spec in fields.items() if (node := _scoped_node(spec)) is not None}
    return ways or None


# The ways to the fields of a mapping that require a scope, compiled once per mapping: {name: node}, a node being
# ("scoped", scope, inside or None), ("object", {name: node}) or ("array", node); None when the mapping holds no
# such field at any depth (then a card client's entity goes out as it is, uncopied).
_scoped_ways = CompiledOnce(_compile_scoped_ways)


def _scoped_node(spec: FieldSpec) -> Any:
    inside = None
    if spec.type == "object" and spec.properties:
        ways = _scoped_ways(spec.properties)
        inside = ("object", ways) if ways else None
    elif spec.type == "array" and spec.items is not None:
        item = _scoped_node(spec.items)
        inside = ("array", item) if item is not None else None
    if spec.requires_scope is not None:
        return ("scoped", spec.requires_scope, inside)
    return inside


def _granted_part(fields: Mapping[str, FieldSpec], value: Mapping[str, Any], scopes: Collection[str]) -> Any:
    """The object without the declared fields whose scope the caller lacks (undeclared ones kept: the card's);
    the object itself when none of its fields can need a scope."""
    ways = _scoped_ways(fields)
    return value if ways is None else _granted_object(ways, value, scopes)


def _granted_object(
    ways: dict[str, Any], value: Mapping[str, Any], scopes: Collection[str]
) -> dict[str, Any]:
    out = dict(value)
    for name, node in ways.items():
        if name in out:
            kept = _granted_value(node, out[name], scopes)
            if kept is _REMOVED:
                del out[name]
            else:
                out[name] = kept
    return out


def _granted_value(node: Any, value: Any, scopes: Collection[str]) -> Any:
    if node[0] == "scoped":
        if node[1] not in scopes:
            return _REMOVED
        node = node[2]
        if node is None:
            return value
    if node[0] == "object":
        return _granted_object(node[1], value, scopes) if isinstance(value, Mapping) else value
    if not isinstance(value, list):
        return value
    item = node[1]
    if item[0] == "scoped" and item[1] not in scopes:  # items needing a scope not granted: an empty list
        return []
    return [_granted_value(item, child, scopes) for child in value]


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
