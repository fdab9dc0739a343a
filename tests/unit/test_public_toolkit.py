"""Business code imports only the public toolkit, `mcp_lambda.tools`, and that toolkit has everything it needs."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import mcp_lambda.tools

ROOT = Path(__file__).resolve().parents[2]
BUSINESS_TREES = [ROOT / "src" / "businesses", ROOT / "dev" / "businesses"]
BUSINESS_MODULES = sorted(path for tree in BUSINESS_TREES if tree.is_dir() for path in tree.rglob("*.py"))
PUBLIC = (
    "mcp_lambda.tools",
    "mcp_lambda.tools.errors",
)  # the authoring API and the exceptions a tool catches


def _framework_imports(path: Path) -> list[tuple[int, str]]:
    """(line, module) of every import of the framework in one file, `import x` and `from x import y` alike."""
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"), filename=str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "mcp_lambda":
            found += [(node.lineno, f"mcp_lambda.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.append((node.lineno, node.module))
    # mcp_lambda_dev (the local server, fixtures' helpers) is no business dependency either.
    return [(line, module) for line, module in found if module.split(".")[0].startswith("mcp_lambda")]


def test_there_are_business_modules_to_check() -> None:
    assert any(path.parts[-2] == "demo" for path in BUSINESS_MODULES)


@pytest.mark.parametrize("path", BUSINESS_MODULES, ids=lambda path: str(path.relative_to(ROOT)))
def test_business_modules_import_only_the_public_toolkit(path: Path) -> None:
    wrong = [f"line {line}: {module}" for line, module in _framework_imports(path) if module not in PUBLIC]
    assert not wrong, f"{path.relative_to(ROOT)} imports framework internals: {wrong}"


def test_every_exported_name_exists() -> None:
    missing = [name for name in mcp_lambda.tools.__all__ if not hasattr(mcp_lambda.tools, name)]
    assert not missing
    assert len(set(mcp_lambda.tools.__all__)) == len(mcp_lambda.tools.__all__)


@pytest.mark.parametrize(
    "name",
    [
        "tool",
        "prompt",
        "resource",
        "resource_template",
        "input_required",
        "elicit",
        "sample",
        "list_roots",
        "InputRequired",
        "InputRequest",
        "user",
        "assistant",
        "ResultCode",
        "CardViews",
        "CardAction",
        "DynamoDBTable",
        "EnvironmentSettings",
        "ResultStatus",
        "enum_meanings",
    ],
)
def test_the_toolkit_exports_what_a_business_needs(name: str) -> None:
    assert name in mcp_lambda.tools.__all__


def test_the_authoring_api_is_short_and_holds_no_engine_or_store() -> None:
    names = mcp_lambda.tools.__all__
    assert len(names) <= 40, names
    engine = [name for name in names if name.endswith(("Store", "Executor", "Calls", "Quotas", "RateLimits"))]
    assert not engine, engine
    assert all(
        getattr(mcp_lambda.tools, name).__module__.startswith("mcp_lambda.")
        for name in names
        if name[0].isupper()
    )


def test_the_result_codes_are_one_enum_exported_in_full() -> None:
    from mcp_lambda.tools import ResultCode
    from mcp_lambda.tools.results import FRAMEWORK_CODES

    assert {int(code) for code in ResultCode} == FRAMEWORK_CODES
    assert ResultCode.INVALID_ARGUMENTS == 40000 and ResultCode.DEADLINE_EXCEEDED == 50400


def test_the_exceptions_a_tool_catches_are_in_tools_errors() -> None:
    import mcp_lambda.tools.errors as errors

    for name in (
        "ToolSignatureError",
        "DownstreamUnavailable",
        "DeadlineExceeded",
        "SecretUnavailable",
        "ConditionFailed",
        "StoreUnavailable",
    ):
        assert name in errors.__all__ and hasattr(errors, name)
