"""`enum_meanings`: what each value of an enum argument means, published in its input schema (seed 001 §3.1).

A planner that reads `"enum": ["taxi", "transit"]` knows the spellings, not the consequences. With
`Annotated[TravelMode, enum_meanings({...})]` the argument's schema also carries `enumDescriptions`, one meaning
per value in the enum's order (the spelling editors and several clients read), and `make schema-lint` is
satisfied.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import Field


def enum_meanings(meanings: Mapping[str, str]) -> Any:
    """The meaning of each value of an enum argument (a `Literal`, or a list of one), for its schema.

    Args:
        meanings: Value -> what choosing it means, e.g. `{"taxi": "ride-hailing car, door to door"}`.

    Returns:
        A pydantic `Field` to put in the argument's `Annotated[...]` beside its other metadata.

    Raises:
        ValueError: When the schema is built: a value of the enum has no meaning, or a meaning names a value
            the enum does not have.
    """
    table = {str(value): str(text) for value, text in meanings.items()}

    def publish(schema: dict[str, Any]) -> None:
        holder = schema if "enum" in schema else schema.get("items")
        if not isinstance(holder, dict) or not isinstance(holder.get("enum"), list):
            raise ValueError("enum_meanings is for an enum argument (a Literal, or a list of one)")
        values = [str(value) for value in holder["enum"]]
        missing = [value for value in values if not table.get(value, "").strip()]
        unknown = sorted(set(table) - set(values))
        if missing or unknown:
            raise ValueError(f"enum_meanings: no meaning for {missing}; not in the enum: {unknown}")
        holder["enumDescriptions"] = [table[value] for value in values]

    return Field(json_schema_extra=publish)
