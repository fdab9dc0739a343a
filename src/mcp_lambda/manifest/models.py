"""Typed models of `manifest/<business>.yaml` (docs/doubao-protocol.md §2); strict: unknown keys are errors."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

FieldType = Literal["string", "int", "float", "boolean", "object", "array"]
FIELD_TYPES: tuple[str, ...] = ("string", "int", "float", "boolean", "object", "array")
OutputKind = Literal["entities", "execution_result"]
# A success's `structuredContent.result_status` (`mcp_lambda.tools.ResultStatus`, docs/tools.md).
ResultStatusName = Literal["NO_MATCH_FOUND", "PARTIAL"]

_STRICT = ConfigDict(extra="forbid", frozen=True, strict=True, populate_by_name=True)


class FieldSpec(BaseModel):
    """One declared field of an entity (or of a nested object / array item)."""

    model_config = _STRICT

    type: FieldType
    description: str | None = None
    llm_visible: bool = True
    llm_modifiable: bool = False
    is_entity_id: bool = False
    is_refresh_key: bool = False
    # Only a caller whose token grants this scope receives the field; for any other it is removed (never nulled).
    requires_scope: str | None = None
    properties: dict[str, FieldSpec] | None = None
    items: FieldSpec | None = None


class HistoryCardRefresh(BaseModel):
    """Whether cards shown earlier in the conversation are refreshed (matched by the refresh key)."""

    model_config = _STRICT

    enabled: bool
    scope: Literal["same_conversation"] = "same_conversation"
    refresh_to: Literal["fixed_style"] = "fixed_style"


class EntitySpec(BaseModel):
    """An entity type: its field schema, and which widget shows it for which tool."""

    model_config = _STRICT

    fields: dict[str, FieldSpec] = Field(alias="schema")
    description: str | None = None
    tool_card_binding: dict[str, str] = Field(default_factory=dict)
    history_card_refresh: HistoryCardRefresh | None = None

    @property
    def id_field(self) -> str:
        return next(name for name, spec in self.fields.items() if spec.is_entity_id)

    @property
    def refresh_key_field(self) -> str | None:
        return next((name for name, spec in self.fields.items() if spec.is_refresh_key), None)


class ToolOutput(BaseModel):
    """`tools.<tool>.output`: the result shape, and which entity types the tool may return."""

    model_config = _STRICT

    kind: OutputKind
    entity_types: list[str] = []  # copied per instance by pydantic (see ToolResult.content)
    # The result statuses a success of this tool may carry (none: it never says "nothing found" or "partial").
    result_statuses: list[ResultStatusName] = []


class ToolEntry(BaseModel):
    """`tools.<tool>`. `kind` is accepted because the platform's own examples carry it; it has no effect."""

    model_config = _STRICT

    output: ToolOutput
    description: str | None = None
    kind: str | None = None


class Manifest(BaseModel):
    """A whole manifest. Build it with `load_manifest`, which also applies the cross-field rules."""

    model_config = ConfigDict(frozen=True)

    source: str = ""
    tools: dict[str, ToolEntry] = Field(default_factory=dict)
    entities: dict[str, EntitySpec] = Field(default_factory=dict)


def walk_fields(
    path: str, fields: Mapping[str, FieldSpec], depth: int = 0
) -> Iterator[tuple[str, str, FieldSpec, int]]:
    """Every field spec of `fields` and inside them (properties and items, at any depth), parents first:
    (path, name, spec, depth). A property's path is `<path>.<name>.properties.<child>`, an item spec's
    `<path>.<name>.items` (its name `items`); depth 0 is `fields` itself."""
    for name, spec in fields.items():
        yield from _walk_one(f"{path}.{name}", name, spec, depth)


def _walk_one(path: str, name: str, spec: FieldSpec, depth: int) -> Iterator[tuple[str, str, FieldSpec, int]]:
    yield path, name, spec, depth
    for child, child_spec in (spec.properties or {}).items():
        yield from _walk_one(f"{path}.properties.{child}", child, child_spec, depth + 1)
    if spec.items is not None:
        yield from _walk_one(f"{path}.items", "items", spec.items, depth + 1)
