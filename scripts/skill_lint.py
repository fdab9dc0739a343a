"""Lint businesses' skills: `skill_lint.py [BUSINESS ...]` (default: every business of the checkout).

Each skill is checked against what its business declares (`mcp_lambda.skills.lint` lists the rules): the tools,
their arguments and values, the manifest's fields (and which are hidden from the model), the names the business's
code uses, and the values of its secrets in `.env.local`. Prints `file:line: [rule] message` per problem and
exits 1 when there is any. `make lint` and `make build` run it.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from mcp_lambda.manifest import parse_manifest
from mcp_lambda.manifest.models import FieldSpec
from mcp_lambda.protocol.task_extension import JOB_TOOLS
from mcp_lambda.secrets import ENV_FILE, parse_env_file
from mcp_lambda.skills.catalog import skill_folders
from mcp_lambda.skills.lint import BusinessFacts, SkillProblem, lint_skills
from mcp_lambda.tools import Business
from mcp_lambda.tools.results import RESULT_STATUSES, SUGGESTED_ACTIONS
from mcp_lambda_dev.businesses import known_businesses, load_business

MANIFEST_DIR = Path("manifest")  # as make manifest-lint: the checkout the command runs in
_IDENTIFIER = re.compile(r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)+$")
# What every business's results may carry besides its own fields (tools/results.py).
FRAMEWORK_NAMES = frozenset(
    {
        *SUGGESTED_ACTIONS,
        *RESULT_STATUSES,
        "suggested_action",
        "retry_after_ms",
        "retry_strategy",
        "result_status",
        "tool_call_id",
        "execution_id",
    }
)


def package_dir(name: str) -> Path:
    """The folder of the business package `businesses.<name>`."""
    module = importlib.import_module(f"businesses.{name}")
    return Path(str(module.__file__)).parent


def schema_names(schema: Any) -> Iterator[str]:
    """Property names and string values (enum, const, defaults) of a JSON schema, at any depth."""
    if isinstance(schema, dict):
        for key, value in schema.items():
            if key == "properties" and isinstance(value, dict):
                yield from value
            if key in ("enum", "const", "default", "examples"):
                for item in value if isinstance(value, list) else [value]:
                    if isinstance(item, str):
                        yield item
            yield from schema_names(value)
    elif isinstance(schema, list):
        for item in schema:
            yield from schema_names(item)


def code_names(folder: Path) -> Iterator[str]:
    """snake_case string constants of the business's Python code (result keys such as `download_url`)."""
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and _IDENTIFIER.match(node.value)
            ):
                yield node.value


def field_names(fields: dict[str, FieldSpec]) -> Iterator[tuple[str, bool]]:
    """(name, llm_visible) of every manifest field, nested ones included."""
    for name, spec in fields.items():
        yield name, spec.llm_visible
        if spec.properties:
            yield from field_names(spec.properties)
        if spec.items is not None and spec.items.properties:
            yield from field_names(spec.items.properties)


# What a job's answers name (mcp_lambda/protocol/jobs.py): a skill teaching the follow-up may say them.
JOB_NAMES = ("job_id", "state", "working", "completed", "cancelled", "failed")


def facts_of(name: str, business: Business, env_file: Path = ENV_FILE) -> BusinessFacts:
    """What the skills of `business` are checked against."""
    names: set[str] = set(FRAMEWORK_NAMES)
    for spec in business.tools:
        names.update(schema_names(spec.input_schema))
    names.update(code_names(package_dir(name)))
    visible: set[str] = set()
    hidden: set[str] = set()
    manifest_path = MANIFEST_DIR / f"{name}.yaml"
    if manifest_path.exists():
        manifest, _ = parse_manifest(manifest_path)
        names.update(manifest.entities)
        for entity in manifest.entities.values():
            for field, llm_visible in field_names(entity.fields):
                (visible if llm_visible else hidden).add(field)
    secrets = parse_env_file(env_file.read_text(encoding="utf-8")) if env_file.exists() else {}
    tools = {spec.name for spec in business.tools}
    if any(spec.task != "forbidden" for spec in business.tools):  # a session client follows them as jobs
        tools.update(JOB_TOOLS)
        names.update(JOB_NAMES)
    return BusinessFacts(
        tools=frozenset(tools),
        names=frozenset(names | visible),
        hidden_fields=frozenset(hidden - visible),
        secret_values=frozenset(value for value in secrets.values() if value),
    )


def lint_business(name: str, env_file: Path = ENV_FILE) -> list[SkillProblem | str]:
    """Every problem of the skills of the business `name` (a skills folder its `Business` does not name too)."""
    business = load_business(name)
    folder = package_dir(name) / "skills"
    problems: list[SkillProblem | str] = []
    if skill_folders(folder) and business.skills is None:
        problems.append(
            f"{folder}: [unregistered] the business has skills but does not serve them: add "
            'skills=Path(__file__).with_name("skills") to its Business(...)'
        )
    if business.skills is not None:
        problems += lint_skills(business.skills, facts_of(name, business, env_file))
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("businesses", nargs="*", help="business names (default: every business)")
    args = parser.parse_args(argv)
    names = args.businesses or known_businesses()
    problems = [problem for name in names for problem in lint_business(name)]
    for problem in problems:
        print(problem)
    if problems:
        print(f"skill-lint: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"skill-lint: the skills of {len(names)} business(es) are valid: {', '.join(names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
