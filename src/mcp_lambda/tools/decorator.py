"""The @tool decorator: turns a typed function into a ToolSpec, without registering it anywhere."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, overload

from ..caller import SCOPE_TOKEN
from .error_schema import admitting_errors
from .options import (
    Access,
    CallLimits,
    ExactlyOnce,
    Quota,
    TaskConfig,
    ToolAnnotations,
    checked_visibility,
    exactly_once_fields,
    grouped_options,
    parse_rate_limit,
    task_fields,
    wire_annotations,
)
from .schema import ToolSignatureError, arguments_model, compiled_input_schema, optional_without_null
from .schema import input_schema as _schema_of
from .spec import P, R, ToolSpec

__all__ = ["NAME_PATTERN", "ToolSpec", "tool"]

NAME_PATTERN = re.compile(r"^[A-Za-z0-9_./-]{1,64}$")


@overload
def tool(fn: Callable[P, R], /) -> ToolSpec[P, R]: ...


@overload
def tool(
    *,
    description: str | None = None,
    name: str | None = None,
    title: str | None = None,
    annotations: ToolAnnotations | None = None,
    input_schema: dict[str, Any] | None = None,
    output_schema: dict[str, Any] | None = None,
    meta: Mapping[str, Any] | None = None,
    safe_fields: tuple[str, ...] = (),
    exactly_once: bool | ExactlyOnce | None = None,
    task: TaskConfig | None = None,
    limits: CallLimits | None = None,
    access: Access | None = None,
) -> Callable[[Callable[P, R]], ToolSpec[P, R]]: ...


def tool(
    fn: Callable[P, R] | None = None,
    /,
    *,
    description: str | None = None,
    name: str | None = None,
    title: str | None = None,
    annotations: ToolAnnotations | None = None,
    input_schema: dict[str, Any] | None = None,
    output_schema: dict[str, Any] | None = None,
    meta: Mapping[str, Any] | None = None,
    safe_fields: tuple[str, ...] = (),
    exactly_once: bool | ExactlyOnce | None = None,
    task: TaskConfig | None = None,
    limits: CallLimits | None = None,
    access: Access | None = None,
    **deprecated: Any,
) -> ToolSpec[P, R] | Callable[[Callable[P, R]], ToolSpec[P, R]]:
    """Describe a function as a tool: `@tool` alone, or `@tool(...)` with the keywords below.

    The input schema comes from the signature (a parameter typed `ToolContext` is the context, not an
    argument); arguments are validated strictly before the function runs. A tool runs until the request
    deadline (`ctx.remaining_ms()`) and is answered with error result 50400 past it: an `async def` tool is
    cancelled there, a plain `def` one is abandoned on its worker thread (its result dropped), so a long sync
    tool should watch `ctx.remaining_ms()` and call out only through `ctx.http`.

    Args:
        fn: The function, when used bare as `@tool`.
        description: When to use the tool and what it is not for; defaults to the docstring (one is needed).
        name: The wire name (`[A-Za-z0-9_./-]{1,64}`); defaults to the function's name.
        title: The display name (`Tool.title`).
        annotations: The hints a client may rely on, e.g. `ToolAnnotations(read_only=True)`.
        input_schema: A hand-written JSON Schema (any 2020-12 keyword, `"type": "object"`) served verbatim;
            the arguments are then passed through without pydantic validation.
        output_schema: The JSON Schema of a successful `structuredContent`, served in tools/list admitting the
            error object as well (docs/tools.md#error-results).
        meta: The tool's `_meta` in tools/list.
        safe_fields: Arguments whose values may appear in logs (all others are redacted).
        exactly_once: None: on for every tool that is not read-only; False: off; True or `ExactlyOnce()`: on;
            `ExactlyOnce(dedupe_window_seconds=60)`: also replays key-less calls with the same arguments.
        task: None: always answered at once; `TaskConfig(mode=..., before_start=...)`: may run as a task.
        limits: How often a caller may call it: `CallLimits(rate="5/second", quota="100/hour")`.
        access: Who may see and call it: `Access(scopes=["orders:write"], visibility=["app"])`.
        **deprecated: `rate_limit=`, `quota=`, `scopes=`, `visibility=` (before `limits` and `access`): still
            accepted in this release, with a DeprecationWarning.

    Returns:
        The ToolSpec (bare form), or a decorator that makes one (called form).

    Raises:
        ToolSignatureError: at import, naming the tool and the keyword that is wrong.
    """

    def wrap(func: Callable[P, R]) -> ToolSpec[P, R]:
        tool_name = name or func.__name__
        limits_, access_ = grouped_options(tool_name, limits, access, deprecated)
        if not NAME_PATTERN.match(tool_name):
            raise ToolSignatureError(f"tool name '{tool_name}' must match {NAME_PATTERN.pattern}")
        text = (description or inspect.getdoc(func) or "").strip()
        if not text:
            raise ToolSignatureError(
                f"tool '{tool_name}' needs a description (when to use it, what it is not for)"
            )
        compiled = compiled_input_schema(func, tool_name) if input_schema is None else None
        model, context_param = arguments_model(
            func, f"{tool_name}_arguments", defer_build=compiled is not None
        )
        if input_schema is not None:
            if input_schema.get("type") != "object":
                raise ToolSignatureError(f"tool '{tool_name}': input_schema must have type 'object'")
            schema, arguments = input_schema, None
        else:
            schema, arguments = compiled if compiled is not None else _schema_of(model), model
        accepted = frozenset(p for p in inspect.signature(func).parameters if p != context_param)
        task_support, before_task = task_fields(tool_name, task)
        declared_once, window = exactly_once_fields(tool_name, exactly_once)
        _check_safe_fields(tool_name, safe_fields, accepted | set(schema.get("properties") or {}))
        required_scopes = _checked_scopes(tool_name, access_.scopes)
        _check_rate(tool_name, "limits.rate", limits_.rate, "5/second", parse_rate_limit)
        _check_rate(tool_name, "limits.quota", limits_.quota, "100/hour", Quota.parse)
        declared_visibility = checked_visibility(tool_name, access_.visibility)
        return ToolSpec(
            name=tool_name,
            description=text,
            fn=func,
            arguments=arguments,
            input_schema=schema,
            context_param=context_param,
            is_async=inspect.iscoroutinefunction(func),
            title=title,
            annotations=wire_annotations(tool_name, annotations),
            output_schema=admitting_errors(output_schema) if output_schema is not None else None,
            meta=meta,
            safe_fields=frozenset(safe_fields),
            arguments_accepted=accepted,
            null_means_absent=optional_without_null(schema) if arguments is not None else frozenset(),
            exactly_once=declared_once,
            dedupe_window_seconds=window,
            scopes=required_scopes,
            task=task_support,
            before_task=before_task,
            rate_limit=limits_.rate,
            quota=limits_.quota,
            visibility=declared_visibility,
        )

    return wrap(fn) if fn is not None else wrap


def _check_rate(
    tool_name: str, keyword: str, rate: str | None, example: str, parse: Callable[[str], object]
) -> None:
    if rate is None:
        return
    try:
        parse(rate)
    except ValueError:
        raise ToolSignatureError(
            f"tool '{tool_name}': {keyword} {rate!r} is not a rate such as '{example}'"
        ) from None


def _checked_scopes(tool_name: str, scopes: Sequence[str]) -> tuple[str, ...]:
    if isinstance(scopes, str):
        raise ToolSignatureError(f"tool '{tool_name}': scopes must be a list of scope names, not one string")
    bad = [scope for scope in scopes if not isinstance(scope, str) or not SCOPE_TOKEN.match(scope)]
    if bad:
        raise ToolSignatureError(f"tool '{tool_name}': {bad!r} are not OAuth scope names (RFC 6749 §3.3)")
    return tuple(dict.fromkeys(scopes))


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
