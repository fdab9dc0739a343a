"""The model's projection of an entity, built by a pydantic-core validator compiled from its entity type.

`visibility.project_fields` walks an entity's declared fields in Python: the definition of what the model sees,
and what the lint, the simulator and the card delivery use. The model's text is built on every entities result,
so `model_projection` asks this module instead: per entity type and granted scopes, a `typed_dict` validator
(pydantic-core's public `SchemaValidator` and `core_schema`) whose fields are the model-visible, granted ones,
each taking its value as it is. It builds the same dict: the declared fields that are there, in declaration order,
a nested object's by its properties when it is a mapping, a list's items by their schema when it is a list (an
empty list when its items are hidden from the caller), any other value as it is.
`tests/unit/manifest/test_fast_projection.py` holds the two equal over every shape a field's value can take.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any

from pydantic_core import CoreSchema, SchemaValidator
from pydantic_core import core_schema as cs

from .compiled import CompiledOnce
from .models import EntitySpec, FieldSpec, walk_fields

_AS_IS = cs.any_schema()
# Items hidden from the caller: a list of them is shown as an empty list.
_NO_ITEMS = cs.no_info_after_validator_function(lambda _: [], cs.list_schema(strict=True))


def entity_projection(spec: EntitySpec, entity: Mapping[str, Any], scopes: Collection[str]) -> dict[str, Any]:
    """`visibility.project_fields(spec.fields, entity, scopes)`, built by the entity type's compiled validator.

    Args:
        spec: The entity's type.
        entity: The entity (a mapping).
        scopes: The scopes the caller was granted.
    """
    projected: dict[str, Any] = _PROJECTORS(spec)(scopes)(entity)
    return projected


class _Projectors:
    """One entity type's validators, one per set of the scopes its fields require that a caller holds."""

    def __init__(self, spec: EntitySpec) -> None:
        self.fields = spec.fields
        self.required = frozenset(
            field.requires_scope
            for _path, _name, field, _depth in walk_fields("", spec.fields)
            if field.requires_scope is not None
        )
        self.made: dict[frozenset[str], Callable[[Any], Any]] = {}

    def __call__(self, scopes: Collection[str]) -> Callable[[Any], Any]:
        held = self.required.intersection(scopes) if self.required else frozenset()
        made = self.made.get(held)
        if made is None:
            made = self.made[held] = SchemaValidator(_object(self.fields, held)).validate_python
        return made


_PROJECTORS = CompiledOnce(_Projectors)


def _object(fields: Mapping[str, FieldSpec], held: frozenset[str]) -> CoreSchema:
    """The model-visible, granted fields of an object, each by its own schema; every other key left out."""
    return cs.typed_dict_schema(
        {
            name: cs.typed_dict_field(_value(spec, held), required=False)
            for name, spec in fields.items()
            if spec.llm_visible and (spec.requires_scope is None or spec.requires_scope in held)
        },
        extra_behavior="ignore",
    )


def _value(spec: FieldSpec, held: frozenset[str]) -> CoreSchema:
    """A declared field's value as the model sees it (`visibility._project`)."""
    if spec.type == "object" and spec.properties:
        inside = _object(spec.properties, held)
    elif spec.type == "array" and spec.items is not None:
        items = spec.items
        if not items.llm_visible or (items.requires_scope is not None and items.requires_scope not in held):
            inside = _NO_ITEMS
        else:
            inside = cs.list_schema(_value(items, held), strict=True)  # a list only: a tuple stays as it is
    else:
        return _AS_IS
    # A value that is not the container its spec declares is shown as it is.
    return cs.union_schema([inside, _AS_IS], mode="left_to_right")
