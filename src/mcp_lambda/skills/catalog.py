"""A business's skills as the server serves them (SEP-2640): each file's bytes, digest and size, held in memory.

A skill is a folder `<skills>/<name>/` with a `SKILL.md` (YAML frontmatter, then Markdown) and any supporting
files; its files are the resources `skill://<name>/<path>`. The catalog is built once at cold start from the
compiled index `<skills>/_skills.json` (`make build` writes it: the frontmatter as JSON and every file's digest,
so the package needs no YAML parser) and the bundled files, whose bytes must match the index's digests; without
an index (a developer's checkout) it is computed from the files (`source.py`, never in the package).
"""

from __future__ import annotations

import hashlib
import mimetypes
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from ..errors import StartupError

SCHEME = "skill://"
SKILL_FILE = "SKILL.md"
COMPILED_INDEX = "_skills.json"
DIRECTORY_MIME_TYPE = "inode/directory"
_TEXT_TYPES = ("application/json", "application/yaml", "application/x-yaml", "application/xml")


class SkillError(StartupError):
    """The business's skills cannot be served (the message names the file and the fix)."""


def digest_of(data: bytes) -> str:
    """`sha256:<64 lowercase hex>` of the raw bytes, the form SEP-2640 digests take."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def mime_type_of(path: str) -> str:
    """`text/markdown` for Markdown, else the extension's usual type (`application/octet-stream` when unknown)."""
    if path.lower().endswith((".md", ".markdown")):
        return "text/markdown"
    guessed, _ = mimetypes.guess_type(path, strict=False)
    return guessed or "application/octet-stream"


def is_text(mime_type: str) -> bool:
    """Whether a file of this type is served as `text` (else as a base64 `blob`)."""
    return mime_type.startswith("text/") or mime_type in _TEXT_TYPES


@dataclass(frozen=True)
class SkillFile:
    """One file of a skill: its path inside the skill (`/`-separated), bytes, digest and type."""

    path: str
    data: bytes
    digest: str
    mime_type: str


@dataclass(frozen=True)
class Skill:
    """One skill: its name (its folder's), its frontmatter as JSON, and its files (`SKILL.md` first)."""

    name: str
    frontmatter: Mapping[str, Any]
    files: tuple[SkillFile, ...]

    @property
    def root(self) -> str:
        """`skill://<name>`, the skill's directory resource."""
        return f"{SCHEME}{self.name}"

    @property
    def uri(self) -> str:
        """`skill://<name>/SKILL.md`, the URI that names the skill."""
        return f"{self.root}/{SKILL_FILE}"

    def uri_of(self, file: SkillFile) -> str:
        return f"{self.root}/{file.path}"

    def entry(self) -> dict[str, Any]:
        """The skill's `skills/list` / `skills/get` entry: uri, the frontmatter unchanged, every file's digest."""
        return {
            "uri": self.uri,
            "frontmatter": dict(self.frontmatter),
            "resources": [
                {"uri": self.uri_of(file), "digest": file.digest, "size": len(file.data)}
                for file in self.files
            ],
        }

    def resource(self, file: SkillFile) -> dict[str, Any]:
        """A file as a `resources/list` entry; `SKILL.md` carries the skill's name and description."""
        if file.path == SKILL_FILE:
            name, description = self.name, str(self.frontmatter.get("description", ""))
        else:
            name, description = PurePosixPath(file.path).name, f"A file of the skill {self.name}"
        return {
            "uri": self.uri_of(file),
            "name": name,
            "description": description,
            "mimeType": file.mime_type,
        }


@dataclass(frozen=True)
class SkillCatalog:
    """Every skill of a business, addressable by URI: skills, files and directories (built once, read-only)."""

    skills: tuple[Skill, ...] = ()
    _files: dict[str, tuple[Skill, SkillFile]] = field(init=False, repr=False, compare=False)
    _directories: dict[str, list[dict[str, Any]]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        files = {skill.uri_of(file): (skill, file) for skill in self.skills for file in skill.files}
        object.__setattr__(self, "_files", files)
        object.__setattr__(self, "_directories", _directories(self.skills))

    def __bool__(self) -> bool:
        return bool(self.skills)

    def skill(self, uri: str) -> Skill | None:
        """The skill whose `SKILL.md` is at `uri`, or None."""
        found = self._files.get(uri)
        return found[0] if found is not None and found[1].path == SKILL_FILE else None

    def file(self, uri: str) -> tuple[Skill, SkillFile] | None:
        """The skill file at `uri` and its skill, or None."""
        return self._files.get(uri)

    def children(self, uri: str) -> list[dict[str, Any]] | None:
        """The direct children of the directory at `uri` as resources (subdirectories `inode/directory`), or None
        when `uri` is not a directory of a skill."""
        return self._directories.get(uri)

    def resources(self) -> list[dict[str, Any]]:
        """Every skill file as a `resources/list` entry, skill by skill."""
        return [skill.resource(file) for skill in self.skills for file in skill.files]


def _directories(skills: Iterable[Skill]) -> dict[str, list[dict[str, Any]]]:
    """Each skill directory's URI -> its direct children, files and subdirectories, sorted by name."""
    children: dict[str, dict[str, dict[str, Any]]] = {}
    for skill in skills:
        children.setdefault(skill.root, {})
        for file in skill.files:
            parts = file.path.split("/")
            parent = skill.root
            for depth, part in enumerate(parts):
                uri = f"{parent}/{part}"
                if depth == len(parts) - 1:
                    children[parent][uri] = skill.resource(file)
                else:
                    children[parent][uri] = {"uri": uri, "name": part, "mimeType": DIRECTORY_MIME_TYPE}
                    children.setdefault(uri, {})
                parent = uri
    return {uri: [entries[key] for key in sorted(entries)] for uri, entries in children.items()}


def skill_paths(folder: Path) -> list[str]:
    """The files of one skill folder as `/`-separated relative paths, sorted, `SKILL.md` first; files and folders
    whose name starts with `.` are not part of the skill (editor and draft bookkeeping)."""
    paths = sorted(
        path.relative_to(folder).as_posix()
        for path in folder.rglob("*")
        if path.is_file() and not any(part.startswith(".") for part in path.relative_to(folder).parts)
    )
    return sorted(paths, key=lambda path: path != SKILL_FILE)


def skill_folders(skills_dir: Path) -> list[Path]:
    """The skill folders of a business's skills folder (its subfolders not starting with `.` or `_`), sorted."""
    if not skills_dir.is_dir():
        return []
    return sorted(p for p in skills_dir.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))
