"""ToolResult and its builders: the three result shapes of the business contract (doubao-protocol.md §1).

A business builds its error results with `business_error`; the framework builds its own, with its reserved
`FRAMEWORK_CODES`, with `system_error`. Both give the same wire shape.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from enum import IntEnum, StrEnum
from typing import Any

import orjson
from pydantic import BaseModel, ConfigDict

from ..scoped import Scoped
from ..strict_json import strict_object
from .advice import DEFAULT_RETRY_AFTER_MS, SUGGESTED_ACTIONS, RetryStrategy, retry_hints

__all__ = [
    "DEFAULT_RETRY_AFTER_MS",
    "FRAMEWORK_CODES",
    "META_EXECUTION_ID",
    "META_REPLAY",
    "RESULT_STATUSES",
    "SUGGESTED_ACTIONS",
    "ResultCode",
    "ResultStatus",
    "RetryStrategy",
    "ToolResult",
    "business_error",
    "content_result",
    "entities",
    "error_advice",
    "execution_result",
    "retry_hints",
    "system_error",
    "text",
]


class ResultCode(IntEnum):
    """The framework's own result codes (an error result's `structuredContent.code`), reserved: `business_error`
    refuses them, so a client can tell "the framework refused or failed" from "the business said no" by the code
    alone. A business uses codes of its own (docs/errors.md lists what each of these means and what to do)."""

    INVALID_ARGUMENTS = 40000
    INPUT_REQUIRED_UNSUPPORTED = 40010
    TASK_REQUIRED_UNSUPPORTED = 40011
    KEY_REUSED = 40900  # exactly-once: the key was first used with other arguments
    CALL_IN_PROGRESS = 40910  # exactly-once: the key's first call is still running
    EGRESS_REFUSED = 40310  # ctx.http: a host or address the business did not declare (or never reached)
    RATE_LIMITED = 42900
    INTERNAL_ERROR = (
        50000  # the tool failed unexpectedly (not JSON-RPC's -32603, `mcp_lambda.wire.INTERNAL_ERROR`)
    )
    RESULT_VIOLATES_MANIFEST = 50010
    SECRET_UNAVAILABLE = 50020
    IDEMPOTENCY_STORE_UNAVAILABLE = (
        50030  # the exactly-once store cannot be reached: nothing ran, a retry is safe
    )
    CREDENTIAL_IN_RESULT = 50040  # the result carried a secret or the caller's token: withheld
    DOWNSTREAM_UNAVAILABLE = 50300
    DEADLINE_EXCEEDED = 50400


FRAMEWORK_CODES = frozenset(int(code) for code in ResultCode)

# The template's keys in a tools/call result's `_meta` (docs/tools.md, "Execution ids and replays"): the logical
# call's execution id, on every result; and on a replayed result only, `{"firstFinishedAt": <ISO time>}`.
META_EXECUTION_ID = "mcp-lambda/executionId"
META_REPLAY = "mcp-lambda/replay"


# Framework codes whose advice differs from their family's default (see `error_advice`).
_ADVICE: dict[int, tuple[bool, str]] = {
    ResultCode.INPUT_REQUIRED_UNSUPPORTED: (False, "skip_and_continue"),
    ResultCode.CALL_IN_PROGRESS: (True, "wait_and_retry"),
    ResultCode.TASK_REQUIRED_UNSUPPORTED: (False, "skip_and_continue"),
    ResultCode.RESULT_VIOLATES_MANIFEST: (False, "escalate_to_human"),
    ResultCode.SECRET_UNAVAILABLE: (False, "escalate_to_human"),
    ResultCode.EGRESS_REFUSED: (False, "escalate_to_human"),
    ResultCode.CREDENTIAL_IN_RESULT: (False, "escalate_to_human"),
}


def error_advice(code: int) -> tuple[bool, str]:
    """(retryable, suggested_action) by code: a framework code's own, else its family's.

    5xxxx: the server or a dependency failed, retry later. 429xx: too many calls, retry later. 404xx: the thing
    asked for is not there, ask the user. Any other code: the call itself was wrong, fix the arguments.
    """
    if code in _ADVICE:
        return _ADVICE[code]
    family = code // 100
    if 500 <= code // 100 <= 599:
        return True, "wait_and_retry"
    if family == 429:
        return True, "wait_and_retry"
    if family == 404:
        return False, "ask_user"
    return False, "fix_arguments"


class ResultStatus(StrEnum):
    """What a result that ran fine says about what it found: `structuredContent.result_status` (docs/tools.md).

    A result without one found what it was asked for. An agent branches on it instead of reading a title.
    """

    NO_MATCH_FOUND = "NO_MATCH_FOUND"  # the call ran fine and matched nothing
    PARTIAL = "PARTIAL"  # the call ran fine but answers part of what was asked (a source missing, a cut list)


RESULT_STATUSES = tuple(status.value for status in ResultStatus)


class ToolResult(BaseModel):
    """What a tool returns: MCP `CallToolResult` content, `structuredContent` and the error flag.

    Build one with `entities`, `execution_result`, `business_error` or `content_result` rather than by hand.
    """

    model_config = ConfigDict(frozen=True)

    # `[]`, not `default_factory=list`: pydantic copies a mutable default per instance, and reading `list`'s
    # signature (which pydantic does for a factory) compiles the tokenizer's regexes at start-up.
    content: list[dict[str, Any]] = []
    structured_content: Any = None
    is_error: bool = False
    # Set by `entities`: the server rewrites the text as `sentence` followed by the manifest's model-visible
    # projection (the builder cannot: only the manifest knows which fields the model may see). Never on the wire.
    sentence: str | None = None
    append_projection: bool = False
    # The result's `_meta`, set by the framework (the call's execution id, a replay's marker: docs/tools.md).
    meta: dict[str, Any] | None = None

    def to_wire(self) -> dict[str, Any]:
        """The result as tools/call answers it: `{"content", "structuredContent"?, "isError"?, "_meta"?}`."""
        wire: dict[str, Any] = {"content": list(self.content)}
        if self.structured_content is not None:
            wire["structuredContent"] = self.structured_content
        if self.is_error:
            wire["isError"] = True
        if self.meta:
            wire["_meta"] = dict(self.meta)
        return wire

    def with_meta(self, **entries: Any) -> ToolResult:
        """The same result with more `_meta` entries (the framework's: business code does not set `_meta`).

        Args:
            **entries: The `_meta` keys and values to add (or replace).

        Returns:
            A copy with those entries in `meta`.
        """
        return self.model_copy(update={"meta": {**(self.meta or {}), **entries}})

    def with_text(self, value: str, meta: Mapping[str, Any] | None = None) -> ToolResult:
        """The same result with its first text block's text replaced (the text the model reads).

        Args:
            value: The new text.
            meta: `_meta` entries to add in the same copy, as `with_meta` adds them (the framework's).

        Returns:
            A copy whose projection is settled (`append_projection` false).
        """
        content = list(self.content)
        index = next((i for i, block in enumerate(content) if block.get("type") == "text"), None)
        if index is None:
            content.insert(0, text(value))
        else:
            content[index] = {**content[index], "text": value}
        update: dict[str, Any] = {"content": content, "append_projection": False}
        if meta:
            update["meta"] = {**(self.meta or {}), **meta}
        return self.model_copy(update=update)


def text(value: str) -> dict[str, Any]:
    """A text content block, for `content_result` or a prompt message.

    Args:
        value: The text.

    Returns:
        `{"type": "text", "text": value}`.
    """
    return {"type": "text", "text": value}


# Made once: json.dumps with any option makes an encoder per call.
_TEXT_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))


def _json_text(value: Any) -> str:
    return _TEXT_JSON.encode(value)


# True while a tool runs in a server that rewrites the text of every `entities` result it returns (the sentence,
# then the manifest's model-visible projection: `manifest.visibility.with_model_text`). `entities` then writes the
# sentence alone where it would write the whole result as JSON only to have it replaced.
_TEXT_SET_BY_SERVER: ContextVar[bool] = ContextVar("text_set_by_server", default=False)


def text_set_by_server() -> Scoped[bool]:
    """`with text_set_by_server():` around a tool whose `entities` results the server gives their text (the
    executor, when it has the manifest's view); outside it, `entities` writes the sentence and the whole result."""
    return Scoped(_TEXT_SET_BY_SERVER, True)


def entities(
    items: Sequence[Mapping[str, Any]],
    text: str | None = None,
    *,
    append_projection: bool = True,
    result_status: ResultStatus | str | None = None,
) -> ToolResult:
    """An `entities` result: the things the tool found, as its manifest declares them (shown as cards).

    The text the model reads is `text` followed, on the next line, by the model-visible projection of the
    entities as compact JSON (the fields the manifest declares and does not mark `llm_visible: false`), so an
    agent that reads only text still sees the ids it passes to other tools (docs/manifest.md). The server writes
    that text when the tool returns; until then the result's text is `text` and the whole result as JSON (called
    directly, as in a tool's unit test, or served without a manifest), or `text` alone while a server with the
    manifest runs the tool.

    Args:
        items: The entities, each with its `entity_type` and fields.
        text: The business's sentence, what the model reads first.
        append_projection: False when `text` already carries every id the model needs: the text is then
            `text` alone (a host that reads only text sees nothing more).
        result_status: `ResultStatus.NO_MATCH_FOUND` when the call ran fine and matched nothing,
            `ResultStatus.PARTIAL` when it answers only part of what was asked; None when it found what it was
            asked for.

    Returns:
        A result with `structuredContent = {"entities": [...], "result_status"?}`.

    Raises:
        ValueError: `append_projection` is false and no `text` is given, or `result_status` is not a
            `ResultStatus`.
    """
    if not append_projection and text is None:
        raise ValueError("entities(append_projection=False) needs the text the model reads")
    structured: dict[str, Any] = {"entities": [dict(item) for item in items]}
    structured.update(_status_field(result_status))
    if text is not None and not append_projection:
        shown = text
    elif (
        _TEXT_SET_BY_SERVER.get()
    ):  # the server writes the sentence and the projection: no text to throw away
        shown = text or ""
    else:  # until a server applies the manifest, nothing is known to be hidden: the sentence and the whole result
        shown = sentence_and_json(text, structured)
    return ToolResult(
        content=[{"type": "text", "text": shown}],
        structured_content=structured,
        sentence=text,
        append_projection=append_projection,
    )


def execution_result(
    result: Mapping[str, Any], text: str | None = None, *, result_status: ResultStatus | str | None = None
) -> ToolResult:
    """An `execution_result`: the outcome of an action (no entities, never a card).

    Args:
        result: The action's own result object, e.g. `{"success": True, "message": "Saved."}`.
        text: What the model reads first; defaults to the result as JSON.
        result_status: As for `entities`: `NO_MATCH_FOUND` or `PARTIAL`, set as `structuredContent.result_status`.

    Returns:
        A result with `structuredContent = result` (and its `result_status`).

    Raises:
        ValueError: `result_status` is not a `ResultStatus`.
    """
    structured = {**dict(result), **_status_field(result_status)}
    return ToolResult(content=[_text_block(text, structured)], structured_content=structured)


def _status_field(status: ResultStatus | str | None) -> dict[str, str]:
    if status is None:
        return {}
    if status not in RESULT_STATUSES:
        raise ValueError(f"result_status must be one of {', '.join(RESULT_STATUSES)}")
    return {"result_status": str(ResultStatus(status).value)}


def business_error(
    code: int,
    message: str,
    *,
    retryable: bool | None = None,
    retry_after_ms: int | None = None,
    suggested_action: str | None = None,
    details: Mapping[str, Any] | None = None,
    retry_strategy: RetryStrategy | Mapping[str, Any] | None = None,
) -> ToolResult:
    """A business's error result: `isError: true` and `structuredContent = {code, message, retryable,
    suggested_action, retry_after_ms, retry_strategy?, details?}`.

    What is not given comes from the code's family (`error_advice`); `retry_after_ms` is always there (default
    1000 when retryable, 0 when retrying will not help), and a retryable error also carries `retry_strategy`
    (default: exponential backoff from `retry_after_ms`, docs/errors.md).

    Args:
        code: The business's own code; any int but the framework's reserved `FRAMEWORK_CODES`.
        message: What the model and the user read (also the text content).
        retryable: Whether calling again may succeed; default by code family.
        retry_after_ms: How long to wait before a retry (an int >= 0).
        suggested_action: One of `SUGGESTED_ACTIONS`; default by code family and `retryable`.
        details: What the agent can act on, as data rather than prose (the free slots, the nearest valid
            value): a JSON object with string keys and strict JSON values, sent as `structuredContent.details`.
        retry_strategy: The backoff a retryable error asks for, e.g. `{"base_ms": 500, "max_ms": 8000,
            "attempts": 4}` (`kind` `exponential_backoff`, the default, or `fixed`); default exponential from
            `retry_after_ms` up to 30 s.

    Returns:
        The error-branch ToolResult.

    Raises:
        ValueError: `code` is a framework code, the advice is not one the contract knows, or `details` is not
            strict JSON (NaN, a set, a non-string key...).
        TypeError: `code` is not an int, or `details` is not a mapping.
    """
    if _int_code(code, "business_error") in FRAMEWORK_CODES:
        raise ValueError(
            f"business_error code {code} is reserved for the framework's own errors "
            f"({', '.join(map(str, sorted(FRAMEWORK_CODES)))}); use a code of the business's own"
        )
    fields = {"details": strict_object(details, "business_error details")} if details is not None else None
    strategy = RetryStrategy(**retry_strategy) if isinstance(retry_strategy, Mapping) else retry_strategy
    return _error_result(code, message, retryable, retry_after_ms, suggested_action, fields, strategy)


def system_error(
    code: int,
    message: str,
    *,
    retryable: bool | None = None,
    retry_after_ms: int | None = None,
    suggested_action: str | None = None,
    fields: Mapping[str, Any] | None = None,
    retry_strategy: RetryStrategy | None = None,
) -> ToolResult:
    """The framework's own error result: the wire shape of `business_error`, with a reserved code.

    For the framework's code only (the executor, the exactly-once calls, the eras); a business answers with
    `business_error`, and this is not part of the `mcp_lambda.tools` API.

    Args:
        code: One of `FRAMEWORK_CODES`.
        message: What the model and the user read (also the text content).
        retryable: Whether calling again may succeed; default by code (`error_advice`).
        retry_after_ms: How long to wait before a retry (an int >= 0).
        suggested_action: One of `SUGGESTED_ACTIONS`; default by code and `retryable`.
        fields: More fields of `structuredContent` that say what was refused (e.g. `{"quota": "20/hour"}`);
            they never replace the fields above.
        retry_strategy: The backoff a retryable error asks for; default exponential from `retry_after_ms`.

    Returns:
        The error-branch ToolResult.

    Raises:
        ValueError: `code` is not a framework code, or the advice is not one the contract knows.
        TypeError: `code` is not an int.
    """
    if _int_code(code, "system_error") not in FRAMEWORK_CODES:
        raise ValueError(f"system_error code {code} is not a framework code; a business uses business_error")
    return _error_result(code, message, retryable, retry_after_ms, suggested_action, fields, retry_strategy)


def _int_code(code: Any, builder: str) -> int:
    if isinstance(code, bool) or not isinstance(code, int):
        raise TypeError(f"{builder} code must be an int")
    return int(code)


def _error_result(
    code: int,
    message: str,
    retryable: bool | None,
    retry_after_ms: int | None,
    suggested_action: str | None,
    fields: Mapping[str, Any] | None = None,
    strategy: RetryStrategy | None = None,
) -> ToolResult:
    default_retryable, default_action = error_advice(code)
    retryable = default_retryable if retryable is None else retryable
    action = suggested_action
    if action is None:
        # Overriding `retryable` against the family changes what the agent should do as well.
        action = default_action if retryable == default_retryable else _action_for(retryable)
    if action not in SUGGESTED_ACTIONS:
        raise ValueError(f"suggested_action must be one of {', '.join(SUGGESTED_ACTIONS)}")
    hints = retry_hints(retryable, retry_after_ms, strategy)
    structured: dict[str, Any] = {
        "code": code,
        "message": message,
        "retryable": retryable,
        "suggested_action": action,
        **hints,
    }
    for key, value in (fields or {}).items():
        structured.setdefault(key, value)
    return ToolResult(
        content=[{"type": "text", "text": message}], structured_content=structured, is_error=True
    )


def _action_for(retryable: bool) -> str:
    return "wait_and_retry" if retryable else "escalate_to_human"


def content_result(
    *blocks: Mapping[str, Any], structured_content: Any = None, is_error: bool = False
) -> ToolResult:
    """A result made of raw MCP content blocks, for a tool outside the manifest's result contract.

    Args:
        *blocks: The content blocks (`text(...)`, image, audio, resource, resource_link).
        structured_content: The `structuredContent`, if any.
        is_error: Mark the result as an error (`isError: true`).

    Returns:
        The result.
    """
    return ToolResult(
        content=[dict(b) for b in blocks], structured_content=structured_content, is_error=is_error
    )


def sentence_and_json(sentence: str | None, value: Any) -> str:
    """An `entities` result's text: the sentence (when given) and, on the next line, `value` as compact JSON.

    Args:
        sentence: The business's sentence, or None.
        value: What the model may see of the result.

    Returns:
        The text block's text.
    """
    try:  # on every entities result: orjson is several times faster, with the same compact text
        encoded = orjson.dumps(value).decode()
    except (TypeError, orjson.JSONEncodeError):  # a key that is not a string (slower to ask for every time)
        try:
            encoded = orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
        except (TypeError, orjson.JSONEncodeError):  # not JSON: the executor's strict-JSON check says where
            encoded = _json_text(value)
    return encoded if sentence is None else f"{sentence}\n{encoded}"


def _text_block(value: str | None, structured: Any) -> dict[str, Any]:
    # MCP asks servers to mirror structuredContent as text when no summary is given.
    return {"type": "text", "text": value if value is not None else _json_text(structured)}
