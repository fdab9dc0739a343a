"""`calls.claims.Claim`: a keyed call's claim taken on the public API of a Powertools persistence layer (the
embedded one here; tests/integration/test_exactly_once_dynamodb.py runs the same calls on DynamoDB Local)."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from aws_lambda_powertools.utilities.idempotency import BasePersistenceLayer
from aws_lambda_powertools.utilities.idempotency.exceptions import (
    IdempotencyInconsistentStateError,
    IdempotencyItemAlreadyExistsError,
    IdempotencyItemNotFoundError,
)
from aws_lambda_powertools.utilities.idempotency.persistence.datarecord import DataRecord

from mcp_lambda.calls.claims import (
    CLAIMED,
    Claim,
    IdempotencyAlreadyInProgressError,
    IdempotencyValidationError,
)
from mcp_lambda.stores.exactly_once.memory_layer import MemoryPersistenceLayer


class Life:
    """The invocation's remaining time, as a Lambda context gives it."""

    def __init__(self, ms: int) -> None:
        self.ms = ms

    def get_remaining_time_in_millis(self) -> int:
        return self.ms


@pytest.fixture
def layer() -> MemoryPersistenceLayer:
    return MemoryPersistenceLayer({}, threading.Lock())


def claim(layer: BasePersistenceLayer, arguments: dict[str, Any], life_ms: int = 30_000) -> Claim:
    payload = {"key": ["anonymous", "book", "tool_call_id", "call-1"], "arguments": arguments}
    return Claim(payload, 600, layer, "mcp-test", Life(life_ms))


def test_the_first_call_holds_the_key_and_a_retry_gets_its_stored_result(
    layer: MemoryPersistenceLayer,
) -> None:
    first = claim(layer, {"seat": "12A"})
    assert first.take() is CLAIMED
    first.complete('{"content":[]}')
    assert claim(layer, {"seat": "12A"}).take() == {"result": '{"content":[]}'}


def test_the_same_key_with_other_arguments_is_refused(layer: MemoryPersistenceLayer) -> None:
    claim(layer, {"seat": "12A"}).take()
    with pytest.raises(IdempotencyValidationError):
        claim(layer, {"seat": "14C"}).take()


def test_a_running_call_keeps_the_key_until_its_invocation_ends(layer: MemoryPersistenceLayer) -> None:
    assert claim(layer, {"seat": "12A"}).take() is CLAIMED
    with pytest.raises(IdempotencyAlreadyInProgressError):
        claim(layer, {"seat": "12A"}).take()
    ended = MemoryPersistenceLayer({}, threading.Lock())
    assert claim(ended, {"seat": "12A"}, life_ms=-1000).take() is CLAIMED  # its invocation has ended
    assert claim(ended, {"seat": "12A"}).take() is CLAIMED


def test_a_released_key_runs_again(layer: MemoryPersistenceLayer) -> None:
    first = claim(layer, {"seat": "12A"})
    first.take()
    first.release()
    assert claim(layer, {"seat": "12A"}).take() is CLAIMED


class Vanishing(BasePersistenceLayer):
    """A store whose record is always gone by the time it is read after a refused write."""

    def __init__(self) -> None:
        super().__init__()
        self.puts = 0

    def _get_record(self, idempotency_key: str) -> DataRecord:
        raise IdempotencyItemNotFoundError

    def _put_record(self, data_record: DataRecord) -> None:
        self.puts += 1
        raise IdempotencyItemAlreadyExistsError

    def _update_record(self, data_record: DataRecord) -> None:
        raise AssertionError("not reached")

    def _delete_record(self, data_record: DataRecord) -> None:
        raise AssertionError("not reached")


def test_a_record_that_keeps_changing_is_tried_three_times_then_reported() -> None:
    store = Vanishing()
    with pytest.raises(IdempotencyInconsistentStateError):
        claim(store, {"seat": "12A"}).take()
    assert store.puts == 3
