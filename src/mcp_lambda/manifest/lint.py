"""`make manifest-lint`'s check of a manifest file: every problem, and the tools missing on either side.

Run on the manifest's YAML source by the lint and by `make build` before it compiles the manifest; not in the Lambda
package (the function checks its compiled manifest when it binds it: `bound.bind_manifest`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping
from pathlib import Path

from .errors import Problem
from .loader import read_manifest, unreadable, with_lines
from .models import FieldSpec, Manifest
from .rules import tool_name_problems

NO_VISIBLE_ID = "no-visible-id"


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


def chaining_warnings(path: str | Path, tool_arguments: Mapping[str, Collection[str]]) -> list[Problem]:
    """Warnings (not problems: the manifest is valid) about ids an agent cannot pass from one tool to another.

    A tool warns when its entities declare an id another tool takes as an argument (a field named like that
    argument, `id` or ending in `_id`, or the entity id) but the model sees none of them: each is marked
    `llm_visible: false` (or sits inside a hidden field), so an agent reading the projection cannot chain to the
    tool that takes it.

    Args:
        path: The manifest.
        tool_arguments: Each tool's argument names (its inputSchema's properties).

    Returns:
        One warning (rule `no-visible-id`) per such tool; empty for a manifest that does not load.
    """
    manifest, problems, _, lines = read_manifest(path)
    if unreadable(problems) or problems:
        return []
    return with_lines(hidden_id_warnings(manifest, tool_arguments), lines)


def hidden_id_warnings(manifest: Manifest, tool_arguments: Mapping[str, Collection[str]]) -> list[Problem]:
    """`chaining_warnings` for a loaded manifest."""
    warnings = []
    for tool, entry in manifest.tools.items():
        if entry.output.kind != "entities":
            continue
        takers: dict[str, list[str]] = {}
        for other, arguments in tool_arguments.items():
            for argument in arguments if other != tool else ():
                takers.setdefault(argument, []).append(other)
        offered: dict[str, bool] = {}  # id field name -> whether the model sees it anywhere
        for entity_type in entry.output.entity_types:
            entity = manifest.entities.get(entity_type)
            for name, spec, visible in _fields(entity.fields if entity else {}, True):
                if name in takers and (spec.is_entity_id or name == "id" or name.endswith("_id")):
                    offered[name] = offered.get(name, False) or visible
        if offered and not any(offered.values()):
            hidden = ", ".join(
                f"{name} (taken by {', '.join(sorted(takers[name]))})" for name in sorted(offered)
            )
            message = (
                f"the model sees no id it can pass to another tool: {hidden} is llm_visible: false, so an agent "
                "reading this tool's text cannot chain to the tool that takes it"
            )
            warnings.append(Problem(manifest.source, f"tools.{tool}", NO_VISIBLE_ID, message))
    return warnings


def _fields(fields: Mapping[str, FieldSpec], visible: bool) -> Iterator[tuple[str, FieldSpec, bool]]:
    for name, spec in fields.items():
        shown = visible and spec.llm_visible
        yield name, spec, shown
        yield from _fields(spec.properties or {}, shown)
        if spec.items is not None:
            yield from _fields(spec.items.properties or {}, shown and spec.items.llm_visible)
