"""The circuit store's contract: Powertools' circuit-breaker persistence layer (`get_state`, `save_open`,
`save_closed`, `try_acquire_half_open`), whether the states are the fleet's, and the half-open election rule.

Importing it imports Powertools' persistence package (and so boto3): only a backend imports it, on the first
outbound call.
"""

from __future__ import annotations

import time
from typing import ClassVar

from aws_lambda_powertools.utilities.circuit_breaker.persistence import (
    CircuitBreakerPersistenceLayer,
    CircuitStateRecord,
)
from aws_lambda_powertools.utilities.circuit_breaker.states import CircuitState


class CircuitStore(CircuitBreakerPersistenceLayer):
    """Where circuit states live; every backend passes `CircuitStoreContract` (tests/contracts/stores.py).

    Attributes:
        fleet_wide: Whether every container sees the same states; when False, `HostCircuits` gives each client's
            circuits names of their own (Powertools keeps its failure counters per circuit name, process-wide).
    """

    fleet_wide: ClassVar[bool] = True


def may_probe(stored: CircuitStateRecord | None, expected_opened_at: int | None) -> bool:
    """The DynamoDB backend's election condition: open with no probe owner (and opened when the caller saw it),
    or half-open with the probe's lease run out. No record at all fails the condition, as in DynamoDB."""
    if stored is None:
        return False
    if stored.state == CircuitState.OPEN and stored.half_open_owner is None:
        return expected_opened_at is None or stored.opened_at == expected_opened_at
    lease = stored.probe_lease_expiry
    return stored.state == CircuitState.HALF_OPEN and lease is not None and lease <= int(time.time())
