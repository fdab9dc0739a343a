"""Reading the environment: each field of a model from its variable, over the process's or a given mapping.

A field's variable is a prefix (none for the framework's `Settings`) and the field's alias where it has one (a
duration's alias names its unit: `task_ttl_ms`), else its name, in upper case. Names match in any case, and an
empty variable is unset, except for the fields that say an empty value means something (`ALLOWED_ORIGINS=`
allows none). Values reach the model as the strings they are: each field's own validator parses its text (a
comma-separated list, a JSON object, a number of seconds), so nothing is decoded here.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Mapping

from pydantic import BaseModel
from pydantic.fields import FieldInfo


def key_of(name: str, field: FieldInfo) -> str:
    """The key a model takes the field's value under: its alias (a string alias), else its name.

    Args:
        name: The field's name.
        field: The field.

    Returns:
        The key, which (with a prefix, in upper case) is also the field's variable.
    """
    alias = field.validation_alias
    return alias if isinstance(alias, str) else name


def variable_of(name: str, field: FieldInfo, prefix: str = "") -> str:
    """The environment variable of a field (`task_ttl` → `TASK_TTL_MS`; with prefix `DEMO_`, `DEMO_...`)."""
    return f"{prefix}{key_of(name, field)}".upper()


# Hand-written rather than pydantic-settings' environment source: that package's import (its sources bring
# argparse, dotenv and every cloud provider's module) would be paid on every cold start, for a lookup in any case.
def environment_values(
    model: type[BaseModel],
    env: Mapping[str, str] | None = None,
    *,
    prefix: str = "",
    empty_is_a_value: Collection[str] = (),
) -> dict[str, str]:
    """The values the environment sets for `model`'s fields, keyed as the model takes them.

    Args:
        model: The model whose fields are read.
        env: The variables; None reads the process environment.
        prefix: What every variable of the model starts with (`DEMO_`).
        empty_is_a_value: The fields whose empty variable is a value, not unset.

    Returns:
        Field key (alias, else name) -> the variable's text, for each field whose variable is set.
    """
    found: dict[str, str] = {}
    for variable, text in (os.environ if env is None else env).items():
        if text or variable.lower() not in found:  # a value in one case wins over an empty one in another
            found[variable.lower()] = text
    values = {}
    for name, field in model.model_fields.items():
        key = key_of(name, field)
        value = found.get(f"{prefix}{key}".lower())
        if value is not None and (value or name in empty_is_a_value):
            values[key] = value
    return values
