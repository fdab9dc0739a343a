"""A business's own settings, as its author writes them: a model on the toolkit's `EnvironmentSettings` with a
prefix, each field read from `<PREFIX><FIELD>` (or its alias) in any case when the code does not give it; an empty
variable is unset, a value given in code wins, and a bad value is refused naming the field."""

from __future__ import annotations

from typing import ClassVar

import pytest
from pydantic import Field, ValidationError

from businesses.demo.settings import DemoSettings, inventory_url
from mcp_lambda.tools import EnvironmentSettings


class ClinicSettings(EnvironmentSettings):
    env_prefix: ClassVar[str] = "CLINIC_"

    insurance_url: str | None = Field(None, pattern=r"^https?://[^/\s]+")
    bookings_table: str | None = None
    max_party_size: int = Field(4, ge=1, le=20)
    hold_minutes: int = Field(15, validation_alias="hold_for_minutes", ge=1)


class ApiSettings(EnvironmentSettings):
    env_prefix: ClassVar[str] = "API_"

    base_url: str  # no default: the variable is required


CLINIC_VARIABLES = (
    "CLINIC_INSURANCE_URL",
    "CLINIC_BOOKINGS_TABLE",
    "CLINIC_MAX_PARTY_SIZE",
    "CLINIC_HOLD_MINUTES",
    "CLINIC_HOLD_FOR_MINUTES",
)


@pytest.fixture(autouse=True)
def clean(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in (*CLINIC_VARIABLES, "API_BASE_URL", "DEMO_INVENTORY_URL"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_each_field_reads_its_prefixed_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLINIC_INSURANCE_URL", "https://insurer.example")
    monkeypatch.setenv("CLINIC_MAX_PARTY_SIZE", "6")
    settings = ClinicSettings()
    assert (settings.insurance_url, settings.bookings_table, settings.max_party_size) == (
        "https://insurer.example",
        None,
        6,
    )


def test_a_field_with_an_alias_reads_the_prefixed_alias(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLINIC_HOLD_MINUTES", "99")  # the field's name is not its variable
    assert ClinicSettings().hold_minutes == 15
    monkeypatch.setenv("CLINIC_HOLD_FOR_MINUTES", "30")
    assert ClinicSettings().hold_minutes == 30


def test_variable_names_are_read_in_any_case(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("clinic_bookings_table", "bookings")
    monkeypatch.setenv("Clinic_Max_Party_Size", "8")
    settings = ClinicSettings()
    assert (settings.bookings_table, settings.max_party_size) == ("bookings", 8)


def test_an_empty_variable_is_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLINIC_INSURANCE_URL", "")
    monkeypatch.setenv("CLINIC_MAX_PARTY_SIZE", "")
    settings = ClinicSettings()
    assert (settings.insurance_url, settings.max_party_size) == (None, 4)


def test_only_prefixed_variables_are_read_and_the_others_are_ignored(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MAX_PARTY_SIZE", "7")  # no prefix: not the clinic's
    monkeypatch.setenv("CLINIC_SOMETHING_ELSE", "x")  # no field reads it
    assert ClinicSettings().max_party_size == 4


def test_a_value_given_in_code_wins_over_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLINIC_MAX_PARTY_SIZE", "6")
    monkeypatch.setenv("CLINIC_INSURANCE_URL", "https://insurer.example")
    monkeypatch.setenv("CLINIC_HOLD_FOR_MINUTES", "30")
    settings = ClinicSettings(max_party_size=2, insurance_url=None, hold_for_minutes=5)
    assert (settings.max_party_size, settings.insurance_url, settings.hold_minutes) == (2, None, 5)
    assert ClinicSettings.model_validate({"bookings_table": "given"}).max_party_size == 6


def test_the_environment_is_read_each_time_a_model_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLINIC_MAX_PARTY_SIZE", "6")
    first = ClinicSettings()
    monkeypatch.setenv("CLINIC_MAX_PARTY_SIZE", "9")
    assert (first.max_party_size, ClinicSettings().max_party_size) == (6, 9)


def test_a_bad_variable_is_refused_naming_the_field(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLINIC_MAX_PARTY_SIZE", "99")
    monkeypatch.setenv("CLINIC_INSURANCE_URL", "insurer.example")
    with pytest.raises(ValidationError) as caught:
        ClinicSettings()
    assert [(error["loc"], error["type"]) for error in caught.value.errors()] == [
        (("insurance_url",), "string_pattern_mismatch"),
        (("max_party_size",), "less_than_equal"),
    ]


def test_a_field_without_a_default_needs_its_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValidationError) as caught:
        ApiSettings.model_validate({})
    assert [(error["loc"], error["type"]) for error in caught.value.errors()] == [(("base_url",), "missing")]
    monkeypatch.setenv("API_BASE_URL", "https://api.example")
    assert ApiSettings.model_validate({}).base_url == "https://api.example"


def test_settings_are_frozen() -> None:
    settings = ClinicSettings()
    with pytest.raises(ValidationError, match="frozen"):
        settings.max_party_size = 3  # type: ignore[misc]


def test_the_demo_reads_its_inventory_from_demo_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("demo_inventory_url", "https://inventory.example/")
    assert DemoSettings().inventory_url == "https://inventory.example"
    assert inventory_url() == "https://inventory.example"
    monkeypatch.setenv("demo_inventory_url", "")
    assert inventory_url() is None
    monkeypatch.setenv("demo_inventory_url", "ftp://inventory.example")
    with pytest.raises(
        ValueError, match=r"^DEMO_INVENTORY_URL must be an http:// or https:// URL with a host$"
    ):
        inventory_url()
