"""The @tool decorator: turns a typed function into a ToolSpec, without registering it anywhere."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from .schema import ToolSignatureError, arguments_model, input_schema

NAME_PATTERN = re.compile(r"^[A-Za-z0-9_./-]{1,64}$")
ANNOTATION_KEYS = {"title", "readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"}


@dataclass(frozen=True)
class ToolSpec:
    """A tool as the server serves it: wire metadata plus the function and its argument model."""

    name: str
    description: str
    fn: Callable[..., Any]
    arguments: type[BaseModel] | None
    input_schema: dict[str, Any]
    context_param: str | None
    is_async: bool
    title: str | None = None
    annotations: Mapping[str, Any] | None = None
    output_schema: dict[str, Any] | None = None
    meta: Mapping[str, Any] | None = None
    safe_fields: frozenset[str] = field(default_factory=frozenset)
    arguments_accepted: frozenset[str] = field(default_factory=frozenset)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Calling the spec calls the function, so tools stay plain functions in unit tests."""
        return self.fn(*args, **kwargs)

    def to_wire(self) -> dict[str, Any]:
        wire: dict[str, Any] = {"name": self.name}
        if self.title:
            wire["title"] = self.title
        wire["description"] = self.description
        wire["inputSchema"] = self.input_schema
        if self.output_schema is not None:
            wire["outputSchema"] = self.output_schema
        if self.annotations:
            wire["annotations"] = dict(self.annotations)
        if self.meta:
            wire["_meta"] = dict(self.meta)
        return wire


def tool(
    fn: Callable[..., Any] | None = None,
    *,
    description: str | None = None,
    name: str | None = None,
    title: str | None = None,
    annotations: Mapping[str, Any] | None = None,
    output_schema: dict[str, Any] | None = None,
    input_schema_override: dict[str, Any] | None = None,
    safe_fields: tuple[str, ...] = (),
    meta: Mapping[str, Any] | None = None,
) -> Any:
    """Describe a tool. `description` (or the docstring) says when to use it and what it is not for.

    `input_schema_override` serves a hand-written JSON Schema verbatim (any 2020-12 keyword); arguments are then
    passed through unvalidated by pydantic. `safe_fields` names arguments whose values may appear in logs.
    """

    def wrap(func: Callable[..., Any]) -> ToolSpec:
        tool_name = name or func.__name__
        if not NAME_PATTERN.match(tool_name):
            raise ToolSignatureError(f"tool name '{tool_name}' must match {NAME_PATTERN.pattern}")
        text = (description or inspect.getdoc(func) or "").strip()
        if not text:
            raise ToolSignatureError(
                f"tool '{tool_name}' needs a description (when to use it, what it is not for)"
            )
        unknown = set(annotations or {}) - ANNOTATION_KEYS
        if unknown:
            raise ToolSignatureError(f"tool '{tool_name}': unknown annotations {sorted(unknown)}")
        model, context_param = arguments_model(func, f"{tool_name}_arguments")
        if input_schema_override is not None:
            if input_schema_override.get("type") != "object":
                raise ToolSignatureError(f"tool '{tool_name}': inputSchema must have type 'object'")
            schema, arguments = input_schema_override, None
        else:
            schema, arguments = input_schema(model), model
        return ToolSpec(
            name=tool_name,
            description=text,
            fn=func,
            arguments=arguments,
            input_schema=schema,
            context_param=context_param,
            is_async=inspect.iscoroutinefunction(func),
            title=title,
            annotations=annotations,
            output_schema=output_schema,
            meta=meta,
            safe_fields=frozenset(safe_fields),
            arguments_accepted=frozenset(p for p in inspect.signature(func).parameters if p != context_param),
        )

    return wrap(fn) if fn is not None else wrap
