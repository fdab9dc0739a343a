"""Reading a manifest file: the document, then typed models, then the cross-field rules.

Each tool and each entity is validated on its own, so one broken entry does not hide the problems of the others.
The Lambda package holds `.json` files, the document compiled at build time (`dev/mcp_lambda_tools/build/manifest_compile.py`, run by
`make build`), read with the json module. A `.yaml` file (the source, read by make run, the lint and the tests) is
read by `yaml_source`, imported only then: it and PyYAML are not in the package.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from .errors import ManifestError, Problem
from .errors import did_you_mean as _suggest
from .models import FIELD_TYPES, EntitySpec, FieldSpec, HistoryCardRefresh, Manifest, ToolEntry, ToolOutput
from .rules import semantic_problems

TOP_LEVEL_KEYS = ("tools", "entities")
TYPE_SYNONYMS = {
    "integer": "int",
    "number": "float",
    "double": "float",
    "bool": "boolean",
    "str": "string",
    "text": "string",
    "list": "array",
    "dict": "object",
    "map": "object",
}
# Where each nested key leads, so an unknown key can be matched against the keys allowed at that spot.
_NESTED: dict[type[BaseModel], dict[str, tuple[bool, type[BaseModel]]]] = {
    EntitySpec: {"schema": (True, FieldSpec), "history_card_refresh": (False, HistoryCardRefresh)},
    FieldSpec: {"properties": (True, FieldSpec), "items": (False, FieldSpec)},
    ToolEntry: {"output": (False, ToolOutput)},
}


def load_manifest(path: str | Path) -> Manifest:
    """Parse and check a manifest; raises ManifestError listing every problem."""
    manifest, problems = parse_manifest(path)
    if problems:
        raise ManifestError(problems)
    return manifest


# A file that cannot be read as a mapping at all: its problem is reported alone (no tool can be said to be missing).
UNREADABLE_RULES = frozenset({"unreadable", "yaml-syntax", "json-syntax", "not-a-mapping"})


def unreadable(problems: list[Problem]) -> bool:
    """Whether the file could not be read as a manifest mapping (so its tools are unknown, not missing)."""
    return any(problem.yaml_path == "" and problem.rule in UNREADABLE_RULES for problem in problems)


def parse_manifest(path: str | Path) -> tuple[Manifest, list[Problem]]:
    """The entries that parsed, and the problems of all of them (structural and cross-field)."""
    manifest, problems, _, _ = read_manifest(path)
    return manifest, problems


def read_manifest(path: str | Path) -> tuple[Manifest, list[Problem], dict[str, set[str]], dict[str, int]]:
    """The parsed entries, the problems, the names declared (even of entries that failed) and YAML line numbers."""
    file = str(path)
    declared: dict[str, set[str]] = {"tools": set(), "entities": set()}
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        problem = Problem(file, "", "unreadable", f"cannot read the file: {exc.strerror}")
        return Manifest(source=file), [problem], declared, {}
    lines: dict[str, int] = {}
    if Path(path).suffix == ".json":
        try:
            data = json.loads(text)
        except ValueError as exc:
            problem = Problem(file, "", "json-syntax", str(exc))
            return Manifest(source=file), [problem], declared, {}
        problems: list[Problem] = []
    else:
        # Here only: the package's compiled (.json) manifests never need it (nor PyYAML).
        from .yaml_source import read_yaml

        read = read_yaml(file, text)
        if isinstance(read, Problem):
            return Manifest(source=file), [read], declared, {}
        data, problems, lines = read
    manifest, structural, declared = _build(file, data)
    problems += structural + semantic_problems(manifest, declared["tools"], declared["entities"])
    return manifest, with_lines(problems, lines), declared, lines


def _build(file: str, data: Any) -> tuple[Manifest, list[Problem], dict[str, set[str]]]:
    names: dict[str, set[str]] = {"tools": set(), "entities": set()}
    if not isinstance(data, Mapping):
        return (
            Manifest(source=file),
            [Problem(file, "", "not-a-mapping", "the manifest must be a mapping")],
            names,
        )
    problems = [
        Problem(
            file,
            str(key),
            "unknown-key",
            f"unknown top-level key '{key}'{_suggest(str(key), TOP_LEVEL_KEYS)}",
        )
        for key in data
        if key not in TOP_LEVEL_KEYS
    ]
    if "tools" not in data:
        problems.append(Problem(file, "tools", "missing-key", "a manifest must declare its tools"))
    tools: dict[str, ToolEntry] = {}
    entities: dict[str, EntitySpec] = {}
    for section, model, into in (("tools", ToolEntry, tools), ("entities", EntitySpec, entities)):
        raw = data.get(section)
        if raw is None:
            continue
        if not isinstance(raw, Mapping):
            problems.append(
                Problem(file, section, "not-a-mapping", f"'{section}' must be a mapping of names")
            )
            continue
        for name, body in raw.items():
            base = f"{section}.{name}"
            if not isinstance(name, str):
                problems.append(Problem(file, base, "invalid-name", f"{section[:-1]} names must be strings"))
                continue
            names[section].add(name)
            try:
                into[name] = model.model_validate(body)  # type: ignore[assignment]
            except ValidationError as exc:
                problems += [_from_pydantic(file, base, model, error) for error in exc.errors()]
    return Manifest(source=file, tools=tools, entities=entities), problems, names


def _from_pydantic(file: str, base: str, model: type[BaseModel], error: Any) -> Problem:
    loc = tuple(str(part) for part in error["loc"])
    path = ".".join((base, *loc))
    kind, value = error["type"], error.get("input")
    key = loc[-1] if loc else ""
    if kind == "extra_forbidden":
        allowed = _allowed_keys(model, loc[:-1])
        return Problem(file, path, "unknown-key", f"unknown key '{key}'{_suggest(key, allowed)}")
    if kind == "missing":
        return Problem(file, path, "missing-key", f"required key '{key}' is missing")
    if kind == "literal_error" and key == "type" and "output" not in loc:
        hint = TYPE_SYNONYMS.get(str(value)) or ""
        suggestion = f"; did you mean '{hint}'?" if hint else _suggest(str(value), FIELD_TYPES)
        return Problem(
            file,
            path,
            "unknown-type",
            f"unknown type '{value}' (allowed: {', '.join(FIELD_TYPES)}){suggestion}",
        )
    if kind == "literal_error":
        return Problem(file, path, "unknown-value", f"'{value}' is not allowed: {error['msg'].lower()}")
    if kind == "model_type" or kind == "dict_type":
        return Problem(file, path, "not-a-mapping", f"'{key or base}' must be a mapping")
    return Problem(file, path, "wrong-value-type", error["msg"])


def _allowed_keys(model: type[BaseModel], loc: tuple[str, ...]) -> list[str]:
    current, index = model, 0
    while index < len(loc):
        step = _NESTED.get(current, {}).get(loc[index])
        if step is None:
            return []
        is_mapping, current = step
        index += 2 if is_mapping else 1
    return [field.alias or name for name, field in current.model_fields.items()]


def with_lines(problems: list[Problem], lines: dict[str, int]) -> list[Problem]:
    """`problems`, each without a line given the line of its path (or of the nearest parent path in `lines`)."""
    out = []
    for problem in problems:
        line, path = problem.line, problem.yaml_path
        while line is None and path:
            line = lines.get(path)
            path = path.rpartition(".")[0]
        out.append(Problem(problem.file, problem.yaml_path, problem.rule, problem.message, line))
    return out
