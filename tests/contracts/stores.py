"""One contract per store kind: what every backend of the kind must do, whatever it keeps its state in.

A backend's test class subclasses the kind's contract and gives the `store` fixture: the memory backends run them
in tests/unit/test_store_contracts.py, the DynamoDB backends on DynamoDB Local in
tests/integration/test_store_contracts_dynamodb.py. A new backend (one module under `mcp_lambda/stores/<kind>/`
and one line in `BACKENDS`) adds one class that subclasses the contract; `covered` checks none is left out.
"""

from __future__ import annotations

import time
import uuid
from typing import Any

import pytest
from aws_lambda_powertools.utilities.circuit_breaker import CircuitBreakerConfig
from aws_lambda_powertools.utilities.circuit_breaker.states import CircuitState
from aws_lambda_powertools.utilities.idempotency import IdempotencyConfig
from aws_lambda_powertools.utilities.idempotency.exceptions import (
    IdempotencyItemAlreadyExistsError,
    IdempotencyItemNotFoundError,
)

from mcp_lambda.stores import BACKENDS
from mcp_lambda.stores.sessions import Session, SessionIdTaken, open_session
from mcp_lambda.stores.sessions.base import MAX_CANCELLED
from mcp_lambda.stores.tasks import Task, TaskIdTaken, open_task


def covered(classes: list[type], backend: str) -> None:
    """Every kind has a contract test class for `backend` among `classes` (by their `kind` attribute)."""
    kinds = {cls.kind for cls in classes}
    assert kinds == {kind for kind, backends in BACKENDS.items() if backend in backends}, kinds


class SessionStoreContract:
    kind = "sessions"

    def _session(self) -> Session:
        return open_session(
            protocol_version="2025-11-25",
            business="contract",
            ttl_seconds=600,
            client_info={"name": "contract"},
        )

    def test_a_created_session_is_found_and_an_unknown_one_is_not(self, store: Any) -> None:
        session = self._session()
        store.create(session)
        found = store.get(session.session_id)
        assert found is not None and found.session_id == session.session_id
        assert found.protocol_version == "2025-11-25"
        assert store.get("no-such-session") is None

    def test_an_id_is_never_overwritten(self, store: Any) -> None:
        session = self._session()
        store.create(session)
        with pytest.raises(SessionIdTaken):
            store.create(session.model_copy(update={"business": "another"}))  # another record, the same id

    def test_delete_answers_whether_there_was_one(self, store: Any) -> None:
        session = self._session()
        store.create(session)
        assert store.delete(session.session_id) is True
        assert store.get(session.session_id) is None
        assert store.delete(session.session_id) is False

    def test_the_log_level_is_kept(self, store: Any) -> None:
        session = self._session()
        store.create(session)
        store.set_log_level(session.session_id, "warning")
        found = store.get(session.session_id)
        assert found is not None and found.log_level == "warning"

    def test_cancelled_requests_are_kept_up_to_the_limit_and_survive_a_touch(self, store: Any) -> None:
        session = self._session()
        store.create(session)
        read_before = store.get(session.session_id)
        store.cancel_request(session.session_id, '"req-1"')
        store.cancel_request(session.session_id, "7")
        store.cancel_request(session.session_id, "7")  # a repeated notification
        assert read_before is not None
        store.touch(read_before.model_copy(update={"expires_at": read_before.expires_at - 10_000}))
        found = store.get(session.session_id)
        assert found is not None and found.cancelled_requests == {'"req-1"', "7"}
        for number in range(100, 100 + MAX_CANCELLED):
            store.cancel_request(session.session_id, str(number))
        full = store.get(session.session_id)
        assert full is not None and len(full.cancelled_requests) == MAX_CANCELLED
        store.cancel_request("no-such-session", "1")  # nothing to remember it for: no error


class ExactlyOnceStoreContract:
    """Driven through Powertools' public persistence API, as the exactly-once layer drives it."""

    kind = "exactly_once"

    def _layer(self, store: Any) -> Any:
        layer = store.layer(60)
        layer.configure(IdempotencyConfig(event_key_jmespath="key"), function_name="contract")
        return layer

    def _data(self) -> dict[str, Any]:
        return {"key": uuid.uuid4().hex}

    def test_a_claim_is_refused_while_another_holds_it(self, store: Any) -> None:
        layer, data = self._layer(store), self._data()
        layer.save_inprogress(data=data, remaining_time_in_millis=30_000)
        with pytest.raises(IdempotencyItemAlreadyExistsError):
            layer.save_inprogress(data=data, remaining_time_in_millis=30_000)

    def test_a_completed_record_is_read_back(self, store: Any) -> None:
        layer, data = self._layer(store), self._data()
        layer.save_inprogress(data=data, remaining_time_in_millis=30_000)
        layer.save_success(data=data, result={"result": '{"ok":true}'})
        record = layer.get_record(data=data)
        assert record.status == "COMPLETED"
        assert record.response_json_as_dict() == {"result": '{"ok":true}'}

    def test_a_released_claim_frees_the_key(self, store: Any) -> None:
        layer, data = self._layer(store), self._data()
        layer.save_inprogress(data=data, remaining_time_in_millis=30_000)
        layer.delete_record(data=data, exception=RuntimeError("released"))
        with pytest.raises(IdempotencyItemNotFoundError):
            layer.get_record(data=data)
        layer.save_inprogress(data=data, remaining_time_in_millis=30_000)  # claimable again

    def test_one_store_serves_layers_of_different_lifetimes(self, store: Any) -> None:
        assert store.layer(60) is store.layer(60)
        assert store.layer(60) is not store.layer(120)


class TaskStoreContract:
    kind = "tasks"

    def _task(self) -> Task:
        return open_task(
            business="contract",
            tool="search",
            arguments={"q": "cup"},
            ttl_ms=60_000,
            worker_timeout_seconds=30,
        )

    def test_a_created_task_is_found_and_an_unknown_one_is_not(self, store: Any) -> None:
        task = self._task()
        store.create(task)
        found = store.get(task.task_id)
        assert found is not None and found.task_id == task.task_id and found.status == "working"
        assert store.get("no-such-task") is None

    def test_an_id_is_never_overwritten(self, store: Any) -> None:
        task = self._task()
        store.create(task)
        with pytest.raises(TaskIdTaken):
            store.create(task.model_copy(update={"tool": "another"}))  # another record, the same id

    def test_replace_checks_the_version(self, store: Any) -> None:
        task = self._task()
        store.create(task)
        done = task.model_copy(
            update={"status": "completed", "version": task.version + 1, "result": {"ok": True}}
        )
        assert store.replace(done, expected_version=task.version) is True
        assert store.replace(done, expected_version=task.version) is False  # someone (we) wrote first
        found = store.get(task.task_id)
        assert found is not None and found.status == "completed"


class QuotaStoreContract:
    kind = "quotas"

    def test_a_counter_counts_up_to_its_limit_and_no_further(self, store: Any) -> None:
        key = f"quota#contract#tool#{uuid.uuid4().hex}#0"
        expires = int(time.time()) + 600
        assert [store.hit(key, 2, expires) for _ in range(4)] == [True, True, False, False]

    def test_counters_are_apart(self, store: Any) -> None:
        expires = int(time.time()) + 600
        one, two = (f"quota#contract#tool#{uuid.uuid4().hex}#0" for _ in range(2))
        assert store.hit(one, 1, expires) is True
        assert store.hit(two, 1, expires) is True
        assert store.hit(one, 1, expires) is False


class CircuitStoreContract:
    """Driven through Powertools' public circuit-breaker persistence API (get_state, save_*, try_acquire_*)."""

    kind = "circuits"

    def _name(self, store: Any) -> str:
        name = f"circuit#contract#{uuid.uuid4().hex[:8]}"
        store.configure(CircuitBreakerConfig(recovery_timeout=2, local_cache_max_age=0), name)
        return name

    def test_an_unknown_circuit_is_closed(self, store: Any) -> None:
        assert store.get_state(self._name(store)).state == CircuitState.CLOSED

    def test_an_opened_circuit_reads_open_and_one_caller_wins_the_trial(self, store: Any) -> None:
        name = self._name(store)
        opened_at = int(time.time())
        store.save_open(name, failure_count=3, opened_at=opened_at)
        assert store.get_state(name).state == CircuitState.OPEN
        assert store.try_acquire_half_open(name, "container-a", opened_at) is True
        assert store.try_acquire_half_open(name, "container-b", opened_at) is False

    def test_a_closed_circuit_reads_closed_again(self, store: Any) -> None:
        name = self._name(store)
        store.save_open(name, failure_count=3, opened_at=int(time.time()))
        store.save_closed(name)
        assert store.get_state(name).state == CircuitState.CLOSED
