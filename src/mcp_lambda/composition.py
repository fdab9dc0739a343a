"""The composition root: load the business a container serves and build its app, server and stores, once.

The one module of the framework that imports `businesses` (by name, from the settings); everything below it
receives the `Business` it serves.
"""

from __future__ import annotations

import asyncio
import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .app import create_app, create_server, manifest_path
from .observability import get_logger
from .settings import Settings, get_settings
from .stores import build_store
from .stores.exactly_once import IdempotencyStore
from .stores.sessions import SessionStore
from .tools import Business
from .tools.business import BusinessDefinitionError

if TYPE_CHECKING:
    from aws_lambda_powertools import Logger
    from fastapi import FastAPI

    from .calls.quotas import QuotaStore
    from .calls.task_invoke import TaskInvoker
    from .protocol import McpServer
    from .secrets import SecretSource
    from .stores.tasks import TaskStore

BUSINESSES = "businesses"  # the top-level package whose subpackages are the businesses


class BusinessNotFound(BusinessDefinitionError):
    """No package `businesses.<name>` on the path.

    Attributes:
        name: The business asked for.
        known: The businesses there are, when the caller listed them (None: not listed).
    """

    def __init__(self, name: str, known: list[str] | None = None) -> None:
        self.name = name
        self.known = known
        listed = "" if known is None else f"; known: {', '.join(known) or 'none'}"
        super().__init__(
            f"business '{name}' not found{listed} (a business is a package src/businesses/<name>/)"
        )


def load_business(name: str) -> Business:
    """The `BUSINESS` of the package `businesses.<name>`.

    Args:
        name: The business's package name (the `BUSINESS` setting).

    Returns:
        The business the package exports.

    Raises:
        BusinessNotFound: There is no such package.
        BusinessDefinitionError: The package does not define `BUSINESS = Business(...)`.
    """
    try:
        module = importlib.import_module(f"{BUSINESSES}.{name}")
    except ModuleNotFoundError as exc:
        if exc.name in (BUSINESSES, f"{BUSINESSES}.{name}"):
            raise BusinessNotFound(name) from None
        raise  # the business exists but imports something missing: that is its own error
    business = getattr(module, "BUSINESS", None)
    if not isinstance(business, Business):
        raise BusinessDefinitionError(f"businesses.{name} must define BUSINESS = Business(...)")
    return business


@dataclass(frozen=True)
class Runtime:
    """Everything one container built at cold start: what the Lambda handler, the dev tools and the tests use.

    Attributes:
        app: The FastAPI app Mangum serves.
        server: The protocol server behind it (task workers run on it too).
        logger: The business's logger.
        sessions: The legacy-era session store.
        idempotency: The store of `tools/call` outcomes keyed by idempotency key.
        manifest_path: The business's manifest file (which may not exist: results are then served unchecked).
    """

    app: FastAPI
    server: McpServer
    logger: Logger
    sessions: SessionStore
    idempotency: IdempotencyStore
    manifest_path: Path

    def run_task(self, task_id: str, run: int, invocation_id: str | None) -> dict[str, Any]:
        """Run one task worker invocation to its end (the internal event a task's self-invocation carries).

        Args:
            task_id: The task to work on.
            run: The run number the event carries.
            invocation_id: The Lambda request id of this invocation, when there is one.

        Returns:
            The worker's outcome, as the invocation returns it.
        """
        # A loop of its own, never the thread's current one (which Mangum uses for HTTP events).
        loop = asyncio.new_event_loop()
        try:
            return loop.run_until_complete(self.server.run_task(task_id, run, invocation_id))
        finally:
            loop.close()


def build_runtime(
    settings: Settings | None = None,
    business: Business | None = None,
    sessions: SessionStore | None = None,
    idempotency: IdempotencyStore | None = None,
    tasks: TaskStore | None = None,
    invoker: TaskInvoker | None = None,
    secrets: SecretSource | None = None,
    quotas: QuotaStore | None = None,
) -> Runtime:
    """Build the container's runtime; each part left out is what the settings name.

    Args:
        settings: The settings (default: read from the environment).
        business: The business to serve (default: the one `settings.business` names).
        sessions: The session store (default: `SESSION_STORE`).
        idempotency: The idempotency store (default: `IDEMPOTENCY_STORE`).
        tasks: The task store (default: `TASKS_STORE`, built on the first task request).
        invoker: How a task's worker is started (default: an asynchronous self-invocation).
        secrets: Where `ctx.secret` reads from (default: `SECRET_ID`).
        quotas: The per-caller quota counters (default: `PROTECTION_STORE`, built on the first counted call).

    Returns:
        The runtime: the app and everything built with it.

    Raises:
        BusinessNotFound: The business is not there.
        BusinessDefinitionError: The business is malformed.
    """
    settings = settings or get_settings()
    business = business or load_business(settings.business)
    logger = get_logger(business.name, settings.log_format)
    sessions = sessions or build_store("sessions", settings)
    idempotency = idempotency or build_store("exactly_once", settings)
    server = create_server(settings, business, sessions, idempotency, tasks, invoker, secrets, quotas)
    return Runtime(
        app=create_app(settings, business, server, logger),
        server=server,
        logger=logger,
        sessions=sessions,
        idempotency=idempotency,
        manifest_path=manifest_path(settings, business),
    )
