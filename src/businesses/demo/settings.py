"""The demo's own settings (beside the framework's `Settings`): environment variables prefixed `DEMO_`.

Read on each call rather than once per container: it costs far less than the downstream call it precedes, and
a test or a recorded replay that sets the variable is the value the tool sees.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import Field, ValidationError, field_validator

from mcp_lambda.tools import EnvironmentSettings


class DemoSettings(EnvironmentSettings):
    """`DEMO_INVENTORY_URL`: the inventory service `check_stock` asks (unset: stock cannot be checked)."""

    env_prefix: ClassVar[str] = "DEMO_"

    inventory_url: str | None = Field(
        None,
        description="base URL of the inventory service check_stock reads `{url}/stock/{product_id}` from "
        "(`make run`: its own stand-in; unset: check_stock answers 50101)",
    )

    @field_validator("inventory_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip().rstrip("/")
        scheme, _, rest = value.partition("://")
        if scheme not in ("http", "https") or not rest or rest.startswith("/"):
            raise ValueError("must be an http:// or https:// URL with a host")
        return value


def inventory_url() -> str | None:
    """The inventory's base URL without a trailing slash.

    Returns:
        The URL, or None when `DEMO_INVENTORY_URL` is unset or empty.

    Raises:
        ValueError: `DEMO_INVENTORY_URL` is set but is not an http(s) URL with a host.
    """
    try:
        return DemoSettings().inventory_url
    except ValidationError as exc:
        raise ValueError("DEMO_INVENTORY_URL must be an http:// or https:// URL with a host") from exc
