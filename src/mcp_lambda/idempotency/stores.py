"""Where exactly-once records live: Powertools persistence layers over DynamoDB, or over a dict in memory.

Powertools fixes a layer's record lifetime when the layer is first configured, so a store hands out one layer per
lifetime (the `IDEMPOTENCY_TTL_SECONDS` of keyed calls, and each tool's dedupe window), all over the same table or
dict. DynamoDB calls are counted (`reads`, `writes`, `operations`) for `make bench`.
"""

from __future__ import annotations

import threading
from collections import Counter
from typing import TYPE_CHECKING, Any, Protocol

from ..aws import AwsBudget, BudgetedClient, DeadlineBoundClient

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


class DynamoDBIdempotencyStore(BudgetedClient):
    """Powertools' DynamoDB layer on one table shared by every container of the function.

    The layer calls the client itself, through a `DeadlineBoundClient`: each call is held to the function's AWS
    budget and never outlives the request deadline (a failure reaches `ExactlyOnce` wrapped by Powertools).
    """

    aws_service = "dynamodb"

    def __init__(
        self, table_name: str, *, client: DynamoDBClient | None = None, budget: AwsBudget | None = None
    ) -> None:
        self.table_name = table_name
        self.operations: Counter[str] = Counter()
        self._layers = _Layers()
        # Made on first use: a container that never serves a keyed call never pays for boto3.
        self._own_client(client, budget)

    def _prepared(self, client: Any) -> Any:
        client.meta.events.register("after-call.dynamodb", self._count)
        return client

    def forget_client(self) -> None:
        """After a SnapStart restore: the next call makes a client (and Powertools layers on it) of its own."""
        super().forget_client()
        self._layers = _Layers()

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
                boto3_client=DeadlineBoundClient(self.client, self.budget),
            ),
        )
