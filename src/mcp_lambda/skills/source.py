"""Reading skills from their files (a developer's machine and `make build` only; never in the Lambda package, which
serves the compiled `_skills.json` and so needs no YAML parser).

`compile_index(skills_dir)` is the document `make build` writes as `_skills.json`: per skill its name, its
`SKILL.md` frontmatter as JSON and every file's path, digest and size.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from .catalog import COMPILED_INDEX, SKILL_FILE, SkillError, digest_of, skill_folders, skill_paths

# Agent Skills naming rules: 1-64 lower-case letters, digits and hyphens; no leading, trailing or double hyphen.
NAME_RULE = re.compile(r"^(?!.*--)[a-z0-9]([a-z0-9-]{0,62}[a-z0-9])?$")
_FENCE = re.compile(r"^---[ \t]*$")


class FrontmatterError(SkillError):
    """A SKILL.md's frontmatter is missing or malformed.

    Attributes:
        line: The 1-based line of the problem.
    """

    def __init__(self, path: Path, line: int, message: str) -> None:
        self.path = path
        self.line = line
        self.reason = message
        super().__init__(f"{path}:{line}: {message}")


def split_frontmatter(path: Path, text: str) -> tuple[dict[str, Any], int]:
    """The YAML frontmatter of a SKILL.md as a JSON-compatible mapping, and the line the body starts on.

    Raises:
        FrontmatterError: no `---` block first, YAML that does not parse to a mapping, values JSON cannot carry.
    """
    lines = text.removeprefix("\ufeff").splitlines()
    if not lines or not _FENCE.match(lines[0]):
        raise FrontmatterError(path, 1, "SKILL.md must start with YAML frontmatter between '---' lines")
    end = next((i for i in range(1, len(lines)) if _FENCE.match(lines[i])), None)
    if end is None:
        raise FrontmatterError(path, 1, "the frontmatter's closing '---' line is missing")
    try:
        data = yaml.safe_load("\n".join(lines[1:end]))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = 2 + (mark.line if mark is not None else 0)
        raise FrontmatterError(
            path, line, f"the frontmatter is not valid YAML: {getattr(exc, 'problem', exc)}"
        ) from None
    if not isinstance(data, dict):
        raise FrontmatterError(
            path, 2, "the frontmatter must be a YAML mapping (name: ..., description: ...)"
        )
    try:
        as_json = json.loads(json.dumps(data))
    except (TypeError, ValueError):
        raise FrontmatterError(
            path, 2, "the frontmatter holds a value JSON cannot carry (quote dates)"
        ) from None
    if as_json != data:
        raise FrontmatterError(path, 2, "the frontmatter's keys must be strings")
    return as_json, end + 2


def check_frontmatter(path: Path, frontmatter: dict[str, Any], folder_name: str) -> None:
    """`name` (equal to the folder's, within the naming rules) and `description` are required.

    Raises:
        FrontmatterError: on the first rule broken, at the line of the field.
    """
    text = path.read_text(encoding="utf-8")
    for key in ("name", "description"):
        value = frontmatter.get(key)
        if not isinstance(value, str) or not value.strip():
            raise FrontmatterError(path, 1, f"the frontmatter needs a non-empty '{key}'")
    line = line_of(text, r"^name\s*:")
    name = frontmatter["name"]
    if name != folder_name:
        raise FrontmatterError(path, line, f"name '{name}' differs from its folder's name '{folder_name}'")
    if not NAME_RULE.match(name):
        raise FrontmatterError(
            path,
            line,
            f"name '{name}': 1-64 lower-case letters, digits and single hyphens, not at either end",
        )


def line_of(text: str, pattern: str) -> int:
    """The 1-based line of the first match of `pattern` (multi-line), else 1."""
    found = re.search(pattern, text, flags=re.M)
    return text.count("\n", 0, found.start()) + 1 if found else 1


def read_skill(folder: Path) -> dict[str, Any]:
    """One skill's index record: its name, frontmatter and files (path, digest, size).

    Raises:
        FrontmatterError: its SKILL.md is missing or its frontmatter breaks a rule.
    """
    skill_md = folder / SKILL_FILE
    if not skill_md.is_file():
        raise FrontmatterError(skill_md, 1, f"a skill folder needs a {SKILL_FILE}")
    frontmatter, _ = split_frontmatter(skill_md, skill_md.read_text(encoding="utf-8"))
    check_frontmatter(skill_md, frontmatter, folder.name)
    files = []
    for relative in skill_paths(folder):
        data = (folder / relative).read_bytes()
        files.append({"path": relative, "digest": digest_of(data), "size": len(data)})
    return {"name": folder.name, "frontmatter": frontmatter, "files": files}


def compile_index(skills_dir: Path) -> dict[str, Any]:
    """The `_skills.json` document of a business's skills folder.

    Raises:
        FrontmatterError: a skill's SKILL.md is missing or malformed.
    """
    return {"skills": [read_skill(folder) for folder in skill_folders(skills_dir)]}


def write_index(skills_dir: Path) -> Path:
    """Write `skills_dir/_skills.json` (what `make build` does in the build directory) and return its path."""
    target = skills_dir / COMPILED_INDEX
    target.write_text(json.dumps(compile_index(skills_dir), ensure_ascii=False, indent=1), encoding="utf-8")
    return target
