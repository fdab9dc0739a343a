"""The skill lint (`make skill-lint`, part of `make lint` and `make build`): a business's skills checked against what
the business declares. Never in the Lambda package.

`lint_skills(skills_dir, facts)` returns one `SkillProblem` per broken rule, each naming the file and line:

- `frontmatter`: SKILL.md missing, no `---` frontmatter, YAML that is not a mapping, no `name` or `description`;
- `name`: the frontmatter `name` differs from the folder's, or breaks the Agent Skills naming rules;
- `unknown-name`: a `backticked_name` the business does not have (not a tool, argument, value, field or a
  name its code uses): most often a tool that does not exist;
- `hidden-field`: a line that tells the model to read or cite a field the manifest marks `llm_visible: false`
  (naming it in a line that says never/not/don't is allowed);
- `missing-reference`: a relative Markdown link to a file the skill does not have;
- `credential`: a value of the business's secrets (`.env.local`) or a key-like string. The value is never printed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from .catalog import SKILL_FILE, skill_folders, skill_paths
from .source import FrontmatterError, check_frontmatter, split_frontmatter

# `snake_case` in backticks: names of tools, arguments and fields (one underscore at least, so `taxi` is a value).
_NAME = re.compile(r"`([a-z][a-z0-9]*(?:_[a-z0-9]+)+)`")
_LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_NEGATION = re.compile(r"\b(never|not|no|don't|do not|without|hidden)\b", re.I)
_KEY_LIKE = (
    ("an AWS access key id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b")),
    ("a private key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----")),
    ("an API key (sk-...)", re.compile(r"\bsk-[A-Za-z0-9_-]{20,}")),
    ("a GitHub token", re.compile(r"\bgh[pousr]_[A-Za-z0-9]{30,}")),
    ("a Slack token", re.compile(r"\bxox[abpr]-[A-Za-z0-9-]{10,}")),
    ("a JSON Web Token", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    (
        "a secret assigned a value",
        re.compile(
            r"(?i)\b(?:api[_-]?key|secret|token|password|passwd)\b\s*[:=]\s*['\"]?[A-Za-z0-9/+_\-]{12,}"
        ),
    ),
)
MIN_SECRET_LENGTH = 8  # shorter values (a port, "true") would match ordinary words


@dataclass(frozen=True)
class SkillProblem:
    """One broken rule; `str()` is the line the lint prints: `file:line: [rule] message`."""

    file: Path
    line: int
    rule: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: [{self.rule}] {self.message}"


@dataclass(frozen=True)
class BusinessFacts:
    """What the lint checks skills against (`dev/mcp_lambda_tools/lint/skill_lint.py` gathers it from the business and its manifest).

    Attributes:
        tools: The business's tool names.
        names: Every other name a skill may mention in backticks: arguments, their values, manifest fields,
            entity types, the framework's result vocabulary and the names the business's code uses.
        hidden_fields: Fields the manifest marks `llm_visible: false` (and never visible elsewhere).
        secret_values: The values of the business's secrets, to be found nowhere in a skill.
    """

    tools: frozenset[str] = frozenset()
    names: frozenset[str] = frozenset()
    hidden_fields: frozenset[str] = frozenset()
    secret_values: frozenset[str] = field(default_factory=frozenset, repr=False)


def lint_skills(skills_dir: Path, facts: BusinessFacts) -> list[SkillProblem]:
    """Every problem of every skill under `skills_dir` (none for a missing folder)."""
    problems: list[SkillProblem] = []
    for folder in skill_folders(skills_dir):
        problems += lint_skill(folder, facts)
    return problems


def lint_skill(folder: Path, facts: BusinessFacts) -> list[SkillProblem]:
    """Every problem of one skill folder."""
    problems: list[SkillProblem] = []
    skill_md = folder / SKILL_FILE
    if not skill_md.is_file():
        return [SkillProblem(skill_md, 1, "frontmatter", f"a skill folder needs a {SKILL_FILE}")]
    try:
        frontmatter, _ = split_frontmatter(skill_md, skill_md.read_text(encoding="utf-8"))
        check_frontmatter(skill_md, frontmatter, folder.name)
    except FrontmatterError as exc:
        rule = "name" if exc.reason.startswith("name ") else "frontmatter"
        problems.append(SkillProblem(skill_md, exc.line, rule, exc.reason))
    files = set(skill_paths(folder))
    for relative in sorted(files):
        path = folder / relative
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # a binary asset: nothing to read as instructions
        problems += _credentials(path, text, facts)
        if path.suffix.lower() in (".md", ".markdown"):
            problems += _names(path, text, facts)
            problems += _links(path, text, files)
    return problems


def _lines(text: str) -> Iterator[tuple[int, str]]:
    return enumerate(text.splitlines(), start=1)


def _names(path: Path, text: str, facts: BusinessFacts) -> list[SkillProblem]:
    problems = []
    for number, line in _lines(text):
        for name in _NAME.findall(line):
            if name in facts.hidden_fields:
                if not _NEGATION.search(line):
                    problems.append(
                        SkillProblem(
                            path,
                            number,
                            "hidden-field",
                            f"`{name}` is llm_visible: false in the manifest: the model never sees it, so a skill "
                            "must not tell it to read or cite it",
                        )
                    )
            elif name not in facts.tools and name not in facts.names:
                problems.append(
                    SkillProblem(
                        path,
                        number,
                        "unknown-name",
                        f"`{name}` is not a tool, argument, value or field of this business "
                        f"(its tools: {', '.join(sorted(facts.tools)) or 'none'})",
                    )
                )
    return problems


def _links(path: Path, text: str, files: set[str]) -> list[SkillProblem]:
    """Relative links resolve against the skill's root (SEP-2640 §Reading), as on a filesystem."""
    problems = []
    for number, line in _lines(text):
        for target in _LINK.findall(line):
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:|^#|^/", target):
                continue  # a URL, an anchor or an absolute path: not a file of the skill
            relative = PurePosixPath(target.split("#", 1)[0])
            parts: list[str] = []
            for part in relative.parts:
                if part == "..":
                    if not parts:
                        parts = ["<outside>"]
                        break
                    parts.pop()
                elif part != ".":
                    parts.append(part)
            resolved = "/".join(parts)
            if resolved not in files and not any(f.startswith(f"{resolved}/") for f in files):
                problems.append(
                    SkillProblem(
                        path, number, "missing-reference", f"links {target}, which the skill does not have"
                    )
                )
    return problems


def _credentials(path: Path, text: str, facts: BusinessFacts) -> list[SkillProblem]:
    problems = []
    secrets = [value for value in facts.secret_values if len(value) >= MIN_SECRET_LENGTH]
    for number, line in _lines(text):
        if any(value in line for value in secrets):
            problems.append(
                SkillProblem(path, number, "credential", "holds the value of one of the business's secrets")
            )
            continue
        for what, pattern in _KEY_LIKE:
            if pattern.search(line):
                problems.append(SkillProblem(path, number, "credential", f"holds what looks like {what}"))
                break
    return problems
