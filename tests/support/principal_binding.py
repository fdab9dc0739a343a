"""One user signed in through two applications (the same `iss` and `sub`, another `azp` / `client_id`): which of
the first application's state the second one reaches, under either PRINCIPAL_BINDING.

Shared by the AUTH_MODE=apigateway unit tests (authorizer claims) and the AUTH_MODE=jwt integration tests (tokens
from the real local authorization server): each hands `reached` a way to get a client that speaks as one
application of the user.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tests.support.task_business import RecordingInvoker

import businesses.demo as demo
from mcp_lambda.composition import build_runtime
from mcp_lambda.lambda_adapter import lambda_handler
from mcp_lambda.secrets import NoSecrets, SecretSource
from mcp_lambda.settings import Settings
from mcp_lambda.stores.exactly_once import MemoryIdempotencyStore
from mcp_lambda.stores.sessions import MemorySessionStore
from mcp_lambda.stores.tasks import MemoryTaskStore
from mcp_lambda.testing import MODERN, McpTestClient

ALL_SCOPES = ("subscriptions:read", "subscriptions:write")
TASKS = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
# Credentials of one application for the user: app id -> a client whose every request carries them.
AsApp = Callable[[str], McpTestClient]


def demo_handler(
    settings: Settings, stores: Stores | None = None, secrets: SecretSource | None = None
) -> Any:
    """The demo business (subscriptions, exactly-once `subscribe_product`, the `export_trip_plan` task tool).

    Args:
        settings: Its settings.
        stores: The stores to use, shared with another handler (as containers share DynamoDB); default: its own.
        secrets: Where its business secrets come from (default: none).
    """
    stores = stores or Stores()
    runtime = build_runtime(
        settings,
        demo.BUSINESS,
        stores.sessions,
        stores.idempotency,
        stores.tasks,
        RecordingInvoker(),
        secrets or NoSecrets(),
    )
    return lambda_handler(runtime)


@dataclass
class Stores:
    """Every store a handler keeps state in."""

    sessions: MemorySessionStore = field(default_factory=MemorySessionStore)
    idempotency: MemoryIdempotencyStore = field(default_factory=MemoryIdempotencyStore)
    tasks: MemoryTaskStore = field(default_factory=MemoryTaskStore)


def reached(as_app: AsApp) -> dict[str, bool]:
    """What application "app-b" reaches of the state application "app-a" made for the same user.

    Args:
        as_app: Gives a client speaking as one application of the one user.

    Returns:
        For each kind of state (a legacy session, a task, an exactly-once record, the demo's subscriptions kept
        under `ctx.caller.principal`): whether app-b reached app-a's.
    """
    app_a, app_b = as_app("app-a"), as_app("app-b")
    return {
        "session": _session_reached(app_a, app_b),
        "task": _task_reached(app_a, app_b),
        "exactly_once": _exactly_once_reached(app_a, app_b),
        "subscriptions": _subscriptions_reached(app_a, app_b),
    }


def _session_reached(app_a: McpTestClient, app_b: McpTestClient) -> bool:
    owner = app_a.clone(era="2025-11-25")
    owner.initialize()
    other = app_b.clone(era="2025-11-25")
    other.session_id = owner.session_id
    status = other.rpc("ping").status
    assert status in (200, 404), status
    return status == 200


def _task_reached(app_a: McpTestClient, app_b: McpTestClient) -> bool:
    created = app_a.clone(era=MODERN, capabilities=TASKS).rpc(
        "tools/call", {"name": "export_trip_plan", "arguments": {"stops": ["guomao", "daxing_airport"]}}
    )
    assert created.result["resultType"] == "task", created.raw
    task_id = created.result["taskId"]
    assert app_a.clone(era=MODERN, capabilities=TASKS).rpc("tasks/get", {"taskId": task_id}).status == 200
    reply = app_b.clone(era=MODERN, capabilities=TASKS).rpc("tasks/get", {"taskId": task_id})
    if reply.status == 400:
        assert reply.error["code"] == -32602 and "Task not found" in reply.error["message"]
        return False
    assert reply.result["taskId"] == task_id
    return True


def _subscribe(client: McpTestClient, key: str) -> str:
    arguments = {"product_id": "p-1004", "alert": "restock"}
    reply = client.clone(era=MODERN, capabilities={}).rpc(
        "tools/call", {"name": "subscribe_product", "arguments": arguments}, idempotency_key=key
    )
    assert reply.result.get("isError") is not True, reply.raw
    return str(reply.result["structuredContent"]["subscription_id"])


def _exactly_once_reached(app_a: McpTestClient, app_b: McpTestClient) -> bool:
    key = f"order-{uuid.uuid4().hex}"
    first = _subscribe(app_a, key)
    assert _subscribe(app_a, key) == first  # app-a's own retry is a replay
    return _subscribe(app_b, key) == first  # app-b's call with app-a's key: app-a's result, or its own run


def _subscriptions_reached(app_a: McpTestClient, app_b: McpTestClient) -> bool:
    def listed(client: McpTestClient) -> set[str]:
        reply = client.clone(era=MODERN, capabilities={}).rpc(
            "tools/call", {"name": "list_subscriptions", "arguments": {}}
        )
        return {item["subscription_id"] for item in reply.result["structuredContent"]["entities"]}

    mine = _subscribe(app_a, f"alert-{uuid.uuid4().hex}")
    assert mine in listed(app_a)
    return mine in listed(app_b)
