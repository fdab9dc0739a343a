"""The base of every store kept in one DynamoDB table: each call held to the AWS budget, each failure mapped once.

`DynamoDBTable.put_new(item)` (never overwriting a key), `read_live(key, parse)` (strongly consistent, expired
records unseen) and `call("update_item", Key=...)` for the rest each run the client's operation on the store's
table through `AwsBudget.call` (never past the request deadline) and map what went wrong one way: a write whose
`ConditionExpression` did not hold raises `ConditionFailed`; throttling, an unreachable table or no answer in time
raises the store's own `unavailable_error` (a `StoreUnavailable`), after one `store_unavailable` warning naming
the store, the operation and the failure class, never a key or an item. `DeadlineBoundClient` gives a client that
a library calls itself (Powertools' idempotency layer) the same deadline.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, ClassVar, Protocol, TypeVar

from ..aws.budget import THROTTLE_CODES, AwsBudget, AwsCallTimedOut, BudgetedClient, failure_reason
from ..errors import McpLambdaError

# The item operations a store issues; the rest of a client (meta, exceptions) is passed through untouched.
ITEM_OPERATIONS = frozenset(
    {
        "get_item",
        "query",
        "scan",
        "batch_get_item",
        "put_item",
        "update_item",
        "delete_item",
        "batch_write_item",
    }
)
CONDITION_FAILED = "ConditionalCheckFailedException"

_logger = logging.getLogger("mcp_lambda")


class Expiring(Protocol):
    def is_expired(self) -> bool: ...


R = TypeVar("R", bound=Expiring)


class ConditionFailed(McpLambdaError):
    """A write's `ConditionExpression` did not hold: the item exists, is gone, or has another version.

    Attributes:
        item: The item as it stands, when the write asked for it (`ReturnValuesOnConditionCheckFailure`).
    """

    def __init__(self, operation: str, item: dict[str, Any] | None = None) -> None:
        super().__init__(operation)
        self.item = item


def is_store_failure(exc: BaseException) -> bool:
    """Whether `exc` is the table failing (an AWS error, a botocore error, no answer in time), not a bug of ours."""
    if isinstance(exc, AwsCallTimedOut):
        return True
    from botocore.exceptions import (
        BotoCoreError,
        ClientError,
    )  # on a failure only: start-up never loads botocore

    return isinstance(exc, (ClientError, BotoCoreError))


class DynamoDBTable(BudgetedClient):
    """A store in one DynamoDB table, one item per record under the string key `key_attribute`.

    A subclass names its `store_name`, `key_attribute` and `unavailable_error`, and calls `put_new`, `read_live`
    or, for any other operation, `call`.

    The client is made on first use and forgotten after a SnapStart restore (`BudgetedClient`).

    Args:
        table_name: The table every call goes to.
        client: A boto3 DynamoDB client to use instead of one made with `budget` (tests, DynamoDB Local).
        budget: Timeouts and attempts; `AwsBudget()` when None.
        retry_after_seconds: `Retry-After` when throttled; any other failure asks for twice as long.
    """

    aws_service = "dynamodb"
    store_name: ClassVar[str] = "store"
    key_attribute: ClassVar[str] = "id"
    # The StoreUnavailable of the store's family; built as `unavailable_error(message, retry_after_seconds=...)`.
    unavailable_error: ClassVar[Callable[..., Exception]]

    def __init__(
        self,
        table_name: str,
        *,
        client: Any = None,
        budget: AwsBudget | None = None,
        retry_after_seconds: int = 1,
    ) -> None:
        self.table_name = table_name
        self.retry_after_seconds = retry_after_seconds
        self._own_client(client, budget)

    def call(self, operation: str, **params: Any) -> dict[str, Any]:
        """`operation` (a client method: "get_item", "put_item" ...) on this table, within the budget.

        Args:
            operation: The boto3 DynamoDB client method to call; `TableName` is added.
            **params: Its other parameters.

        Returns:
            DynamoDB's response.

        Raises:
            ConditionFailed: The operation's `ConditionExpression` did not hold.
            Exception: What `failure` maps any other failure of the table to (by default `unavailable`).
        """
        try:
            response: dict[str, Any] = self.budget.call(
                getattr(self.client, operation), TableName=self.table_name, **params
            )
        except Exception as exc:
            if not is_store_failure(exc):
                raise
            if failure_reason(exc) == CONDITION_FAILED:
                response = getattr(exc, "response", None) or {}
                raise ConditionFailed(operation, response.get("Item")) from None
            raise self.failure(exc, operation) from None
        return response

    def key(self, value: str) -> dict[str, Any]:
        """The `Key` of the record `value`.

        Args:
            value: The record's key (a string, under `key_attribute`).

        Returns:
            The `Key` parameter of a DynamoDB item operation.
        """
        return {self.key_attribute: {"S": value}}

    def put_new(self, item: dict[str, Any]) -> None:
        """Write `item` unless a record with its key exists (ids are never overwritten).

        Args:
            item: The item, in DynamoDB's attribute-value form, its key under `key_attribute`.

        Raises:
            ConditionFailed: A record with that key exists.
        """
        try:
            self.call(
                "put_item",
                Item=item,
                ConditionExpression=f"attribute_not_exists({self.key_attribute})",
                ReturnValuesOnConditionCheckFailure="ALL_OLD",
            )
        except ConditionFailed as exc:
            # A first attempt that wrote but whose answer was lost (a timeout, then the budget's retry) finds its
            # own item: that is this write succeeding, not the id being taken.
            if exc.item != item:
                raise

    def read_live(self, value: str, parse: Callable[[dict[str, Any]], R]) -> R | None:
        """The record `value` parsed, read strongly consistent; None when absent or expired (TTL deletes lazily).

        Args:
            value: The record's key.
            parse: Turns the item into the record.

        Returns:
            The record, or None.
        """
        item = self.call("get_item", Key=self.key(value), ConsistentRead=True).get("Item")
        if item is None:
            return None
        record = parse(item)
        return None if record.is_expired() else record

    def failure(self, exc: BaseException, operation: str) -> Exception:
        """What a failure of the table raises; a subclass may map some errors to its own (a record too large).

        Args:
            exc: The ClientError, BotoCoreError or AwsCallTimedOut.
            operation: The client method that failed.

        Returns:
            The exception to raise in its place.
        """
        return self.unavailable(exc, operation)

    def unavailable(self, exc: BaseException, operation: str) -> Exception:
        """The store's `unavailable_error` for `exc`, logged once; throttling asks for the shorter Retry-After.

        Args:
            exc: The failure; only its class (error code or exception name) is logged and named.
            operation: The client method that failed.

        Returns:
            An `unavailable_error` carrying `retry_after_seconds`.
        """
        reason = failure_reason(exc)
        throttled = reason in THROTTLE_CODES
        retry_after = self.retry_after_seconds if throttled else self.retry_after_seconds * 2
        _logger.warning(
            "store_unavailable",
            extra={
                "event": "store_unavailable",
                "store": self.store_name,
                "operation": operation,
                "reason": reason,
                "retry_after_seconds": retry_after,
            },
        )
        return self.unavailable_error(
            f"{self.store_name} unavailable: {reason}", retry_after_seconds=retry_after
        )


class DeadlineBoundClient:
    """A DynamoDB client whose item operations run through `budget.call`, for a library that calls it itself.

    Args:
        client: The boto3 DynamoDB client.
        budget: Its budget: an operation is waited for at most `wait_seconds` and never past the request deadline
            (`AwsCallTimedOut`).
    """

    def __init__(self, client: Any, budget: AwsBudget) -> None:
        self._client = client
        self._budget = budget

    def __getattr__(self, name: str) -> Any:
        attribute = getattr(self._client, name)
        if name not in ITEM_OPERATIONS:
            return attribute

        def bound(*args: Any, **kwargs: Any) -> Any:
            return self._budget.call(attribute, *args, **kwargs)

        return bound
