"""The entities check's fast path: one pydantic-core validator per tool that passes only what the full check passes.

The full check (`check.ToolCheck`) walks every declared field in Python so that it can name each violation, yet
almost every result has none. This validator, compiled from the same manifest, runs the same rules in
pydantic-core (its public `SchemaValidator` and `core_schema`): a list of objects, each with an entity type this
tool may return, its id present and not empty, its refresh key present, every declared field that is there of its
declared type. When it accepts `structuredContent`, the full check of the entities would find nothing and is
skipped; when it refuses, the full check runs and names what is wrong, so every message stays the full check's.

It is built to accept less than the full check, never more: where the two could differ (a tuple for an array,
a Mapping that is not a dict), it refuses and leaves the answer to the full check.
`tests/unit/test_fast_check.py` holds the two to that over every type and value the manifest can meet.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic_core import CoreSchema, SchemaValidator
from pydantic_core import core_schema as cs

from .models import EntitySpec, FieldSpec, Manifest

# The full check's types (check._MATCHES), each as strict as it: an int is not a float, a bool is not an int, a
# float is finite.
_SCALARS: dict[str, CoreSchema] = {
    "string": cs.str_schema(strict=True),
    "int": cs.int_schema(strict=True),
    "float": cs.chain_schema(
        [cs.is_instance_schema(float), cs.float_schema(strict=True, allow_inf_nan=False)]
    ),
    "boolean": cs.bool_schema(strict=True),
}


def entities_validator(manifest: Manifest, tool: str) -> SchemaValidator | None:
    """The validator of an `entities` tool's `structuredContent`, or None for a tool it does not apply to.

    Args:
        manifest: A valid manifest.
        tool: One of its tools.

    Returns:
        A validator whose `isinstance_python(structured)` is True only when the full check finds nothing wrong in
        `structured["entities"]`; None when the tool's output is not `entities` or it may return no declared type.
    """
    output = manifest.tools[tool].output
    types = [name for name in output.entity_types if name in manifest.entities]
    if output.kind != "entities" or not types:
        return None
    choices: dict[Any, CoreSchema] = {name: _entity(manifest.entities[name]) for name in types}
    entity = cs.tagged_union_schema(choices, discriminator="entity_type", strict=True)
    entities = cs.typed_dict_field(cs.list_schema(entity, strict=True), required=True)
    return SchemaValidator(cs.typed_dict_schema({"entities": entities}, extra_behavior="ignore", strict=True))


def _entity(spec: EntitySpec) -> CoreSchema:
    """An entity object: its id (not empty) and refresh key required, every other declared field optional."""
    required = {spec.id_field, spec.refresh_key_field}
    fields = {}
    for name, child in spec.fields.items():
        schema = _field(child)
        if name == spec.id_field and child.type == "string":
            schema = cs.str_schema(strict=True, min_length=1)  # the full check: an empty id is a violation
        fields[name] = cs.typed_dict_field(schema, required=name in required)
    return _object(fields)


def _field(spec: FieldSpec) -> CoreSchema:
    if spec.type == "object":
        if not spec.properties:
            return cs.dict_schema(strict=True)
        return _object(
            {
                name: cs.typed_dict_field(_field(child), required=False)
                for name, child in spec.properties.items()
            }
        )
    if spec.type == "array":
        return cs.list_schema(_field(spec.items) if spec.items is not None else None, strict=True)
    return _SCALARS[spec.type]


def _object(fields: Mapping[str, cs.TypedDictField]) -> CoreSchema:
    # Undeclared keys are the business's own (card-only values): the full check leaves them alone too.
    return cs.typed_dict_schema(dict(fields), extra_behavior="ignore", strict=True)
