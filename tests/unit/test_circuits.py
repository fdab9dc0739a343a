"""The downstream circuit breaker in memory mode (`PROTECTION_STORE=memory`): Powertools' state machine on a store
of one process, through `HttpClient` against the test kit's fake service."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aws_lambda_powertools.utilities.circuit_breaker.persistence import CircuitStateRecord
from aws_lambda_powertools.utilities.circuit_breaker.persistence.base import CircuitBreakerExistingLockError
from aws_lambda_powertools.utilities.circuit_breaker.states import CircuitState

from mcp_lambda import deadlines
from mcp_lambda.downstream import (
    CircuitOpen,
    DownstreamTimeout,
    DownstreamUnavailable,
    EgressPolicy,
    HttpClient,
)
from mcp_lambda.downstream.circuits import PROBE_RETRY_MS
from mcp_lambda.stores.circuits.memory import MemoryCircuitStore
from mcp_lambda.testing import FakeService, fake_service

LOGGER = "circuit-test"
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def service() -> Iterator[FakeService]:
    with fake_service() as running:
        yield running


def _client(**options: Any) -> HttpClient:
    values: dict[str, Any] = {
        "backoff_seconds": 0.0,
        "max_attempts": 1,
        "failure_threshold": 3,
        # Powertools counts whole seconds from the second of the opening: 30 s stays open more than 29 s.
        "reset_seconds": 30,
        "circuit_scope": "shop",
        "egress": EgressPolicy(["127.0.0.1"]),  # the fake service
        **options,
    }
    return HttpClient(logging.getLogger(LOGGER), **values)


def _fail(client: HttpClient, url: str, times: int) -> None:
    for _ in range(times):
        with pytest.raises(DownstreamUnavailable):
            client.get(url)


def _open_until_the_trial(client: HttpClient, url: str) -> None:
    """Open `url`'s circuit with three failures (the statuses scripted by the caller), check that it refuses, and
    wait until its trial is due."""
    _fail(client, url, 3)
    with pytest.raises(CircuitOpen) as refused:
        client.get(url)
    time.sleep((refused.value.retry_after_ms or 0) / 1000 + 0.05)


def _transitions(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str, str]]:
    return [
        (r.host, r.from_state, r.to_state)  # type: ignore[attr-defined]
        for r in caplog.records
        if getattr(r, "event", None) == "downstream_circuit_changed"
    ]


def test_failures_open_the_circuit_and_an_open_circuit_answers_without_calling_the_host(
    service: FakeService, caplog: pytest.LogCaptureFixture
) -> None:
    client = _client()
    service.fail_next(503, 503, 503)
    with caplog.at_level(logging.INFO, logger=LOGGER):
        _fail(client, service.url, 3)
        reached = len(service.seen)
        with pytest.raises(CircuitOpen) as refused:
            client.get(f"{service.url}/items/1", interface="items.get")

    assert len(service.seen) == reached == 3  # the open circuit sent nothing
    assert 28_000 < (refused.value.retry_after_ms or 0) <= 30_000
    assert refused.value.interface == "items.get"
    assert _transitions(caplog) == [(service.url, "closed", "open")]
    (opened,) = [r for r in caplog.records if getattr(r, "event", None) == "downstream_circuit_changed"]
    assert opened.levelno == logging.WARNING
    (line,) = [r for r in caplog.records if getattr(r, "error", None) == "CircuitOpen"]
    assert line.attempts == 0  # type: ignore[attr-defined]


def test_fewer_failures_than_the_threshold_and_a_success_between_keep_it_closed(service: FakeService) -> None:
    client = _client()
    service.fail_next(503, 503)
    _fail(client, service.url, 2)
    assert client.get(service.url).status == 200  # resets the count of consecutive failures
    service.fail_next(503, 503)
    _fail(client, service.url, 2)
    assert client.get(service.url).status == 200
    assert client.circuits.state(service.url) == "closed"


def test_answers_below_500_are_successes_for_the_circuit(service: FakeService) -> None:
    client = _client()
    service.route("/gone", 404, {"code": 404})
    service.fail_next(429)  # retried only by idempotent calls; one attempt here, and it is an answer
    answers = [client.get(f"{service.url}/gone").status for _ in range(6)]
    assert answers == [429, 404, 404, 404, 404, 404]
    assert client.circuits.state(service.url) == "closed"


def test_after_the_reset_time_one_trial_closes_the_circuit(
    service: FakeService, caplog: pytest.LogCaptureFixture
) -> None:
    client = _client(reset_seconds=2)  # open for 1 to 2 s
    service.fail_next(503, 503, 503)
    with caplog.at_level(logging.INFO, logger=LOGGER):
        _open_until_the_trial(client, service.url)
        assert client.get(service.url).status == 200  # the trial
        assert client.get(service.url).status == 200

    assert _transitions(caplog) == [
        (service.url, "closed", "open"),
        (service.url, "open", "half-open"),
        (service.url, "half-open", "closed"),
    ]


def test_a_failed_trial_opens_the_circuit_again_for_the_whole_reset_time(service: FakeService) -> None:
    client = _client(reset_seconds=2)  # open for 1 to 2 s
    service.fail_next(503, 503, 503, 503)
    _open_until_the_trial(client, service.url)
    _fail(client, service.url, 1)  # the trial fails
    reached = len(service.seen)

    with pytest.raises(CircuitOpen):
        client.get(service.url)
    assert len(service.seen) == reached == 4


def test_while_another_caller_holds_the_trial_a_call_is_refused_with_a_short_wait(
    service: FakeService,
) -> None:
    client = _client(reset_seconds=2)  # open for 1 to 2 s
    service.fail_next(503, 503, 503)
    _open_until_the_trial(client, service.url)
    release, arrived = threading.Event(), threading.Event()

    def slow(request: Any) -> tuple[int, Any]:
        arrived.set()
        release.wait(5)
        return 200, {"code": 0}

    service.routes["/slow"] = slow
    trial = threading.Thread(target=client.get, args=(f"{service.url}/slow",))
    trial.start()
    try:
        assert arrived.wait(5)
        with pytest.raises(CircuitOpen) as waiting:
            client.get(service.url)
    finally:
        release.set()
        trial.join(5)
    assert waiting.value.retry_after_ms == PROBE_RETRY_MS
    assert client.circuits.state(service.url) == "closed"


def test_a_call_past_the_deadline_is_no_failure_of_the_host_but_a_timeout_is(service: FakeService) -> None:
    client = _client(failure_threshold=2)
    with deadlines.active(deadlines.Deadline.after_ms(-1)):
        for _ in range(3):
            with pytest.raises(DownstreamTimeout):
                client.get(service.url)
    assert service.seen == [] and client.circuits.state(service.url) == "closed"

    release = threading.Event()
    service.routes["/stall"] = lambda request: (release.wait(5), (200, {}))[1]
    try:
        for _ in range(2):
            with deadlines.active(deadlines.Deadline.after_ms(150)), pytest.raises(DownstreamTimeout):
                client.get(f"{service.url}/stall")
    finally:
        release.set()
    with pytest.raises(CircuitOpen):
        client.get(service.url)


def test_two_clients_of_one_process_keep_circuits_of_their_own(service: FakeService) -> None:
    first, second = _client(), _client()
    service.fail_next(503, 503, 503)
    _fail(first, service.url, 2)
    _fail(second, service.url, 1)  # Powertools counts per circuit name: the names differ
    assert first.circuits.name(service.url) != second.circuits.name(service.url)
    assert first.circuits.state(service.url) == second.circuits.state(service.url) == "closed"

    service.fail_next(503)
    _fail(first, service.url, 1)
    with pytest.raises(CircuitOpen):
        first.get(service.url)
    assert second.get(service.url).status == 200


def test_a_circuit_is_named_for_the_business_and_the_host_never_the_user_in_the_url(
    service: FakeService,
) -> None:
    client = _client(circuit_store=lambda: _FleetStore())
    url = f"http://user:pa55word@127.0.0.1:{service.port}/items"
    assert client.get(url).status == 200
    assert client.circuits.name(service.url) == f"circuit#shop#{service.url}"
    assert client.circuits.store.get_state(f"circuit#shop#{service.url}").state == CircuitState.CLOSED


class _FleetStore(MemoryCircuitStore):
    """A memory store that says it is shared: the names are the fleet's."""

    fleet_wide = True


def test_an_opening_and_a_closing_are_counted_as_metrics_with_the_service_dimension(
    service: FakeService, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "false")
    monkeypatch.setenv("POWERTOOLS_METRICS_NAMESPACE", "Shop")
    client = _client(reset_seconds=2)  # open for 1 to 2 s
    service.fail_next(503, 503, 503)
    _open_until_the_trial(client, service.url)
    client.get(service.url)

    records = [json.loads(line) for line in capsys.readouterr().out.splitlines() if '"_aws"' in line]
    assert [next(m["Name"] for m in r["_aws"]["CloudWatchMetrics"][0]["Metrics"]) for r in records] == [
        "CircuitOpened",
        "CircuitClosed",
    ]
    opened = records[0]
    assert opened["_aws"]["CloudWatchMetrics"][0]["Namespace"] == "Shop"
    assert opened["_aws"]["CloudWatchMetrics"][0]["Dimensions"] == [["service"]]
    assert (opened["service"], opened["host"], opened["CircuitOpened"]) == ("shop", service.url, [1.0])


def test_no_metric_is_written_when_powertools_metrics_are_disabled(
    service: FakeService, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("POWERTOOLS_METRICS_DISABLED", "true")
    client = _client()
    service.fail_next(503, 503, 503)
    _fail(client, service.url, 3)
    assert '"_aws"' not in capsys.readouterr().out


def test_the_memory_store_elects_one_trial_as_the_dynamodb_store_does() -> None:
    store = MemoryCircuitStore()
    now = int(time.time())

    def half_open(owner: str, lease: int = now + 30) -> CircuitStateRecord:
        return CircuitStateRecord("c", CircuitState.HALF_OPEN, opened_at=now, half_open_owner=owner,
                                  probe_lease_expiry=lease)  # fmt: skip

    with pytest.raises(CircuitBreakerExistingLockError):  # no record: nothing to probe
        store._put_record(half_open("a"), condition="half_open", expected_opened_at=now)
    store._put_record(CircuitStateRecord("c", CircuitState.OPEN, opened_at=now))
    with pytest.raises(CircuitBreakerExistingLockError):  # opened again since the caller looked
        store._put_record(half_open("a"), condition="half_open", expected_opened_at=now - 5)
    store._put_record(half_open("a", lease=now - 1), condition="half_open", expected_opened_at=now)
    store._put_record(half_open("b"), condition="half_open", expected_opened_at=now)  # a's lease ran out
    with pytest.raises(CircuitBreakerExistingLockError):  # b holds it
        store._put_record(half_open("c"), condition="half_open", expected_opened_at=now)
    store._update_record(CircuitStateRecord("c", CircuitState.OPEN, opened_at=now + 1))
    reopened = store._get_record("c")
    assert reopened is not None and (reopened.half_open_owner, reopened.probe_lease_expiry) == (None, None)


def test_a_client_that_never_calls_out_imports_no_circuit_breaker_and_no_boto3() -> None:
    code = (
        "import json, sys, logging\n"
        "from mcp_lambda.downstream import HttpClient\n"
        "HttpClient(logging.getLogger('x'), circuit_store=lambda: 1/0)\n"
        "print(json.dumps(sorted(m for m in ('boto3', 'aws_lambda_powertools.utilities.circuit_breaker', "
        "'urllib3') if m in sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={"PYTHONPATH": f"{ROOT / 'src'}", "PATH": ""},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert json.loads(done.stdout.splitlines()[-1]) == []
