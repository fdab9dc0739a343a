"""A business's skills (Agent Skills folders) as the server serves them over MCP (SEP-2640).

`load_catalog(skills_dir)` builds the `SkillCatalog` once at cold start; the protocol layer
(`protocol/skills.py`) answers `skills/list`, `skills/get`, `resources/read` of `skill://` URIs and
`resources/directory/read` from it. `source.py` (reading frontmatter with PyYAML) and `lint.py` run on a
developer's machine and at build time only.
"""

from .catalog import (
    COMPILED_INDEX,
    DIRECTORY_MIME_TYPE,
    SCHEME,
    SKILL_FILE,
    Skill,
    SkillCatalog,
    SkillError,
    SkillFile,
)
from .loader import load_catalog

__all__ = [
    "COMPILED_INDEX",
    "DIRECTORY_MIME_TYPE",
    "SCHEME",
    "SKILL_FILE",
    "Skill",
    "SkillCatalog",
    "SkillError",
    "SkillFile",
    "load_catalog",
]
