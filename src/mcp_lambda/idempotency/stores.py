"""Where exactly-once records live: Powertools persistence layers over DynamoDB, or over a dict in memory.

Powertools fixes a layer's record lifetime when the layer is first configured, so a store hands out one layer per
lifetime (the `IDEMPOTENCY_TTL_SECONDS` of keyed calls, and each tool's dedupe window), all over the same table or
dict. DynamoDB calls are counted (`reads`, `writes`, `operations`) for `make bench`.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import TYPE_CHECKING, Any, Protocol

from .. import restore
from ..aws import AwsBudget

if TYPE_CHECKING:
    from aws_lambda_powertools.utilities.idempotency import BasePersistenceLayer
    from mypy_boto3_dynamodb.client import DynamoDBClient
else:
    BasePersistenceLayer = Any
    DynamoDBClient = Any

# The item shape of Powertools' DynamoDB layer (its defaults), which template.yaml's IdempotencyTable matches.
PARTITION_KEY = "id"
EXPIRY_ATTRIBUTE = "expiration"
WRITE_OPERATIONS = frozenset({"PutItem", "UpdateItem", "DeleteItem"})


class IdempotencyStore(Protocol):
    def layer(self, expires_after_seconds: int) -> BasePersistenceLayer:
        """The Powertools persistence layer whose completed records live `expires_after_seconds`."""
        ...


class _Layers:
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


class MemoryIdempotencyStore:
    """The embedded default (`make run`, unit tests): records in this process only, lost on restart."""

    def __init__(self) -> None:
        self.records: dict[str, Any] = {}
        self.lock = threading.Lock()
        self._layers = _Layers()

    def layer(self, expires_after_seconds: int) -> BasePersistenceLayer:
        from .memory import MemoryPersistenceLayer

        return self._layers.get(
            expires_after_seconds, lambda: MemoryPersistenceLayer(self.records, self.lock)
        )


class DynamoDBIdempotencyStore:
    """Powertools' DynamoDB layer on one table shared by every container of the function."""

    def __init__(
        self, table_name: str, *, client: DynamoDBClient | None = None, budget: AwsBudget | None = None
    ) -> None:
        self.table_name = table_name
        self.budget = budget or AwsBudget()
        self.operations: Counter[str] = Counter()
        self._client: DynamoDBClient | None = None
        self._layers = _Layers()
        if client is not None:
            self._use(client)
        else:
            restore.on_restore(self.forget_client)

    @property
    def client(self) -> DynamoDBClient:
        # Created on first use: a container that never serves a keyed call never pays for boto3.
        if self._client is None:
            # The function's one AWS budget (timeouts, attempts, never an attempt after the request deadline).
            self._use(self.budget.client("dynamodb"))
        assert self._client is not None
        return self._client

    def forget_client(self) -> None:
        """After a SnapStart restore: the next call makes a client (and Powertools layers on it) of its own."""
        self._client = None
        self._layers = _Layers()

    def _use(self, client: DynamoDBClient) -> None:
        client.meta.events.register("after-call.dynamodb", self._count)
        self._client = client

    def _count(self, model: Any, **kwargs: Any) -> None:
        self.operations[model.name] += 1

    @property
    def reads(self) -> int:
        return self.operations["GetItem"]

    @property
    def writes(self) -> int:
        return sum(self.operations[name] for name in WRITE_OPERATIONS)

    def reset_counters(self) -> None:
        self.operations.clear()

    def layer(self, expires_after_seconds: int) -> BasePersistenceLayer:
        from aws_lambda_powertools.utilities.idempotency import DynamoDBPersistenceLayer

        return self._layers.get(
            expires_after_seconds,
            lambda: DynamoDBPersistenceLayer(
                table_name=self.table_name,
                key_attr=PARTITION_KEY,
                expiry_attr=EXPIRY_ATTRIBUTE,
                boto3_client=self.client,
            ),
        )
