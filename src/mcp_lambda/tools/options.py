"""The small typed objects @tool takes: ToolAnnotations, ExactlyOnce, TaskConfig, CallLimits and Access, and their
checks."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from .schema import ToolSignatureError

# Whether a call may run as a task (2026-07-28 `io.modelcontextprotocol/tasks`): never, the server's choice, always.
TaskSupport = Literal["forbidden", "optional", "required"]
TASK_MODES = ("optional", "required")
# Who may see and call a tool (MCP Apps `_meta.ui.visibility`): the model, the card view in the host, or both.
VISIBILITY_VALUES = ("model", "app")
# Each typed hint and its wire key, in the order the spec lists them (and the wire carries them).
HINT_OF_FIELD = {
    "read_only": "readOnlyHint",
    "destructive": "destructiveHint",
    "idempotent": "idempotentHint",
    "open_world": "openWorldHint",
}


@dataclass(frozen=True)
class ToolAnnotations:
    """What a client may assume about a tool: the MCP `annotations` hints, each left out when None.

    Example: `@tool(annotations=ToolAnnotations(read_only=True, open_world=False))`. A hint a tool leaves out
    means what MCP says a client must assume: not read-only, destructive, not idempotent, open world.

    Args:
        title: The display name inside `annotations` (read by 2025-03-26 clients; newer ones read `title=`).
        read_only: The tool only reads (`readOnlyHint`); a read-only tool is not exactly-once by default.
        destructive: The tool may destroy data (`destructiveHint`); meaningful only when not read-only.
        idempotent: Repeating a call with the same arguments has no further effect (`idempotentHint`).
        open_world: The tool reaches systems outside this server's own (`openWorldHint`).
    """

    title: str | None = None
    read_only: bool | None = None
    destructive: bool | None = None
    idempotent: bool | None = None
    open_world: bool | None = None

    def to_wire(self) -> dict[str, Any] | None:
        """The wire `annotations` object: the declared hints in spec order, or None when nothing is declared.

        Returns:
            `{"title": ..., "readOnlyHint": ..., ...}` with only the declared keys, or None.
        """
        wire: dict[str, Any] = {} if self.title is None else {"title": self.title}
        for field_name, key in HINT_OF_FIELD.items():
            value = getattr(self, field_name)
            if value is not None:
                wire[key] = value
        return wire or None


@dataclass(frozen=True)
class ExactlyOnce:
    """Exactly-once calls, turned on: a call carrying a key is run once and its result replayed to retries.

    The key is the call's `_meta` tool_call_id or the Idempotency-Key header. Example:
    `@tool(exactly_once=ExactlyOnce(dedupe_window_seconds=60))`.

    Args:
        dedupe_window_seconds: Also replay the first result to calls without a key that carry the same
            arguments within this many seconds (a whole number >= 1); None: key-less calls always run.
    """

    dedupe_window_seconds: int | None = None


@dataclass(frozen=True)
class TaskConfig:
    """A tool that may run as a task (2026-07-28, for a client declaring `io.modelcontextprotocol/tasks`).

    Example: `@tool(task=TaskConfig(mode="required", before_start=ask_first))`.

    Args:
        mode: `"optional"`: run as a task for such clients, synchronously for any other; `"required"`: only
            as a task (other clients get -32021, session clients an error result).
        before_start: Called like the tool (same arguments, same context parameter) in the request that would
            create the task; returns `input_required(...)` to ask the client first, or None to start the task,
            whose `ctx.input_responses` / `ctx.request_state` are then that last round's.
    """

    mode: Literal["optional", "required"] = "optional"
    before_start: Callable[..., Any] | None = None


@dataclass(frozen=True)
class CallLimits:
    """How often a caller may call the tool. Example: `@tool(limits=CallLimits(rate="5/second", quota="100/hour"))`.

    Args:
        rate: e.g. `"5/second"` (any `limits` notation): a caller over it gets error result 42900, counted per
            caller and per container, behind the API's own throttling.
        quota: e.g. `"100/hour"` ("N/period", one `limits` rate): at most N calls per caller principal
            (anonymous callers share one count) in each window of the period, aligned to the epoch, counted by
            every container together (`PROTECTION_STORE`); over it, error result 42900 with `retry_after_ms`
            until the window ends. `TOOL_QUOTAS` overrides it without a code change. Checked after `rate`.
    """

    rate: str | None = None
    quota: str | None = None


@dataclass(frozen=True)
class Access:
    """Who may see and call the tool. Example: `@tool(access=Access(scopes=["orders:write"]))`.

    Args:
        scopes: OAuth scopes a caller must hold (AUTH_MODE jwt or apigateway) to see and call the tool; a call
            without them gets 403 `insufficient_scope`.
        visibility: Who may see and call the tool on an MCP Apps host (`_meta.ui.visibility`): None (both),
            `["app"]` for a card action only the card's view calls (hidden from the model: a client that did not
            declare the MCP Apps extension neither lists nor calls it), or `["model", "app"]` (docs/cards.md).
    """

    scopes: Sequence[str] = ()
    visibility: Sequence[str] | None = None


# The keywords `@tool` grouped in 0.1.0 (issue 38), still accepted for one release with a DeprecationWarning.
GROUPED_KEYWORDS = {
    "rate_limit": ("limits", "CallLimits(rate=...)"),
    "quota": ("limits", "CallLimits(quota=...)"),
    "scopes": ("access", "Access(scopes=...)"),
    "visibility": ("access", "Access(visibility=...)"),
}


def grouped_options(
    tool_name: str, limits: object, access: object, old: dict[str, Any]
) -> tuple[CallLimits, Access]:
    """`limits` and `access` as given, or built from the old keywords (`quota=`, ...) with a DeprecationWarning.

    Args:
        tool_name: The tool, for the messages.
        limits: The `limits` keyword (None: not given).
        access: The `access` keyword (None: not given).
        old: Any other keywords `@tool` was given.

    Returns:
        The limits and the access rules.

    Raises:
        TypeError: A keyword `@tool` never had.
        ToolSignatureError: `limits`/`access` of the wrong type, or given together with an old spelling.
    """
    unknown = [keyword for keyword in old if keyword not in GROUPED_KEYWORDS]
    if unknown:
        raise TypeError(f"tool() got an unexpected keyword argument {unknown[0]!r}")
    for keyword in old:
        group, spelling = GROUPED_KEYWORDS[keyword]
        if (limits if group == "limits" else access) is not None:
            raise ToolSignatureError(f"tool '{tool_name}': give {keyword} inside {group}=, not beside it")
        warnings.warn(
            f"@tool({keyword}=...) is deprecated and goes in the next release: use {group}={spelling}",
            DeprecationWarning,
            stacklevel=3,
        )
    if limits is None:
        limits = CallLimits(rate=old.get("rate_limit"), quota=old.get("quota"))
    if access is None:
        access = Access(scopes=old.get("scopes", ()), visibility=old.get("visibility"))
    if not isinstance(limits, CallLimits):
        raise ToolSignatureError(f"tool '{tool_name}': limits must be a CallLimits(rate=..., quota=...)")
    if not isinstance(access, Access):
        raise ToolSignatureError(f"tool '{tool_name}': access must be an Access(scopes=..., visibility=...)")
    return limits, access


def wire_annotations(tool_name: str, annotations: object) -> dict[str, Any] | None:
    """The wire `annotations` of a tool, after checking each declared hint's type.

    Raises:
        ToolSignatureError: `annotations` is not a ToolAnnotations, or one of its fields has the wrong type.
    """
    if annotations is None:
        return None
    if not isinstance(annotations, ToolAnnotations):
        raise ToolSignatureError(f"tool '{tool_name}': annotations must be a ToolAnnotations(...) or None")
    if annotations.title is not None and not isinstance(annotations.title, str):
        raise ToolSignatureError(f"tool '{tool_name}': annotations title must be a string")
    for field_name in HINT_OF_FIELD:
        if not isinstance(getattr(annotations, field_name), bool | None):
            raise ToolSignatureError(
                f"tool '{tool_name}': annotations {field_name} must be True, False or None"
            )
    return annotations.to_wire()


def exactly_once_fields(tool_name: str, exactly_once: object) -> tuple[bool | None, int | None]:
    """`exactly_once=` as the spec keeps it: (declared on/off or None for the default, dedupe window).

    Raises:
        ToolSignatureError: not a bool, an ExactlyOnce or None, or a window that is not a whole number >= 1.
    """
    if exactly_once is None or isinstance(exactly_once, bool):
        return exactly_once, None
    if not isinstance(exactly_once, ExactlyOnce):
        raise ToolSignatureError(
            f"tool '{tool_name}': exactly_once must be True, False, an ExactlyOnce(...) or None"
        )
    window = exactly_once.dedupe_window_seconds
    if window is not None and (isinstance(window, bool) or not isinstance(window, int) or window < 1):
        raise ToolSignatureError(
            f"tool '{tool_name}': exactly_once dedupe_window_seconds must be a whole number >= 1"
        )
    return True, window


def task_fields(tool_name: str, task: object) -> tuple[TaskSupport, Callable[..., Any] | None]:
    """`task=` as the spec keeps it: (task support, the hook run before the task starts).

    Raises:
        ToolSignatureError: not a TaskConfig or None, an unknown mode, or a before_start that is not callable.
    """
    if task is None:
        return "forbidden", None
    if not isinstance(task, TaskConfig):
        raise ToolSignatureError(f"tool '{tool_name}': task must be a TaskConfig(...) or None")
    if task.mode not in TASK_MODES:
        raise ToolSignatureError(f"tool '{tool_name}': task mode must be one of {', '.join(TASK_MODES)}")
    if task.before_start is not None and not callable(task.before_start):
        raise ToolSignatureError(f"tool '{tool_name}': task before_start must be a function")
    return task.mode, task.before_start


def checked_visibility(tool_name: str, visibility: object) -> tuple[str, ...] | None:
    """`@tool(access=Access(visibility=...))` as the spec keeps it: None (not declared: model and app) or a tuple of values.

    Raises:
        ToolSignatureError: not a list of "model" / "app", empty, or one string.
    """
    if visibility is None:
        return None
    if isinstance(visibility, str) or not isinstance(visibility, Sequence):
        raise ToolSignatureError(
            f'tool \'{tool_name}\': visibility must be a list such as ["app"] or ["model", "app"]'
        )
    values = tuple(dict.fromkeys(visibility))
    if not values or any(value not in VISIBILITY_VALUES for value in values):
        raise ToolSignatureError(
            f"tool '{tool_name}': visibility must name one or both of {', '.join(VISIBILITY_VALUES)}"
        )
    return values


# The `limits` notation of one rate (limits.util.SINGLE_EXPR) and its granularities' lengths (months of 30 days,
# years of 12 such months, as `limits` counts them); tests/unit/test_quotas.py pins both against `limits`.
GRANULARITY_SECONDS = {
    "second": 1,
    "minute": 60,
    "hour": 3600,
    "day": 86_400,
    "month": 30 * 86_400,
    "year": 12 * 30 * 86_400,
}
_RATE = re.compile(
    r"^\s*([0-9]+)\s*(?:/|\s*per\s*)\s*([0-9]+)?\s*(second|minute|hour|day|month|year)s?\s*$", re.IGNORECASE
)


@dataclass(frozen=True)
class Quota:
    """A quota: at most `limit` calls per caller in each window of `window_seconds`, aligned to the epoch.

    Args:
        text: As declared ("100/hour"), shown to the caller over it.
        limit: Calls allowed per window.
        window_seconds: The window's length.
    """

    text: str
    limit: int
    window_seconds: int

    @classmethod
    def parse(cls, text: str) -> Quota:
        """The quota "N/period" describes: one rate in the `limits` notation ("20/hour", "1000 per day",
        "50 per 2 hours"), read without importing `limits` (which would add to every cold start).

        Raises:
            ValueError: Not such a rate, or one allowing no call.
        """
        match = _RATE.match(text) if isinstance(text, str) else None
        if match is None:
            raise ValueError("a quota is one rate such as '100/hour'")
        amount, multiples, granularity = match.groups()
        if int(amount) < 1 or (multiples is not None and int(multiples) < 1):
            raise ValueError("a quota allows at least one call per period")
        seconds = GRANULARITY_SECONDS[granularity.lower()]
        return cls(text, int(amount), seconds * int(multiples or 1))

    def window(self, now: float) -> tuple[int, int]:
        """(start, end) in epoch seconds of the window holding `now`."""
        start = int(now // self.window_seconds) * self.window_seconds
        return start, start + self.window_seconds


def parse_rate_limit(text: str) -> Any:
    """The `limits` item for "5/second", "100 per minute", ...; ValueError when it is not one."""
    from limits import parse  # imported only by businesses that declare a limit (it adds to the cold start)

    if not isinstance(text, str):
        raise ValueError("rate_limit must be a string such as '5/second'")
    return parse(text)
