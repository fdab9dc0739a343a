"""A business's tests use the public test kit, never the framework's own test helpers: every .py file under
tests/businesses/<name>/ imports only mcp_lambda.testing, mcp_lambda.tools, businesses.<name>, the standard
library and third-party packages."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_lambda_tools.lint.business_imports import forbidden_imports

ROOT = Path(__file__).resolve().parents[2]
BUSINESS_TESTS = ROOT / "tests" / "businesses"


# The repository's own top-level packages: a business test may reach into none of them but the allowed parts.
def business_test_files() -> list[tuple[str, Path]]:
    return [
        (folder.name, path)
        for folder in sorted(BUSINESS_TESTS.iterdir())
        if folder.is_dir() and not folder.name.startswith((".", "_"))
        for path in sorted(folder.rglob("*.py"))
    ]


def test_there_are_business_tests_to_check() -> None:
    assert any(business == "demo" for business, _ in business_test_files())


@pytest.mark.parametrize(
    ("business", "path"), business_test_files(), ids=lambda value: str(value).split("tests/")[-1]
)
def test_a_business_test_imports_only_the_kit_the_toolkit_and_its_business(business: str, path: Path) -> None:
    assert forbidden_imports(path, business) == []


def test_the_check_names_every_kind_of_forbidden_import(tmp_path: Path) -> None:
    bad = tmp_path / "test_bad.py"
    bad.write_text(
        "import json\n"
        "import pytest\n"
        "from pydantic import BaseModel\n"
        "from mcp_lambda.testing import McpTestClient\n"
        "from mcp_lambda.tools import tool\n"
        "from businesses.shop import BUSINESS\n"
        "from . import helpers\n"
        "from tests.support.handlers import build_handler\n"
        "from mcp_lambda.settings import Settings\n"
        "import mcp_lambda.app\n"
        "from mcp_lambda import handler\n"
        "from mcp_lambda_dev.local.events import http_event\n"
        "from businesses.demo import BUSINESS as OTHER\n"
        "from businesses import conformance\n"
        "def later():\n"
        "    from mcp_lambda.protocol import jsonrpc\n",
        encoding="utf-8",
    )

    assert forbidden_imports(bad, "shop") == [
        "8: tests.support.handlers",
        "9: mcp_lambda.settings",
        "10: mcp_lambda.app",
        "11: mcp_lambda.handler",
        "12: mcp_lambda_dev.local.events",
        "13: businesses.demo",
        "14: businesses.conformance",
        "16: mcp_lambda.protocol",
    ]
