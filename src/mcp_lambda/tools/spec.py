"""ToolSpec: a tool as the server serves it, typed like the function it wraps."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, ParamSpec, TypeVar

from pydantic import BaseModel

from ..inline import never_waits
from .options import TaskSupport

P = ParamSpec("P")
R = TypeVar("R")
# What MCP says a client must assume when a hint is left out.
HINT_DEFAULTS = {
    "readOnlyHint": False,
    "destructiveHint": True,
    "idempotentHint": False,
    "openWorldHint": True,
}


@dataclass(frozen=True)
class ToolSpec(Generic[P, R]):
    """A tool as the server serves it: wire metadata plus the function and its argument model.

    `@tool` builds it; a business lists it in `Business(tools=[...])`. It is typed like the function it wraps
    (`ToolSpec[P, R]`: the function's parameters and return type), and calling it calls the function, so a tool
    stays a plain function in unit tests and a type checker sees what it takes. The fields are the server's:
    a business reads at most the hint properties (`read_only`, ...) and `to_wire()`.
    """

    name: str
    description: str
    fn: Callable[P, R]
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
    # Optional arguments whose schema has no null: a null for one means "not given" (strict function-calling
    # modes send null for every argument left empty), so the function gets its default.
    null_means_absent: frozenset[str] = field(default_factory=frozenset)
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
    quota: str | None = None  # e.g. "100/hour": per caller, across the fleet (tools/quotas.py)
    # MCP Apps `_meta.ui.visibility` as declared (None: model and app); see `model_visible`.
    visibility: tuple[str, ...] | None = None
    # An `async def` that cannot wait and never reaches for the loop (`inline.never_waits`): it runs as one step
    # where the request is, without starting the event loop. Made from `fn` (again by `dataclasses.replace`).
    one_step: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "one_step", self.is_async and never_waits(self.fn))

    def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
        """Call the function with the same arguments, outside the server (no validation, no logging).

        Returns:
            What the function returns (for an `async def` tool, the coroutine).
        """
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
    def model_visible(self) -> bool:
        """The model may see and call the tool: visibility not declared, or declared with `"model"`."""
        return self.visibility is None or "model" in self.visibility

    @property
    def runs_exactly_once(self) -> bool:
        """A retry with the same key gets the first call's result: declared, else every tool but a read-only one."""
        if self.exactly_once is not None:
            return self.exactly_once
        return self.dedupe_window_seconds is not None or not self.read_only

    def to_wire(self) -> dict[str, Any]:
        """The tool's entry in tools/list.

        Returns:
            `{"name", "title"?, "description", "inputSchema", "outputSchema"?, "annotations"?, "_meta"?}`.
        """
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
