"""Manifest lint: every rule has a failing fixture (named after the rule), and valid manifests pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_lambda.manifest import ManifestError, bind_manifest, load_manifest
from mcp_lambda.manifest.lint import lint_manifest
from mcp_lambda.tools import Business, ToolResult, execution_result, tool

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "manifests"
INVALID = sorted((FIXTURES / "invalid").glob("*.yaml"))
REPO_MANIFESTS = sorted((Path(__file__).resolve().parents[3] / "manifest").glob("*.yaml"))


@pytest.mark.parametrize("path", INVALID, ids=[path.stem for path in INVALID])
def test_each_rule_fixture_reports_its_rule(path: Path) -> None:
    problems = lint_manifest(path)
    assert path.stem in {problem.rule for problem in problems}, [str(p) for p in problems]
    with pytest.raises(ManifestError) as caught:
        load_manifest(path)
    assert caught.value.problems == problems


@pytest.mark.parametrize("path", INVALID, ids=[path.stem for path in INVALID])
def test_a_problem_is_one_line_naming_file_yaml_path_and_rule(path: Path) -> None:
    for problem in lint_manifest(path):
        line = str(problem)
        assert "\n" not in line
        assert line.startswith(f"{path}:{problem.yaml_path or '<root>'}: [{problem.rule}] ")


def test_the_seed_cases_and_the_repo_manifests_are_valid() -> None:
    for path in [*sorted((FIXTURES / "valid").glob("*.yaml")), *REPO_MANIFESTS]:
        assert lint_manifest(path) == [], path


def test_unknown_keys_are_reported_with_a_suggestion() -> None:
    problems = lint_manifest(FIXTURES / "invalid" / "unknown-key.yaml")
    assert [(p.yaml_path, p.rule) for p in problems] == [
        ("entities.route.schema.title.llm_visable", "unknown-key"),
        ("entities.route.tool_card_bindings", "unknown-key"),
    ]
    assert "did you mean 'llm_visible'?" in problems[0].message
    assert problems[0].line == 8


def test_one_broken_entity_does_not_hide_the_problems_of_another(tmp_path: Path) -> None:
    path = tmp_path / "two.yaml"
    path.write_text(
        "tools:\n  t: {output: {kind: entities, entity_types: [a, b]}}\n"
        "entities:\n  a: {schema: {id: {type: strin, is_entity_id: true}}}\n  b: {schema: {x: {type: int}}}\n"
    )
    rules = {(p.yaml_path, p.rule) for p in lint_manifest(path)}
    assert rules == {("entities.a.schema.id.type", "unknown-type"), ("entities.b.schema", "no-entity-id")}


def test_tool_names_are_cross_checked_both_ways() -> None:
    path = FIXTURES / "valid" / "seed_cases.yaml"
    registered = {"search_routes", "search_routes_for_reference", "search_products", "cancel_subscription"}
    problems = {(p.yaml_path, p.rule) for p in lint_manifest(path, registered)}
    assert problems == {
        ("tools.cancel_subscription", "tool-not-in-manifest"),
        ("tools.subscribe_product", "tool-not-implemented"),
    }


def test_bind_manifest_rejects_a_business_whose_tools_do_not_match(tmp_path: Path) -> None:
    @tool(description="Use when testing. Not for production.")
    def other_tool() -> ToolResult:
        return execution_result({"success": True})

    with pytest.raises(ManifestError) as caught:
        bind_manifest(Business(name="x", tools=[other_tool]), FIXTURES / "valid" / "seed_cases.yaml")
    rules = sorted(problem.rule for problem in caught.value.problems)
    assert rules == ["tool-not-implemented"] * 4 + ["tool-not-in-manifest"]
    assert "tool-not-in-manifest" in str(caught.value)


def test_a_missing_file_is_a_problem_not_a_crash(tmp_path: Path) -> None:
    [problem] = lint_manifest(tmp_path / "absent.yaml")
    assert problem.rule == "unreadable"


def test_a_yaml_syntax_error_is_reported_alone_by_make_manifest_lint(tmp_path: Path) -> None:
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[3]
    broken = tmp_path / "demo.yaml"  # named after a real business, whose four tools would all be "missing"
    broken.write_text("tools:\n  search_routes:\n    output: {kind: entities\n")
    done = subprocess.run(
        [sys.executable, str(root / "dev" / "mcp_lambda_tools" / "lint" / "manifest_lint.py"), str(broken)],
        capture_output=True,
        text=True,
        cwd=root,
        env={"PYTHONPATH": f"{root / 'src'}:{root / 'dev'}:{root}", "PATH": ""},
    )
    assert done.returncode == 1
    [line] = done.stdout.splitlines()
    assert line.startswith(f"{broken}:<root>: [yaml-syntax] ")


def test_a_yaml_syntax_error_alone_also_stops_the_server_binding(tmp_path: Path) -> None:
    broken = tmp_path / "m.yaml"
    broken.write_text("tools: [unclosed\n")
    with pytest.raises(ManifestError) as caught:
        bind_manifest(Business(name="m", tools=[_one_tool]), broken)
    assert [problem.rule for problem in caught.value.problems] == ["yaml-syntax"]


@tool(description="Use when testing. Not for production.")
def _one_tool() -> ToolResult:
    return execution_result({"success": True})
