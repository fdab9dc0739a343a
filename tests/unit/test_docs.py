"""The docs say what the code does: every doc they point to exists, names and numbers match the code and the
template, the documented commands run, and the log query reads fields the deployed lines really carry."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

from mcp_lambda.observability import DEFAULT_METRICS_NAMESPACE
from mcp_lambda.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PERFORMANCE = (ROOT / "docs" / "performance.md").read_text(encoding="utf-8")
OPERATIONS = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
SAM = ROOT / ".venv-sam" / "bin" / "sam"
DOCS = [ROOT / "README.md", ROOT / "events" / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# The businesses the template itself ships and documents; any other business's files are its own affair.
TEMPLATE_BUSINESSES = frozenset({"demo", "conformance"})


def framework_sources(root: Path) -> list[Path]:
    """The files whose `*.md` names must be pages of docs/: the docs, the framework's code and the template's
    own businesses, never another business's package or manifest (its `reading-list.md` is not a doc of ours)."""
    docs = [root / "README.md", root / "events" / "README.md", *sorted((root / "docs").glob("*.md"))]
    code = [*root.glob("src/**/*.py"), *root.glob("dev/**/*.py"), *root.glob("manifest/*.yaml")]
    return [path for path in docs if path.exists()] + sorted(
        path for path in code if _framework_owned(root, path)
    )


def _framework_owned(root: Path, path: Path) -> bool:
    parts = path.relative_to(root).parts
    if parts[0] == "manifest":
        return path.stem in TEMPLATE_BUSINESSES
    # src/businesses/<name>/... and dev/businesses/<name>/... (the namespace's __init__.py is the framework's)
    return not (len(parts) > 3 and parts[1] == "businesses" and parts[2] not in TEMPLATE_BUSINESSES)


def pages_pointed_to_but_missing(root: Path) -> list[tuple[str, str]]:
    """(file, page) for every `name.md` a framework source mentions that docs/ does not have."""
    pointed = {
        (path, name)
        for path in framework_sources(root)
        # A path's last part (references/places.md, .SKILL.draft.md) names a file there, not a page of docs/.
        for name in re.findall(r"(?<![\w./-])(?:docs/)?([\w-]+\.md)\b", path.read_text(encoding="utf-8"))
        if name.lower() not in {"readme.md", "changelog.md", "skill.md"}  # SKILL.md: a skill's own file
    }
    return sorted(
        (str(path.relative_to(root)), name) for path, name in pointed if not (root / "docs" / name).exists()
    )


def test_every_doc_the_repo_points_to_exists() -> None:
    assert ROOT / "src" / "mcp_lambda" / "app.py" in framework_sources(ROOT)
    assert ROOT / "manifest" / "demo.yaml" in framework_sources(ROOT)
    missing = pages_pointed_to_but_missing(ROOT)
    assert not missing, missing
    assert (ROOT / "docs" / "doubao-protocol.md").read_text().startswith("# The business-tool contract")


def test_a_new_business_naming_its_own_md_file_is_not_a_missing_doc(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "manifest.md").write_text("# Manifests\n")
    for folder in ("src/mcp_lambda", "src/businesses/reading", "dev/businesses/notes", "src/businesses/demo"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "manifest").mkdir()
    (tmp_path / "src/mcp_lambda/app.py").write_text('"""See docs/manifest.md."""\n')
    (tmp_path / "src/businesses/reading/__init__.py").write_text('LIST = "notes://reading-list.md"\n')
    (tmp_path / "dev/businesses/notes/__init__.py").write_text('"""Serves todo.md."""\n')
    (tmp_path / "manifest/reading.yaml").write_text("# the reading list lives in reading-list.md\n")
    assert pages_pointed_to_but_missing(tmp_path) == []
    # ...while the framework, and the template's own demo, still may not point to a page docs/ lacks.
    (tmp_path / "src/mcp_lambda/app.py").write_text('"""See docs/routing.md."""\n')
    (tmp_path / "src/businesses/demo/__init__.py").write_text('"""See docs/demo-guide.md."""\n')
    assert pages_pointed_to_but_missing(tmp_path) == [
        ("src/businesses/demo/__init__.py", "demo-guide.md"),
        ("src/mcp_lambda/app.py", "routing.md"),
    ]


README_MAX_LINES = 150


def test_the_readme_is_short_and_maps_every_docs_page() -> None:
    assert len(README.splitlines()) <= README_MAX_LINES
    linked = set(re.findall(r"\]\(docs/([\w-]+\.md)\)", README))
    pages = {path.name for path in (ROOT / "docs").glob("*.md")}
    assert pages - linked == set(), "pages the README's map does not link"


def heading_anchors(markdown: str) -> set[str]:
    """The anchors GitHub gives a page's headings: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"```.*?```", "", markdown, flags=re.S)
    titles = re.findall(r"^#{1,6} (.+?)\s*$", text, re.M)
    return {re.sub(r"[^\w\- ]", "", title.lower().replace("`", "")).replace(" ", "-") for title in titles}


def broken_links(root: Path) -> list[tuple[str, str]]:
    """(file, link) for every relative Markdown link of the README and docs/ whose file or heading is missing."""
    broken = []
    for doc in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        text = re.sub(r"```.*?```", "", doc.read_text(encoding="utf-8"), flags=re.S)
        for link in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", link):
                continue  # https:, mailto:
            path, _, anchor = link.partition("#")
            target = (doc.parent / path).resolve() if path else doc
            if not target.exists() or (
                anchor and target.suffix == ".md" and anchor not in heading_anchors(target.read_text())
            ):
                broken.append((str(doc.relative_to(root)), link))
    return broken


def test_every_relative_link_of_the_docs_resolves() -> None:
    assert broken_links(ROOT) == []


def test_a_link_to_a_missing_heading_is_broken(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text("[a](docs/a.md#the-part) [b](docs/a.md#no-part) [c](docs/none.md)\n")
    (tmp_path / "docs" / "a.md").write_text(
        "# A\n\n## The part\n\n```\n# Not a heading\n```\n[x](#not-a-heading)\n"
    )
    assert broken_links(tmp_path) == [
        ("README.md", "docs/a.md#no-part"),
        ("README.md", "docs/none.md"),
        ("docs/a.md", "#not-a-heading"),
    ]


def test_the_metrics_namespace_is_one_name_in_code_template_and_docs() -> None:
    template = (ROOT / "template.yaml").read_text()
    # The function's variable is the MetricsNamespace parameter, whose default is the code's.
    assert re.findall(r"POWERTOOLS_METRICS_NAMESPACE: (.+)", template) == ["!Ref MetricsNamespace"]
    [namespace] = re.findall(r"\n  MetricsNamespace:\n    Type: String\n    Default: (\S+)", template)
    assert namespace == DEFAULT_METRICS_NAMESPACE
    # Stack outputs (`McpUrl`) share the prefix; they are not namespaces.
    outputs = set(re.findall(r"^  (\w+):", template[template.index("\nOutputs:") :], flags=re.M))
    # Classes of the framework (`McpLambdaError`, `McpTestClient`) share it too.
    classes = {
        name
        for path in (ROOT / "src").rglob("*.py")
        for name in re.findall(r"^class (Mcp\w+)", path.read_text(), re.M)
    }
    for doc in (ROOT / "docs" / "observability.md", ROOT / "docs" / "operations.md"):
        names = set(re.findall(r"`(Mcp\w+)`", doc.read_text())) - outputs - classes
        assert names == {DEFAULT_METRICS_NAMESPACE}, (doc.name, names)


def test_every_setting_has_a_row_in_the_configuration_table() -> None:
    # docs/configuration.md holds the table (generated from Settings; test_configuration_page.py checks it whole).
    page = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    table = page[page.index("## Settings") : page.index("## Other variables")]
    missing = [name for name in Settings.variables() if f"| `{name}` |" not in table]
    assert not missing


def test_the_bench_switch_and_the_bench_rows_are_documented() -> None:
    bench = (ROOT / "bench" / "bench.py").read_text()
    configuration = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    assert "BENCH_DYNAMODB_ENDPOINT" in bench and "| `BENCH_DYNAMODB_ENDPOINT` |" in configuration
    done = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "bench.py"), "--calls", "20", "--cold-runs", "1"],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "PYTHONPATH": f"{ROOT / 'src'}:{ROOT / 'dev'}:{ROOT}"},
    )
    cases = re.findall(r"^  ((?:bare |tools/).*?)\s{2,}\d+\s+\d+\s+[\d.]+", done.stdout, re.M)
    performance = PERFORMANCE[: PERFORMANCE.index("## Why the code is shaped so")]  # the measured tables
    rows = re.findall(r"^\| ((?:bare|tools/)[^|]*?) \|", performance, re.M)
    assert len(cases) == 10 and cases == [row for row in rows if "logs off" not in row], (cases, rows)
    assert "**The floor**" in performance  # named: what the ratios are ratios to


def test_no_doc_runs_a_bare_sam_that_is_not_on_path() -> None:
    for doc in DOCS:
        for block in re.findall(r"```bash\n(.*?)```", doc.read_text(), flags=re.S):
            assert not re.search(r"^\s*sam\s", block, re.M), doc.name


def _make_sam_arguments() -> list[list[str]]:
    found = []
    for doc in DOCS:
        text = doc.read_text().replace("\\\n", " ")
        for value in re.findall(r'make sam ARGS="([^"]+)"', text):
            found.append(shlex.split(value))
    return found


@pytest.mark.parametrize("arguments", _make_sam_arguments(), ids=lambda a: " ".join(a[:2]))
def test_each_documented_sam_command_is_one_the_pinned_sam_cli_accepts(arguments: list[str]) -> None:
    if not SAM.exists():
        pytest.skip("SAM CLI not installed (make validate installs it; make test does)")
    # --help last: Click still rejects an unknown option or command before it, and needs no AWS credentials.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"} | {"SAM_CLI_TELEMETRY": "0"}
    done = subprocess.run(
        [str(SAM), *arguments, "--help"], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_logs_insights_query_reads_fields_a_deployed_failure_line_has() -> None:
    [query] = re.findall(r"```text\n(fields .*?)```", OPERATIONS, flags=re.S)
    fields = [name.strip() for name in query.splitlines()[0].removeprefix("fields").split(",")]
    [event] = re.findall(r'filter event = "(\w+)"', query)
    # The deployed handler (Powertools decorators included) logging one failed call, as CloudWatch receives it.
    script = (
        "import json\n"
        "from mcp_lambda_dev.local.events import LocalContext, http_event\n"
        "from mcp_lambda import handler\n"
        "meta = {'io.modelcontextprotocol/protocolVersion': '2026-07-28', "
        "'io.modelcontextprotocol/clientCapabilities': {}}\n"
        "body = {'jsonrpc': '2.0', 'id': 1, 'method': 'tools/call', 'params': {'name': 'search_products', "
        "'arguments': {'keyword': 'cup', 'limit': '2'}, '_meta': meta}}\n"
        "h = {'content-type': 'application/json', 'mcp-protocol-version': '2026-07-28', "
        "'mcp-method': 'tools/call', 'mcp-name': 'search_products'}\n"
        "handler.handler(http_event('POST', '/mcp', h, json.dumps(body)), LocalContext())\n"
    )
    env = {
        "PATH": os.environ.get("PATH", ""),
        "PYTHONPATH": f"{ROOT / 'src'}:{ROOT / 'dev'}:{ROOT}",
        "BUSINESS": "demo",
        "POWERTOOLS_METRICS_DISABLED": "true",
    }
    out = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60, check=True
    ).stdout
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    [failed] = [line for line in lines if line.get("event") == event]
    assert event == "mcp_tool_call_failed"
    assert [name for name in fields if not name.startswith("@") and name not in failed] == []


def test_the_license_and_the_changelog_match_the_package() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT" and (ROOT / "LICENSE").read_text().startswith("MIT License")
    [top] = re.findall(r"^## (\d+\.\d+\.\d+)", (ROOT / "CHANGELOG.md").read_text(), re.M)[:1]
    assert top == project["version"]


def test_the_template_cors_methods_are_the_routes_methods() -> None:
    # The preflight promises exactly the methods the routes serve (make run reads the same configuration).
    text = (ROOT / "template.yaml").read_text()
    cors = yaml.safe_load(re.search(r"AllowMethods: (\[.*?\])", text).group(1))  # type: ignore[union-attr]
    assert set(cors) == set(re.findall(r"Method: (\w+)", text))
