"""The framework's one error root and its families.

Every exception the framework raises or exports derives from `McpLambdaError`, so a business (or a test) can
write one `except McpLambdaError` for "anything this framework raised", and one family at a time below it:

    McpLambdaError
    ├── StartupError        the process cannot serve: a setting, a manifest, a business or a tool signature is wrong
    ├── StoreUnavailable    a state store (sessions, exactly-once records, tasks) is throttled or unreachable
    ├── DownstreamError     an outbound call (`ctx.http`, the platform API) failed
    ├── ToolFailure         a tool cannot finish: a deadline, a missing secret, a rate, an unknown resource
    └── RequestRefused      a request is refused before any tool runs (authentication, JSON-RPC errors)

The concrete classes live beside the code that raises them; this module holds only the families, so every layer
can import it.
"""

from __future__ import annotations


class McpLambdaError(Exception):
    """The root of every exception the framework raises or exports."""


class StartupError(McpLambdaError):
    """Found while the container starts (settings, manifest, business, tool declarations): nothing is served.

    The message names the fix; the local server prints it as one line and exits non-zero.
    """


class StoreUnavailable(McpLambdaError):
    """A state store is throttled or unreachable: the request is answered 503 with `Retry-After` and may be retried.

    Args:
        message: What failed, safe to log (never a key or a record).
        retry_after_seconds: How long the client should wait before it retries.
    """

    def __init__(self, message: str = "store unavailable", retry_after_seconds: int = 1) -> None:
        super().__init__(message)
        self.retry_after_seconds = retry_after_seconds


class ToolFailure(McpLambdaError):
    """A tool cannot finish (past its deadline, a secret missing, over its rate, an unknown resource).

    Raised inside a tool call; the executor turns each kind into the error result its code table names.
    """


class RequestRefused(McpLambdaError):
    """The request is refused before any tool runs: the transport or the protocol answers it with an error."""
