"""The composition root: load the business a container serves and build its app, server and stores, once.

The one place the framework's parts are put together (`build_runtime` for the Lambda handler, the dev server and
the tests; `build_server` for a transport of its own, such as stdio), and the one module of the framework that
imports `businesses` (by name, from the settings); everything below it receives what it needs.
"""

from __future__ import annotations

import asyncio
import functools
import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from .apps import CardViewSet
from .auth import Authenticator
from .aws import AwsBudget
from .calls.exactly_once import ExactlyOnceCalls
from .calls.executor import ToolExecutor
from .calls.fingerprints import LogFingerprints
from .calls.quotas import build_quotas
from .downstream import EgressDeclarationError, EgressPolicy, HttpClient
from .manifest.locate import bind_business_manifest, manifest_path
from .manifest.visibility import all_fields
from .observability import ToolLogger, ToolTelemetry, configure_process, get_logger
from .platform_api import PlatformApiClient, platform_egress
from .protocol.apps import AppViews
from .protocol.contexts import ContextFactory
from .protocol.delivery import ResultDelivery
from .protocol.features import FeatureMethods
from .protocol.legacy import LegacyEra
from .protocol.methods import ToolMethods
from .protocol.modern import ModernEra
from .protocol.rounds import Rounds
from .protocol.server import McpServer, server_info_of
from .protocol.skills import SkillMethods
from .protocol.task_extension import JOB_TOOLS, JobApi, JobsOnFirstUse, TaskApi, TasksOnFirstUse
from .secrets import build_secret_source
from .settings import Settings, get_settings, milliseconds, seconds
from .skills import load_catalog
from .stores import build_store, check_backends
from .stores.exactly_once import IdempotencyStore
from .stores.sessions import SessionStore
from .tools import Business
from .tools.business import BusinessDefinitionError
from .tools.context import Services
from .transport import McpEndpoint

if TYPE_CHECKING:
    from aws_lambda_powertools import Logger
    from fastapi import FastAPI

    from .calls.quotas import QuotaStore
    from .calls.task_invoke import TaskInvoker
    from .manifest.models import Manifest
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
        app: The FastAPI app Mangum serves, built (and FastAPI imported) on first use: the Lambda handler answers
            requests to /mcp on `endpoint` itself (`lambda_adapter.McpRoute`), so only another path needs it.
        endpoint: The app's /mcp endpoint.
        server: The protocol server behind it (task workers run on it too).
        logger: The business's logger.
        sessions: The legacy-era session store.
        idempotency: The store of `tools/call` outcomes keyed by idempotency key.
        manifest_path: The business's manifest file (which may not exist: results are then served unchecked).
    """

    endpoint: McpEndpoint
    server: McpServer
    logger: Logger
    sessions: SessionStore
    idempotency: IdempotencyStore
    manifest_path: Path
    settings: Settings
    business: Business

    @functools.cached_property
    def app(self) -> FastAPI:
        from .app import create_app

        return create_app(self.settings, self.business, self.server, self.logger, self.endpoint)

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


def build_server(
    settings: Settings,
    business: Business,
    sessions: SessionStore | None = None,
    idempotency: IdempotencyStore | None = None,
    tasks: TaskStore | None = None,
    invoker: TaskInvoker | None = None,
    secrets: SecretSource | None = None,
    quotas: QuotaStore | None = None,
) -> McpServer:
    """The protocol server for `business`, whatever transport carries it; each part left out is what the settings
    name.

    Args:
        settings: The container's settings.
        business: The business to serve.
        sessions: The session store (default: `SESSION_STORE`).
        idempotency: The exactly-once store (default: `IDEMPOTENCY_STORE`).
        tasks: The task store (default: `TASKS_STORE`, built on the first task request).
        invoker: How a task's worker is started (default: an asynchronous self-invocation of this function).
        secrets: Where `ctx.secret` reads from (default: `SECRET_ID`).
        quotas: The per-caller quota counters (default: `PROTECTION_STORE`, built on the first counted call).

    Returns:
        Both eras over one set of method handlers (and the tasks extension when a tool may run as a task).

    Raises:
        ManifestError: The business's manifest is invalid.
        CardViewError: `Business(card_views=...)` does not fit the manifest or the tools.
        SettingsError: `TOOL_QUOTAS` names a tool the business does not have, or a store setting no backend.
    """
    logger = get_logger(business.name, settings.log_format)
    configure_process()
    check_backends(settings)  # a store some request builds later is refused now
    result_check, result_view, output_schemas, manifest = bind_business_manifest(settings, business)
    # MCP Apps views of the manifest's cards (docs/cards.md); raises CardViewError when they do not fit it.
    apps = AppViews(CardViewSet.build(business, manifest))
    # One per container: pools and circuits per host, the circuits in the store PROTECTION_STORE names.
    http = HttpClient.from_settings(
        settings, logger, lambda: build_store("circuits", settings, logger), build_egress(settings, business)
    )
    services = Services(
        logger=logger,
        secrets=secrets or build_secret_source(settings),
        platform_api=PlatformApiClient.from_settings(settings, logger, http),
        http=http,
    )
    fingerprints = LogFingerprints.from_settings(settings, services.secrets, logger)
    counted = build_quotas(
        business.tools,
        settings.tool_quotas,
        business.name,
        lambda: quotas or build_store("quotas", settings),
    )
    executor = ToolExecutor(
        result_check,
        ToolTelemetry(business.name),
        business.error_map,
        fingerprints,
        counted,
        result_view,
        grants_scopes=settings.auth_mode != "none",
    )
    contexts = ContextFactory(services)
    delivery = ResultDelivery(business, manifest)
    rounds = Rounds(
        settings.request_state_key_ring,
        services.secrets,
        settings.environment,
        seconds(settings.request_state_ttl),
    )
    calls = ExactlyOnceCalls(
        executor,
        idempotency or build_store("exactly_once", settings),
        business.name,
        seconds(settings.idempotency_ttl),
    )
    task_methods = None
    job_methods = None
    if any(spec.task != "forbidden" for spec in business.tools):
        taken = sorted(name for name in JOB_TOOLS if business.tool(name) is not None)
        if taken:  # a session client follows a long tool's job with the framework's tools of these names
            raise BusinessDefinitionError(
                f"business '{business.name}' has a long-running tool, so the framework serves "
                f"{' and '.join(JOB_TOOLS)} to session clients; rename its own {', '.join(taken)}"
            )

        def build_task_methods() -> TaskApi:
            from .calls.task_invoke import LambdaInvoker  # the first task request loads them
            from .protocol.tasks import TaskMethods, TaskSettings

            return TaskMethods(
                business,
                tasks if tasks is not None else build_store("tasks", settings),
                invoker
                if invoker is not None
                else LambdaInvoker(
                    settings.aws_lambda_function_name,
                    version=settings.aws_lambda_function_version,
                    budget=AwsBudget.from_settings(settings),
                ),
                executor,
                contexts,
                TaskSettings(
                    milliseconds(settings.task_ttl),
                    milliseconds(settings.task_poll_interval),
                    seconds(settings.task_worker_timeout),
                ),
                delivery,
            )

        task_methods = TasksOnFirstUse(build_task_methods)
        lazy_tasks = task_methods

        def build_job_methods() -> JobApi:
            from .protocol.jobs import JobMethods
            from .protocol.tasks import TaskMethods

            return JobMethods(cast(TaskMethods, lazy_tasks.methods()))

        job_methods = JobsOnFirstUse(build_job_methods)
    page_size = settings.tools_page_size
    tools = ToolMethods(
        business,
        calls,
        contexts,
        rounds,
        page_size,
        output_schemas,
        task_methods,
        apps,
        delivery,
        job_methods,
    )
    catalog = load_catalog(business.skills)  # read once, at cold start (SkillError: nothing is served)
    skills = SkillMethods(catalog, page_size) if catalog else None
    features = FeatureMethods(business, contexts, rounds, page_size, logger, skills, apps)
    info = server_info_of(business)
    return McpServer(
        LegacyEra(business, tools, features, sessions or build_store("sessions", settings), info, logger),
        ModernEra(
            business, tools, features, rounds, info, milliseconds(settings.list_ttl), task_methods, logger
        ),
        task_methods,
        field_scopes=field_scopes_of(manifest),
    )


def build_egress(settings: Settings, business: Business) -> EgressPolicy:
    """What `ctx.http` may reach: the business's declarations, `EGRESS_ALLOW`, and the platform's base domain.

    Raises:
        EgressDeclarationError: An entry is malformed or names a never-reached address (the message says whose).
    """
    sources = (
        (f"business '{business.name}' egress", business.declared_egress()),
        ("EGRESS_ALLOW", settings.egress_allow),
        ("DOUBAO_OPENAPI_BASE_DOMAIN", platform_egress(settings)),
    )
    entries: list[Any] = []
    for where, declared in sources:
        try:
            EgressPolicy(declared)
        except EgressDeclarationError as exc:
            raise EgressDeclarationError(f"{where}: {exc}") from None
        entries.extend(declared)
    return EgressPolicy(entries)


def field_scopes_of(manifest: Manifest | None) -> tuple[str, ...]:
    """The scopes the manifest's fields require (`requires_scope`), sorted; none without a manifest."""
    if manifest is None:
        return ()
    return tuple(sorted({spec.requires_scope for _, spec in all_fields(manifest) if spec.requires_scope}))


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
    if business.on_cold_start is not None:
        business.on_cold_start()  # a new container's state: recordings, replays and test clients each get one
    logger = get_logger(business.name, settings.log_format)
    sessions = sessions or build_store("sessions", settings)
    idempotency = idempotency or build_store("exactly_once", settings)
    server = build_server(settings, business, sessions, idempotency, tasks, invoker, secrets, quotas)
    endpoint = McpEndpoint(server, settings, Authenticator(settings), logger)
    log_server_started(logger, business, settings)
    return Runtime(
        endpoint=endpoint,
        server=server,
        logger=logger,
        sessions=sessions,
        idempotency=idempotency,
        manifest_path=manifest_path(settings, business),
        settings=settings,
        business=business,
    )


def served_at(settings: Settings) -> str:
    """Where this process serves MCP: `SERVED_AT` (make run's URL, make stdio's `stdio`), else the Lambda
    function's name, else `in-process` (a test kit's handler)."""
    if settings.served_at:
        return settings.served_at
    if settings.aws_lambda_function_name:
        return f"lambda:{settings.aws_lambda_function_name}"
    return "in-process"


def log_server_started(logger: ToolLogger, business: Business, settings: Settings) -> None:
    """The one start-up line: where it serves, the version, the environment and the tool count (never the
    value of a variable beyond these).

    Args:
        logger: The business's logger.
        business: The business served.
        settings: The process's settings.
    """
    logger.info(
        "server_started",
        extra={
            "event": "server_started",
            "endpoint": served_at(settings),
            "version": business.version,
            "environment": settings.environment,
            "tool_count": len(business.tools),
        },
    )
