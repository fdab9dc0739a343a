"""`make new-business` scaffolds a business that passes `make lint`, its manifest check and its own tests (which
run every branch of the tools it writes and replay the conversations it recorded); and it never overwrites."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from tests.support.cloudformation import CloudFormationLoader

from mcp_lambda_tools.build.package_deps import conflicts, pins, requirement_lines
from mcp_lambda_tools.deploy.stack_compose import budget_mb, business_template, dump
from mcp_lambda_tools.lint.business_imports import forbidden_imports

ROOT = Path(__file__).resolve().parents[2]
TOOLS = ROOT / "dev" / "mcp_lambda_tools"
BIN = Path(sys.executable).parent
PACKAGE, MANIFEST, TESTS, EVENTS = (
    "src/businesses/shop",
    "manifest/shop.yaml",
    "tests/businesses/shop",
    "events/shop",
)


@pytest.fixture(scope="module")
def scaffolded(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """A repository-shaped folder (the config and a copy of the framework, so that the handler looks for
    manifests and events in it), what new-business wrote there, and what it printed."""
    root = tmp_path_factory.mktemp("repo")
    (root / "src" / "businesses").mkdir(parents=True)
    shutil.copy(ROOT / "src" / "businesses" / "__init__.py", root / "src" / "businesses" / "__init__.py")
    shutil.copytree(
        ROOT / "src" / "mcp_lambda", root / "src" / "mcp_lambda", ignore=shutil.ignore_patterns("__pycache__")
    )
    shutil.copy(ROOT / "pyproject.toml", root / "pyproject.toml")
    done = _run(
        root,
        sys.executable,
        "-m",
        "mcp_lambda_tools.scaffold.new_business",  # as make new-business runs it
        "shop",
        "--root",
        str(root),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return root, done.stdout


def _run(root: Path, *command: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(str(p) for p in (root / "src", ROOT / "dev", ROOT))}
    # The copy's test kit finds this checkout's DynamoDB Local, as make (which exports MCP_DDB_DIR) points it there.
    env.setdefault("MCP_DDB_DIR", str(ROOT / ".cache" / "ddb"))
    return subprocess.run(command, cwd=root, capture_output=True, text=True, env=env, timeout=300)


def test_scaffold_writes_the_business_its_manifest_its_tests_and_its_recordings(
    scaffolded: tuple[Path, str],
) -> None:
    root, printed = scaffolded
    modules = {path.name for path in (root / PACKAGE).glob("*.py")}
    tests = {path.name for path in (root / TESTS).glob("*.py")}

    assert {"items.py", "stock.py", "reservations.py", "exports.py", "codes.py"} <= modules
    assert {"conftest.py", "conversations.py", "test_shop_conversations.py", "test_shop_tools.py"} <= tests
    assert all(name.startswith("test_shop_") for name in tests - {"conftest.py", "conversations.py"})
    assert "created manifest/shop.yaml" in printed and "created tests/businesses/shop/conftest.py" in printed
    recorded = {path.name for path in (root / EVENTS).iterdir()}
    assert recorded == {"modern_2026_07_28", "session_2024_11_05", "tasks_2026_07_28"}
    events = [path for path in (root / EVENTS).rglob("*.json") if not path.name.endswith(".expected.json")]
    assert f"recorded {len(events)} events to events/shop/" in printed
    assert "server_started" not in printed  # the handler's log lines stay out of the closing lines


def test_the_closing_lines_name_every_command_a_newcomer_needs_in_order(scaffolded: tuple[Path, str]) -> None:
    _, printed = scaffolded
    commands = [
        "make venv",
        ".venv/bin/python -m pytest tests/businesses/shop",
        "make run BUSINESS=shop",
        "make simulate BUSINESS=shop TOOL=find_items",
        "make events BUSINESS=shop",
        "make build BUSINESS=shop",
        "make deploy BUSINESS=shop",
    ]
    closing = printed.split("Next, in order:")[1]
    positions = [closing.find(command) for command in commands]

    assert -1 not in positions and positions == sorted(positions), positions


def test_scaffold_passes_the_linters_of_make_lint(scaffolded: tuple[Path, str]) -> None:
    root, _ = scaffolded
    for command in (
        [str(BIN / "ruff"), "check", PACKAGE, TESTS],
        [str(BIN / "ruff"), "format", "--check", PACKAGE, TESTS],
        # as make lint checks every business
        [
            sys.executable,
            "-m",
            "mypy",
            "--strict",
            "--cache-dir",
            str(root / ".mypy_cache"),
            "-p",
            "businesses.shop",
        ],
    ):
        done = _run(root, *command)
        assert done.returncode == 0, f"{command[0]}: {done.stdout}{done.stderr}"


def test_scaffold_lints_clean_against_its_own_tools(scaffolded: tuple[Path, str]) -> None:
    root, _ = scaffolded
    done = _run(root, sys.executable, str(TOOLS / "lint" / "manifest_lint.py"), MANIFEST)
    assert done.returncode == 0, done.stdout + done.stderr


def test_scaffold_passes_the_schema_lint_without_a_warning(scaffolded: tuple[Path, str]) -> None:
    root, _ = scaffolded
    done = _run(root, sys.executable, "-m", "mcp_lambda_tools.lint.schema_lint", "shop")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "schema-lint: 1 business(es), 0 error(s), 0 warning(s)" in done.stdout, done.stdout


def test_scaffold_drafts_a_skill_the_skill_lint_passes(scaffolded: tuple[Path, str]) -> None:
    root, printed = scaffolded
    skill = root / PACKAGE / "skills" / "shop-tools" / "SKILL.md"
    assert skill.read_text().startswith("---\nname: shop-tools\n")
    assert "drafted src/businesses/shop/skills/shop-tools/SKILL.md" in printed
    done = _run(root, sys.executable, str(TOOLS / "lint" / "skill_lint.py"), "shop")
    assert done.returncode == 0, done.stdout + done.stderr


def test_scaffold_lists_its_secrets_in_its_server_json(scaffolded: tuple[Path, str], tmp_path: Path) -> None:
    root, _ = scaffolded
    out = tmp_path / "shop.server.json"
    done = _run(
        root,
        sys.executable,
        str(TOOLS / "deploy" / "server_json.py"),
        "shop",
        "--out",
        str(out),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    published = json.loads(out.read_text())["_meta"]["io.modelcontextprotocol.registry/publisher-provided"]
    assert published["configuration"]["secrets"] and published["skills"] == ["skill://shop-tools/SKILL.md"]


def test_scaffold_tests_import_only_the_kit_the_toolkit_and_their_business(
    scaffolded: tuple[Path, str],
) -> None:
    root, _ = scaffolded
    for path in sorted((root / TESTS).glob("*.py")):
        assert forbidden_imports(path, "shop") == [], path.name


def test_scaffold_tests_pass_and_run_every_branch_it_writes(scaffolded: tuple[Path, str]) -> None:
    root, _ = scaffolded
    tests = _run(
        root,
        *(sys.executable, "-m", "coverage", "run", "--branch", f"--source={root / PACKAGE}"),
        *("-m", "pytest", "-v", "-p", "no:cacheprovider", TESTS),
    )
    assert tests.returncode == 0, tests.stdout + tests.stderr
    assert " passed" in tests.stdout and "SKIPPED" not in tests.stdout
    for conversation in ("modern_2026_07_28", "session_2024_11_05", "tasks_2026_07_28"):
        assert f"test_conversations[shop/{conversation}] PASSED" in tests.stdout
    report = _run(root, sys.executable, "-m", "coverage", "report", "--show-missing", "--fail-under=100")
    assert report.returncode == 0, report.stdout + report.stderr
    for module in ("items.py", "stock.py", "reservations.py", "exports.py"):
        assert module in report.stdout


def test_the_scaffold_shows_every_part_of_the_template(scaffolded: tuple[Path, str]) -> None:
    root, _ = scaffolded
    package = root / PACKAGE
    stock = (package / "stock.py").read_text()
    assert "ctx.http.get(" in stock and "ctx.secret(KEY_SECRET)" in stock
    assert "exactly_once=ExactlyOnce(" in (package / "reservations.py").read_text()
    exports = (package / "exports.py").read_text()
    assert (
        "task=TaskConfig(" in exports and "ctx.report_progress(" in exports and "ctx.cancelled()" in exports
    )
    manifest = (root / MANIFEST).read_text()
    assert "tool_card_binding:" in manifest
    for tool in ("find_items", "check_stock", "reserve_item", "export_items"):
        assert f"  {tool}:\n    output:" in manifest


def test_the_replay_test_is_the_one_liner(scaffolded: tuple[Path, str]) -> None:
    root, _ = scaffolded
    tree = ast.parse((root / TESTS / "test_shop_conversations.py").read_text())
    [assign] = [node for node in tree.body if isinstance(node, ast.Assign)]
    assert ast.unparse(assign) == "test_conversations = replay_conversations('shop')"


def test_scaffold_never_overwrites(scaffolded: tuple[Path, str]) -> None:
    root, _ = scaffolded
    again = _run(
        root,
        sys.executable,
        "-m",
        "mcp_lambda_tools.scaffold.new_business",  # as make new-business runs it
        "shop",
        "--root",
        ".",
    )
    assert again.returncode != 0 and "already exists" in again.stderr


def test_a_name_a_fixture_business_has_is_refused(tmp_path: Path) -> None:
    (tmp_path / "dev" / "businesses" / "conformance").mkdir(parents=True)
    done = _run(
        tmp_path,
        sys.executable,
        "-m",
        "mcp_lambda_tools.scaffold.new_business",  # as make new-business runs it
        "conformance",
        "--root",
        ".",
    )
    assert done.returncode != 0 and "dev/businesses/conformance already exists" in done.stderr
    assert not (tmp_path / "src").exists()


@pytest.mark.parametrize("name", ["Shop", "1shop", "my-shop", "class"])
def test_a_name_that_is_not_a_package_name_is_refused(name: str, tmp_path: Path) -> None:
    done = _run(
        tmp_path,
        sys.executable,
        "-m",
        "mcp_lambda_tools.scaffold.new_business",  # as make new-business runs it
        name,
        "--root",
        ".",
    )
    assert done.returncode != 0 and "lower-case letters" in done.stderr
    assert not any(tmp_path.iterdir())


def test_the_scaffold_declares_a_setting_a_secret_a_table_with_its_policy_and_a_pin(
    scaffolded: tuple[Path, str],
) -> None:
    root, _ = scaffolded
    package = root / PACKAGE
    composed = yaml.load(dump(business_template("shop", root / "src")), Loader=CloudFormationLoader)
    function = composed["Resources"]["McpFunction"]["Properties"]

    assert 'env_prefix: ClassVar[str] = "SHOP_"' in (package / "settings.py").read_text()
    assert "secrets=[KEY_SECRET]" in (package / "__init__.py").read_text()
    assert composed["Resources"]["ShopReservationsTable"]["Type"] == "AWS::DynamoDB::Table"
    assert function["Environment"]["Variables"]["SHOP_RESERVATIONS_TABLE"] == {"Ref": "ShopReservationsTable"}
    assert function["Environment"]["Variables"]["SHOP_STOCK_URL"] == {"Ref": "ShopStockUrl"}
    [statement] = [s for s in function["Policies"][0]["Statement"] if s.get("Sid") == "ShopReservationsTable"]
    assert statement["Action"] == ["dynamodb:GetItem", "dynamodb:PutItem"]
    assert statement["Resource"] == {"Fn::GetAtt": ["ShopReservationsTable", "Arn"]}
    requirements = package / "requirements.txt"
    assert requirement_lines(requirements) == ["python-ulid==4.1.0"]
    assert conflicts(requirements, pins(ROOT / "src" / "requirements.txt")) == []
    assert budget_mb("shop", root / "src") == 2.0
