"""What the sections share: the error of a cross-field rule, and comma-separated lists."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict
from pydantic_core import PydanticCustomError

# A section is validated as part of `Settings` only, which builds its own validator from every section's fields:
# a section's own validator would be built at every cold start and never run.
SECTION_CONFIG = ConfigDict(defer_build=True)


def conflict(message: str) -> PydanticCustomError:
    """The error of a cross-field rule: `message` as it is (it names the variables), no "Value error" prefix.

    Args:
        message: The rule's sentence, naming the variables.

    Returns:
        The error to raise from a `model_validator`.
    """
    return PydanticCustomError("settings_conflict", message)


def comma_separated(value: Any) -> Any:
    """A list variable (`ALLOWED_ORIGINS=a,b`) as a tuple of its non-empty parts; anything else as it is.

    Args:
        value: The raw value (a string from the environment, or a tuple given in code).

    Returns:
        The parts, stripped, or `value` unchanged.
    """
    if not isinstance(value, str):
        return value
    return tuple(part.strip() for part in value.split(",") if part.strip())
