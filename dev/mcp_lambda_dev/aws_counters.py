"""Count the DynamoDB operations a store sends, from outside the store: for `make bench` and the tests.

The stores in `mcp_lambda.stores` keep no counters. `DynamoDBCalls` listens on botocore's own event system instead:
`watch(client)` hooks one boto3 client (a store's `client`, made on first use if it was not yet), and
`watching_new_clients()` hooks every client made from boto3's default session during a block (a store that makes
its client lazily, or again after a SnapStart restore). Each API call is counted once, when it is made (retries
within it are not separate calls; a call that then fails is still one), by operation name ("GetItem", ...),
optionally only those naming one table, so several stores sharing one client are counted apart.
"""

from __future__ import annotations

import contextlib
import threading
from collections import Counter
from collections.abc import Iterator
from typing import Any, Self

# The item operations, by what they cost: everything else (DescribeTable, ...) is in `operations` only.
READ_OPERATIONS = frozenset({"GetItem", "BatchGetItem", "Query", "Scan", "TransactGetItems"})
WRITE_OPERATIONS = frozenset({"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"})
# Emitted once per API call, before its first attempt, with the caller's parameters (so, the table's name).
EVENT = "before-parameter-build.dynamodb"


class DynamoDBCalls:
    """The DynamoDB API calls of the clients it watches, counted by operation name.

    Args:
        table_name: Count only the calls naming this table (`TableName`); None counts every call.
    """

    def __init__(self, table_name: str | None = None) -> None:
        self.table_name = table_name
        self.operations: Counter[str] = Counter()
        self._lock = threading.Lock()  # a store may call from a worker thread (the AWS budget's)
        self._unique_id = f"mcp_lambda_dev.aws_counters.{id(self)}"

    @property
    def reads(self) -> int:
        """The read operations counted (GetItem, Query, Scan and their batch and transaction forms)."""
        return sum(self.operations[name] for name in READ_OPERATIONS)

    @property
    def writes(self) -> int:
        """The write operations counted (PutItem, UpdateItem, DeleteItem and their batch and transaction forms)."""
        return sum(self.operations[name] for name in WRITE_OPERATIONS)

    def reset(self) -> None:
        """Start counting from zero."""
        with self._lock:
            self.operations.clear()

    def watch(self, client: Any) -> Self:
        """Count the calls `client` makes from now on (watching one client twice still counts each call once).

        Args:
            client: A boto3 DynamoDB client, or anything that passes `meta` through to one (`DeadlineBoundClient`).

        Returns:
            This counter.
        """
        client.meta.events.register(EVENT, self._count, unique_id=self._unique_id)
        return self

    @contextlib.contextmanager
    def watching_new_clients(self) -> Iterator[Self]:
        """Count, during the block, the calls of every client made from boto3's default session in it.

        A client copies its session's handlers when it is made: one made before the block is not watched (use
        `watch`). The default session is made here if boto3 has none yet, as `boto3.client` would make it.

        Yields:
            This counter.
        """
        import boto3

        if boto3.DEFAULT_SESSION is None:
            boto3.setup_default_session()
        events = boto3.DEFAULT_SESSION.events
        events.register(EVENT, self._count, unique_id=self._unique_id)
        try:
            yield self
        finally:
            events.unregister(EVENT, unique_id=self._unique_id)

    def _count(self, params: dict[str, Any], model: Any, **_: Any) -> None:
        if self.table_name is not None and params.get("TableName") != self.table_name:
            return
        with self._lock:
            self.operations[model.name] += 1
