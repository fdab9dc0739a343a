"""The @tool decorator: turns a typed function into a ToolSpec, without registering it anywhere."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from pydantic import BaseModel

from ..caller import SCOPE_TOKEN
from .rate_limits import parse_rate_limit
from .schema import ToolSignatureError, arguments_model, compiled_input_schema, input_schema

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
# Whether a call may run as a task (2026-07-28 `io.modelcontextprotocol/tasks`): never, the server's choice, always.
TaskSupport = Literal["forbidden", "optional", "required"]
TASK_SUPPORT: tuple[str, ...] = get_args(TaskSupport)
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
    # Exactly-once calls: as declared (None: every tool that is not read-only), and the window in which calls
    # without a key that carry the same arguments replay the first result (None: no dedupe of key-less calls).
    exactly_once: bool | None = None
    dedupe_window_seconds: int | None = None
    # OAuth scopes a caller must hold to see and call the tool (enforced when AUTH_MODE is jwt or apigateway).
    scopes: tuple[str, ...] = ()
    task: TaskSupport = "forbidden"
    # Runs in the request that would create the task: returns `input_required(...)` to ask first, or None.
    before_task: Callable[..., Any] | None = None
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

    @property
    def runs_exactly_once(self) -> bool:
        """A retry with the same key gets the first call's result: declared, else every tool but a read-only one."""
        if self.exactly_once is not None:
            return self.exactly_once
        return self.dedupe_window_seconds is not None or not self.read_only

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
    exactly_once: bool | None = None,
    dedupe_window_seconds: int | None = None,
    scopes: Sequence[str] = (),
    task: TaskSupport = "forbidden",
    before_task: Callable[..., Any] | None = None,
    rate_limit: str | None = None,
) -> Any:
    """Describe a tool. `description` (or the docstring) says when to use it and what it is not for.

    `read_only`, `destructive`, `idempotent` and `open_world` become the wire hints `readOnlyHint`,
    `destructiveHint`, `idempotentHint` and `openWorldHint` (left out when None). `title` is the tool's
    display name (`Tool.title`); `annotations={...}` is the older spelling of the hints, still accepted, and the
    only way to set the display name inside the annotations (`{"title": ...}`, read by 2025-03-26 clients).
    `input_schema_override` serves a hand-written JSON Schema verbatim (any 2020-12 keyword); arguments are then
    passed through unvalidated by pydantic. `safe_fields` names arguments whose values may appear in logs.
    `exactly_once` opts a tool in or out of exactly-once calls (default: every tool but a read-only one); a call
    carrying a key (`_meta` tool_call_id or the Idempotency-Key header) is then run once and its result replayed
    to retries. `dedupe_window_seconds` also replays calls without a key that repeat the same arguments within
    that many seconds.
    `scopes=["orders:write"]`: with OAuth on (AUTH_MODE jwt or apigateway) only a caller whose token grants every
    one of them sees the tool in tools/list; a call without them gets 403 `insufficient_scope` (a step-up).

    `task` says whether a call may run as a task (2026-07-28, a client that declares the
    `io.modelcontextprotocol/tasks` extension): `"forbidden"` (the default: always answered at once),
    `"optional"` (run as a task for such clients, synchronously for any other) or `"required"` (only as a task:
    other clients get -32021, session clients an error result). `before_task` is called like the tool (same
    arguments, same context parameter) in the request that would create the task; it returns
    `input_required(...)` to ask the client first (a multi round-trip round) or None to start the task, whose
    `ctx.input_responses` / `ctx.request_state` are then that last round's.

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
        compiled = compiled_input_schema(func, tool_name) if input_schema_override is None else None
        model, context_param = arguments_model(
            func, f"{tool_name}_arguments", defer_build=compiled is not None
        )
        if input_schema_override is not None:
            if input_schema_override.get("type") != "object":
                raise ToolSignatureError(f"tool '{tool_name}': inputSchema must have type 'object'")
            schema, arguments = input_schema_override, None
        else:
            schema, arguments = compiled if compiled is not None else input_schema(model), model
        accepted = frozenset(p for p in inspect.signature(func).parameters if p != context_param)
        if task not in TASK_SUPPORT:
            raise ToolSignatureError(f"tool '{tool_name}': task must be one of {', '.join(TASK_SUPPORT)}")
        if before_task is not None and (task == "forbidden" or not callable(before_task)):
            raise ToolSignatureError(
                f"tool '{tool_name}': before_task needs a callable and task= optional/required"
            )
        _check_safe_fields(tool_name, safe_fields, accepted | set(schema.get("properties") or {}))
        _check_exactly_once(tool_name, exactly_once, dedupe_window_seconds)
        required_scopes = _checked_scopes(tool_name, scopes)
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
            exactly_once=exactly_once,
            dedupe_window_seconds=dedupe_window_seconds,
            scopes=required_scopes,
            task=task,
            before_task=before_task,
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


def _check_exactly_once(tool_name: str, exactly_once: Any, window: Any) -> None:
    if exactly_once is not None and not isinstance(exactly_once, bool):
        raise ToolSignatureError(f"tool '{tool_name}': exactly_once must be True, False or None")
    if window is None:
        return
    if isinstance(window, bool) or not isinstance(window, int) or window < 1:
        raise ToolSignatureError(f"tool '{tool_name}': dedupe_window_seconds must be a whole number >= 1")
    if exactly_once is False:
        raise ToolSignatureError(f"tool '{tool_name}': dedupe_window_seconds needs exactly_once (not False)")
