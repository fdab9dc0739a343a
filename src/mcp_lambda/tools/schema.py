"""Input schemas from Python signatures, via pydantic.

An optional argument (`limit: int | None = None`) is rendered as its plain type, `{"type": "integer"}`: no
`anyOf [..., {"type": "null"}]` and no `"default": null`, which simple platform parsers reject. Leaving the
argument out is how a caller says "none". Null stays in the schema where it means something: a nullable argument
without a default (`note: str | None`, required, null allowed) or with another default (`int | None = 3`, where
null is different from leaving it out).
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Callable
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, create_model
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from .context import ToolContext


class ToolSignatureError(TypeError):
    """A tool function's signature cannot be turned into an input schema."""


def arguments_model(fn: Callable[..., Any], model_name: str) -> tuple[type[BaseModel], str | None]:
    """A pydantic model of the tool's arguments, and the name of its ToolContext parameter (if any)."""
    hints = get_type_hints(fn, include_extras=True)
    fields: dict[str, Any] = {}
    context_param: str | None = None
    for name, param in inspect.signature(fn).parameters.items():
        annotation = hints.get(name, param.annotation)
        if annotation is ToolContext:
            context_param = name
            continue
        if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
            raise ToolSignatureError(f"{fn.__name__}: *args/**kwargs are not allowed in a tool signature")
        if annotation is inspect.Parameter.empty:
            raise ToolSignatureError(f"{fn.__name__}: parameter '{name}' needs a type annotation")
        default = param.default if param.default is not inspect.Parameter.empty else ...
        if isinstance(default, FieldInfo):
            fields[name] = (annotation, default)
        else:
            fields[name] = (annotation, default)
    # Strict: a value must already have its schema type ("2" is not an integer). The executor validates the JSON
    # text, so JSON's own spellings still parse: an ISO date string for `date`, a value for an Enum.
    model = create_model(model_name, __config__=ConfigDict(extra="forbid", strict=True), **fields)
    return model, context_param


def input_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The model's JSON schema with `$ref`s inlined, so simple platform parsers can read it."""
    schema = model.model_json_schema(schema_generator=PlainOptionalJsonSchema)
    defs = schema.pop("$defs", {})
    schema.pop("title", None)
    resolved = _inline(schema, defs, depth=0)
    resolved["type"] = "object"
    resolved.setdefault("properties", {})
    resolved.setdefault("additionalProperties", False)
    return resolved


class PlainOptionalJsonSchema(GenerateJsonSchema):
    """pydantic's generator, except that an `X | None = None` field renders as plain `X`, without a default."""

    def default_schema(self, schema: core_schema.WithDefaultSchema) -> JsonSchemaValue:
        inner = schema["schema"]
        if "default" not in schema or schema["default"] is not None or inner["type"] != "nullable":
            return super().default_schema(schema)
        if _has_json_schema_hooks(inner):
            # A hand-made schema on the Optional itself (WithJsonSchema, ...): keep it, only drop `default: null`.
            return self.generate_inner(inner)
        return self.generate_inner(inner["schema"])


def _has_json_schema_hooks(schema: core_schema.CoreSchema) -> bool:
    metadata = schema.get("metadata") or {}
    return any(key.startswith("pydantic_js_") and value for key, value in metadata.items())


def _inline(node: Any, defs: dict[str, Any], depth: int) -> Any:
    # Hand-written because pydantic has no "inline all refs" switch; recursion is bounded (no recursive models).
    if depth > 32:
        raise ToolSignatureError("input schema is too deeply nested or recursive")
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str) and ref.startswith("#/$defs/"):
            target = copy.deepcopy(defs[ref.removeprefix("#/$defs/")])
            target.pop("title", None)
            merged = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
            return _inline(merged, defs, depth + 1)
        return {
            k: _inline(v, defs, depth) for k, v in node.items() if not (k == "title" and isinstance(v, str))
        }
    if isinstance(node, list):
        return [_inline(item, defs, depth) for item in node]
    return node
