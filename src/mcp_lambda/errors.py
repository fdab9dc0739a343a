"""The framework's one error root and its families.

Every exception class the framework defines derives from `McpLambdaError`, so a business (or a test) can write
one `except McpLambdaError` for "anything this framework raised", and one family at a time below it:

    McpLambdaError
    ├── StartupError        the process cannot serve: a setting, a manifest, a business or a tool signature is wrong
    ├── StoreUnavailable    a state store (sessions, tasks) is throttled or unreachable: 503 with Retry-After
    ├── DownstreamError     an outbound call (`ctx.http`, the platform API, the task worker's invocation) failed
    ├── ToolFailure         a tool cannot finish: a deadline, a missing secret, a rate, an unknown resource, a crash
    └── RequestRefused      a request is refused before any tool runs (authentication, JSON-RPC errors)

A few internal signals (a claimed exactly-once key, a taken session or task id, an AWS call past its budget)
derive from the root directly: they are caught inside the framework and never reach a business or a client.
Where callers already caught a builtin (`ValueError`, `LookupError`, `TypeError`, `RuntimeError`), the class
keeps it as a second base. A wrong argument to a framework function is still the builtin `ValueError` /
`TypeError`, as in any Python library.

The concrete classes live beside the code that raises them; this module holds only the families, so every layer
can import it. docs/errors.md lists each class, when it is raised and what the client sees.
"""

from __future__ import annotations

from typing import ClassVar


class McpLambdaError(Exception):
    """The root of every exception the framework raises or exports."""


class StartupError(McpLambdaError):
    """Found while the container starts (settings, manifest, business, tool declarations): nothing is served.

    The message names the fix; the local server prints it as one line and exits non-zero.
    """


class StoreUnavailable(McpLambdaError):
    """A state store is throttled or unreachable: the request is answered 503 with `Retry-After` and may be retried.

    A store's own subclass names itself in `default_message`, the message when none is given.

    Args:
        message: What failed, safe to log (never a key or a record); None for the class's `default_message`.
        retry_after_seconds: How long the client should wait before it retries.
    """

    default_message: ClassVar[str] = "store unavailable"

    def __init__(self, message: str | None = None, retry_after_seconds: int = 1) -> None:
        super().__init__(self.default_message if message is None else message)
        self.retry_after_seconds = retry_after_seconds


class ToolFailure(McpLambdaError):
    """A tool cannot finish (past its deadline, a secret missing, over its rate, an unknown resource).

    Raised inside a tool call; the executor turns each kind into the error result its code table names.
    """


class RequestRefused(McpLambdaError):
    """The request is refused before any tool runs: the transport or the protocol answers it with an error."""
