"""The run-time check: does a ToolResult honour the manifest? Compiled once per tool, so a call costs microseconds.

Messages name the tool, the entity index and the field path, and never echo a field's value.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic_core import SchemaValidator

from ..tools import ToolResult
from ..tools.results import SUGGESTED_ACTIONS
from .fast_check import entities_validator
from .leaks import leaks
from .models import FieldSpec, Manifest
from .visibility import NO_SCOPES, with_model_text

MAX_VIOLATIONS = 20

# (type, sub): sub is ((name, node), ...) for an object with properties, the item node for an array with items,
# else None (scalars, and containers whose inside is not declared).
Node = tuple[str, Any]

_MATCHES: dict[str, Callable[[Any], bool]] = {
    "string": lambda v: isinstance(v, str),
    "int": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "float": lambda v: isinstance(v, float) and math.isfinite(v),
    "boolean": lambda v: v is True or v is False,
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list | tuple),
}


def json_type(value: Any) -> str:
    """The manifest's name for a value's type ('null' for None)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float" if math.isfinite(value) else "non-finite float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    return type(value).__name__


def compile_field(spec: FieldSpec) -> Node:
    if spec.type == "object" and spec.properties:
        return ("object", tuple((name, compile_field(child)) for name, child in spec.properties.items()))
    if spec.type == "array" and spec.items is not None:
        return ("array", compile_field(spec.items))
    return (spec.type, None)


@dataclass(frozen=True)
class EntityCheck:
    entity_type: str
    id_field: str
    refresh_key: str | None
    fields: tuple[tuple[str, Node], ...]


@dataclass(frozen=True)
class ToolCheck:
    """Everything needed to check one tool's results, precomputed from the manifest."""

    tool: str
    kind: str
    allowed: frozenset[str]
    entities: Mapping[str, EntityCheck]
    statuses: frozenset[str] = frozenset()  # output.result_statuses
    manifest: Manifest = field(default_factory=Manifest, repr=False, compare=False)
    # The entities' fast path (fast_check.py): when it accepts, `_check_entities` would find nothing.
    fast: SchemaValidator | None = field(default=None, repr=False, compare=False)

    @classmethod
    def compile(cls, manifest: Manifest, tool: str) -> ToolCheck:
        output = manifest.tools[tool].output
        entities = {
            name: EntityCheck(
                entity_type=name,
                id_field=spec.id_field,
                refresh_key=spec.refresh_key_field,
                fields=tuple((field, compile_field(child)) for field, child in spec.fields.items()),
            )
            for name, spec in manifest.entities.items()
        }
        return cls(
            tool=tool,
            kind=output.kind,
            allowed=frozenset(output.entity_types),
            entities=entities,
            statuses=frozenset(output.result_statuses),
            manifest=manifest,
            fast=entities_validator(manifest, tool),
        )

    def __call__(self, result: ToolResult, scopes: Collection[str] = NO_SCOPES) -> list[str]:
        """One message per violation of `result`, for a caller granted `scopes` (what is hidden from it)."""
        out: list[str] = []
        _check_content(self.tool, result.content, out)
        structured = result.structured_content
        if not isinstance(structured, dict):
            out.append(f"{self.tool}: structuredContent must be an object, got {json_type(structured)}")
        elif result.is_error:
            _check_error(self.tool, structured, out)
        elif self.kind == "entities":
            self._check_status(structured, out)
            if self.fast is None or not self.fast.isinstance_python(structured):
                self._check_entities(structured, out)
            # The text as it leaves the server (the executor settles it first; a direct check settles it here).
            settled = with_model_text(self.manifest, self.tool, result, scopes)
            for path, scope in leaks(self.manifest, self.tool, settled, scopes).items():
                why = (
                    "llm_visible: false"
                    if scope is None
                    else f"requires_scope {scope}, which the caller lacks"
                )
                out.append(
                    f"{self.tool}: {path}: the field is {why}, but its value is in the result's text "
                    f"(content), which the model reads"
                )
        else:
            self._check_status(structured, out)
            if "entities" in structured:
                out.append(
                    f"{self.tool}: structuredContent.entities: an execution_result must not return entities"
                )
        if len(out) > MAX_VIOLATIONS:
            out[MAX_VIOLATIONS:] = [f"{self.tool}: ... and {len(out) - MAX_VIOLATIONS} more violations"]
        return out

    def _check_status(self, structured: dict[str, Any], out: list[str]) -> None:
        """A success's `result_status` is one the manifest declares for this tool (`output.result_statuses`)."""
        if "result_status" not in structured or structured["result_status"] in self.statuses:
            return
        status = structured["result_status"]
        shown = status[:64] if isinstance(status, str) else json_type(status)
        declared = ", ".join(sorted(self.statuses)) or "none"
        out.append(
            f"{self.tool}: structuredContent.result_status: '{shown}' is not in output.result_statuses of "
            f"this tool (declared: {declared})"
        )

    def _check_entities(self, structured: dict[str, Any], out: list[str]) -> None:
        items = structured.get("entities")
        if not isinstance(items, list):
            got = "nothing" if items is None else json_type(items)
            out.append(
                f"{self.tool}: structuredContent.entities must be an array (output.kind entities), got {got}"
            )
            return
        for index, entity in enumerate(items):
            where = f"{self.tool}: entities[{index}]"
            if not isinstance(entity, dict):
                out.append(f"{where}: an entity must be an object, got {json_type(entity)}")
                continue
            entity_type = entity.get("entity_type")
            check = self.entities.get(entity_type) if isinstance(entity_type, str) else None
            if entity_type is None:
                out.append(f"{where}.entity_type: missing")
                continue
            if check is None:
                shown = entity_type[:64] if isinstance(entity_type, str) else json_type(entity_type)
                out.append(f"{where}.entity_type: '{shown}' is not an entity type declared in the manifest")
                continue
            if entity_type not in self.allowed:
                out.append(f"{where}.entity_type: '{entity_type}' is not in output.entity_types of this tool")
                continue
            if check.id_field not in entity:
                out.append(f"{where}.{check.id_field}: missing (the is_entity_id field)")
            elif entity[check.id_field] == "":
                out.append(f"{where}.{check.id_field}: the entity id is empty")
            if check.refresh_key is not None and check.refresh_key not in entity:
                out.append(f"{where}.{check.refresh_key}: missing (the is_refresh_key field)")
            _check_object(check.fields, entity, where, out)


def _check_object(
    fields: tuple[tuple[str, Node], ...], value: dict[str, Any], path: str, out: list[str]
) -> None:
    for name, (kind, sub) in fields:
        if name not in value:
            continue  # declared fields may be absent; the id and refresh key are checked by the caller
        child = value[name]
        if not _MATCHES[kind](child):
            out.append(f"{path}.{name}: expected {kind}, got {json_type(child)}")
        elif sub is not None:
            _check_inside(kind, sub, child, f"{path}.{name}", out)


def _check_inside(kind: str, sub: Any, value: Any, path: str, out: list[str]) -> None:
    if kind == "object":
        _check_object(sub, value, path, out)
        return
    item_kind, item_sub = sub
    match = _MATCHES[item_kind]
    for index, item in enumerate(value):
        if not match(item):
            out.append(f"{path}[{index}]: expected {item_kind}, got {json_type(item)}")
        elif item_sub is not None:
            _check_inside(item_kind, item_sub, item, f"{path}[{index}]", out)


def _check_error(tool: str, structured: dict[str, Any], out: list[str]) -> None:
    code, message = structured.get("code"), structured.get("message")
    if not _MATCHES["int"](code):
        out.append(f"{tool}: error result: structuredContent.code must be an int, got {json_type(code)}")
    if not isinstance(message, str):
        out.append(
            f"{tool}: error result: structuredContent.message must be a string, got {json_type(message)}"
        )
    # The agent-facing advice (business_error adds it) is optional for the platform, but typed when present.
    retryable = structured.get("retryable")
    if "retryable" in structured and not isinstance(retryable, bool):
        out.append(
            f"{tool}: error result: structuredContent.retryable must be a boolean, got {json_type(retryable)}"
        )
    action = structured.get("suggested_action")
    if "suggested_action" in structured and action not in SUGGESTED_ACTIONS:
        out.append(
            f"{tool}: error result: structuredContent.suggested_action must be one of {', '.join(SUGGESTED_ACTIONS)}"
        )
    details = structured.get("details")
    if "details" in structured and not isinstance(details, dict):
        out.append(
            f"{tool}: error result: structuredContent.details must be an object, got {json_type(details)}"
        )
    after = structured.get("retry_after_ms")
    valid_after = _MATCHES["int"](after) and isinstance(after, int) and after >= 0
    if ("retry_after_ms" in structured or retryable is True) and not valid_after:
        out.append(
            f"{tool}: error result: structuredContent.retry_after_ms must be an integer >= 0 when retryable, "
            f"got {json_type(after)}"
        )


def _check_content(tool: str, content: list[dict[str, Any]], out: list[str]) -> None:
    for index, block in enumerate(content):
        block_type = block.get("type")
        if not isinstance(block_type, str):
            out.append(f"{tool}: content[{index}].type: missing")
        elif block_type == "text" and not isinstance(block.get("text"), str):
            out.append(f"{tool}: content[{index}].text: a text block needs a string text")
