"""The skill lint: each rule refuses a made-up bad skill at the right file and line, and passes the demo's."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_lambda.composition import load_business
from mcp_lambda.skills.lint import BusinessFacts, SkillProblem, lint_skills
from mcp_lambda_tools.lint.skill_lint import facts_of, lint_business

FACTS = BusinessFacts(
    tools=frozenset({"search_routes", "export_trip_plan"}),
    names=frozenset({"travel_mode", "route_id", "download_url"}),
    hidden_fields=frozenset({"deeplink_url"}),
    secret_values=frozenset({"s3cr3t-value-of-the-maps-key", "short"}),
)
GOOD = """---
name: {name}
description: Plan a route.
---

# Routes

Call `search_routes` with a `travel_mode`, then `export_trip_plan` and give the user the `download_url`.
Never mention `deeplink_url`. Read [the places](references/places.md).
"""


def _skill(root: Path, folder: str, text: str, files: dict[str, str] | None = None) -> Path:
    skill = root / "skills" / folder
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(text, encoding="utf-8")
    for relative, content in {"references/places.md": "# Places\n", **(files or {})}.items():
        (skill / relative).parent.mkdir(parents=True, exist_ok=True)
        (skill / relative).write_text(content, encoding="utf-8")
    return root / "skills"


def _problems(tmp_path: Path, text: str, folder: str = "routes", **files: str) -> list[SkillProblem]:
    return lint_skills(_skill(tmp_path, folder, text, files), FACTS)


def _only(problems: list[SkillProblem]) -> SkillProblem:
    assert len(problems) == 1, [str(p) for p in problems]
    return problems[0]


def test_a_good_skill_has_no_problem(tmp_path: Path) -> None:
    assert _problems(tmp_path, GOOD.format(name="routes")) == []


@pytest.mark.parametrize(
    ("text", "line", "says"),
    [
        ("# Routes\n\nNo frontmatter here.\n", 1, "must start with YAML frontmatter"),
        ("---\nname: routes\ndescription: [unclosed\n---\n", 3, "not valid YAML"),
        ("---\n- a list\n---\n", 2, "must be a YAML mapping"),
        ("---\nname: routes\n---\n# Routes\n", 1, "needs a non-empty 'description'"),
        ("---\nname: routes\ndescription: x\n", 1, "closing '---' line is missing"),
    ],
)
def test_missing_or_malformed_frontmatter_is_refused(tmp_path: Path, text: str, line: int, says: str) -> None:
    problem = _only(_problems(tmp_path, text))
    assert (problem.rule, problem.line, problem.file.name) == ("frontmatter", line, "SKILL.md")
    assert says in problem.message


def test_a_name_that_differs_from_its_folder_is_refused(tmp_path: Path) -> None:
    problem = _only(_problems(tmp_path, GOOD.format(name="day-out"), folder="routes"))
    assert (problem.rule, problem.line) == ("name", 2)
    assert "differs from its folder's name 'routes'" in problem.message


def test_a_name_outside_the_naming_rules_is_refused(tmp_path: Path) -> None:
    problem = _only(_problems(tmp_path, GOOD.format(name="Day--Out"), folder="Day--Out"))
    assert problem.rule == "name"


def test_a_tool_the_business_does_not_have_is_refused(tmp_path: Path) -> None:
    text = GOOD.format(name="routes") + "\nFor hotels, call `search_hotels` first.\n"
    problem = _only(_problems(tmp_path, text))
    assert (problem.rule, problem.line) == ("unknown-name", 11)
    assert "`search_hotels`" in problem.message and "search_routes" in problem.message


def test_telling_the_model_to_cite_a_hidden_field_is_refused(tmp_path: Path) -> None:
    text = GOOD.format(name="routes") + "\nAlways cite the `deeplink_url` of the route.\n"
    problem = _only(_problems(tmp_path, text))
    assert (problem.rule, problem.line) == ("hidden-field", 11)


def test_a_link_to_a_reference_the_skill_lacks_is_refused(tmp_path: Path) -> None:
    text = (
        GOOD.format(name="routes") + "\nSee [fares](references/fares.md) and [home](https://example.com).\n"
    )
    problem = _only(_problems(tmp_path, text))
    assert (problem.rule, problem.line) == ("missing-reference", 11)
    assert "references/fares.md" in problem.message


def test_a_link_out_of_the_skill_is_refused(tmp_path: Path) -> None:
    problem = _only(_problems(tmp_path, GOOD.format(name="routes") + "\n[up](../../secrets.md)\n"))
    assert problem.rule == "missing-reference"


def test_a_reference_file_is_checked_too(tmp_path: Path) -> None:
    problems = _problems(
        tmp_path, GOOD.format(name="routes"), **{"references/more.md": "Call `book_taxi`.\n"}
    )
    problem = _only(problems)
    assert (problem.file.name, problem.line, problem.rule) == ("more.md", 1, "unknown-name")


def test_a_secret_value_is_refused_without_being_printed(tmp_path: Path) -> None:
    text = GOOD.format(name="routes") + "\nThe key is s3cr3t-value-of-the-maps-key.\n"
    problem = _only(_problems(tmp_path, text))
    assert (problem.rule, problem.line) == ("credential", 11)
    assert "s3cr3t" not in str(problem)


@pytest.mark.parametrize(
    "line",
    [
        "aws_access_key_id: AKIAIOSFODNN7EXAMPLE",
        "-----BEGIN RSA PRIVATE KEY-----",
        "Use sk-abcdefghijklmnopqrstuvwxyz123456 as the key.",
        "token = abcdef0123456789abcdef",
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ],
)
def test_key_like_strings_are_refused(tmp_path: Path, line: str) -> None:
    problem = _only(_problems(tmp_path, GOOD.format(name="routes") + f"\n{line}\n"))
    assert (problem.rule, problem.line) == ("credential", 11)


def test_a_skill_folder_without_skill_md_is_refused(tmp_path: Path) -> None:
    (tmp_path / "skills" / "empty" / "references").mkdir(parents=True)
    (tmp_path / "skills" / "empty" / "references" / "x.md").write_text("x\n")
    problem = _only(lint_skills(tmp_path / "skills", FACTS))
    assert problem.rule == "frontmatter" and "needs a SKILL.md" in problem.message


def test_the_demo_skills_pass_and_the_demo_facts_know_its_hidden_fields(tmp_path: Path) -> None:
    assert lint_business("demo", env_file=tmp_path / "none") == []
    facts = facts_of("demo", load_business("demo"), env_file=tmp_path / "none")
    assert {"deeplink", "detail_url", "entity_type"} <= facts.hidden_fields
    assert "route_id" in facts.names and "download_url" in facts.names and "search_products" in facts.tools


def test_a_demo_secret_pasted_into_a_skill_is_found(tmp_path: Path) -> None:
    env = tmp_path / ".env.local"
    env.write_text("MAPS_API_KEY=pasted-into-the-skill-by-mistake\n")
    facts = facts_of("demo", load_business("demo"), env_file=env)
    skills = _skill(
        tmp_path, "routes", GOOD.format(name="routes") + "\nkey pasted-into-the-skill-by-mistake\n"
    )
    facts = BusinessFacts(FACTS.tools, FACTS.names, FACTS.hidden_fields, facts.secret_values)
    assert [p.rule for p in lint_skills(skills, facts)] == ["credential"]
