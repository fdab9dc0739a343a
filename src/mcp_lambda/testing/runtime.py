"""The Lambda function under test, in-process: the real handler composed as `mcp_lambda/handler.py` composes it,
invoked with API Gateway events, and its task workers run through the same handler."""

from __future__ import annotations

import asyncio
import atexit
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from pydantic import ValidationError

from ..calls.task_invoke import TaskInvoker, task_event
from ..composition import build_runtime
from ..lambda_adapter import LambdaHandler, lambda_handler
from ..secrets import SecretSource
from ..settings import Settings, milliseconds
from ..tools import Business
from .apigateway import LocalContext, http_event, response_body
from .errors import KitError
from .fakes import DeclaredSecrets, StaticSecrets
from .identity import DEFAULT_ISSUER, LocalIssuer, shared_issuer
from .results import HttpReply


def compose_handler(
    business: Business, settings: Settings, secrets: SecretSource, invoker: TaskInvoker
) -> LambdaHandler:
    """The handler for `business`, built as the deployed entry point builds it (the kit's one composition).

    Args:
        business: The business to serve.
        settings: Its settings.
        secrets: Where `ctx.secret` reads from.
        invoker: What queues a task's worker invocation.

    Returns:
        The Lambda handler: `handler(event, context) -> response`.
    """
    return lambda_handler(build_runtime(settings, business, secrets=secrets, invoker=invoker))


# What the kit declares `ctx.http` may reach besides the business's own declarations: its loopback stand-ins.
KIT_EGRESS = ("127.0.0.1",)


def make_settings(
    business: Business, overrides: Mapping[str, Any] | None = None, issuer: LocalIssuer | None = None
) -> Settings:
    """The settings of a test: the defaults, then `overrides` (the variables' names in lower case, or the fields').

    `EGRESS_ALLOW` is the kit's stand-ins (`KIT_EGRESS`, where `fake_service` listens) unless overridden.
    AUTH_MODE=jwt without AUTH_ISSUER trusts `issuer` (by default the process's shared `LocalIssuer`);
    AUTH_MODE=apigateway without one names `DEFAULT_ISSUER`.

    Args:
        business: The business (its name is BUSINESS).
        overrides: e.g. `{"auth_mode": "jwt", "tools_page_size": 2, "task_ttl_ms": 3_600_000}`; a duration's
            number counts in its variable's unit, or give a `timedelta` (`task_ttl=timedelta(hours=1)`).
        issuer: The issuer a jwt mode trusts.

    Returns:
        The settings.

    Raises:
        KitError: An override is not a setting or not a valid value, or overrides contradict each other (the
            rules `Settings.from_env` applies, with its messages).
    """
    # The kit's stand-in downstreams (`fake_service`) listen on 127.0.0.1: declared, as make run declares its own.
    values = {"business": business.name, "egress_allow": KIT_EGRESS, **(overrides or {})}
    if values["business"] != business.name:
        raise KitError(f"settings name business {values['business']!r}, the client serves {business.name!r}")
    if values.get("auth_mode") == "jwt" and not values.get("auth_issuer"):
        trusted = issuer or shared_issuer()
        values.update(auth_issuer=trusted.url, auth_jwks_url=trusted.jwks_url)
    elif values.get("auth_mode") == "apigateway":
        values.setdefault("auth_issuer", DEFAULT_ISSUER)
    try:
        return Settings(**values)
    except ValidationError as exc:  # the rules and the messages of Settings.from_env, by variable name
        raise KitError(f"invalid settings override: {Settings.problems(exc)}") from None


# Mangum runs each request with `asyncio.get_event_loop().run_until_complete(...)`, so the calling thread needs a
# current, open, idle event loop. In Lambda that is the process's one loop; in a test process every asyncio.run()
# of another test leaves the thread with none. So every in-process request runs on this one loop (one
# "container"), made current for the call only, and the caller's current loop is put back afterwards.
_CONTAINER_LOOP = asyncio.new_event_loop()
atexit.register(_CONTAINER_LOOP.close)
_CONTAINER_LOCK = threading.RLock()


@contextmanager
def _on_the_container_loop() -> Iterator[None]:
    policy = asyncio.get_event_loop_policy()
    try:
        previous: asyncio.AbstractEventLoop | None = policy.get_event_loop()
    except RuntimeError:  # the thread has no current loop
        previous = None
    with _CONTAINER_LOCK:  # one request at a time on the loop, as one Lambda container serves them
        policy.set_event_loop(_CONTAINER_LOOP)
        try:
            yield
        finally:
            policy.set_event_loop(previous)


def invoke(handler: LambdaHandler, event: dict[str, Any], context: Any = None) -> dict[str, Any]:
    """One Lambda invocation of `handler`, as the runtime makes it.

    Args:
        handler: A Lambda handler (`compose_handler`).
        event: An API Gateway payload-2.0 event, or a task worker event.
        context: The Lambda context; by default a `LocalContext` with 30 s left.

    Returns:
        What the handler returned.
    """
    if "requestContext" not in event:  # a task worker: runs on its own loop, may run beside requests
        return handler(event, context or LocalContext())
    with _on_the_container_loop():
        return handler(event, context or LocalContext())


class InProcessInvoker:
    """The asynchronous self-invocation that starts a task's worker, queued in memory.

    The kit delivers each queued worker event through the same handler (`InProcessLambda.run_workers`), as
    Lambda would deliver it later. Set `fail = True` to make starting a worker fail as a throttled Invoke does.
    """

    def __init__(self) -> None:
        self.queued: list[tuple[str, int]] = []
        self.fail = False
        self._lock = threading.Lock()

    def start(self, task_id: str, run: int) -> None:
        """Queue the worker invocation for `run` of the task.

        Args:
            task_id: The task.
            run: The run number the worker may work on.

        Raises:
            TaskStartFailed: `fail` is set.
        """
        from ..calls.task_invoke import TaskStartFailed

        if self.fail:
            raise TaskStartFailed("the task worker could not be invoked: TooManyRequestsException")
        with self._lock:
            self.queued.append((task_id, run))

    def take(self, task_id: str | None = None) -> list[tuple[str, int]]:
        """Remove and return the queued invocations (of one task, or all), oldest first.

        Args:
            task_id: Only this task's; None for every queued one.

        Returns:
            (task id, run) pairs.
        """
        with self._lock:
            taken = [job for job in self.queued if task_id is None or job[0] == task_id]
            self.queued = [job for job in self.queued if job not in taken]
        return taken


class HandlerTransport:
    """A Lambda handler in this process, sent API Gateway payload-2.0 events: the transport of a client of a
    handler the test composed itself (its own stores, settings or secrets).

    Args:
        handler: The Lambda handler (`handler(event, context) -> response`).
    """

    def __init__(self, handler: LambdaHandler) -> None:
        self.handler = handler

    def http(
        self,
        method: str,
        headers: Mapping[str, str],
        body: str | bytes | None = None,
        *,
        path: str = "/mcp",
        authorizer: dict[str, Any] | None = None,
    ) -> HttpReply:
        """One HTTP request through API Gateway to the handler.

        Args:
            method: `POST`, `GET`, `DELETE`, ...
            headers: The request headers.
            body: The body, verbatim; None for none.
            path: The request path.
            authorizer: The API Gateway authorizer context (`authorizer_context`).

        Returns:
            The reply.
        """
        event = http_event(method, path, dict(headers), body, authorizer=authorizer)
        response = self.deliver(event)
        lowered = {k.lower(): v for k, v in (response.get("headers") or {}).items()}
        return HttpReply(int(response["statusCode"]), lowered, response_body(response))

    def deliver(self, event: dict[str, Any]) -> dict[str, Any]:
        """Hand one event to the handler (`invoke`: one request at a time, as one container serves them).

        Args:
            event: The API Gateway event.

        Returns:
            The handler's response.
        """
        return invoke(self.handler, event)


class InProcessLambda(HandlerTransport):
    """One Lambda function serving `business`, in this process: what every `McpTestClient` talks to.

    Args:
        business: The business to serve.
        settings: Setting overrides (`make_settings`), or a complete `Settings`.
        secrets: The business secret as a dict, or any secret source; by default none at all. A business that
            declares its keys (`Business(secrets=[...])`) reads only those (`DeclaredSecrets`).
        issuer: The issuer AUTH_MODE=jwt trusts; by default the process's shared one.
    """

    def __init__(
        self,
        business: Business,
        settings: Mapping[str, Any] | Settings | None = None,
        secrets: Mapping[str, str] | SecretSource | None = None,
        issuer: LocalIssuer | None = None,
    ) -> None:
        self.business = business
        if isinstance(settings, Settings):
            self.settings = settings
        else:
            self.settings = make_settings(business, settings, issuer)
        self.issuer = issuer or (shared_issuer() if self.settings.auth_mode == "jwt" else None)
        given: SecretSource = (
            StaticSecrets(secrets) if secrets is None or isinstance(secrets, Mapping) else secrets
        )
        # A business that declares its secret keys reads no other (Business(secrets=[...])).
        self.secrets: SecretSource = (
            given if business.secrets is None else DeclaredSecrets(given, business.name, business.secrets)
        )
        self.invoker = InProcessInvoker()
        super().__init__(compose_handler(business, self.settings, self.secrets, self.invoker))

    def run_workers(self, task_id: str | None = None) -> list[dict[str, Any]]:
        """Deliver the queued task worker invocations (of one task, or all) through the handler, oldest first.

        Args:
            task_id: Only this task's; None for every queued one.

        Returns:
            Each worker invocation's outcome (`{"taskId", "run", "ran", "status"}`).
        """
        deadline_ms = milliseconds(self.settings.task_worker_timeout)
        return [
            invoke(self.handler, task_event(queued_id, run), _worker_context(deadline_ms))
            for queued_id, run in self.invoker.take(task_id)
        ]


def _worker_context(budget_ms: int) -> LocalContext:
    return LocalContext(deadline_ms=int(time.time() * 1000) + budget_ms)
