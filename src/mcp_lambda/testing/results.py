"""What the kit hands back: the HTTP reply as the handler answered it, and typed views of MCP results."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..tools.results import META_EXECUTION_ID, META_REPLAY
from ..transport.sse import decode_sse
from .errors import ProtocolError


@dataclass(frozen=True)
class HttpReply:
    """One HTTP response, as a client on the other side of API Gateway (or of a URL) receives it.

    Attributes:
        status: The HTTP status code.
        headers: The response headers, names lower-cased.
        raw: The body bytes (base64 already decoded).
    """

    status: int
    headers: Mapping[str, str]
    raw: bytes

    @property
    def body(self) -> Any:
        """The body parsed as JSON; None for an empty body.

        Raises:
            ValueError: The body is not JSON (an SSE stream: read `messages`).
        """
        return json.loads(self.raw) if self.raw else None

    @property
    def messages(self) -> list[Any]:
        """The JSON-RPC messages of the body, in order: each SSE `data:` event, or the one JSON body (a batch's
        items)."""
        if self.headers.get("content-type", "").startswith("text/event-stream"):
            return decode_sse(self.raw)
        body = self.body
        return body if isinstance(body, list) else [] if body is None else [body]

    @property
    def error(self) -> dict[str, Any]:
        """The JSON-RPC `error` of a one-message JSON body.

        Raises:
            AssertionError: The body is not a JSON-RPC error.
        """
        body = self.body
        assert isinstance(body, dict) and "error" in body, f"expected a JSON-RPC error, got {self.raw!r}"
        return body["error"]

    @property
    def result(self) -> dict[str, Any]:
        """The JSON-RPC `result` of a one-message JSON body.

        Raises:
            AssertionError: The body is not a JSON-RPC result.
        """
        body = self.body
        assert isinstance(body, dict) and "result" in body, f"expected a JSON-RPC result, got {self.raw!r}"
        return body["result"]


def response_of(reply: HttpReply, request_id: int | str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The JSON-RPC result answering `request_id`, and the notifications sent before it.

    Raises:
        ProtocolError: The reply is a JSON-RPC error, a non-2xx status, or carries no answer to the request.
    """
    try:
        messages = reply.messages
    except ValueError:
        messages = []
    answer = next((m for m in messages if isinstance(m, dict) and m.get("id") == request_id), None)
    if answer is None:
        answer = next((m for m in messages if isinstance(m, dict) and "error" in m), None)
    notifications = [m for m in messages if isinstance(m, dict) and "id" not in m]
    if isinstance(answer, dict) and isinstance(answer.get("error"), dict):
        error = answer["error"]
        raise ProtocolError(
            str(error.get("message", "")),
            code=error.get("code") if isinstance(error.get("code"), int) else None,
            http_status=reply.status,
            data=error.get("data"),
            headers=reply.headers,
            raw=answer,
        )
    if reply.status >= 300 or not isinstance(answer, dict) or not isinstance(answer.get("result"), dict):
        raise ProtocolError(
            f"the server answered HTTP {reply.status} without a result",
            code=None,
            http_status=reply.status,
            headers=reply.headers,
            raw=messages[0] if len(messages) == 1 else messages or None,
        )
    return answer, notifications


@dataclass(frozen=True)
class RoundResult:
    """A result that may instead ask the client for input (a 2026-07-28 multi round-trip result).

    Attributes:
        raw: The whole JSON-RPC response message.
        notifications: The notifications (progress, log messages) the server sent before the answer.
        http_status: The HTTP status of the reply.
    """

    raw: dict[str, Any]
    notifications: list[dict[str, Any]] = field(default_factory=list)
    http_status: int = 200

    @property
    def result(self) -> dict[str, Any]:
        """The JSON-RPC `result` object."""
        return self.raw["result"]

    @property
    def result_type(self) -> str:
        """`complete`, `input_required` or `task` (a session-era result is always `complete`)."""
        return str(self.result.get("resultType", "complete"))

    @property
    def needs_input(self) -> bool:
        """Whether the server asks for input before it answers (answer with `McpTestClient.answer`)."""
        return self.result_type == "input_required"

    @property
    def input_requests(self) -> dict[str, dict[str, Any]]:
        """The input requests by key (`{"method": "elicitation/create", "params": {...}}`); empty if none."""
        return dict(self.result.get("inputRequests") or {})

    @property
    def request_state(self) -> str | None:
        """The signed state the next round must send back, if the server asked for input."""
        state = self.result.get("requestState")
        return state if isinstance(state, str) else None


@dataclass(frozen=True)
class ToolCallResult(RoundResult):
    """A `tools/call` answer: the tool's result, its error fields, or the input it asks for.

    Attributes:
        name: The tool called.
        arguments: The arguments it was called with (what `McpTestClient.answer` sends again).
    """

    name: str = ""
    arguments: dict[str, Any] = field(default_factory=dict)

    @property
    def content(self) -> list[dict[str, Any]]:
        """The MCP content blocks."""
        return list(self.result.get("content") or [])

    @property
    def structured_content(self) -> Any:
        """`structuredContent`, or None."""
        return self.result.get("structuredContent")

    @property
    def text(self) -> str:
        """The text of every text block, joined by newlines."""
        return "\n".join(b["text"] for b in self.content if b.get("type") == "text" and "text" in b)

    @property
    def is_error(self) -> bool:
        """Whether the tool answered its error branch (`isError: true`)."""
        return self.result.get("isError") is True

    @property
    def entities(self) -> list[dict[str, Any]]:
        """`structuredContent.entities` of an entities result; empty otherwise."""
        structured = self.structured_content
        found = structured.get("entities") if isinstance(structured, dict) else None
        return list(found) if isinstance(found, list) else []

    def _error_field(self, name: str) -> Any:
        structured = self.structured_content
        return structured.get(name) if self.is_error and isinstance(structured, dict) else None

    @property
    def code(self) -> int | None:
        """The error result's code (e.g. 40001), None for a success."""
        return self._error_field("code")

    @property
    def message(self) -> str | None:
        """The error result's message, None for a success."""
        return self._error_field("message")

    @property
    def retryable(self) -> bool | None:
        """Whether the error result says a retry may succeed, None for a success."""
        return self._error_field("retryable")

    @property
    def suggested_action(self) -> str | None:
        """The error result's advice (`fix_arguments`, `ask_user`, `wait_and_retry`, ...), None for a success."""
        return self._error_field("suggested_action")

    @property
    def retry_after_ms(self) -> int | None:
        """How long to wait before a retry, when the error result says so."""
        return self._error_field("retry_after_ms")

    @property
    def retry_strategy(self) -> dict[str, Any] | None:
        """A retryable error result's backoff (`{kind, base_ms, max_ms, attempts}`), None otherwise."""
        strategy = self._error_field("retry_strategy")
        return strategy if isinstance(strategy, dict) else None

    @property
    def result_status(self) -> str | None:
        """A success's `result_status` (`NO_MATCH_FOUND`, `PARTIAL`), None when it found what was asked for."""
        structured = self.structured_content
        found = structured.get("result_status") if isinstance(structured, dict) else None
        return found if isinstance(found, str) and not self.is_error else None

    @property
    def execution_id(self) -> str | None:
        """The call's execution id (`_meta`), the same for every retry of its tool_call_id."""
        meta = self.result.get("_meta")
        found = meta.get(META_EXECUTION_ID) if isinstance(meta, dict) else None
        return found if isinstance(found, str) else None

    @property
    def replayed(self) -> bool:
        """Whether the result is a replay of a stored one (its `_meta` carries the replay marker)."""
        meta = self.result.get("_meta")
        return isinstance(meta, dict) and META_REPLAY in meta

    @property
    def details(self) -> dict[str, Any] | None:
        """The error result's `details` (`business_error(..., details={...})`): what the agent can act on, as
        data; None for a success or an error without them."""
        details = self._error_field("details")
        return details if isinstance(details, dict) else None


@dataclass(frozen=True)
class PromptResult(RoundResult):
    """A `prompts/get` answer.

    Attributes:
        name: The prompt asked for.
        arguments: Its arguments (what `McpTestClient.answer` sends again).
    """

    name: str = ""
    arguments: dict[str, str] = field(default_factory=dict)

    @property
    def description(self) -> str | None:
        """The prompt's description."""
        return self.result.get("description")

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The prompt's messages (`{"role": ..., "content": {...}}`)."""
        return list(self.result.get("messages") or [])


@dataclass(frozen=True)
class ResourceResult(RoundResult):
    """A `resources/read` answer.

    Attributes:
        uri: The resource read.
    """

    uri: str = ""

    @property
    def contents(self) -> list[dict[str, Any]]:
        """The resource contents (`{"uri", "mimeType", "text" | "blob"}`)."""
        return list(self.result.get("contents") or [])

    @property
    def text(self) -> str:
        """The text of every text content, joined by newlines."""
        return "\n".join(c["text"] for c in self.contents if isinstance(c.get("text"), str))


@dataclass(frozen=True)
class Completion:
    """A `completion/complete` answer.

    Attributes:
        values: The suggested values (at most 100).
        total: How many the server found.
        has_more: Whether there were more than it sent.
    """

    values: list[str]
    total: int | None = None
    has_more: bool = False
