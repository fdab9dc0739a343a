"""Powertools' persistence contract over a dict: the embedded exactly-once store (one process, no durability).

It keeps the DynamoDB layer's rules, so a call behaves the same in `make run` as in AWS: a claim succeeds when no
record exists, when the record has expired, or when it is an in-progress claim whose invocation has ended. It
implements the four abstract methods Powertools documents for a persistence layer of one's own, and nothing else:
a refused claim is `IdempotencyItemAlreadyExistsError`, and the claim then reads the record through the layer's
public `get_record`, which checks the arguments against it (DynamoDB's `ReturnValuesOnConditionCheckFailure` saves
that read; here it is a dict lookup).
"""

from __future__ import annotations

import copy
import threading
import time
from typing import Any

from aws_lambda_powertools.utilities.idempotency import BasePersistenceLayer
from aws_lambda_powertools.utilities.idempotency.exceptions import (
    IdempotencyItemAlreadyExistsError,
    IdempotencyItemNotFoundError,
)
from aws_lambda_powertools.utilities.idempotency.persistence.datarecord import STATUS_CONSTANTS, DataRecord

# Past this many records, expired ones are dropped on the next claim (the dict must not grow without bound).
PURGE_ABOVE = 10_000


class MemoryPersistenceLayer(BasePersistenceLayer):
    def __init__(self, records: dict[str, Any], lock: threading.Lock) -> None:
        super().__init__()
        self._records: dict[str, DataRecord] = records
        self._lock = lock

    def _get_record(self, idempotency_key: str) -> DataRecord:
        with self._lock:
            record = self._records.get(idempotency_key)
        if record is None:
            raise IdempotencyItemNotFoundError
        return copy.copy(record)

    def _put_record(self, data_record: DataRecord) -> None:
        now = time.time()
        with self._lock:
            existing = self._records.get(data_record.idempotency_key)
            if existing is not None and not _claimable(existing, now):
                raise IdempotencyItemAlreadyExistsError
            if len(self._records) >= PURGE_ABOVE:
                self._purge(now)
            self._records[data_record.idempotency_key] = copy.copy(data_record)

    def _update_record(self, data_record: DataRecord) -> None:
        with self._lock:
            self._records[data_record.idempotency_key] = copy.copy(data_record)

    def _delete_record(self, data_record: DataRecord) -> None:
        with self._lock:
            self._records.pop(data_record.idempotency_key, None)

    def _purge(self, now: float) -> None:
        for key in [key for key, record in self._records.items() if _claimable(record, now)]:
            del self._records[key]


def _claimable(record: DataRecord, now: float) -> bool:
    """The DynamoDB layer's put condition: expired, or in progress past its invocation's end."""
    if record.expiry_timestamp is not None and record.expiry_timestamp < int(now):
        return True
    in_progress_until = record.in_progress_expiry_timestamp
    return (
        record.status == STATUS_CONSTANTS["INPROGRESS"]
        and in_progress_until is not None
        and in_progress_until < int(now * 1000)
    )
