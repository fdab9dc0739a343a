"""`make schema-lint`: each finding names its rule, the tool, the argument and the fix; errors fail the command,
warnings do not; the demo lints clean; `enum_meanings` publishes one meaning per value."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field

from businesses.demo import BUSINESS as DEMO
from mcp_lambda.tools import ToolContext, ToolResult, enum_meanings, execution_result, tool
from mcp_lambda_dev.contract.schema_lint import lint_business, lint_tool

ROOT = Path(__file__).resolve().parents[2]
Mode = Literal["taxi", "transit"]


class Window(BaseModel):
    model_config = ConfigDict(extra="forbid")
    start: date
    end_date: str


def _ok(ctx: ToolContext) -> ToolResult:
    return execution_result({"ok": True})


@tool(description="Use when testing open objects.")
def takes_a_dict(filters: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return _ok(ctx)


@tool(description="Use when testing unions.")
def takes_a_union(amount: int | str, ctx: ToolContext) -> ToolResult:
    return _ok(ctx)


@tool(description="Use when testing a union its author opted into.")
def opts_into_a_union(
    amount: Annotated[int | str, Field(json_schema_extra={"x-allow-union": True})], ctx: ToolContext
) -> ToolResult:
    return _ok(ctx)


@tool(description="Use when testing enums.")
def takes_enums(
    bare: Mode,
    ctx: ToolContext,
    told: Annotated[Mode, Field(description="'taxi' = a car; 'transit' = the subway.")] = "taxi",
    meant: Annotated[Mode, enum_meanings({"taxi": "A car.", "transit": "The subway."})] = "taxi",
    listed: Annotated[list[Mode], enum_meanings({"taxi": "A car.", "transit": "The subway."})] | None = None,
) -> ToolResult:
    return _ok(ctx)


@tool(description="Use when testing dates.")
def takes_dates(departure_date: str, day: date, window: Window, ctx: ToolContext) -> ToolResult:
    return _ok(ctx)


@tool(description="Plans things.")
def says_nothing_of_when(ctx: ToolContext) -> ToolResult:
    return _ok(ctx)


def _found(spec: Any) -> set[tuple[str, str | None]]:
    return {(finding.rule, finding.argument) for finding in lint_tool(spec)}


def test_an_open_object_argument_is_an_error_naming_the_fix() -> None:
    (finding,) = lint_tool(takes_a_dict)
    assert (finding.rule, finding.level, finding.tool, finding.argument) == (
        "open-object",
        "error",
        "takes_a_dict",
        "filters",
    )
    assert "fix: declare the keys" in str(finding) and str(finding).startswith("takes_a_dict.filters: error")


def test_a_union_is_an_error_unless_opted_into() -> None:
    assert _found(takes_a_union) == {("union", "amount")}
    assert "anyOf (integer, string)" in str(lint_tool(takes_a_union)[0])
    assert _found(opts_into_a_union) == set()


def test_an_enum_without_meanings_warns_and_enum_meanings_publishes_them() -> None:
    assert _found(takes_enums) == {("enum-meanings", "bare")}
    properties = takes_enums.input_schema["properties"]
    assert properties["meant"]["enumDescriptions"] == ["A car.", "The subway."]
    assert properties["listed"]["items"]["enumDescriptions"] == ["A car.", "The subway."]


def test_enum_meanings_must_cover_the_enum_exactly() -> None:
    with pytest.raises(Exception, match="no meaning for \\['transit'\\]"):

        @tool(description="Use when testing.")
        def half(mode: Annotated[Mode, enum_meanings({"taxi": "A car."})]) -> ToolResult:
            return execution_result({})


def test_a_date_string_without_format_warns_at_any_depth() -> None:
    assert _found(takes_dates) == {("date-format", "departure_date"), ("date-format", "window.end_date")}


def test_a_description_without_use_when_warns() -> None:
    assert _found(says_nothing_of_when) == {("use-when", None)}


def test_the_demo_lints_clean() -> None:
    assert lint_business(DEMO) == []


def _schema_lint(*names: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "scripts/schema_lint.py", *names]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False, env=env)


def test_the_command_prints_each_finding_and_fails_only_on_errors() -> None:
    done = _schema_lint("demo")
    assert done.returncode == 0, done.stderr
    assert "schema-lint: 1 business(es), 0 error(s), 0 warning(s)" in done.stdout


BAD_BUSINESS = """
from typing import Any

from mcp_lambda.tools import Business, ToolContext, ToolResult, execution_result, tool


@tool(description="Use when testing the command.")
def loose(filters: dict[str, Any], ctx: ToolContext) -> ToolResult:
    return execution_result({"ok": True})


BUSINESS = Business(name="loosebiz", tools=[loose])
"""


def test_the_command_fails_on_an_error_and_names_rule_tool_argument_and_fix(tmp_path: Path) -> None:
    package = tmp_path / "businesses" / "loosebiz"
    package.mkdir(parents=True)
    (tmp_path / "businesses" / "__init__.py").write_text(
        "from pkgutil import extend_path\n__path__ = extend_path(__path__, __name__)\n", "utf-8"
    )
    (package / "__init__.py").write_text(BAD_BUSINESS, "utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(str(p) for p in (ROOT / "src", tmp_path, ROOT / "dev", ROOT)),
    }
    done = _schema_lint("loosebiz", env=env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stdout.startswith("loosebiz: loose.filters: error [open-object] ")
    assert "; fix: declare the keys" in done.stdout
    assert "schema-lint: 1 business(es), 1 error(s), 0 warning(s)" in done.stderr
