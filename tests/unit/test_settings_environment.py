"""The reader of the environment (`mcp_lambda.settings.environment`) is the framework's own: no module of the
framework imports pydantic-settings (its import would cost every cold start again; the handler's own start is
checked in a fresh process by test_cold_start.py), and since the reader hands every value on as the text it is,
each setting whose type is a collection parses that text itself: none relies on a library to decode JSON."""

from __future__ import annotations

import ast
import types
import typing
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, Field, ValidationError

from mcp_lambda.settings import Settings
from mcp_lambda.settings.environment import environment_values, variable_of

FRAMEWORK = Path(__file__).resolve().parents[2] / "src" / "mcp_lambda"
# What pydantic answers when a string reaches a collection unparsed.
UNPARSED = {"tuple_type", "list_type", "dict_type", "set_type", "frozen_set_type", "model_type"}


def _imports_pydantic_settings(path: Path) -> list[int]:
    lines = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [node.module or ""]
        lines += [node.lineno for name in names if name.split(".")[0] == "pydantic_settings"]
    return lines


def _is_collection(annotation: Any) -> bool:
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return any(_is_collection(arg) for arg in typing.get_args(annotation))
    origin = typing.get_origin(annotation) or annotation
    return origin in (tuple, list, dict, set, frozenset) or (
        isinstance(origin, type) and issubclass(origin, BaseModel)
    )


COLLECTIONS = [name for name, field in Settings.model_fields.items() if _is_collection(field.annotation)]


def test_no_framework_module_imports_pydantic_settings() -> None:
    found = [
        f"{path.relative_to(FRAMEWORK.parent)}:{line}"
        for path in sorted(FRAMEWORK.rglob("*.py"))
        for line in _imports_pydantic_settings(path)
    ]
    assert found == []


def test_the_check_finds_each_way_of_importing_it(tmp_path: Path) -> None:
    source = tmp_path / "m.py"
    source.write_text("import pydantic_settings\nfrom pydantic_settings.sources import X\nimport os\n")
    assert _imports_pydantic_settings(source) == [1, 2]


def test_the_collection_settings_are_the_lists_and_the_quotas() -> None:
    assert COLLECTIONS == [
        "allowed_origins",
        "allowed_hosts",
        "auth_audience",
        "auth_caller_claims",
        "egress_allow",
        "tool_quotas",
        "request_state_keys",
    ]


@pytest.mark.parametrize("name", COLLECTIONS)
@pytest.mark.parametrize("text", ["one", "one,two", '["one"]', '{"one": "1/hour"}'])
def test_each_collection_setting_parses_its_variables_text_itself(name: str, text: str) -> None:
    try:
        Settings.from_env({Settings.variable_of(name): text})
    except Exception as exc:  # a refusal of the value, by the field's own parser: never the text unparsed
        cause = exc.__context__
        assert isinstance(cause, ValidationError)
        assert not {error["type"] for error in cause.errors()} & UNPARSED, cause.errors()


def test_a_duration_is_read_from_the_variable_naming_its_unit_only() -> None:
    settings = Settings.from_env({"TASK_TTL": "3600000", "SESSION_TTL": "120"})
    assert (settings.task_ttl, settings.session_ttl) == (timedelta(days=1), timedelta(hours=1))


def test_a_value_in_one_case_wins_over_an_empty_one_in_another() -> None:
    assert Settings.from_env({"BUSINESS": "shop", "business": ""}).business == "shop"
    assert Settings.from_env({"business": "", "BUSINESS": "shop"}).business == "shop"


class Shop(BaseModel):
    stock_url: str | None = None
    hold: int = Field(15, validation_alias="hold_minutes")


def test_the_reader_keys_values_as_the_model_takes_them() -> None:
    env = {
        "SHOP_STOCK_URL": "https://stock.example",
        "shop_hold_minutes": "30",
        "SHOP_HOLD": "1",
        "OTHER": "x",
    }
    assert environment_values(Shop, env, prefix="SHOP_") == {
        "stock_url": "https://stock.example",
        "hold_minutes": "30",
    }
    assert [variable_of(name, field, "SHOP_") for name, field in Shop.model_fields.items()] == [
        "SHOP_STOCK_URL",
        "SHOP_HOLD_MINUTES",
    ]
    assert environment_values(Shop, {"SHOP_STOCK_URL": ""}, prefix="SHOP_") == {}
    assert environment_values(
        Shop, {"SHOP_STOCK_URL": ""}, prefix="SHOP_", empty_is_a_value=["stock_url"]
    ) == {"stock_url": ""}
