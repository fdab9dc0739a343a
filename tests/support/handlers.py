"""A test's own Lambda handler: the runtime wrapped as mcp_lambda/handler.py wraps it, with the stores, invoker and
secrets the test chooses (drive it with `McpTestClient.over_handler`)."""

from __future__ import annotations

from mcp_lambda.calls.task_invoke import TaskInvoker
from mcp_lambda.composition import build_runtime
from mcp_lambda.lambda_adapter import LambdaHandler, lambda_handler
from mcp_lambda.secrets import SecretSource
from mcp_lambda.settings import Settings
from mcp_lambda.stores.sessions import MemorySessionStore, SessionStore
from mcp_lambda.stores.tasks import TaskStore
from mcp_lambda.tools import Business


def build_handler(
    business: Business | None,
    settings: Settings | None = None,
    sessions: SessionStore | None = None,
    tasks: TaskStore | None = None,
    invoker: TaskInvoker | None = None,
    secrets: SecretSource | None = None,
) -> LambdaHandler:
    """The runtime wrapped in Mangum exactly as mcp_lambda/handler.py does it, for a test business (or, with
    `business=None`, the one `settings.business` names, loaded as the deployed handler loads it)."""
    if settings is None:
        assert business is not None, "name the business, or pass the settings that name it"
        settings = Settings(business=business.name)
    runtime = build_runtime(
        settings, business, sessions or MemorySessionStore(), secrets=secrets, tasks=tasks, invoker=invoker
    )
    return lambda_handler(runtime)
