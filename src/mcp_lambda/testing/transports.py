"""Where an `McpTestClient` sends its HTTP requests: a Lambda handler in this process, or a URL.

A transport is anything with `http(method, headers, body, *, path, authorizer) -> HttpReply`; the kit has three:
`InProcessLambda` (the business composed as the deployed handler composes it, `runtime.py`), `HandlerTransport`
(any Lambda handler a test composed itself) and `HttpTransport` (a server at a URL: `make run`, a deployed stack).
"""

from __future__ import annotations

import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Mapping
from typing import Any, Protocol

from .errors import KitError
from .results import HttpReply


class Transport(Protocol):
    """What an `McpTestClient` talks through."""

    def http(
        self,
        method: str,
        headers: Mapping[str, str],
        body: str | bytes | None = None,
        *,
        path: str = "/mcp",
        authorizer: dict[str, Any] | None = None,
    ) -> HttpReply:
        """One HTTP request; the reply whatever its status.

        Args:
            method: `POST`, `GET`, `DELETE`, ...
            headers: The request headers.
            body: The request body, if any.
            path: The request path.
            authorizer: An API Gateway authorizer context (in-process transports only).

        Returns:
            The reply, whatever its status.
        """
        ...


class HttpTransport:
    """A server at a URL, over HTTP (urllib: it runs in the runtime-only environment `make smoke` uses).

    Args:
        url: The MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`.
        timeout: Seconds each request may take.
    """

    def __init__(self, url: str, timeout: float = 10) -> None:
        parts = urllib.parse.urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise KitError(f"not an http(s) URL: {url!r}")
        self.url = url
        self.timeout = timeout
        self.default_path = parts.path or "/"

    def http(
        self,
        method: str,
        headers: Mapping[str, str],
        body: str | bytes | None = None,
        *,
        path: str = "/mcp",
        authorizer: dict[str, Any] | None = None,
    ) -> HttpReply:
        """One HTTP request to the URL (`path`, when it is not the kit's default `/mcp`, replaces the URL's path).

        Args:
            method: `POST`, `GET`, `DELETE`, ...
            headers: The request headers.
            body: The request body, if any.
            path: The request path.
            authorizer: An API Gateway authorizer context (in-process transports only).

        Returns:
            The reply, whatever its status.

        Raises:
            KitError: An authorizer context was given (only API Gateway adds one), or the server could not be
                reached or did not answer within the timeout.
        """
        if authorizer is not None:
            raise KitError("an authorizer context exists only in-process; over HTTP send a token header")
        url = self.url if path in ("/mcp", self.default_path) else urllib.parse.urljoin(self.url, path)
        # Host is urllib's to set from the URL: the kit's in-process default ("localhost") would misdirect it.
        sent = {name: value for name, value in headers.items() if name.lower() != "host"}
        data = body.encode("utf-8") if isinstance(body, str) else body
        request = urllib.request.Request(url, data=data, method=method, headers=sent)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                status, raw, got = answer.status, answer.read(), answer.headers
        except urllib.error.HTTPError as error:
            status, raw, got = error.code, error.read(), error.headers
        except (urllib.error.URLError, TimeoutError, OSError) as error:
            raise KitError(f"{method} {url}: {getattr(error, 'reason', error)}") from None
        return HttpReply(status, {name.lower(): value for name, value in got.items()}, raw)
