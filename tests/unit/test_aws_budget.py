"""One place for every AWS client's timeouts and retry budget (mcp_lambda/aws.py), capped by the deadline."""

from __future__ import annotations

import threading
import time

import pytest

from mcp_lambda import deadlines
from mcp_lambda.aws import AwsBudget, AwsCallTimedOut, client_config
from mcp_lambda.settings import Settings


def test_the_defaults_fail_fast_well_inside_the_deadline() -> None:
    budget = AwsBudget.from_settings(Settings())
    config = client_config(Settings())

    assert (budget.connect_seconds, budget.read_seconds, budget.max_attempts) == (1.0, 2.0, 2)
    assert budget.wait_seconds == 7.0  # two attempts of 1 s + 2 s, and up to 1 s of backoff between them
    assert (config.connect_timeout, config.read_timeout) == (1.0, 2.0)
    assert config.retries == {"mode": "standard", "total_max_attempts": 2}


def test_a_short_deadline_scales_the_budget_to_half_of_it() -> None:
    budget = AwsBudget.from_settings(Settings(request_deadline_ms=2000, deadline_margin_ms=0))

    assert budget.max_attempts == 2
    assert budget.max_attempts * (budget.connect_seconds + budget.read_seconds) == pytest.approx(1.0)
    assert budget.read_seconds == pytest.approx(2 * budget.connect_seconds)
    assert budget.wait_seconds == pytest.approx(1.0)


def test_a_call_is_never_waited_for_past_its_budget() -> None:
    release = threading.Event()
    budget = AwsBudget(wait_seconds=0.1)
    with pytest.raises(AwsCallTimedOut):
        budget.call(release.wait, 5)
    release.set()


def test_a_call_is_never_waited_for_past_the_request_deadline() -> None:
    release = threading.Event()
    with deadlines.active(deadlines.Deadline.after_ms(100)), pytest.raises(AwsCallTimedOut):
        AwsBudget(wait_seconds=30).call(release.wait, 5)
    release.set()


def test_no_attempt_starts_after_the_deadline() -> None:
    client = AwsBudget().client(
        "dynamodb",
        endpoint_url="http://127.0.0.1:9",  # never contacted: the attempt is refused before it is sent
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )
    with deadlines.active(deadlines.Deadline(time.monotonic() - 1)), pytest.raises(AwsCallTimedOut):
        client.list_tables()


def test_no_attempt_starts_after_the_caller_gave_the_call_up() -> None:
    """A call abandoned at its budget is not retried behind the caller's back: botocore's next attempt would land
    a write (an exactly-once claim, a session) the caller already answered as failed."""
    import socket

    accepted: list[socket.socket] = []
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.1)
    stop = threading.Event()

    def accept() -> None:  # a DynamoDB that takes the request and never answers
        while not stop.is_set():
            try:
                accepted.append(server.accept()[0])
            except TimeoutError:
                continue

    acceptor = threading.Thread(target=accept, daemon=True)
    acceptor.start()
    budget = AwsBudget(connect_seconds=0.5, read_seconds=0.4, max_attempts=3, wait_seconds=0.2)
    client = budget.client(
        "dynamodb",
        endpoint_url=f"http://127.0.0.1:{server.getsockname()[1]}",
        region_name="us-east-1",
        aws_access_key_id="test",
        aws_secret_access_key="test",
    )
    try:
        with pytest.raises(AwsCallTimedOut):
            budget.call(client.list_tables)
        time.sleep(
            2.0
        )  # the first attempt's read timeout, then botocore's backoff and the attempts it would make
        assert len(accepted) == 1
    finally:
        stop.set()
        acceptor.join()
        for connection in accepted:
            connection.close()
        server.close()
