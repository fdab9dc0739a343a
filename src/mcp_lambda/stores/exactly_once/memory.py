"""The embedded exactly-once store (one process, no durability): `make run`'s default and the unit tests'."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from .base import Layers

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency import BasePersistenceLayer

    from .. import StoreConfig


class MemoryIdempotencyStore:
    """The embedded default (`make run`, unit tests): records in this process only, lost on restart."""

    def __init__(self) -> None:
        self.records: dict[str, Any] = {}
        self.lock = threading.Lock()
        self._layers = Layers()

    def layer(self, expires_after_seconds: int) -> BasePersistenceLayer:
        from .memory_layer import MemoryPersistenceLayer  # Powertools is loaded by the first keyed call

        return self._layers.get(
            expires_after_seconds, lambda: MemoryPersistenceLayer(self.records, self.lock)
        )


def build(config: StoreConfig) -> Any:
    """The registry's door (`mcp_lambda.stores.build_store("exactly_once", settings)`)."""
    return MemoryIdempotencyStore()
