"""`Settings`: the environment as one typed object, read once per container.

Each field is read from its variable: the field name in upper case, or for a duration its alias, which names the
unit the variable counts in (`TASK_TTL_MS` → `task_ttl`, a `timedelta`; see durations.py). Only
`Settings.from_env` reads an environment (the process's, or the mapping it is given); `Settings(...)` takes its
arguments and defaults alone, so a test that builds one is never configured by the shell it runs in. Either way
the same validators run, the cross-field rules included (sections/), and a refusal names the variables.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from pydantic import BaseModel, ConfigDict, ValidationError

from ..errors import StartupError
from .environment import environment_values, key_of, variable_of
from .sections import (
    EMPTY_IS_A_VALUE,
    AuthSection,
    DynamoDBSection,
    OutboundSection,
    RequestsSection,
    SecretsSection,
    ServiceSection,
    SQLiteSection,
    StoresSection,
    TasksSection,
    TimeoutsSection,
)


class SettingsError(StartupError, ValueError):
    """The environment is not a valid configuration; the message names the variable."""


# Bases in reverse: pydantic collects fields from the last base first, so the fields keep the sections' order.
class Settings(
    SecretsSection,
    OutboundSection,
    TimeoutsSection,
    TasksSection,
    SQLiteSection,
    DynamoDBSection,
    StoresSection,
    AuthSection,
    RequestsSection,
    ServiceSection,
    BaseModel,
):
    """Everything the runtime reads from its environment, in sections. Secrets are never stored here, only their
    names (and the optional HMAC keys, never shown in `repr` or in an error)."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        validate_by_name=True,
        validate_by_alias=True,
        validate_default=True,  # a default passes the checks a variable does
        hide_input_in_errors=True,
        defer_build=False,  # built at once, unlike each section alone (SECTION_CONFIG)
        # The fields' patterns in Python's `re`: pydantic-core's Rust engine holds each compiled pattern with its
        # Unicode tables for the container's life, to check a deployer's variables once per cold start (memory:
        # docs/performance.md). Tool arguments, which clients send, keep the linear-time Rust engine.
        regex_engine="python-re",
    )

    @classmethod
    def variable_of(cls, key: str) -> str:
        """The environment variable of a field, given its name or its alias (`task_ttl` → `TASK_TTL_MS`).

        Args:
            key: A field name or alias, in any case; an unknown key is upper-cased as it is.

        Returns:
            The variable's name.
        """
        for name, field in cls.model_fields.items():
            if key.lower() in (name, key_of(name, field)):
                return variable_of(name, field)
        return key.upper()

    @classmethod
    def variables(cls) -> tuple[str, ...]:
        """Every variable the settings read, in field order."""
        return tuple(cls.variable_of(name) for name in cls.model_fields)

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """The settings `env` (default: the process environment) describes.

        Args:
            env: The variables; None reads the process environment.

        Returns:
            The settings.

        Raises:
            SettingsError: A variable is not valid, or two contradict each other; the message names them.
        """
        try:
            return cls.model_validate(environment_values(cls, env, empty_is_a_value=EMPTY_IS_A_VALUE))
        except ValidationError as exc:
            raise SettingsError(f"invalid configuration: {cls.problems(exc)}") from None

    @classmethod
    def problems(cls, error: ValidationError) -> str:
        """What `error` (from building settings) refuses, by variable: `MAX_BODY_BYTES: ...; TASKS_TABLE is ...`.

        Never a value: the model hides its input in errors, and a message names variables only.

        Args:
            error: The error `Settings(...)` raised.

        Returns:
            One `VARIABLE: reason` per field problem, a cross-field rule's own sentence, joined by "; ".
        """
        found = []
        for problem in error.errors():
            reason = problem["msg"].removeprefix("Value error, ")  # a validator's own sentence, as written
            reason = "not a setting" if problem["type"] == "extra_forbidden" else reason
            found.append(f"{cls.variable_of(str(problem['loc'][0]))}: {reason}" if problem["loc"] else reason)
        return "; ".join(found)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The container's settings, read once at cold start."""
    return Settings.from_env()
