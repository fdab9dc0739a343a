"""The exactly-once store's contract: a Powertools persistence layer per record lifetime.

Powertools fixes a layer's record lifetime when the layer is first configured, so a store hands out one layer per
lifetime (the `IDEMPOTENCY_TTL_SECONDS` of keyed calls, and each tool's dedupe window), all over the same table or
dict. `memory.py` and `dynamodb.py` are the two backends.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency import BasePersistenceLayer
else:
    BasePersistenceLayer = Any

# The item shape of Powertools' DynamoDB layer (its defaults), which template.yaml's IdempotencyTable matches.
PARTITION_KEY = "id"
EXPIRY_ATTRIBUTE = "expiration"


class IdempotencyStore(Protocol):
    def layer(self, expires_after_seconds: int) -> BasePersistenceLayer:
        """The Powertools persistence layer whose completed records live `expires_after_seconds`."""
        ...


class Layers:
    """One persistence layer per record lifetime, created on first use."""

    def __init__(self) -> None:
        self._layers: dict[int, BasePersistenceLayer] = {}
        self._lock = threading.Lock()

    def get(self, expires_after_seconds: int, create: Any) -> BasePersistenceLayer:
        with self._lock:
            layer = self._layers.get(expires_after_seconds)
            if layer is None:
                layer = self._layers[expires_after_seconds] = create()
            return layer
