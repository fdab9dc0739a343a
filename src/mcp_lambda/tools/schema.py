"""Input schemas from Python signatures, via pydantic.

An optional argument (`limit: int | None = None`) is rendered as its plain type, `{"type": "integer"}`: no
`anyOf [..., {"type": "null"}]` and no `"default": null`, which simple platform parsers reject. Leaving the
argument out is how a caller says "none". Null stays in the schema where it means something: a nullable argument
without a default (`note: str | None`, required, null allowed) or with another default (`int | None = 3`, where
null is different from leaving it out).

`make build` also writes each business package's input schemas to `_tool_schemas.json` beside its code
(`compile_tool_schemas`), keyed by a digest of the package's source files, this module and pydantic's version.
When a tool's package has a copy whose digest matches, the decorator takes the schema from it and creates the
argument model with `defer_build` (its validator is built by the first call, or by SnapStart's before-snapshot
hook): the time pydantic spends per tool building a model to generate its JSON schema is paid at build time.
Without a matching copy (the source tree, tests, `make run`) everything is built at decoration. Types
a tool imports from outside its package are not in the digest: `make build` compiles afresh every time.
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, get_type_hints

import pydantic_core
from pydantic import VERSION as PYDANTIC_VERSION
from pydantic import BaseModel, ConfigDict, create_model
from pydantic.fields import FieldInfo
from pydantic.json_schema import GenerateJsonSchema, JsonSchemaValue
from pydantic_core import core_schema

from ..errors import StartupError
from .context import ToolContext


class ToolSignatureError(StartupError, TypeError):
    """A tool function's signature cannot be turned into an input schema."""


COMPILED_SCHEMAS = "_tool_schemas.json"


def arguments_model(
    fn: Callable[..., Any], model_name: str, *, defer_build: bool = False
) -> tuple[type[BaseModel], str | None]:
    """A pydantic model of the tool's arguments, and the name of its ToolContext parameter (if any).

    `defer_build`: the validator is built by the model's first use (only when a compiled schema vouches that
    the signature builds: an unsupported annotation otherwise fails here, at decoration)."""
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
    config = ConfigDict(extra="forbid", strict=True, defer_build=defer_build)
    model = create_model(model_name, __config__=config, **fields)
    if defer_build:
        _deferred_models.append(model)
    return model, context_param


def build_deferred_models() -> int:
    """Build every argument validator left to first use (SnapStart's before-snapshot hook); how many were."""
    built = 0
    while _deferred_models:
        model = _deferred_models.pop()
        if not model.__pydantic_complete__:
            model.model_rebuild()
            built += 1
    return built


def compiled_input_schema(fn: Callable[..., Any], tool_name: str) -> dict[str, Any] | None:
    """The tool's input schema from its package's `_tool_schemas.json`, if that copy is current; else None."""
    package = _package_dir(getattr(fn, "__module__", None) or "")
    if package is None:
        return None
    table = _compiled_tables.get(package)
    if table is None:
        table = _compiled_tables[package] = _read_compiled(package)
    schema = table.get(schema_key(fn, tool_name))
    return copy.deepcopy(schema) if schema is not None else None


def compile_tool_schemas(package: Path, specs: Any) -> dict[str, Any]:
    """The document `make build` writes as `package/_tool_schemas.json` for these tool specs."""
    schemas = {
        schema_key(spec.fn, spec.name): spec.input_schema for spec in specs if spec.arguments is not None
    }
    return {"digest": source_digest(package), "schemas": schemas}


def schema_key(fn: Callable[..., Any], tool_name: str) -> str:
    """A compiled schema's key: the function (module and qualified name) and the tool name it was given."""
    return f"{fn.__module__}:{fn.__qualname__}:{tool_name}"


def source_digest(package: Path) -> str | None:
    """What a compiled schema was computed from: the package's .py files, this module and pydantic's version.
    Not Python's: `make build` compiles with the .venv's Python for the 3.13 runtime, pydantic pinned alike."""
    digest = hashlib.sha256()
    digest.update(f"{PYDANTIC_VERSION} {pydantic_core.__version__}".encode())
    digest.update(Path(__file__).read_bytes())
    files = sorted(path for path in package.rglob("*.py") if "__pycache__" not in path.parts)
    if not files:
        return None  # a package shipped as .pyc only: nothing to prove the copy current
    for path in files:
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


_compiled_tables: dict[Path, dict[str, Any]] = {}
_deferred_models: list[type[BaseModel]] = []


def _package_dir(module_name: str) -> Path | None:
    """The directory of the package a tool module belongs to (`businesses.<name>`, else its top-level package),
    when that directory holds a compiled copy: the source tree has none, so this is one stat there."""
    parts = module_name.split(".")
    root = ".".join(parts[:2]) if parts[0] == "businesses" and len(parts) > 1 else parts[0]
    module = sys.modules.get(root)
    origin = getattr(module, "__file__", None)
    if not origin or Path(origin).name != "__init__.py":
        return None
    package = Path(origin).parent
    return package if (package / COMPILED_SCHEMAS).is_file() else None


def _read_compiled(package: Path) -> dict[str, Any]:
    try:
        document = json.loads((package / COMPILED_SCHEMAS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(document, dict) or document.get("digest") != source_digest(package):
        return {}  # stale or foreign: the decorator builds the schemas itself
    schemas = document.get("schemas")
    return schemas if isinstance(schemas, dict) else {}


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


def optional_without_null(schema: dict[str, Any]) -> frozenset[str]:
    """The optional arguments of an input schema that do not admit null: a null for one means "not given".

    Args:
        schema: A tool's published input schema.

    Returns:
        The names of the properties that are not required and whose schema has no `null` (a type, a branch).
    """
    required = set(schema.get("required") or ())
    properties = schema.get("properties") or {}
    return frozenset(
        name for name, prop in properties.items() if name not in required and not _admits_null(prop, schema)
    )


def _admits_null(prop: Any, root: dict[str, Any]) -> bool:
    if not isinstance(prop, dict):
        return True  # `true` or an odd schema: leave its nulls to the validator
    kind = prop.get("type")
    if kind == "null" or (isinstance(kind, list) and "null" in kind):
        return True
    if None in (prop.get("enum") or ()) or ("const" in prop and prop["const"] is None):
        return True
    reference = prop.get("$ref")
    if isinstance(reference, str) and reference.startswith("#/$defs/"):
        return _admits_null((root.get("$defs") or {}).get(reference.removeprefix("#/$defs/")), root)
    return any(_admits_null(branch, root) for key in ("anyOf", "oneOf") for branch in prop.get(key) or ())
