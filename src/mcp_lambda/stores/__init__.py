"""Every piece of state the function keeps, under one roof: one folder per kind, one module per backend.

| kind          | what it holds                                   | setting (backend, table)               |
|---------------|-------------------------------------------------|----------------------------------------|
| `sessions`    | legacy-revision sessions (`Mcp-Session-Id`)     | `SESSION_STORE`, `SESSIONS_TABLE`      |
| `exactly_once`| exactly-once call records                       | `IDEMPOTENCY_STORE`, `IDEMPOTENCY_TABLE` |
| `tasks`       | tasks of the 2026-07-28 tasks extension         | `TASKS_STORE`, `TASKS_TABLE`           |
| `quotas`      | per-caller quota counters                       | `PROTECTION_STORE`, `PROTECTION_TABLE` |
| `circuits`    | downstream circuit states                       | `PROTECTION_STORE`, `PROTECTION_TABLE` |

Each kind's folder holds its contract (`base.py`), and a module per backend (`memory.py`, `dynamodb.py`) that
defines `build(config: StoreConfig)`. `BACKENDS` maps kind -> backend name -> that module: a new backend is one
module and one line here. The one rule for tables: a backend whose module says `NEEDS_TABLE = True` is built only
with its kind's table setting. Modules are imported when built: boto3 costs cold-start time a container may never
need. Every backend of a kind passes the same contract test (tests/contracts/).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, overload

from ..aws import AwsBudget
from ..settings import Settings, SettingsError

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.circuit_breaker.persistence import CircuitBreakerPersistenceLayer

    from ..observability import ToolLogger
    from .exactly_once import IdempotencyStore
    from .quotas import QuotaStore
    from .sessions import SessionStore
    from .tasks import TaskStore

StoreKind = Literal["sessions", "exactly_once", "tasks", "quotas", "circuits"]

# kind -> (the settings field naming its backend, the settings field naming its table)
SETTINGS: dict[str, tuple[str, str]] = {
    "sessions": ("session_store", "sessions_table"),
    "exactly_once": ("idempotency_store", "idempotency_table"),
    "tasks": ("tasks_store", "tasks_table"),
    "quotas": ("protection_store", "protection_table"),
    "circuits": ("protection_store", "protection_table"),
}
# kind -> backend name -> the module that builds it
BACKENDS: dict[str, dict[str, str]] = {
    kind: {backend: f"{__name__}.{kind}.{backend}" for backend in ("memory", "dynamodb")} for kind in SETTINGS
}


@dataclass(frozen=True)
class StoreConfig:
    """What a backend's `build` receives.

    Attributes:
        settings: The function's settings.
        table: The kind's table setting (None when unset).
        logger: Where a failing store's warnings go (None: the framework's logger).
    """

    settings: Settings
    table: str | None
    logger: ToolLogger | None = None

    @property
    def budget(self) -> AwsBudget:
        """The function's one AWS budget (timeouts, attempts, the request deadline)."""
        return AwsBudget.from_settings(self.settings)

    def required_table(self) -> str:
        """The table, which a `NEEDS_TABLE` backend is never built without (`build_store` checks first)."""
        assert self.table is not None
        return self.table


@overload
def build_store(kind: Literal["sessions"], settings: Settings) -> SessionStore: ...
@overload
def build_store(kind: Literal["exactly_once"], settings: Settings) -> IdempotencyStore: ...
@overload
def build_store(kind: Literal["tasks"], settings: Settings) -> TaskStore: ...
@overload
def build_store(kind: Literal["quotas"], settings: Settings) -> QuotaStore: ...
@overload
def build_store(
    kind: Literal["circuits"], settings: Settings, logger: ToolLogger | None = None
) -> CircuitBreakerPersistenceLayer: ...


def build_store(kind: StoreKind, settings: Settings, logger: ToolLogger | None = None) -> Any:
    """The store of `kind` that the settings select.

    Args:
        kind: `sessions`, `exactly_once`, `tasks`, `quotas` or `circuits`.
        settings: The function's settings.
        logger: Where a failing store logs (the circuit store's `store_unavailable` lines).

    Returns:
        The backend's store.

    Raises:
        SettingsError: The setting names no registered backend, or one that needs a table without a table.
    """
    backend_field, table_field = SETTINGS[kind]
    backend = getattr(settings, backend_field)
    module_name = BACKENDS[kind].get(backend)
    if module_name is None:
        raise SettingsError(
            f"invalid configuration: {backend_field.upper()}={backend!r} is not a backend of the {kind} store "
            f"(known: {', '.join(sorted(BACKENDS[kind]))})"
        )
    module = importlib.import_module(module_name)
    table = getattr(settings, table_field)
    if getattr(module, "NEEDS_TABLE", False) and not table:
        raise SettingsError(
            f"invalid configuration: {backend_field.upper()}={backend} needs {table_field.upper()}"
        )
    return module.build(StoreConfig(settings, table, logger))


__all__ = ["BACKENDS", "SETTINGS", "StoreConfig", "StoreKind", "build_store"]
