"""JSON-RPC 2.0 messages: classification, validation and error values."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..errors import RequestRefused
from ..tools.advice import retry_hints
from ..wire import INVALID_REQUEST, SERVICE_UNAVAILABLE

RequestId = str | int


class RpcError(RequestRefused):
    """The one error type of the protocol layer: a JSON-RPC error, and the HTTP status and headers to send it with.

    `http_status` None means "the era decides" (200 in a session, `mcp_lambda.wire.HTTP_STATUS_OF_CODE` at 2026-07-28).
    """

    def __init__(
        self,
        code: int,
        message: str,
        data: Any = None,
        http_status: int | None = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data
        self.http_status = http_status
        self.headers = headers or {}

    def to_error(self) -> dict[str, Any]:
        error: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            error["data"] = self.data
        return error


def retry_data(retry_after_seconds: int) -> dict[str, Any]:
    """A retryable refusal's JSON-RPC error `data`: the hints a tool's error result carries (docs/errors.md).

    Args:
        retry_after_seconds: What `Retry-After` says.

    Returns:
        `{"retryable": true, "suggested_action": "wait_and_retry", "retry_after_ms", "retry_strategy"}`.
    """
    return {"suggested_action": "wait_and_retry", **retry_hints(True, retry_after_seconds * 1000)}


def retry_later(code: int, message: str, http_status: int, retry_after_seconds: int) -> RpcError:
    """A refusal the client may retry (an overload, a quota, a store down): `Retry-After`, and the same advice
    in the error's `data` for an agent that reads the body only.

    Args:
        code: The JSON-RPC error code.
        message: What the client reads.
        http_status: 503 or 429.
        retry_after_seconds: How long to wait first.

    Returns:
        The RpcError to raise.
    """
    return RpcError(
        code,
        message,
        data=retry_data(retry_after_seconds),
        http_status=http_status,
        headers={"retry-after": str(retry_after_seconds)},
    )


def service_unavailable(message: str, retry_after_seconds: int) -> RpcError:
    """503 with Retry-After (-32003): something the request needs did not answer, or not in time; retry later.
    The error's `data` carries the same advice (`retry_data`)."""
    return retry_later(SERVICE_UNAVAILABLE, message, 503, retry_after_seconds)


SHOWN_CHARACTERS = 64  # of a client's value quoted in an error message


def shown(value: str, limit: int = SHOWN_CHARACTERS) -> str:
    """A client's value as an error message may quote it: in double quotes, cut to `limit` characters (then `…`),
    with quotes, backslashes and every unprintable character (control, format, line separators, lone surrogates)
    escaped, so the message stays one printable line whatever the client sent.

    Args:
        value: What the client sent.
        limit: The most characters of it to show.

    Returns:
        The quoted, escaped text, e.g. `"search_products"`.
    """
    escaped = "".join(_escape(character) for character in value[:limit])
    return f'"{escaped}"' + ("…" if len(value) > limit else "")


def _escape(character: str) -> str:
    if character in '"\\':
        return "\\" + character
    if character.isprintable():
        return character
    code = ord(character)
    return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(character) or (
        f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"
    )


def error_response(request_id: RequestId | None, error: RpcError) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": error.to_error()}


def result_response(request_id: RequestId, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


@dataclass(frozen=True)
class Request:
    id: RequestId
    method: str
    params: dict[str, Any]


@dataclass(frozen=True)
class Notification:
    method: str
    params: dict[str, Any]


@dataclass(frozen=True)
class Response:
    """A client's JSON-RPC response (to a server request); accepted and ignored here."""

    id: RequestId | None


Message = Request | Notification | Response


def _valid_id(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def recover_id(raw: Any) -> RequestId | None:
    """The id to echo in an error about `raw`, when it has a usable one."""
    if isinstance(raw, dict) and _valid_id(raw.get("id")):
        request_id: RequestId = raw["id"]
        return request_id
    return None


def parse_message(raw: Any) -> Message:
    """Classify one JSON value as a request, notification or response; raise -32600 naming the bad field."""
    if not isinstance(raw, dict):
        raise RpcError(INVALID_REQUEST, "Invalid Request: a JSON-RPC message must be a JSON object")
    if raw.get("jsonrpc") != "2.0":
        raise RpcError(INVALID_REQUEST, "Invalid Request: field 'jsonrpc' must be \"2.0\"")
    if "method" not in raw:
        if ("result" in raw) != ("error" in raw) and "id" in raw:
            return Response(id=raw["id"] if _valid_id(raw["id"]) else None)
        raise RpcError(INVALID_REQUEST, "Invalid Request: field 'method' is required")
    method = raw["method"]
    if not isinstance(method, str) or not method:
        raise RpcError(INVALID_REQUEST, "Invalid Request: field 'method' must be a non-empty string")
    params = raw.get("params", {})
    if params is None:
        params = {}
    if not isinstance(params, dict):
        raise RpcError(INVALID_REQUEST, "Invalid Request: field 'params' must be an object")
    if "id" not in raw:
        return Notification(method=method, params=params)
    if not _valid_id(raw["id"]):
        raise RpcError(INVALID_REQUEST, "Invalid Request: field 'id' must be a string or an integer")
    return Request(id=raw["id"], method=method, params=params)
