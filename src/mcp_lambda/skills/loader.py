"""Building a business's `SkillCatalog` at cold start: from the compiled index `_skills.json` in the package, or,
in a developer's checkout (no index), from the files themselves (`source.py`, which the package leaves out)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .catalog import (
    COMPILED_INDEX,
    Skill,
    SkillCatalog,
    SkillError,
    SkillFile,
    digest_of,
    mime_type_of,
    skill_folders,
)


def index_of(skills_dir: Path) -> dict[str, Any]:
    """The compiled index of a skills folder: read from `_skills.json`, else computed from the files."""
    compiled = skills_dir / COMPILED_INDEX
    if compiled.is_file():
        document: dict[str, Any] = json.loads(compiled.read_text(encoding="utf-8"))
        return document
    try:
        from .source import compile_index  # a developer's checkout only: the package carries _skills.json
    except ImportError:
        raise SkillError(
            f"{skills_dir}: no compiled {COMPILED_INDEX}; build the package with make build"
        ) from None
    return compile_index(skills_dir)


def load_catalog(skills_dir: Path | None) -> SkillCatalog:
    """The catalog of the skills under `skills_dir` (an empty one for None or a missing folder).

    Args:
        skills_dir: The business's skills folder (`Business(skills=...)`).

    Returns:
        Every skill, its files read into memory and checked against the index's digests.

    Raises:
        SkillError: The index is malformed, or a file is missing or differs from the digest the index holds.
    """
    if skills_dir is None or not skill_folders(skills_dir):
        return SkillCatalog()
    index = index_of(skills_dir)
    skills = []
    try:
        for record in index["skills"]:
            name = record["name"]
            files = []
            for item in record["files"]:
                path = skills_dir / name / item["path"]
                try:
                    data = path.read_bytes()
                except OSError:
                    raise SkillError(
                        f"{path}: listed in the skills index but missing; run make build again"
                    ) from None
                if digest_of(data) != item["digest"]:
                    raise SkillError(
                        f"{path}: differs from the skills index ({COMPILED_INDEX}); run make build again"
                    )
                files.append(SkillFile(item["path"], data, item["digest"], mime_type_of(item["path"])))
            skills.append(Skill(name, dict(record["frontmatter"]), tuple(files)))
    except (KeyError, TypeError) as exc:
        raise SkillError(
            f"{skills_dir / COMPILED_INDEX}: malformed skills index ({exc!r}); run make build again"
        ) from None
    return SkillCatalog(tuple(skills))
