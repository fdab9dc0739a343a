"""McpServer: one endpoint, two eras. Routes each request by its channel (HTTP: the MCP-Protocol-Version header)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..apps import CardViewSet
from ..aws import AwsBudget
from ..idempotency import ExactlyOnce, IdempotencyStore, MemoryIdempotencyStore
from ..sessions import SessionStore
from ..settings import Settings
from ..tools import Business
from ..tools.context import Services
from ..tools.executor import ToolExecutor
from .apps import AppViews
from .contexts import ContextFactory
from .features import FeatureMethods
from .legacy import LegacyEra
from .methods import ToolMethods
from .modern import ModernEra
from .rounds import Rounds
from .scope import Inbound, Outbound
from .task_extension import TaskApi, TasksOnFirstUse

if TYPE_CHECKING:
    from ..tasks import TaskInvoker, TaskStore


def server_info_of(business: Business) -> dict[str, Any]:
    info: dict[str, Any] = {"name": business.name, "version": business.version}
    if business.title:
        info["title"] = business.title
    return info


class McpServer:
    """The protocol layer's single entry: `handle(inbound) -> outbound`, whatever the revision."""

    def __init__(self, legacy: LegacyEra, modern: ModernEra, tasks: TaskApi | None = None) -> None:
        self.legacy = legacy
        self.modern = modern
        self.tasks = tasks  # None when no tool of the business may run as a task

    @classmethod
    def create(
        cls,
        business: Business,
        settings: Settings,
        services: Services,
        sessions: SessionStore,
        executor: ToolExecutor,
        output_schemas: Mapping[str, dict[str, Any]] | None = None,
        idempotency: IdempotencyStore | None = None,
        tasks: TaskStore | None = None,
        invoker: TaskInvoker | None = None,
        views: CardViewSet | None = None,
    ) -> McpServer:
        """Compose both eras over one set of shared method handlers (and the tasks extension when a tool of the
        business may run as a task: `tasks` and `invoker` default to what the settings name)."""
        contexts = ContextFactory(services)
        rounds = Rounds(
            settings.request_state_key_ring,
            services.secrets,
            settings.environment,
            settings.request_state_ttl_seconds,
        )
        page_size = settings.tools_page_size
        calls = ExactlyOnce(
            executor, idempotency or MemoryIdempotencyStore(), business.name, settings.idempotency_ttl_seconds
        )
        task_methods = None
        if any(spec.task != "forbidden" for spec in business.tools):

            def build_task_methods() -> TaskApi:
                from ..stores import build_store
                from ..tasks import LambdaInvoker  # the first task request loads them
                from .tasks import TaskMethods, TaskSettings

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
                        settings.task_ttl_ms,
                        settings.task_poll_interval_ms,
                        settings.task_worker_timeout_seconds,
                    ),
                )

            task_methods = TasksOnFirstUse(build_task_methods)
        apps = AppViews(views)
        tools = ToolMethods(business, calls, contexts, rounds, page_size, output_schemas, task_methods, apps)
        features = FeatureMethods(business, contexts, rounds, page_size, services.logger, apps)
        info = server_info_of(business)
        return cls(
            LegacyEra(business, tools, features, sessions, info),
            ModernEra(business, tools, features, rounds, info, settings.list_ttl_ms, task_methods),
            task_methods,
        )

    async def run_task(self, task_id: str, run: int, invocation_id: str | None = None) -> dict[str, Any]:
        """A task worker invocation (the internal event, never an HTTP request)."""
        if self.tasks is None:
            return {"taskId": task_id, "run": run, "ran": False, "status": "unknown"}
        return await self.tasks.work(task_id, run, invocation_id)

    async def handle(self, inbound: Inbound) -> Outbound:
        # HTTP: the MCP-Protocol-Version header (mcp-wire §2); stdio: the body's `_meta` envelope.
        legacy = not inbound.channel.routes_modern(inbound)
        if inbound.http_method == "POST":
            return await (self.legacy.post(inbound) if legacy else self.modern.post(inbound))
        if not legacy:
            return await self.modern.reject_method(inbound)
        if inbound.http_method == "GET":
            return await self.legacy.get(inbound)
        if inbound.http_method == "DELETE":
            return await self.legacy.delete(inbound)
        return Outbound(405, headers={"allow": "POST, GET, DELETE"})
