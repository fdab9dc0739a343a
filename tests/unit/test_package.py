"""One function ships one business: what `make build BUSINESS=x` stages, and the check that fails the build."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tests.support.cloudformation import load_template

from mcp_lambda.testing.apigateway import http_event
from mcp_lambda_tools.build.manifest_compile import main as compile_manifests
from mcp_lambda_tools.build.package_check import DEV_ONLY, imported_modules, problems
from mcp_lambda_tools.build.package_check import main as check_main
from mcp_lambda_tools.build.package_stage import StageError, stage
from mcp_lambda_tools.build.skills_compile import main as compile_skills
from mcp_lambda_tools.build.tool_schemas_compile import main as compile_tool_schemas

ROOT = Path(__file__).resolve().parents[2]
OTHER_BUSINESS = '''"""A second business beside the demo: it must never reach the demo's package."""

import yaml

from mcp_lambda.tools import Business

business = Business("other")
'''


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """A copy of src/ with a second business, `other`, beside the demo."""
    tree = tmp_path / "src"
    shutil.copytree(ROOT / "src", tree, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    (tree / "businesses" / "other").mkdir()
    (tree / "businesses" / "other" / "__init__.py").write_text(OTHER_BUSINESS)
    return tree


@pytest.fixture
def staged(source: Path, tmp_path: Path) -> Path:
    stage("demo", tmp_path / "stage", source)
    return tmp_path / "stage" / "demo"


def _python_files(root: Path) -> list[Path]:
    return sorted(root.rglob("*.py"))


def test_the_staged_tree_holds_the_demo_alone_and_no_development_only_module(staged: Path) -> None:
    files = {path.relative_to(staged).as_posix() for path in staged.rglob("*") if path.is_file()}

    assert sorted(entry.name for entry in (staged / "businesses").iterdir()) == ["__init__.py", "demo"]
    assert "businesses/demo/__init__.py" in files and "mcp_lambda/handler.py" in files
    assert "requirements.txt" in files
    assert not [name for name in files if "stdio" in name], "the stdio adapter is dev-only"
    assert not [name for name in files if name.startswith("mcp_lambda/testing")], (
        "the test kit is not shipped"
    )
    assert not [
        name for name in files if name.endswith(("yaml_source.py", "manifest/lint.py", "log_format.py"))
    ]
    assert not [name for name in files if "__pycache__" in name or name.endswith(".pyc")]
    importing_yaml = [
        path
        for path in _python_files(staged)
        if any(m.split(".")[0] == "yaml" for m in imported_modules(path))
    ]
    assert importing_yaml == []
    assert problems(staged, "demo") == []
    # The source still has what was left out: make run, the lint and the tests use it.
    assert (ROOT / "src" / "mcp_lambda" / "manifest" / "yaml_source.py").is_file()
    assert (ROOT / "src" / "mcp_lambda" / "testing" / "__init__.py").is_file()


def test_the_staged_template_is_the_demos_stack_with_the_code_uri_pointing_at_the_stage(
    tmp_path: Path,
) -> None:
    template = stage("demo", tmp_path / "stage")
    staged, original = load_template(template), load_template(ROOT / "template.yaml")
    fragment = load_template(ROOT / "src" / "businesses" / "demo" / "stack.yaml")

    assert template == tmp_path / "stage" / "demo.template.yaml"
    assert staged["Resources"]["McpFunction"]["Properties"].pop("CodeUri") == "demo/"
    variables = staged["Resources"]["McpFunction"]["Properties"]["Environment"]["Variables"]
    assert variables.pop("DEMO_INVENTORY_URL") == {"Ref": "DemoInventoryUrl"}
    assert staged["Parameters"].pop("DemoInventoryUrl") == fragment["Parameters"]["DemoInventoryUrl"]
    original["Resources"]["McpFunction"]["Properties"].pop("CodeUri")
    assert staged == original
    assert (template.parent / "demo" / "mcp_lambda" / "handler.py").is_file()
    assert not (template.parent / "demo" / "businesses" / "demo" / "stack.yaml").exists()


def test_staging_refuses_a_business_whose_stack_redefines_a_framework_name(
    source: Path, tmp_path: Path
) -> None:
    (source / "businesses" / "other" / "stack.yaml").write_text(
        "Parameters:\n  AuthMode: {Type: String}\nFunction:\n  Environment:\n    SESSIONS_TABLE: x\n"
    )
    with pytest.raises(StageError) as refused:
        stage("other", tmp_path / "stage", source)
    assert str(refused.value).splitlines() == [
        "src/businesses/other/stack.yaml: Parameters.AuthMode redefines the framework's AuthMode: give it a name "
        "of the business's own",
        "src/businesses/other/stack.yaml: Function.Environment.SESSIONS_TABLE redefines the framework's variable "
        "SESSIONS_TABLE: prefix the business's variables with its name (a prefixed settings model, "
        "docs/configuration.md)",
    ]
    assert not (tmp_path / "stage").exists()


def test_staging_refuses_an_unknown_business_or_a_bad_name(tmp_path: Path) -> None:
    with pytest.raises(StageError, match="is not a package"):
        stage("no_such_business", tmp_path)
    with pytest.raises(StageError, match="not a business name"):
        stage("../demo", tmp_path)
    assert not list(tmp_path.iterdir())


def test_the_check_fails_on_another_business_a_dev_only_module_or_a_yaml_import(
    staged: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert check_main([str(staged), "--business", "demo"]) == 0

    shutil.copytree(staged.parent.parent / "src" / "businesses" / "other", staged / "businesses" / "other")
    found = problems(staged, "demo")
    assert any("another business" in line and "businesses/other" in line for line in found)
    assert any("businesses/other/__init__.py: imports yaml" in line for line in found)
    shutil.rmtree(staged / "businesses" / "other")

    # An import inside a function counts: it would run on some request.
    (staged / "mcp_lambda" / "late.py").write_text("def read(text):\n    from yaml import safe_load\n")
    assert problems(staged, "demo") == ["mcp_lambda/late.py: imports yaml, which the package does not have"]
    (staged / "mcp_lambda" / "late.py").unlink()

    for path in DEV_ONLY:
        target = staged / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("") if target.suffix == ".py" else target.mkdir()
        assert problems(staged, "demo") == [f"{staged}: development-only {path} is in the package"]
        target.unlink() if target.suffix == ".py" else target.rmdir()

    assert problems(staged, "shop") == [
        f"{staged}: businesses/shop/ is missing",
        f"{staged}: another business in the package: businesses/demo",
    ]
    assert check_main([str(staged), "--business", "shop"]) == 1
    assert "package_check: " in capsys.readouterr().err


STAGED_HANDLER = r"""
import json, site, sys
staged = sys.argv[1]
# Only the staged package, the standard library and the installed dependencies: not src/ nor dev/ (the
# editable install's path), and no PyYAML.
sys.path[:] = [p for p in sys.path if p == staged or p.startswith(sys.base_prefix) or p in site.getsitepackages()]
sys.modules["yaml"] = None
import importlib.util
assert importlib.util.find_spec("mcp_lambda_dev") is None

class Context:
    function_name = "mcp-demo-mcp"
    function_version = "$LATEST"
    memory_limit_in_mb = 1024
    aws_request_id = "c0ffee00-0000-4000-8000-000000000000"
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:mcp-demo-mcp"
    log_group_name = "/aws/lambda/mcp-demo-mcp"
    log_stream_name = "staged"
    def get_remaining_time_in_millis(self):
        return 30_000

from mcp_lambda.handler import handler
response = handler(json.loads(sys.argv[2]), Context())
body = json.loads(response["body"])
print("RESULT " + json.dumps({
    "status": response["statusCode"],
    "tools": sorted(tool["name"] for tool in body["result"]["tools"]),
    "handler": sys.modules["mcp_lambda.handler"].__file__,
    "businesses": sorted(name for name in sys.modules if name.startswith("businesses.")),
}))
"""


def test_the_staged_handler_serves_tools_list_with_yaml_unimportable(staged: Path, tmp_path: Path) -> None:
    manifests = tmp_path / "manifest"
    assert compile_manifests([str(manifests), str(ROOT / "manifest" / "demo.yaml")]) == 0
    assert compile_tool_schemas([str(staged), "--source", str(staged.parent.parent / "src")]) == 0
    assert compile_skills([str(staged)]) == 0
    meta = {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
    }
    headers = {
        "content-type": "application/json",
        "accept": "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/list",
    }
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}}
    event = http_event("POST", "/mcp", headers, json.dumps(body))
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": str(staged),
        "BUSINESS": "demo",
        "MANIFEST_DIR": str(manifests),
        "AWS_DEFAULT_REGION": "us-east-1",
        "POWERTOOLS_METRICS_DISABLED": "true",
        "POWERTOOLS_TRACE_DISABLED": "true",
    }
    done = subprocess.run(
        [sys.executable, "-c", STAGED_HANDLER, str(staged), json.dumps(event)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert done.returncode == 0, done.stderr[-3000:]
    [line] = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    result = json.loads(line.removeprefix("RESULT "))
    assert result["status"] == 200
    assert "search_products" in result["tools"] and len(result["tools"]) == 7
    assert result["handler"].startswith(str(staged))
    assert result["businesses"] and all(name.startswith("businesses.demo") for name in result["businesses"])


def test_make_build_stages_one_business_and_checks_the_package_and_make_deploy_checks_it_again() -> None:
    make = (ROOT / "mk" / "deploy.mk").read_text()
    build = make[make.index("\nbuild:") : make.index("\ndeploy:")]
    deploy = make[make.index("\ndeploy:") : make.index("\nsam:")]

    assert "-m mcp_lambda_tools.build.package_stage $(BUSINESS) $(STAGE_DIR)" in build
    assert (
        "--template $(STAGE_DIR)/$(BUSINESS).template.yaml" in build
        and "--template template.yaml" not in build
    )
    assert (
        "-m mcp_lambda_tools.build.manifest_compile $(BUILD_DIR)/McpFunction/manifest manifest/$(BUSINESS).yaml"
        in build
    )
    check = "-m mcp_lambda_tools.build.package_check $(BUILD_DIR)/McpFunction --business $(BUSINESS)"
    assert build.index(check) < build.index("-m mcp_lambda_tools.build.package_size"), (
        "checked after every step that adds files"
    )
    assert check in deploy
