"""The @tool decorator: turns a typed function into a ToolSpec, without registering it anywhere."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from .rate_limits import parse_rate_limit
from .schema import ToolSignatureError, arguments_model, input_schema

NAME_PATTERN = re.compile(r"^[A-Za-z0-9_./-]{1,64}$")
# The wire hint each typed keyword of @tool sets, in the order they appear on the wire.
HINT_OF_KEYWORD = {
    "read_only": "readOnlyHint",
    "destructive": "destructiveHint",
    "idempotent": "idempotentHint",
    "open_world": "openWorldHint",
}
ANNOTATION_KEYS = ("title", *HINT_OF_KEYWORD.values())
# What MCP says a client must assume when a hint is left out.
HINT_DEFAULTS = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}


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
    rate_limit: str | None = None  # e.g. "5/second": per caller, per container (tools/rate_limits.py)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Calling the spec calls the function, so tools stay plain functions in unit tests."""
        return self.fn(*args, **kwargs)

    def _hint(self, key: str) -> bool:
        value = (self.annotations or {}).get(key)
        return HINT_DEFAULTS[key] if value is None else bool(value)

    @property
    def read_only(self) -> bool:
        """The tool only reads (`readOnlyHint`); false unless declared."""
        return self._hint("readOnlyHint")

    @property
    def destructive(self) -> bool:
        """The tool may destroy data (`destructiveHint`); true unless declared, false for a read-only tool."""
        return not self.read_only and self._hint("destructiveHint")

    @property
    def idempotent(self) -> bool:
        """Repeating a call with the same arguments has no further effect (`idempotentHint`); false unless declared."""
        return self._hint("idempotentHint")

    @property
    def open_world(self) -> bool:
        """The tool reaches outside systems (`openWorldHint`); true unless declared."""
        return self._hint("openWorldHint")

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
    read_only: bool | None = None,
    destructive: bool | None = None,
    idempotent: bool | None = None,
    open_world: bool | None = None,
    annotations: Mapping[str, Any] | None = None,
    output_schema: dict[str, Any] | None = None,
    input_schema_override: dict[str, Any] | None = None,
    safe_fields: tuple[str, ...] = (),
    meta: Mapping[str, Any] | None = None,
    rate_limit: str | None = None,
) -> Any:
    """Describe a tool. `description` (or the docstring) says when to use it and what it is not for.

    `read_only`, `destructive`, `idempotent` and `open_world` become the wire hints `readOnlyHint`,
    `destructiveHint`, `idempotentHint` and `openWorldHint` (left out when None). `title` is the tool's
    display name (`Tool.title`); `annotations={...}` is the older spelling of the hints, still accepted, and the
    only way to set the display name inside the annotations (`{"title": ...}`, read by 2025-03-26 clients).
    `input_schema_override` serves a hand-written JSON Schema verbatim (any 2020-12 keyword); arguments are then
    passed through unvalidated by pydantic. `safe_fields` names arguments whose values may appear in logs.
    `rate_limit="5/second"` (any `limits` notation) answers a caller over that rate with error result 42900; it is
    counted per caller and per container, a guard behind the API's own throttling.

    A tool runs until the request deadline (`ctx.remaining_ms()`); one still running then is answered with error
    result 50400. An `async def` tool is cancelled there; a plain `def` tool runs on a worker thread, which is
    abandoned: it finishes unobserved (in Lambda, frozen between invocations) and its result is dropped, so a
    long sync tool should watch `ctx.remaining_ms()` and call out only through `ctx.http`, whose timeouts the
    deadline caps.
    """
    hints = {
        "read_only": read_only,
        "destructive": destructive,
        "idempotent": idempotent,
        "open_world": open_world,
    }

    def wrap(func: Callable[..., Any]) -> ToolSpec:
        tool_name = name or func.__name__
        if not NAME_PATTERN.match(tool_name):
            raise ToolSignatureError(f"tool name '{tool_name}' must match {NAME_PATTERN.pattern}")
        text = (description or inspect.getdoc(func) or "").strip()
        if not text:
            raise ToolSignatureError(
                f"tool '{tool_name}' needs a description (when to use it, what it is not for)"
            )
        model, context_param = arguments_model(func, f"{tool_name}_arguments")
        if input_schema_override is not None:
            if input_schema_override.get("type") != "object":
                raise ToolSignatureError(f"tool '{tool_name}': inputSchema must have type 'object'")
            schema, arguments = input_schema_override, None
        else:
            schema, arguments = input_schema(model), model
        accepted = frozenset(p for p in inspect.signature(func).parameters if p != context_param)
        _check_safe_fields(tool_name, safe_fields, accepted | set(schema.get("properties") or {}))
        if rate_limit is not None:
            try:
                parse_rate_limit(rate_limit)
            except ValueError:
                raise ToolSignatureError(
                    f"tool '{tool_name}': rate_limit {rate_limit!r} is not a rate such as '5/second'"
                ) from None
        return ToolSpec(
            name=tool_name,
            description=text,
            fn=func,
            arguments=arguments,
            input_schema=schema,
            context_param=context_param,
            is_async=inspect.iscoroutinefunction(func),
            title=title,
            annotations=_wire_annotations(tool_name, annotations, hints),
            output_schema=output_schema,
            meta=meta,
            safe_fields=frozenset(safe_fields),
            arguments_accepted=accepted,
            rate_limit=rate_limit,
        )

    return wrap(fn) if fn is not None else wrap


def _wire_annotations(
    tool_name: str, legacy: Mapping[str, Any] | None, hints: Mapping[str, bool | None]
) -> dict[str, Any] | None:
    """The wire `annotations`: the typed keywords merged with the older mapping, in the spec's key order."""
    given = dict(legacy or {})
    unknown = set(given) - set(ANNOTATION_KEYS)
    if unknown:
        raise ToolSignatureError(f"tool '{tool_name}': unknown annotations {sorted(unknown)}")
    if "title" in given and not isinstance(given["title"], str):
        raise ToolSignatureError(f"tool '{tool_name}': annotations['title'] must be a string")
    for keyword, key in HINT_OF_KEYWORD.items():
        value = hints[keyword]
        if key in given and not isinstance(given[key], bool):
            raise ToolSignatureError(f"tool '{tool_name}': annotations['{key}'] must be true or false")
        if value is None:
            continue
        if not isinstance(value, bool):
            raise ToolSignatureError(f"tool '{tool_name}': {keyword} must be True, False or None")
        if key in given and given[key] != value:
            raise ToolSignatureError(
                f"tool '{tool_name}': {keyword}={value} contradicts annotations['{key}']"
            )
        given[key] = value
    ordered = {key: given[key] for key in ANNOTATION_KEYS if key in given}
    return ordered or None


def _check_safe_fields(
    tool_name: str, safe_fields: tuple[str, ...], arguments: set[str] | frozenset[str]
) -> None:
    if isinstance(safe_fields, str):
        raise ToolSignatureError(f"tool '{tool_name}': safe_fields must be a tuple of names, not one string")
    unknown = [field_name for field_name in safe_fields if field_name not in arguments]
    if unknown:
        raise ToolSignatureError(
            f"tool '{tool_name}': safe_fields names {', '.join(map(repr, unknown))}, not an argument of the tool"
        )
