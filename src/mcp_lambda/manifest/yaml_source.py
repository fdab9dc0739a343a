"""A manifest's YAML source read into its document: syntax errors, keys given twice and each path's line.

Imported by `loader.read_manifest` for a `.yaml` file only. The Lambda package ships the manifest compiled to JSON
(`dev/mcp_lambda_tools/build/manifest_compile.py`), and neither this module nor PyYAML (`make build` leaves them out).
"""

from __future__ import annotations

from typing import Any

import yaml

from .errors import Problem


def read_yaml(file: str, text: str) -> tuple[Any, list[Problem], dict[str, int]] | Problem:
    """The document of a manifest's YAML text.

    Args:
        file: the file's name, for the problems.
        text: its content.

    Returns:
        (the document, the keys given twice, the line of each dotted path), or the one `yaml-syntax` problem of a
        text that is not YAML.
    """
    try:
        root_node = yaml.compose(text, Loader=yaml.SafeLoader)
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        return Problem(file, "", "yaml-syntax", str(getattr(exc, "problem", None) or exc), line)
    lines: dict[str, int] = {}
    problems = _walk_nodes(root_node, "", file, lines) if root_node is not None else []
    return data, problems, lines


def _walk_nodes(node: yaml.Node, path: str, file: str, lines: dict[str, int]) -> list[Problem]:
    """Record each YAML path's line, and report keys given twice (PyYAML would silently keep the last)."""
    lines.setdefault(path, node.start_mark.line + 1)
    problems: list[Problem] = []
    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key_node, value_node in node.value:
            key = str(key_node.value)
            child = f"{path}.{key}" if path else key
            if key in seen:
                line = key_node.start_mark.line + 1
                problems.append(Problem(file, child, "duplicate-key", f"key '{key}' is given twice", line))
            seen.add(key)
            problems += _walk_nodes(value_node, child, file, lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            problems += _walk_nodes(item, f"{path}.{index}", file, lines)
    return problems
