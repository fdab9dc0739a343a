"""The @tool decorator's surface: both forms, the three typed options (ToolAnnotations, ExactlyOnce, TaskConfig),
the removed spellings failing, and `mypy --strict` seeing the decorated function's real signature."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcp_lambda.tools import (
    ExactlyOnce,
    InputRequired,
    TaskConfig,
    ToolAnnotations,
    ToolResult,
    ToolSpec,
    execution_result,
    tool,
)
from mcp_lambda.tools.errors import ToolSignatureError

ROOT = Path(__file__).resolve().parents[2]


def _plain(count: int) -> ToolResult:
    return execution_result({"count": count})


def _ask_first(count: int) -> InputRequired | None:
    return None


# --- the two forms -----------------------------------------------------------------------------------------------


def test_bare_decorator_takes_name_and_description_from_the_function() -> None:
    @tool
    def count_items(count: int) -> ToolResult:
        """Use to count items. Not for listing them."""
        return execution_result({"count": count})

    assert isinstance(count_items, ToolSpec)
    assert (count_items.name, count_items.description) == (
        "count_items",
        "Use to count items. Not for listing them.",
    )
    assert count_items(4).structured_content == {"count": 4}
    assert count_items.input_schema["required"] == ["count"]


def test_called_decorator_takes_its_keywords_and_still_calls_the_function() -> None:
    spec = tool(name="items.count", description="Use to count.", title="Count")(_plain)
    assert (spec.name, spec.description, spec.to_wire()["title"]) == ("items.count", "Use to count.", "Count")
    assert spec(count=2).structured_content == {"count": 2}


# --- removed spellings -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "removed",
    [
        {"read_only": True},
        {"destructive": False},
        {"idempotent": True},
        {"open_world": False},
        {"dedupe_window_seconds": 60},
        {"before_task": _ask_first},
        {"input_schema_override": {"type": "object"}},
    ],
)
def test_removed_keywords_are_unknown(removed: dict[str, Any]) -> None:
    with pytest.raises(TypeError, match=next(iter(removed))):
        tool(description="Use to test.", **removed)(_plain)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"annotations": {"readOnlyHint": True}}, r"annotations must be a ToolAnnotations\(\.\.\.\) or None"),
        ({"task": "optional"}, r"task must be a TaskConfig\(\.\.\.\) or None"),
        ({"exactly_once": 60}, r"exactly_once must be True, False, an ExactlyOnce\(\.\.\.\) or None"),
    ],
)
def test_the_old_value_forms_fail_naming_the_tool_and_keyword(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ToolSignatureError, match=rf"tool '_plain': {message}"):
        tool(description="Use to test.", **options)(_plain)


# --- ToolAnnotations ---------------------------------------------------------------------------------------------


def test_tool_annotations_become_the_wire_hints_in_spec_order() -> None:
    annotations = ToolAnnotations(
        open_world=False, idempotent=True, destructive=False, read_only=False, title="T"
    )
    spec = tool(description="Use to test.", annotations=annotations)(_plain)
    assert json.dumps(spec.to_wire()["annotations"]) == (
        '{"title": "T", "readOnlyHint": false, "destructiveHint": false, "idempotentHint": true, '
        '"openWorldHint": false}'
    )


def test_hints_left_out_are_not_on_the_wire() -> None:
    assert ToolAnnotations(idempotent=True).to_wire() == {"idempotentHint": True}
    assert ToolAnnotations().to_wire() is None
    assert (
        "annotations" not in tool(description="Use to test.", annotations=ToolAnnotations())(_plain).to_wire()
    )


@pytest.mark.parametrize(
    ("annotations", "message"),
    [
        (ToolAnnotations(read_only=1), "annotations read_only must be True, False or None"),  # type: ignore[arg-type]
        (ToolAnnotations(open_world="no"), "annotations open_world must be True, False or None"),  # type: ignore[arg-type]
        (ToolAnnotations(title=3), "annotations title must be a string"),  # type: ignore[arg-type]
    ],
)
def test_badly_typed_annotations_fail_at_decoration(annotations: ToolAnnotations, message: str) -> None:
    with pytest.raises(ToolSignatureError, match=rf"tool '_plain': {message}"):
        tool(description="Use to test.", annotations=annotations)(_plain)


def test_tool_annotations_are_frozen() -> None:
    annotations = ToolAnnotations(read_only=True)
    with pytest.raises(AttributeError):
        annotations.read_only = False  # type: ignore[misc]


# --- ExactlyOnce -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("exactly_once", "declared", "window"),
    [
        (None, None, None),
        (False, False, None),
        (True, True, None),
        (ExactlyOnce(), True, None),
        (ExactlyOnce(dedupe_window_seconds=60), True, 60),
    ],
)
def test_exactly_once_forms_map_onto_the_spec(
    exactly_once: Any, declared: bool | None, window: int | None
) -> None:
    spec = tool(description="Use to test.", exactly_once=exactly_once)(_plain)
    assert (spec.exactly_once, spec.dedupe_window_seconds) == (declared, window)


@pytest.mark.parametrize("window", [0, -5, True, 1.5, "60"])
def test_a_dedupe_window_must_be_a_whole_number_of_seconds(window: Any) -> None:
    with pytest.raises(
        ToolSignatureError, match=r"tool '_plain': exactly_once dedupe_window_seconds must be"
    ):
        tool(description="Use to test.", exactly_once=ExactlyOnce(dedupe_window_seconds=window))(_plain)


# --- TaskConfig --------------------------------------------------------------------------------------------------


def test_task_config_maps_onto_the_spec() -> None:
    forbidden = tool(description="Use to test.")(_plain)
    optional = tool(description="Use to test.", task=TaskConfig())(_plain)
    required = tool(description="Use to test.", task=TaskConfig(mode="required", before_start=_ask_first))(
        _plain
    )
    assert (forbidden.task, forbidden.before_task) == ("forbidden", None)
    assert (optional.task, optional.before_task) == ("optional", None)
    assert (required.task, required.before_task) == ("required", _ask_first)


@pytest.mark.parametrize(
    ("task", "message"),
    [
        (TaskConfig(mode="forbidden"), "task mode must be one of optional, required"),  # type: ignore[arg-type]
        (TaskConfig(mode="always"), "task mode must be one of optional, required"),  # type: ignore[arg-type]
        (TaskConfig(before_start="ask"), "task before_start must be a function"),  # type: ignore[arg-type]
    ],
)
def test_bad_task_configs_fail_at_decoration(task: TaskConfig, message: str) -> None:
    with pytest.raises(ToolSignatureError, match=rf"tool '_plain': {message}"):
        tool(description="Use to test.", task=task)(_plain)


# --- what a type checker sees ------------------------------------------------------------------------------------

BUSINESS_FILE = '''
from mcp_lambda.tools import CallLimits, ToolAnnotations, ToolContext, ToolResult, execution_result, tool


@tool
def bare(count: int) -> ToolResult:
    """Use to test."""
    return execution_result({"count": count})


@tool(
    description="Use to test.",
    annotations=ToolAnnotations(read_only=True),
    limits=CallLimits(rate="5/second", quota="100/hour"),
)
def called(name: str, ctx: ToolContext, limit: int = 3) -> ToolResult:
    return execution_result({"name": name, "limit": limit})


reveal_type(bare)
reveal_type(called)
bare(2)
bare("three")  # error: str for int
called(name=1, ctx=None)  # error: int for str, None for ToolContext


@tool(description="Use to test.", read_only=True)  # error: a removed keyword
def old_style(count: int) -> ToolResult:
    return execution_result({})


@tool(description="Use to test.", limits=CallLimits(quota=100))  # error: a quota is a string: "100/hour"
def wrong_quota(count: int) -> ToolResult:
    return execution_result({})
'''


def test_mypy_strict_sees_the_decorated_functions_signature(tmp_path: Path) -> None:
    business = tmp_path / "business.py"
    business.write_text(BUSINESS_FILE, encoding="utf-8")
    command = [sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent", "--no-error-summary"]
    done = subprocess.run(
        [*command, "--cache-dir", str(tmp_path / "cache"), str(business)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env={**os.environ, "MYPYPATH": str(ROOT / "src")},
        timeout=300,
    )
    lines = done.stdout.splitlines()
    revealed = [line.split("Revealed type is ")[1] for line in lines if "Revealed type is" in line]
    assert revealed == [
        '"mcp_lambda.tools.spec.ToolSpec[[count: int], mcp_lambda.tools.results.ToolResult]"',
        '"mcp_lambda.tools.spec.ToolSpec[[name: str, ctx: mcp_lambda.tools.context.ToolContext, limit: int =], '
        'mcp_lambda.tools.results.ToolResult]"',
    ], done.stdout + done.stderr
    errors = [line for line in lines if ": error: " in line]
    error_lines = {int(re.match(r".*?:(\d+): error", line).group(1)) for line in errors}  # type: ignore[union-attr]
    source = BUSINESS_FILE.splitlines()
    expected = {number for number, text in enumerate(source, start=1) if "# error" in text}
    assert error_lines == expected, done.stdout + done.stderr
    assert any(
        '"__call__" of "ToolSpec" has incompatible type "str"; expected "int"' in line for line in errors
    )
    assert any('Unexpected keyword argument "read_only"' in line for line in errors)


def test_the_tools_page_example_runs_and_serves_its_tool() -> None:
    page = (ROOT / "docs" / "tools.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", page, flags=re.S)
    [example] = [block for block in blocks if "def reserve_table" in block]  # the page's "Example" section
    namespace: dict[str, Any] = {}
    exec(compile(example, "docs/tools.md", "exec"), namespace)
    [spec] = namespace["BUSINESS"].tools
    assert spec.to_wire()["annotations"] == {"destructiveHint": False, "openWorldHint": False}
    assert (spec.runs_exactly_once, spec.dedupe_window_seconds) == (True, 60)
    assert spec(guests=9, ctx=None).structured_content["code"] == 40001
