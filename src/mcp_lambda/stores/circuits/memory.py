"""`MemoryCircuitStore`: the circuit states of one process, for Powertools' circuit breaker state machine.

The same state machine serves `PROTECTION_STORE=memory` and `dynamodb`; this store is the memory backend, with
the DynamoDB backend's semantics (a conditional half-open election, an update that clears the probe's owner).
Importing it imports Powertools' persistence package, which imports boto3: it is imported on the first outbound
call only.
"""

from __future__ import annotations

import dataclasses
import threading
from typing import TYPE_CHECKING, Any, ClassVar

from aws_lambda_powertools.utilities.circuit_breaker.persistence import CircuitStateRecord
from aws_lambda_powertools.utilities.circuit_breaker.persistence.base import CircuitBreakerExistingLockError

from .base import CircuitStore, may_probe

if TYPE_CHECKING:
    from .. import StoreConfig


class MemoryCircuitStore(CircuitStore):
    """Circuit records in a dict of this process: nothing is shared with another container.

    `fleet_wide` is False, so `HostCircuits` gives each client's circuits names of their own (Powertools keeps its
    failure counters per circuit name, process-wide).
    """

    fleet_wide: ClassVar[bool] = False

    def __init__(self) -> None:
        super().__init__()
        self._records: dict[str, CircuitStateRecord] = {}
        self._records_lock = threading.Lock()

    def _get_record(self, name: str) -> CircuitStateRecord | None:
        with self._records_lock:
            record = self._records.get(name)
            return None if record is None else dataclasses.replace(record)

    def _put_record(
        self,
        record: CircuitStateRecord,
        condition: str | None = None,
        expected_opened_at: int | None = None,
    ) -> None:
        with self._records_lock:
            if condition == "half_open" and not may_probe(self._records.get(record.name), expected_opened_at):
                raise CircuitBreakerExistingLockError
            self._records[record.name] = dataclasses.replace(record)

    def _update_record(self, record: CircuitStateRecord) -> None:
        # As DynamoDB's update does: the new state, and neither a probe owner nor a lease left behind.
        with self._records_lock:
            self._records[record.name] = dataclasses.replace(
                record, half_open_owner=None, probe_lease_expiry=None
            )


def build(config: StoreConfig) -> Any:
    """The registry's door (`mcp_lambda.stores.build_store("circuits", settings)`)."""
    return MemoryCircuitStore()
