"""The skills catalog: built from the compiled index in the package (bytes checked against its digests), from the
files on a developer's machine, and packaged with its business alone."""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from pathlib import Path

import pytest

from mcp_lambda.skills import COMPILED_INDEX, SkillError, load_catalog
from mcp_lambda.skills.source import compile_index
from mcp_lambda_tools.build.package_stage import stage
from mcp_lambda_tools.build.skills_compile import main as compile_skills

ROOT = Path(__file__).resolve().parents[2]
DEMO_SKILLS = ROOT / "src" / "businesses" / "demo" / "skills"


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    copy = tmp_path / "skills"
    shutil.copytree(DEMO_SKILLS, copy)
    return copy


def test_without_an_index_the_catalog_is_computed_from_the_files(skills: Path) -> None:
    catalog = load_catalog(skills)
    assert [skill.name for skill in catalog.skills] == ["plan-a-day-out", "shop-with-alerts"]
    skill_md = catalog.file("skill://shop-with-alerts/SKILL.md")
    assert skill_md is not None
    assert skill_md[1].data == (skills / "shop-with-alerts" / "SKILL.md").read_bytes()


def test_the_compiled_index_is_served_without_a_yaml_parser(
    skills: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (skills / COMPILED_INDEX).write_text(json.dumps(compile_index(skills)))
    monkeypatch.setitem(sys.modules, "yaml", None)  # `import yaml` now fails, as in the Lambda package
    monkeypatch.delitem(sys.modules, "mcp_lambda.skills.source", raising=False)
    catalog = load_catalog(skills)
    assert catalog.skill("skill://plan-a-day-out/SKILL.md") is not None


def test_a_file_changed_after_the_build_refuses_to_start(skills: Path) -> None:
    (skills / COMPILED_INDEX).write_text(json.dumps(compile_index(skills)))
    (skills / "plan-a-day-out" / "SKILL.md").write_text(
        "---\nname: plan-a-day-out\ndescription: edited\n---\n"
    )
    with pytest.raises(SkillError, match="differs from the skills index"):
        load_catalog(skills)


def test_a_package_without_its_index_refuses_to_start(skills: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "mcp_lambda.skills.source", None)  # left out of the package
    with pytest.raises(SkillError, match=r"no compiled _skills\.json"):
        load_catalog(skills)


def test_dot_files_are_not_part_of_a_skill(skills: Path) -> None:
    (skills / "plan-a-day-out" / ".draft.sha256").write_text("x")
    catalog = load_catalog(skills)
    assert catalog.file("skill://plan-a-day-out/.draft.sha256") is None


def test_make_build_bundles_the_skills_with_their_business_alone(tmp_path: Path) -> None:
    source = tmp_path / "src"
    shutil.copytree(ROOT / "src", source, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    (source / "businesses" / "other").mkdir()
    (source / "businesses" / "other" / "__init__.py").write_text('"""Another business."""\n')
    stage("other", tmp_path / "stage", source)
    staged_other = tmp_path / "stage" / "other"
    assert not list(staged_other.rglob("SKILL.md")), "the demo's skills must stay out of another business"
    stage("demo", tmp_path / "stage", source)
    staged = tmp_path / "stage" / "demo"
    assert compile_skills([str(staged)]) == 0
    index = json.loads((staged / "businesses" / "demo" / "skills" / COMPILED_INDEX).read_text())
    for record in index["skills"]:
        for item in record["files"]:
            data = (DEMO_SKILLS / record["name"] / item["path"]).read_bytes()
            assert item["digest"] == "sha256:" + hashlib.sha256(data).hexdigest()
            assert item["size"] == len(data)
