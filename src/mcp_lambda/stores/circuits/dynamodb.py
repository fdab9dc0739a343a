"""`DynamoDBCircuitStore`: the fleet's circuit states in the protection table, one item per circuit.

Powertools' `CircuitBreakerDynamoDBPersistence` (its item shape: key `id`, TTL `expiration`) on a client held to
the function's `AwsBudget` and the request deadline (`DeadlineBoundClient`). A table that fails never fails a
call: a read that fails answers the state this container last knew (closed when it knew none), which the state
machine then trusts for its cache window; a write that fails (an opening, a closing) still changes this
container's view, and a half-open election that cannot reach the table is won (the container probes for
itself). So a down table leaves each container the breaker of one process, and each failure is logged once as
`store_unavailable` (store `circuits`, the operation, the failure class; never a key or an item).

Importing this module imports boto3: `mcp_lambda.stores.build_store("circuits", ...)` imports it on the first outbound call.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, ClassVar

from aws_lambda_powertools.utilities.circuit_breaker.persistence import (
    CircuitBreakerDynamoDBPersistence,
    CircuitStateRecord,
)
from aws_lambda_powertools.utilities.circuit_breaker.persistence.base import CircuitBreakerExistingLockError

from ... import restore
from ...aws.budget import AwsBudget, failure_reason
from ...observability import ToolLogger
from ..table import DeadlineBoundClient, is_store_failure
from .base import CircuitStore

if TYPE_CHECKING:
    from .. import StoreConfig


class DynamoDBCircuitStore(CircuitBreakerDynamoDBPersistence, CircuitStore):
    """The circuits of every container, in one DynamoDB table.

    Args:
        table_name: The protection table.
        client: A boto3 DynamoDB client to use instead of one made with `budget` (tests, DynamoDB Local); held to
            `budget` either way.
        budget: Timeouts and attempts; `AwsBudget()` when None.
        logger: Where `store_unavailable` goes; the `mcp_lambda` logger when None.
    """

    fleet_wide: ClassVar[bool] = True
    store_name: ClassVar[str] = "circuits"

    def __init__(
        self,
        table_name: str,
        *,
        client: Any = None,
        budget: AwsBudget | None = None,
        logger: ToolLogger | None = None,
    ) -> None:
        self.budget = budget or AwsBudget()
        self.logger: ToolLogger = logger or logging.getLogger("mcp_lambda")
        self._known: dict[str, CircuitStateRecord] = {}
        super().__init__(table_name, boto3_client=self._bound(client))
        if client is None:
            restore.on_restore(self.forget_client)

    def forget_client(self) -> None:
        """After a SnapStart restore: a client of this environment's own."""
        self.client = self._bound(None)

    def _bound(self, client: Any) -> Any:
        return DeadlineBoundClient(client or self.budget.client("dynamodb"), self.budget)

    def _get_record(self, name: str) -> CircuitStateRecord | None:
        try:
            record = super()._get_record(name)
        except Exception as exc:
            if not is_store_failure(exc):
                raise
            self._unavailable(exc, "get_item")
            return self._known.get(name)
        if record is None:
            self._known.pop(name, None)
        else:
            self._known[name] = record
        return record

    def _put_record(
        self,
        record: CircuitStateRecord,
        condition: str | None = None,
        expected_opened_at: int | None = None,
    ) -> None:
        try:
            super()._put_record(record, condition, expected_opened_at)
        except CircuitBreakerExistingLockError:
            raise  # another caller holds the probe
        except Exception as exc:
            if not is_store_failure(exc):
                raise
            self._unavailable(exc, "put_item")
        self._known[record.name] = record

    def _update_record(self, record: CircuitStateRecord) -> None:
        try:
            super()._update_record(record)
        except Exception as exc:
            if not is_store_failure(exc):
                raise
            self._unavailable(exc, "update_item")
        self._known[record.name] = record

    def _unavailable(self, exc: BaseException, operation: str) -> None:
        self.logger.warning(
            "store_unavailable",
            extra={
                "event": "store_unavailable",
                "store": self.store_name,
                "operation": operation,
                "reason": failure_reason(exc),
            },
        )


def build(config: StoreConfig) -> Any:
    """The registry's door (`mcp_lambda.stores.build_store("circuits", settings)`)."""
    return DynamoDBCircuitStore(
        config.settings.table_of(config.kind), budget=config.budget, logger=config.logger
    )
