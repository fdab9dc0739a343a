"""`make manifest-lint`'s check of a manifest file: every problem, and the tools missing on either side.

Run on the manifest's YAML source by the lint and by `make build` before it compiles the manifest; not in the Lambda
package (the function checks its compiled manifest when it binds it: `bound.bind_manifest`).
"""

from __future__ import annotations

from pathlib import Path

from .errors import Problem
from .loader import read_manifest, unreadable, with_lines
from .rules import tool_name_problems


def lint_manifest(path: str | Path, tool_names: set[str] | None = None) -> list[Problem]:
    """Every problem in the manifest at `path`.

    Args:
        path: a `.yaml` (or compiled `.json`) manifest.
        tool_names: the business's tools; when given, also report tools missing on either side.

    Returns:
        The problems, each with its line when the file has lines; empty when the manifest is valid.
    """
    manifest, problems, declared, lines = read_manifest(path)
    if tool_names is not None and not unreadable(problems):
        problems += with_lines(tool_name_problems(manifest, tool_names, declared["tools"]), lines)
    return problems
