"""The section of secrets and keys: the business secret, and the keys of `requestState` and log fingerprints."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from pydantic import BaseModel, Field, field_validator

from ..durations import DurationSeconds
from .base import SECTION_CONFIG, comma_separated


class SecretsSection(BaseModel):
    """Secrets and signing keys.

    The business secret, and the keys of `requestState` and of the log fingerprints.
    """

    model_config = SECTION_CONFIG

    secret_id: str | None = Field(
        None, description="the Secrets Manager secret holding a JSON object of the business's secrets"
    )
    secrets_max_age: DurationSeconds = Field(
        timedelta(minutes=5),
        validation_alias="secrets_max_age_seconds",
        ge=timedelta(0),
        description="how long a fetched secret is cached",
    )
    request_state_key: str | None = Field(
        None,
        min_length=16,
        repr=False,
        description="HMAC key for multi round-trip `requestState` (else the business secret "
        "`request_state_key`)",
    )
    request_state_keys: tuple[str, ...] = Field(
        (),
        repr=False,
        description="a key ring for `requestState`, comma-separated: the first key signs, every key verifies "
        "(rotate without breaking rounds); wins over `REQUEST_STATE_KEY`",
    )
    request_state_ttl: DurationSeconds = Field(
        timedelta(minutes=15),
        validation_alias="request_state_ttl_seconds",
        ge=timedelta(seconds=10),
        description="how long a signed `requestState` stays valid",
    )
    log_fingerprint_key: str | None = Field(
        None,
        min_length=16,
        repr=False,
        description="HMAC key of the identity fingerprints in log lines (`caller`, `key_fingerprint`); else "
        "the business secret `log_fingerprint_key`; else a random key per container (with a "
        "`log_fingerprint_key_missing` warning outside `local`); never logged, nothing stored depends on it",
    )

    @field_validator("request_state_keys", mode="before")
    @classmethod
    def _split_keys(cls, value: Any) -> Any:
        return comma_separated(value)

    @field_validator("request_state_keys")
    @classmethod
    def _keys_are_long_enough(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if any(len(key) < 16 for key in value):
            raise ValueError("every key must have at least 16 characters")
        return value

    @property
    def request_state_key_ring(self) -> tuple[str, ...]:
        """REQUEST_STATE_KEYS, else REQUEST_STATE_KEY alone; empty means the business secret decides."""
        if self.request_state_keys:
            return self.request_state_keys
        return (self.request_state_key,) if self.request_state_key else ()
