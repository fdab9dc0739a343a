"""The cross-field rules of a manifest (docs/doubao-protocol.md §3.1), beyond what the typed models enforce."""

from __future__ import annotations

import re
from collections.abc import Collection

from ..caller import SCOPE_TOKEN
from .errors import Problem
from .errors import did_you_mean as _suggest
from .models import EntitySpec, FieldSpec, Manifest, walk_fields

TOOL_NAME = re.compile(r"^[A-Za-z0-9_./-]{1,64}$")
ENTITY_NAME = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,63}$")
KEY_TYPES = ("string", "int")


class _Report(list[Problem]):
    def __init__(self, file: str) -> None:
        super().__init__()
        self.file = file

    def add(self, path: str, rule: str, message: str) -> None:
        self.append(Problem(self.file, path, rule, message))


def semantic_problems(
    manifest: Manifest, tool_names: Collection[str] | None = None, entity_names: Collection[str] | None = None
) -> list[Problem]:
    """Rules across fields, entities and tools. The name collections include entries that failed to parse."""
    tools = set(manifest.tools if tool_names is None else tool_names)
    entities = set(manifest.entities if entity_names is None else entity_names)
    report = _Report(manifest.source)
    for name, entity in manifest.entities.items():
        _entity_rules(report, manifest, name, entity, tools)
    for name, entry in manifest.tools.items():
        base, output = f"tools.{name}", entry.output
        if not TOOL_NAME.match(name):
            report.add(base, "invalid-name", f"tool name '{name}' must match {TOOL_NAME.pattern}")
        if output.kind == "entities" and not output.entity_types:
            report.add(
                f"{base}.output",
                "missing-entity-types",
                "kind 'entities' needs entity_types (what it returns)",
            )
        if output.kind == "execution_result" and output.entity_types:
            message = "an execution_result returns no entities; remove entity_types"
            report.add(f"{base}.output.entity_types", "entity-types-not-allowed", message)
        seen: set[str] = set()
        for index, entity_type in enumerate(output.entity_types):
            path = f"{base}.output.entity_types.{index}"
            if entity_type not in entities:
                hint = _suggest(entity_type, entities)
                report.add(
                    path,
                    "unknown-entity",
                    f"entity type '{entity_type}' is not declared under entities{hint}",
                )
            if entity_type in seen:
                report.add(path, "duplicate-entity-type", f"'{entity_type}' is listed twice")
            seen.add(entity_type)
    return report


def tool_name_problems(
    manifest: Manifest, registered: Collection[str], declared: Collection[str] | None = None
) -> list[Problem]:
    """Registered tools with no manifest entry, and manifest tools with no implementation."""
    declared = set(manifest.tools if declared is None else declared)
    report = _Report(manifest.source)
    for name in sorted(set(registered) - declared):
        report.add(
            f"tools.{name}", "tool-not-in-manifest", f"tool '{name}' is registered but has no manifest entry"
        )
    for name in sorted(declared - set(registered)):
        message = (
            f"tool '{name}' is in the manifest but the business has no such tool{_suggest(name, registered)}"
        )
        report.add(f"tools.{name}", "tool-not-implemented", message)
    return report


def _entity_rules(
    report: _Report, manifest: Manifest, name: str, entity: EntitySpec, tools: set[str]
) -> None:
    base = f"entities.{name}"
    if not ENTITY_NAME.match(name):
        report.add(base, "invalid-name", f"entity name '{name}' must match {ENTITY_NAME.pattern}")
    ids, refresh_keys = [], []
    for path, field_name, spec, depth in walk_fields(f"{base}.schema", entity.fields):
        _field_rules(report, path, spec, depth)
        if spec.is_entity_id and depth == 0:
            ids.append(field_name)
        if spec.is_refresh_key and depth == 0:
            refresh_keys.append(field_name)
    schema = f"{base}.schema"
    if not ids:
        report.add(schema, "no-entity-id", "no field is marked is_entity_id: true (the stable business id)")
    if len(ids) > 1:
        report.add(
            schema, "multiple-entity-ids", f"only one field may be is_entity_id, found {', '.join(ids)}"
        )
    if len(refresh_keys) > 1:
        found = ", ".join(refresh_keys)
        report.add(schema, "multiple-refresh-keys", f"at most one field may be is_refresh_key, found {found}")
    for key in ("entity_type", *ids, *refresh_keys):
        scoped = entity.fields.get(key)
        if scoped is not None and scoped.requires_scope is not None:
            message = f"'{key}' is on every card and every caller's result: it cannot require a scope"
            report.add(f"{schema}.{key}.requires_scope", "scope-on-key-field", message)
    declared_type = entity.fields.get("entity_type")
    if declared_type is not None and declared_type.type != "string":
        report.add(
            f"{schema}.entity_type.type", "entity-type-field", "entity_type, when declared, must be a string"
        )
    history = entity.history_card_refresh
    if history is not None and history.enabled and not refresh_keys:
        message = "history_card_refresh needs a top-level field marked is_refresh_key: true"
        report.add(f"{base}.history_card_refresh", "history-refresh-without-key", message)
    for tool, widget_id in entity.tool_card_binding.items():
        path = f"{base}.tool_card_binding.{tool}"
        if tool not in tools:
            report.add(
                path,
                "binding-unknown-tool",
                f"tool '{tool}' is not declared under tools{_suggest(tool, tools)}",
            )
        elif tool in manifest.tools and name not in manifest.tools[tool].output.entity_types:
            message = f"tool '{tool}' never returns '{name}' (not in its output.entity_types)"
            report.add(path, "binding-never-matches", message)
        if not widget_id.strip():
            report.add(path, "empty-widget-id", "the widget_id must not be empty")


def _field_rules(report: _Report, path: str, spec: FieldSpec, depth: int) -> None:
    if spec.llm_modifiable and spec.type != "array":
        message = f"llm_modifiable is only allowed on type array, not {spec.type}"
        report.add(f"{path}.llm_modifiable", "modifiable-not-array", message)
    elif spec.llm_modifiable and depth > 0:
        message = "llm_modifiable is only allowed on a top-level list field of the entity"
        report.add(f"{path}.llm_modifiable", "modifiable-nested", message)
    if spec.properties is not None and spec.type != "object":
        report.add(f"{path}.properties", "properties-not-object", f"properties on type {spec.type}")
    if spec.items is not None and spec.type != "array":
        report.add(f"{path}.items", "items-not-array", f"items on type {spec.type}")
    scope = spec.requires_scope
    if scope is not None and not SCOPE_TOKEN.match(scope):
        message = (
            f"'{scope}' is not a scope name (RFC 6749 §3.3: printable ASCII, no space, '\"' or '\\'; "
            "one scope per field)"
        )
        report.add(f"{path}.requires_scope", "invalid-scope", message)
    for flag, label in ((spec.is_entity_id, "is_entity_id"), (spec.is_refresh_key, "is_refresh_key")):
        rule = label.removeprefix("is_").replace("_", "-")
        if flag and depth > 0:
            report.add(f"{path}.{label}", f"{rule}-nested", f"{label} is only allowed on top-level fields")
        if flag and spec.type not in KEY_TYPES:
            report.add(
                f"{path}.{label}", f"{rule}-type", f"{label} needs type string or int, not {spec.type}"
            )
