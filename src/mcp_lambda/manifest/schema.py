"""JSON Schema (2020-12) for a tool's structuredContent, derived from the manifest, served as `outputSchema`."""

from __future__ import annotations

from typing import Any

from ..tools.error_schema import admitting_errors
from .models import EntitySpec, FieldSpec, Manifest

_JSON_TYPES = {
    "string": "string",
    "int": "integer",
    "float": "number",
    "boolean": "boolean",
    "object": "object",
    "array": "array",
}


def output_schema(manifest: Manifest, tool: str) -> dict[str, Any] | None:
    """The outputSchema of a kind=entities tool: `{"entities": [...]}` or the error object (`admitting_errors`);
    None for execution_result (no fixed shape)."""
    success = success_schema(manifest, tool)
    return admitting_errors(success) if success is not None else None


def success_schema(manifest: Manifest, tool: str) -> dict[str, Any] | None:
    """The schema of a successful result's `{"entities": [...]}` for kind=entities; None for execution_result."""
    output = manifest.tools[tool].output
    if output.kind != "entities":
        return None
    variants = [entity_schema(name, manifest.entities[name]) for name in output.entity_types]
    items = variants[0] if len(variants) == 1 else {"anyOf": variants}
    properties: dict[str, Any] = {"entities": {"type": "array", "items": items}}
    if output.result_statuses:
        properties["result_status"] = {
            "type": "string",
            "enum": list(output.result_statuses),
            "description": "NO_MATCH_FOUND: ran fine, matched nothing; PARTIAL: part of what was asked. "
            "Absent: found what was asked for.",
        }
    return {"type": "object", "properties": properties, "required": ["entities"]}


def entity_schema(name: str, entity: EntitySpec) -> dict[str, Any]:
    """Declared fields typed, `entity_type` fixed, id (and refresh key) required; undeclared fields allowed.

    An id or refresh key marked `llm_visible: false` is not required: a client that renders no card receives only
    what the model may see (`visibility.delivered`). A field with `requires_scope` is never required (the lint
    keeps it off the id and the refresh key): a caller without the scope does not receive it.
    """
    properties = {field: field_schema(spec) for field, spec in entity.fields.items()}
    properties["entity_type"] = {"type": "string", "const": name}
    required = ["entity_type"]
    for key in (entity.id_field, entity.refresh_key_field):
        if key and key not in required and entity.fields[key].llm_visible:
            required.append(key)
    schema: dict[str, Any] = {"type": "object", "properties": properties, "required": required}
    if entity.description:
        schema["description"] = entity.description
    return schema


def field_schema(spec: FieldSpec) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": _JSON_TYPES[spec.type]}
    if spec.description:
        schema["description"] = spec.description
    if spec.type == "object" and spec.properties:
        schema["properties"] = {name: field_schema(child) for name, child in spec.properties.items()}
    if spec.type == "array" and spec.items is not None:
        schema["items"] = field_schema(spec.items)
    return schema
