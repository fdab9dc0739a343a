"""`--workers n`: n independent instances of the Lambda handler module in one process, like n warm containers.

Each instance runs the handler module's code again (its own app, server, breakers, rate counters and caches), and
every instance is built on one set of stores, as containers share their DynamoDB tables: the session store, the
exactly-once (idempotency) store, the task store and the per-caller quota counters, each the one the settings
select (the embedded memory store by default, or DynamoDB). So a keyed `tools/call` runs once whichever worker
takes each retry, a task created on one worker is read, run and cancelled from any of them, and a quota counts
the calls every worker served.

What is not shared is what a container does not share either: module-level state of the handler module itself.
A business's own modules are imported once per process, so their module-level state (the demo's in-memory
subscriptions, for one) is common to all workers, as a real deployment's shared database would be. So are
Powertools' circuit-breaker failure counts, kept per circuit name: with `PROTECTION_STORE=dynamodb` the workers'
consecutive failures on a host add up (each worker still reads the circuit's state through its own cache); with
`memory` every worker's circuits have names, and counts, of their own.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Callable
from typing import Any

LambdaHandler = Callable[[dict[str, Any], Any], dict[str, Any]]


def shared_stores() -> dict[str, Any]:
    """The stores every worker is built on, one of each, as the settings select them.

    Returns:
        `build_runtime`'s store arguments: `sessions`, `idempotency`, `tasks` and `quotas`.
    """
    from mcp_lambda.settings import get_settings
    from mcp_lambda.stores import build_store

    settings = get_settings()
    return {
        "sessions": build_store("sessions", settings),
        "idempotency": build_store("exactly_once", settings),
        "tasks": build_store("tasks", settings),
        "quotas": build_store("quotas", settings),
    }


def load_handlers(target: str, count: int) -> list[LambdaHandler]:
    """`count` independent instances of the handler `module.function`, all on one set of stores.

    The first instance is the module itself, the others fresh copies of it (each runs the module's code again, as
    a new container would). While they are built, `composition.build_runtime` fills in the shared stores for any
    the handler does not pass itself. One instance is the module as it is, on its own stores.

    Args:
        target: The handler, `module.function` (as in template.yaml).
        count: How many instances.

    Returns:
        The instances' handler functions, the module's own first.
    """
    module_name, _, function_name = target.rpartition(".")
    if count == 1:
        return [getattr(importlib.import_module(module_name), function_name)]
    import mcp_lambda.composition as composition

    building = composition.build_runtime
    stores = shared_stores()

    def build_on_shared_stores(*args: Any, **parts: Any) -> Any:
        return building(*args, **{**stores, **{k: v for k, v in parts.items() if v is not None}})

    composition.build_runtime = build_on_shared_stores
    try:
        handlers = [getattr(importlib.import_module(module_name), function_name)]
        origin = importlib.util.find_spec(module_name)
        assert origin is not None and origin.origin is not None
        for index in range(1, count):
            spec = importlib.util.spec_from_file_location(f"{module_name}_worker{index}", origin.origin)
            assert spec is not None and spec.loader is not None
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            handlers.append(getattr(module, function_name))
    finally:
        composition.build_runtime = building
    return handlers
