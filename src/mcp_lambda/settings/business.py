"""`EnvironmentSettings`: the base of a business's own settings, read from variables under the business's prefix.

The framework's `Settings` is read once per container, and only through `Settings.from_env`; a business's own
model is read where it is used (`ShopSettings()`), so a test that sets a variable is what the tool sees.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, model_validator

from .environment import environment_values, key_of


class EnvironmentSettings(BaseModel):
    """A business's settings: each field not given is read from the variable `env_prefix` + its name.

    ```python
    class ShopSettings(EnvironmentSettings):
        env_prefix: ClassVar[str] = "SHOP_"

        stock_url: str | None = None  # SHOP_STOCK_URL
    ```

    A field's variable is the prefix and the field's alias where it has one, else its name, in any case; an
    empty variable is unset (the field keeps its default), and variables no field reads are ignored. A value
    given to the constructor wins over the variable. A bad value raises pydantic's `ValidationError`, which
    names the field. Frozen, like the framework's settings; extra arguments are ignored.

    A field without a default makes its variable required: pydantic's mypy plugin then wants it as an argument,
    so build such a model with `ShopSettings.model_validate({})`.
    """

    model_config = ConfigDict(frozen=True, extra="ignore", validate_default=True)

    env_prefix: ClassVar[str] = ""

    @model_validator(mode="before")
    @classmethod
    def _fill_from_the_environment(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        given = {
            key_of(name, field)
            for name, field in cls.model_fields.items()
            if name in data or key_of(name, field) in data
        }
        read = environment_values(cls, prefix=cls.env_prefix)
        return {**{key: value for key, value in read.items() if key not in given}, **data}
