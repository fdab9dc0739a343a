"""Every piece of state the function keeps, under one roof: one folder per kind, one module per backend.

| kind          | what it holds                                   | backend setting      |
|---------------|-------------------------------------------------|----------------------|
| `sessions`    | legacy-revision sessions (`Mcp-Session-Id`)     | `SESSION_STORE`      |
| `exactly_once`| exactly-once call records                       | `IDEMPOTENCY_STORE`  |
| `tasks`       | tasks of the 2026-07-28 tasks extension         | `TASKS_STORE`        |
| `quotas`      | per-caller quota counters                       | `PROTECTION_STORE`   |
| `circuits`    | downstream circuit states                       | `PROTECTION_STORE`   |

Each kind's folder holds its contract (`base.py`), and a module per backend (`memory.py`, `dynamodb.py`,
`sessions/sqlite.py`) that defines `build(config: StoreConfig)`. `BACKENDS` maps kind -> backend name -> that
module: a new backend is one module, one line here and its settings section (settings/sections/backends.py,
which holds the one rule for what a backend needs, e.g. DynamoDB's tables). The backend setting is a name this
registry checks (`check_backends`, at cold start). Modules are imported when built: boto3 costs cold-start time a
container may never need. Every backend of a kind passes the same contract test (tests/contracts/).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, overload

from ..aws import AwsBudget
from ..settings import STORE_FIELDS, Settings, SettingsError

if TYPE_CHECKING:
    from ..observability import ToolLogger
    from .circuits.base import CircuitStore
    from .exactly_once import IdempotencyStore
    from .quotas import QuotaStore
    from .sessions import SessionStore
    from .tasks import TaskStore

StoreKind = Literal["sessions", "exactly_once", "tasks", "quotas", "circuits"]

# kind -> backend name -> the module that builds it
BACKENDS: dict[str, dict[str, str]] = {
    kind: {backend: f"{__name__}.{kind}.{backend}" for backend in ("memory", "dynamodb")}
    for kind in STORE_FIELDS
}
BACKENDS["sessions"]["sqlite"] = f"{__name__}.sessions.sqlite"


@dataclass(frozen=True)
class StoreConfig:
    """What a backend's `build` receives: the settings, whose backend sections it reads (`settings.table_of(kind)`).

    Attributes:
        settings: The function's settings.
        kind: The kind being built (`sessions`, ...).
        logger: Where a failing store's warnings go (None: the framework's logger).
    """

    settings: Settings
    kind: str
    logger: ToolLogger | None = None

    @property
    def budget(self) -> AwsBudget:
        """The function's one AWS budget (timeouts, attempts, the request deadline)."""
        return AwsBudget.from_settings(self.settings)


def check_backends(settings: Settings) -> None:
    """Refuse, at cold start, a backend setting that names no backend of its kind.

    Args:
        settings: The function's settings.

    Raises:
        SettingsError: A kind's setting names no registered backend; the message names the setting and the known ones.
    """
    for kind in BACKENDS:
        _module_of(kind, settings)


def _module_of(kind: str, settings: Settings) -> str:
    backend = settings.backend_of(kind)
    module_name = BACKENDS[kind].get(backend)
    if module_name is None:
        raise SettingsError(
            f"invalid configuration: {STORE_FIELDS[kind].upper()}={backend!r} is not a backend of the {kind} "
            f"store (known: {', '.join(sorted(BACKENDS[kind]))})"
        )
    return module_name


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
) -> CircuitStore: ...


def build_store(kind: StoreKind, settings: Settings, logger: ToolLogger | None = None) -> Any:
    """The store of `kind` that the settings select.

    Args:
        kind: `sessions`, `exactly_once`, `tasks`, `quotas` or `circuits`.
        settings: The function's settings.
        logger: Where a failing store logs (the circuit store's `store_unavailable` lines).

    Returns:
        The backend's store.

    Raises:
        SettingsError: The setting names no registered backend.
    """
    module = importlib.import_module(_module_of(kind, settings))
    return module.build(StoreConfig(settings, kind, logger))


__all__ = ["BACKENDS", "StoreConfig", "StoreKind", "build_store", "check_backends"]
