"""docs/configuration.md documents every variable the code reads: its settings table is the one
dev/mcp_lambda_tools/docs/settings_table.py generates from `Settings` today, `.env.example` names every setting, the business
settings table lists the demo's own settings, and the hand-kept table of other variables lists exactly the names
src/, dev/ (the development tools among it) and bench/ read outside `Settings`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic.fields import FieldInfo

from businesses.demo.settings import DemoSettings
from mcp_lambda.settings import SECTIONS, Settings
from mcp_lambda_tools.docs.settings_table import BEGIN, END, page_with_table, settings_table, table_in_page

ROOT = Path(__file__).resolve().parents[2]
PAGE = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
SETTINGS = list(Settings.variables())
# Variables read by the libraries underneath, by make run or by the development scripts; not Settings fields.
OTHER_VARIABLES = [
    "POWERTOOLS_SERVICE_NAME",
    "POWERTOOLS_LOG_LEVEL",
    "POWERTOOLS_METRICS_NAMESPACE",
    "POWERTOOLS_METRICS_DISABLED",
    "POWERTOOLS_TRACE_DISABLED",
    "POWERTOOLS_DEV",
    "AWS_SAM_LOCAL",
    "CHALICE_LOCAL",
    "AWS_XRAY_DAEMON_ADDRESS",
    "AWS_ENDPOINT_URL_DYNAMODB",
    "AWS_ENDPOINT_URL_SECRETS_MANAGER",
    "AWS_ENDPOINT_URL_LAMBDA",
    "AWS_REGION",
    "AWS_DEFAULT_REGION",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "HOST",
    "PORT",
    "WORKERS",
    "INVOKE_PORT",
    "INVENTORY_PORT",
    "BENCH_DYNAMODB_ENDPOINT",
    "MCP_DDB_DIR",
    "MCP_OAUTH_DIR",
    "MCP_TOOLS_CACHE",
    "DEPLOY_PARAMS",
]
# The system's own, read to find programs, never a setting of ours.
SYSTEM_VARIABLES = {"PATH"}
# os.environ.get("X"), os.environ["X"], environ.setdefault("X", ...), env.get("X"), os.getenv("X")
READ = re.compile(
    r"""(?:environ(?:\.get|\.setdefault|\.pop)?|getenv|env\.get)\(\s*["']([A-Z][A-Z0-9_]+)["']"""
    r"""|environ\[["']([A-Z][A-Z0-9_]+)["']\]"""
)


def _section(title: str) -> str:
    start = PAGE.index(f"\n## {title}\n")
    end = PAGE.find("\n## ", start + 1)
    return PAGE[start : end if end != -1 else len(PAGE)]


def _first_column(section: str) -> list[str]:
    return re.findall(r"^\| `([A-Z][A-Z0-9_]*)` \|", section, re.M)


def names_read_by_code(root: Path) -> set[str]:
    """Every variable name the framework, the development tools and the scripts read by a literal name."""
    found: set[str] = set()
    for folder in ("src/mcp_lambda", "dev", "bench"):
        for path in (root / folder).rglob("*.py"):
            for match in READ.finditer(path.read_text(encoding="utf-8")):
                found.add(match.group(1) or match.group(2))
    return found


def test_the_settings_table_is_the_one_generated_from_settings() -> None:
    written = table_in_page(PAGE)
    assert written == settings_table(), (
        "docs/configuration.md's settings table differs from Settings: run python dev/mcp_lambda_tools/docs/settings_table.py --update"
    )
    assert _first_column(written) == SETTINGS


def test_every_setting_has_a_description() -> None:
    undescribed = [
        name for name, field in Settings.model_fields.items() if not (field.description or "").strip()
    ]
    assert not undescribed


def test_a_new_setting_changes_the_generated_table(monkeypatch: pytest.MonkeyPatch) -> None:
    before = settings_table()
    fields = dict(Settings.model_fields)
    extra = FieldInfo(annotation=str, default="x", description="a setting the page lacks")
    monkeypatch.setattr(Settings, "model_fields", {**fields, "brand_new_setting": extra})
    after = settings_table()
    assert after != before and "`BRAND_NEW_SETTING`" in after and "a setting the page lacks" in after


def test_update_rewrites_only_between_the_markers() -> None:
    page = f"# Title\n\nintro\n{BEGIN}\nstale\n{END}\n\nrest\n"
    rewritten = page_with_table(page, "| new |")
    assert rewritten == f"# Title\n\nintro\n{BEGIN}\n| new |\n{END}\n\nrest\n"
    with pytest.raises(ValueError):
        page_with_table("# no markers\n", "| new |")


def test_env_example_names_every_setting() -> None:
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    named = set(re.findall(r"^#? ?([A-Z][A-Z0-9_]*)=", example, re.M))
    missing = [name for name in SETTINGS if name not in named]
    assert not missing, f".env.example lacks {missing}"
    # Names only: no value after any `NAME=`.
    assert not re.findall(r"^#? ?[A-Z][A-Z0-9_]*=\S", example, re.M)


def test_the_other_variables_table_lists_exactly_the_known_names() -> None:
    assert _first_column(_section("Other variables")) == OTHER_VARIABLES


def test_every_variable_the_code_reads_is_documented() -> None:
    documented = set(SETTINGS) | set(OTHER_VARIABLES) | SYSTEM_VARIABLES
    read = names_read_by_code(ROOT)
    assert {"BENCH_DYNAMODB_ENDPOINT", "POWERTOOLS_METRICS_NAMESPACE", "MCP_OAUTH_DIR"} <= read
    assert not read - documented, (
        f"add to docs/configuration.md's other variables: {sorted(read - documented)}"
    )


def test_the_business_settings_table_lists_the_demos_settings() -> None:
    prefix = DemoSettings.env_prefix
    assert _first_column(_section("Business settings")) == [
        f"{prefix}{name}".upper() for name in DemoSettings.model_fields
    ]
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    assert all(f"# {prefix}{name}=".upper() in example.upper() for name in DemoSettings.model_fields)


def test_the_scan_finds_a_new_variable(tmp_path: Path) -> None:
    (tmp_path / "dev" / "mcp_lambda_tools").mkdir(parents=True)
    (tmp_path / "dev" / "mcp_lambda_tools" / "tool.py").write_text(
        'import os\nX = os.environ.get("SOME_NEW_SWITCH")\n'
    )
    assert names_read_by_code(tmp_path) == {"SOME_NEW_SWITCH"}


def test_a_duration_row_is_written_in_its_variables_unit() -> None:
    table = settings_table()
    assert "| `SESSION_TTL_SECONDS` | 3600 | seconds ≥ 60 |" in table
    assert "| `TASK_TTL_MS` | 86400000 | milliseconds ≥ 60000 |" in table
    assert "| `TASK_WORKER_TIMEOUT_SECONDS` | 900 | seconds ≥ 1, ≤ 900 |" in table


def test_each_section_of_settings_is_a_table_under_its_heading() -> None:
    headings = re.findall(r"^### (.+)$", table_in_page(PAGE), re.M)
    assert headings == [
        section.__doc__.splitlines()[0].rstrip(".") for section in SECTIONS if section.__doc__
    ]
    assert len(headings) == len(SECTIONS)
