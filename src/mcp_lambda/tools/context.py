"""ToolContext: everything a tool may know about the call, passed explicitly (no globals)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from ..caller import Caller
from ..deadlines import NO_DEADLINE, Deadline
from ..downstream import CallerHttp, HttpClient
from ..observability import ToolLogger, register_secret_value
from ..platform_api import PlatformApiClient
from ..secrets import NoSecrets, SecretSource, SecretUnavailable
from ..trace_context import TraceContext

LOG_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


@dataclass(frozen=True)
class Services:
    """What the app composes once per container and the protocol hands to every tool, prompt and resource."""

    logger: ToolLogger
    secrets: SecretSource = field(default_factory=NoSecrets)
    # The Doubao platform OpenAPI client (timeouts, bounded retries, §5 logging); None without a base domain.
    platform_api: PlatformApiClient | None = None
    # Outbound HTTP for tools (`ctx.http`): pools and one circuit per host, kept for the container.
    http: HttpClient = field(default_factory=HttpClient)


class TaskControl(Protocol):
    """What a tool running as a task can do about its task (implemented over the task store)."""

    def cancelled(self) -> bool:
        """True once the task was cancelled (or otherwise ended): the tool should stop."""
        ...

    def report_status(self, message: str) -> None:
        """Set the task's `statusMessage` (what a client polling `tasks/get` sees)."""
        ...


@dataclass
class ToolContext:
    """The call as the tool sees it: give a tool (or prompt, or resource) a parameter typed `ToolContext`.

    A tool reads from it what it needs (`ctx.secret(...)`, `ctx.http`, `ctx.caller`, `ctx.input_responses`) and
    reports through it (`ctx.log(...)`, `ctx.report_progress(...)`); the server builds it, a tool never does.
    `session_id` is set only for clients that opened a session (initialize). `notify` sends a request-scoped
    notification (progress, log) when the transport can carry it.
    """

    request_id: str | int | None
    tool_name: str
    logger: ToolLogger
    # The API Gateway request id (the correlation id of every log line of this invocation).
    correlation_id: str | None = None
    session_id: str | None = None
    # The authenticated caller's principal, None when anonymous (in a task's run: the creating request's).
    principal: str | None = None
    tool_call_id: str | None = None
    client_capabilities: Mapping[str, Any] = field(default_factory=dict)
    meta: Mapping[str, Any] = field(default_factory=dict)
    secrets: SecretSource = field(default_factory=NoSecrets)
    notify: Callable[[str, dict[str, Any]], None] | None = None
    # The lowest log level the client asked to receive as notifications/message (None: send none).
    log_level: str | None = None
    # Multi round-trip (2026-07-28): the client's answers, and the verified state of the previous round.
    input_responses: Mapping[str, Any] = field(default_factory=dict)
    request_state: Mapping[str, Any] | None = None
    platform_api: PlatformApiClient | None = None
    # The authenticated caller (subject, issuer, scopes, the claims AUTH_CALLER_CLAIMS names); None if anonymous.
    # In a task's run it is the caller of the request that created the task.
    caller: Caller | None = None
    # The caller's own bearer token (masked in every log line; a result carrying it is refused). `ctx.http` sends
    # it only to a downstream declared `Egress(..., accepts_caller_token=True)` (docs/auth.md). None in a task's
    # run (its worker invocation outlives the request, and the token may have expired by then).
    caller_token: str | None = field(default=None, repr=False)
    # Set when the call runs as a task (2026-07-28 tasks extension): its id, and the handle on its state.
    task_id: str | None = None
    task: TaskControl | None = None
    # True once the client cancelled this call (`notifications/cancelled` in a session), read from the store.
    cancellation: Callable[[], bool] | None = None
    # When the answer must be on its way (see `remaining_ms`); `http` caps its timeouts by it.
    deadline: Deadline = NO_DEADLINE
    # Outbound HTTP to the declared downstreams; the caller's token only to those that accept it.
    http: CallerHttp | HttpClient = field(default_factory=lambda: HttpClient().on_behalf_of(None))
    # The caller's W3C trace context (SEP-414), when it sent one: its trace id is on the call's log lines, and
    # `http` sends each downstream request a child of it.
    trace: TraceContext | None = None

    def remaining_ms(self) -> int:
        """Milliseconds left before the request deadline.

        Returns:
            The milliseconds left; at 0 the call is answered with error result 50400.
        """
        return self.deadline.remaining_ms()

    def supports(self, capability: str) -> bool:
        """Whether the client declared a capability, e.g. before asking for input it may not support.

        Args:
            capability: `elicitation`, `sampling`, `roots`, ...

        Returns:
            True when the client declared it.
        """
        return capability in self.client_capabilities

    def log(self, level: str, data: Any, logger: str | None = None) -> None:
        """Send the client a `notifications/message` when it asked for this level or a lower one.

        Args:
            level: One of LOG_LEVELS (`debug` ... `emergency`); an unknown level sends nothing.
            data: What to send (any JSON value).
            logger: The logger name shown to the client.
        """
        if self.notify is None or self.log_level is None or level not in LOG_LEVELS:
            return
        if LOG_LEVELS.index(level) < LOG_LEVELS.index(self.log_level):
            return
        params: dict[str, Any] = {"level": level, "data": data}
        if logger:
            params["logger"] = logger
        self.notify("notifications/message", params)

    def secret(self, name: str) -> str:
        """A business secret (Secrets Manager in AWS, `.env.local` locally).

        Args:
            name: The secret's key.

        Returns:
            Its value: masked in every log line from now on, and a result that carries it is refused (50040).

        Raises:
            SecretUnavailable: the secret is missing or cannot be read (left uncaught: error result 50020).
        """
        value = self.secrets.get(name)
        register_secret_value(value)
        return value

    @property
    def progress_token(self) -> str | int | None:
        """The client's `progressToken` for this call, or None when it asked for no progress."""
        token = self.meta.get("progressToken")
        return token if isinstance(token, str | int) and not isinstance(token, bool) else None

    def cancelled(self) -> bool:
        """Whether the client cancelled this call or its task (check it between steps and stop early when true).

        A session client cancels a running call with `notifications/cancelled`, a task client its task with
        `tasks/cancel`; either reaches the tool on whichever container runs it. `ctx.http` stops waiting then.

        Returns:
            True once the call or its task was cancelled.
        """
        if self.task is not None:
            return self.task.cancelled()
        return self.cancellation is not None and self.cancellation()

    def report_status(self, message: str) -> None:
        """In a task: set the `statusMessage` a polling client sees. Otherwise a no-op.

        Args:
            message: e.g. "Rendering day 2 of 5".
        """
        if self.task is not None:
            self.task.report_status(message)

    def report_progress(
        self, progress: float, total: float | None = None, message: str | None = None
    ) -> None:
        """Send `notifications/progress` when the client asked for it (a `progressToken`); otherwise a no-op.

        In a task (which carries no notifications) the progress becomes the task's `statusMessage` instead.

        Args:
            progress: How far the call is (grows with each report).
            total: The value `progress` reaches when done, if known.
            message: What is being done now.
        """
        if self.task is not None:
            done = f"{progress:g}/{total:g}" if total is not None else f"{progress:g}"
            self.task.report_status(f"{message} ({done})" if message else done)
            return
        token = self.progress_token
        if token is None or self.notify is None:
            return
        params: dict[str, Any] = {"progressToken": token, "progress": progress}
        if total is not None:
            params["total"] = total
        if message is not None:
            params["message"] = message
        self.notify("notifications/progress", params)


__all__ = ["LOG_LEVELS", "Caller", "SecretUnavailable", "Services", "TaskControl", "ToolContext"]
