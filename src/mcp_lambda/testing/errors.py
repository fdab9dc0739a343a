"""The kit's exceptions: a protocol error the server answered, and a test kit used the wrong way."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..errors import McpLambdaError, RequestRefused


class KitError(McpLambdaError):
    """The test kit was asked for something it cannot do (an unknown era or setting, a task in a legacy era)."""


class ProtocolError(RequestRefused):
    """The server refused the request: a JSON-RPC error reply, or an HTTP status other than 2xx.

    Args:
        message: The JSON-RPC error message (or the HTTP reason when the body carries none).
        code: The JSON-RPC error code; None when the reply had no JSON-RPC error (a bare HTTP status).
        http_status: The HTTP status of the reply.
        data: The JSON-RPC error's `data`, if any.
        headers: The reply's headers, lower-cased (`www-authenticate`, `retry-after`, ...).
        raw: The parsed reply body, or None when it was empty or not JSON.
    """

    def __init__(
        self,
        message: str,
        *,
        code: int | None,
        http_status: int,
        data: Any = None,
        headers: Mapping[str, str] | None = None,
        raw: Any = None,
    ) -> None:
        super().__init__(f"{message} (code {code}, HTTP {http_status})")
        self.message = message
        self.code = code
        self.http_status = http_status
        self.data = data
        self.headers = dict(headers or {})
        self.raw = raw
