"""Reading the environment: pydantic-settings' own environment source, over the process's or a given mapping.

The source takes its rules from the model's config: variable names in any case, an empty variable is unset
(`env_ignore_empty`), each field under its alias (the variable's name) where it has one. No prefix: the names are
a deployed contract (template.yaml sets them) shared by every group. The one exception to "empty is unset" is an
allow-list, where `ALLOWED_ORIGINS=` means none allowed: those fields are read again with empty values kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pydantic_settings import BaseSettings, EnvSettingsSource
from pydantic_settings.sources.utils import parse_env_vars


class EnvironmentSource(EnvSettingsSource):
    """`EnvSettingsSource` as the settings configure it, over `env` when given (else the process environment).

    Args:
        settings_cls: The settings class (its `model_config` sets case and empty-value handling).
        env: The variables to read; None reads `os.environ`, as pydantic-settings always does.
        ignore_empty: Overrides the config's `env_ignore_empty`.
    """

    def __init__(
        self,
        settings_cls: type[BaseSettings],
        env: Mapping[str, str] | None = None,
        ignore_empty: bool | None = None,
    ) -> None:
        super().__init__(settings_cls, env_ignore_empty=ignore_empty)
        if env is not None:
            self.env_vars = parse_env_vars(
                env, self.case_sensitive, self.env_ignore_empty, self.env_parse_none_str
            )


def environment_values(
    settings_cls: type[BaseSettings], env: Mapping[str, str] | None, empty_is_a_value: Iterable[str]
) -> dict[str, Any]:
    """The values the environment sets, keyed as the model takes them (field names or their aliases).

    Args:
        settings_cls: The settings class.
        env: The variables; None for the process environment.
        empty_is_a_value: The fields whose empty variable is a value, not unset.

    Returns:
        Keyword arguments for `settings_cls`.
    """
    values = EnvironmentSource(settings_cls, env)()
    # Only these fields are looked up again (a whole second pass over every field would double the cost).
    keeping_empty = EnvironmentSource(settings_cls, env, ignore_empty=False)
    for name in empty_is_a_value:
        value, key, _ = keeping_empty.get_field_value(settings_cls.model_fields[name], name)
        if value is not None:
            values[key] = value
    return values
