"""`make server-json`: the demo's listing, generated from what it declares, is valid against the MCP Registry's
published schema (the copy in schemas/), and what breaks the schema is named."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import businesses
from mcp_lambda.composition import load_business
from mcp_lambda_tools.deploy.server_json import (
    SCHEMA,
    SCHEMA_URL,
    listing_of,
    main,
    problems_of,
    server_json,
    settings_of,
)

PUBLISHER = "io.modelcontextprotocol.registry/publisher-provided"


def _demo(**listing: object) -> dict:
    return server_json("demo", load_business("demo"), {**listing_of("demo"), **listing})


def test_the_kept_schema_is_the_registrys_published_one() -> None:
    schema = json.loads(SCHEMA.read_text())
    assert schema["$id"] == SCHEMA_URL
    assert schema["definitions"]["ServerDetail"]["required"] == ["name", "description", "version"]


def test_the_demo_listing_is_valid_and_says_what_the_business_declares() -> None:
    document = _demo()
    assert problems_of(document) == []
    assert document["name"] == "io.github.example-org/demo"
    assert (document["title"], document["version"]) == ("Demo travel & shop", "0.2.0")
    assert document["remotes"][0]["type"] == "streamable-http"
    published = document["_meta"][PUBLISHER]
    assert published["category"] == "travel"
    settings = {entry["name"]: entry for entry in published["configuration"]["settings"]}
    assert settings["DEMO_INVENTORY_URL"]["isRequired"] is False
    assert published["network"] == {"interfaces": ["inventory.get_stock"], "hosts": ["inventory.example.com"]}
    assert published["skills"] == ["skill://plan-a-day-out/SKILL.md", "skill://shop-with-alerts/SKILL.md"]
    assert {"name": "subscribe_product", "readOnly": False} in published["tools"]


CLINIC_SETTINGS = """
from typing import ClassVar

from pydantic import Field

from mcp_lambda.tools import EnvironmentSettings


class ClinicSettings(EnvironmentSettings):
    env_prefix: ClassVar[str] = "CLINIC_"

    booking_url: str = Field(description="where bookings go")
    hold: int = Field(15, validation_alias="hold_minutes")
"""
LEGACY_SETTINGS = """
from pydantic_settings import BaseSettings, SettingsConfigDict


class LegacySettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="CLINIC_")

    dotenv_path: str | None = None
"""


@pytest.fixture
def clinic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    package = tmp_path / "businesses" / "clinic_listing"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "settings.py").write_text(CLINIC_SETTINGS)
    monkeypatch.setattr(businesses, "__path__", [*businesses.__path__, str(package.parent)])
    yield package
    for name in [name for name in sys.modules if name.startswith("businesses.clinic_listing")]:
        del sys.modules[name]


def test_the_settings_of_a_business_are_its_environment_settings_variables(clinic: Path) -> None:
    assert settings_of("clinic_listing") == [
        {"name": "CLINIC_BOOKING_URL", "isRequired": True, "description": "where bookings go"},
        {"name": "CLINIC_HOLD_MINUTES", "isRequired": False},
    ]


def test_a_business_that_brings_pydantic_settings_has_its_variables_listed_too(clinic: Path) -> None:
    pytest.importorskip("pydantic_settings")
    (clinic / "legacy.py").write_text(LEGACY_SETTINGS)
    assert {"name": "CLINIC_DOTENV_PATH", "isRequired": False} in settings_of("clinic_listing")


def test_an_oauth_business_asks_for_a_bearer_token_as_a_secret_header() -> None:
    (header,) = _demo(auth="oauth")["remotes"][0]["headers"]
    assert header["name"] == "Authorization" and header["isSecret"] is True


def test_what_breaks_the_registry_schema_is_named() -> None:
    document = _demo(
        description="x" * 101,
        namespace="no slash allowed/",
        icons=[{"src": "https://e.com/i.png", "sizes": ["big"]}],
    )
    problems = problems_of(document)
    assert any(p.startswith("description: ") and "is too long" in p for p in problems), problems
    assert any(p.startswith("name: ") for p in problems), problems
    assert any(p.startswith("icons/0/sizes/0: ") for p in problems), problems


def test_make_server_json_writes_the_file_or_refuses(tmp_path: Path) -> None:
    out = tmp_path / "demo.server.json"
    assert (
        main(["demo", "--url", "https://abc123.execute-api.eu-west-1.amazonaws.com/mcp", "--out", str(out)])
        == 0
    )
    document = json.loads(out.read_text())
    assert document["remotes"][0]["url"] == "https://abc123.execute-api.eu-west-1.amazonaws.com/mcp"
    assert "variables" not in document["remotes"][0]
    assert main(["demo", "--url", "not a url", "--out", str(tmp_path / "bad.json")]) == 1
    assert not (tmp_path / "bad.json").exists()
