"""Manifests compiled for the Lambda package (`make build`): the JSON is the YAML's document, the deployed function
reads it without PyYAML, and it is checked exactly as the YAML is."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from mcp_lambda.manifest.lint import lint_manifest

ROOT = Path(__file__).resolve().parents[3]
FIXTURES = ROOT / "tests" / "fixtures" / "manifests"
# Rules that are about the YAML text itself (a JSON document has no duplicate keys or YAML syntax to get wrong).
YAML_ONLY = {"duplicate-key", "yaml-syntax"}
INVALID = [path for path in sorted((FIXTURES / "invalid").glob("*.yaml")) if path.stem not in YAML_ONLY]
ENV = {"PATH": os.environ.get("PATH", ""), "PYTHONPATH": f"{ROOT / 'src'}:{ROOT / 'dev'}:{ROOT}"}


def compile_manifests(out: Path, *paths: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            str(ROOT / "dev" / "mcp_lambda_tools" / "build" / "manifest_compile.py"),
            str(out),
            *map(str, paths),
        ],
        cwd=ROOT,
        env=ENV,
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_the_compiled_manifest_is_the_yaml_document(tmp_path: Path) -> None:
    done = compile_manifests(tmp_path)
    assert done.returncode == 0, done.stderr
    for source in sorted((ROOT / "manifest").glob("*.yaml")):
        compiled = tmp_path / f"{source.stem}.json"
        assert json.loads(compiled.read_text()) == yaml.safe_load(source.read_text())


def test_an_invalid_manifest_is_reported_and_nothing_is_written(tmp_path: Path) -> None:
    done = compile_manifests(tmp_path / "out", FIXTURES / "invalid" / "unknown-key.yaml")
    assert done.returncode == 1 and "[unknown-key]" in done.stderr
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("path", INVALID, ids=[path.stem for path in INVALID])
def test_a_json_manifest_breaks_the_same_rules_as_its_yaml(path: Path, tmp_path: Path) -> None:
    compiled = tmp_path / f"{path.stem}.json"
    compiled.write_text(json.dumps(yaml.safe_load(path.read_text())))
    assert {p.rule for p in lint_manifest(compiled)} == {p.rule for p in lint_manifest(path)}


def test_a_json_manifest_that_is_not_json_is_one_problem(tmp_path: Path) -> None:
    broken = tmp_path / "demo.json"
    broken.write_text('{"tools": ')
    [problem] = lint_manifest(broken)
    assert problem.rule == "json-syntax"


def test_the_deployed_function_checks_results_against_the_compiled_manifest_without_pyyaml(
    tmp_path: Path,
) -> None:
    assert compile_manifests(tmp_path).returncode == 0
    # The package also carries the demo's compiled skills index (make build writes it): a copy of the business
    # with its _skills.json, ahead of the checkout's on the path.
    package = tmp_path / "package"
    shutil.copytree(
        ROOT / "src" / "businesses", package / "businesses", ignore=shutil.ignore_patterns("__pycache__")
    )
    subprocess.run(
        [
            sys.executable,
            str(ROOT / "dev" / "mcp_lambda_tools" / "build" / "skills_compile.py"),
            str(package),
        ],
        env=ENV,
        check=True,
        timeout=60,
    )
    script = (
        "import json, sys\n"
        "from mcp_lambda_dev.local.events import LocalContext, http_event\n"
        "from mcp_lambda import handler\n"
        "meta = {'io.modelcontextprotocol/protocolVersion': '2026-07-28', "
        "'io.modelcontextprotocol/clientCapabilities': {}}\n"
        "body = {'jsonrpc': '2.0', 'id': 1, 'method': 'tools/list', 'params': {'_meta': meta}}\n"
        "h = {'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'tools/list'}\n"
        "r = handler.handler(http_event('POST', '/mcp', h, json.dumps(body)), LocalContext())\n"
        "tools = json.loads(r['body'])['result']['tools']\n"
        "print(json.dumps({'yaml': 'yaml' in sys.modules, 'schemas': sorted(t['name'] for t in tools "
        "if 'outputSchema' in t), 'manifest': str(handler.runtime.manifest_path)}))\n"
    )
    env = {**ENV, "BUSINESS": "demo", "MANIFEST_DIR": str(tmp_path), "POWERTOOLS_METRICS_DISABLED": "true"}
    env["PYTHONPATH"] = f"{package}:{env['PYTHONPATH']}"
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60, check=True
    ).stdout
    seen = json.loads(out.strip().splitlines()[-1])
    assert seen["yaml"] is False
    assert seen["manifest"] == str(tmp_path / "demo.json")
    assert seen["schemas"]  # the output schemas come from the manifest: it was read
