"""One selector for the state stores: `build_store(kind, settings)`, the store the settings name for `kind`.

Each kind reads two settings, unchanged: its backend (`SESSION_STORE`, `IDEMPOTENCY_STORE`, `TASKS_STORE`,
`PROTECTION_STORE`: `memory`, the embedded default of one process, or `dynamodb`) and its table
(`SESSIONS_TABLE`, `IDEMPOTENCY_TABLE`, `TASKS_TABLE`, `PROTECTION_TABLE`). A DynamoDB store takes the function's one `AwsBudget`. Implementations are
imported when built: boto3 (and the tasks package) cost cold-start time a container may never need.

`build_circuit_store(settings, logger)` is the store of the downstream circuits (`PROTECTION_STORE`,
`PROTECTION_TABLE`), which `HttpClient` builds on its first call.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, overload

from .aws import AwsBudget
from .settings import Settings, seconds

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.circuit_breaker.persistence import CircuitBreakerPersistenceLayer

    from .idempotency import IdempotencyStore
    from .observability import ToolLogger
    from .sessions import SessionStore
    from .tasks import TaskStore
    from .tools.quotas import QuotaStore

StoreKind = Literal["sessions", "idempotency", "tasks", "quotas"]


@dataclass(frozen=True)
class StoreChoice:
    """How one kind of store is chosen and built.

    Args:
        backend_setting: The settings field naming the backend (`memory` or `dynamodb`).
        table_setting: The settings field naming the DynamoDB table (validated present by the settings).
        memory: Builds the embedded store from the settings.
        dynamodb: Builds the DynamoDB store from the settings, the table name and the AWS budget.
    """

    backend_setting: str
    table_setting: str
    memory: Callable[[Settings], Any]
    dynamodb: Callable[[Settings, str, AwsBudget], Any]

    def build(self, settings: Settings) -> Any:
        if getattr(settings, self.backend_setting) != "dynamodb":
            return self.memory(settings)
        table = getattr(settings, self.table_setting)
        assert table is not None  # Settings refuses `dynamodb` without a table
        return self.dynamodb(settings, table, AwsBudget.from_settings(settings))


def _memory_sessions(settings: Settings) -> Any:
    from .sessions import MemorySessionStore

    return MemorySessionStore(ttl_seconds=seconds(settings.session_ttl))


def _dynamodb_sessions(settings: Settings, table: str, budget: AwsBudget) -> Any:
    from .sessions.dynamodb import DynamoDBSessionStore

    return DynamoDBSessionStore(table, ttl_seconds=seconds(settings.session_ttl), budget=budget)


def _memory_idempotency(settings: Settings) -> Any:
    from .idempotency import MemoryIdempotencyStore

    return MemoryIdempotencyStore()


def _dynamodb_idempotency(settings: Settings, table: str, budget: AwsBudget) -> Any:
    from .idempotency import DynamoDBIdempotencyStore

    return DynamoDBIdempotencyStore(table, budget=budget)


def _memory_tasks(settings: Settings) -> Any:
    from .tasks import MemoryTaskStore

    return MemoryTaskStore()


def _dynamodb_tasks(settings: Settings, table: str, budget: AwsBudget) -> Any:
    from .tasks.dynamodb import DynamoDBTaskStore

    return DynamoDBTaskStore(table, budget=budget)


def _memory_quotas(settings: Settings) -> Any:
    from .tools.quotas import MemoryQuotaStore

    return MemoryQuotaStore()


def _dynamodb_quotas(settings: Settings, table: str, budget: AwsBudget) -> Any:
    from .tools.quota_table import DynamoDBQuotaStore

    return DynamoDBQuotaStore(table, budget=budget)


STORES: dict[str, StoreChoice] = {
    "sessions": StoreChoice("session_store", "sessions_table", _memory_sessions, _dynamodb_sessions),
    "idempotency": StoreChoice(
        "idempotency_store", "idempotency_table", _memory_idempotency, _dynamodb_idempotency
    ),
    "tasks": StoreChoice("tasks_store", "tasks_table", _memory_tasks, _dynamodb_tasks),
    "quotas": StoreChoice("protection_store", "protection_table", _memory_quotas, _dynamodb_quotas),
}


@overload
def build_store(kind: Literal["sessions"], settings: Settings) -> SessionStore: ...
@overload
def build_store(kind: Literal["idempotency"], settings: Settings) -> IdempotencyStore: ...
@overload
def build_store(kind: Literal["tasks"], settings: Settings) -> TaskStore: ...
@overload
def build_store(kind: Literal["quotas"], settings: Settings) -> QuotaStore: ...


def build_store(kind: StoreKind, settings: Settings) -> Any:
    """The store of `kind` that the settings select.

    Args:
        kind: `sessions` (legacy-era sessions), `idempotency` (exactly-once records), `tasks` or `quotas`
            (the per-caller quota counters, in the protection table).
        settings: The function's settings.

    Returns:
        The memory or DynamoDB store.
    """
    return STORES[kind].build(settings)


def build_circuit_store(settings: Settings, logger: ToolLogger) -> CircuitBreakerPersistenceLayer:
    """The store of the downstream circuit states that the settings select (`PROTECTION_STORE`).

    Args:
        settings: The function's settings.
        logger: Where a failing table's `store_unavailable` lines go.

    Returns:
        A `MemoryCircuitStore` (one process), or a `DynamoDBCircuitStore` on `PROTECTION_TABLE` (the fleet).
    """
    if settings.protection_store != "dynamodb":
        from .downstream.circuit_store import MemoryCircuitStore

        return MemoryCircuitStore()
    from .aws.circuit_table import DynamoDBCircuitStore

    assert settings.protection_table is not None  # Settings refuses `dynamodb` without a table
    return DynamoDBCircuitStore(
        settings.protection_table, budget=AwsBudget.from_settings(settings), logger=logger
    )
