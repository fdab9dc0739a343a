"""The fleet's circuit breaker on DynamoDB Local (`PROTECTION_STORE=dynamodb`): two HttpClients stand in for two
containers, each with its own store object (its own read cache) on one protection table.

Powertools counts failures per circuit name in module-level dicts, so two clients of one process share their
failure counts; every test here opens a circuit with one client alone and checks what the other, which made no
call that failed, learns from the table.
"""

from __future__ import annotations

import json
import logging
import socket
import time
from collections.abc import Iterator
from typing import Any

import pytest
from tests.support.handlers import build_handler

from mcp_lambda.downstream import CircuitOpen, DownstreamUnavailable, EgressPolicy, HttpClient
from mcp_lambda.observability import get_logger
from mcp_lambda.settings import Settings
from mcp_lambda.stores import build_store
from mcp_lambda.stores.circuits.dynamodb import DynamoDBCircuitStore
from mcp_lambda.testing import MODERN, FakeService, McpTestClient, fake_service
from mcp_lambda.tools import Business, ToolAnnotations, ToolContext, ToolResult, execution_result, tool
from mcp_lambda_dev.aws_counters import DynamoDBCalls
from mcp_lambda_dev.services import LocalService

LOGGER = "fleet-test"
TARGET = {"url": ""}


@pytest.fixture
def service() -> Iterator[FakeService]:
    with fake_service() as running:
        TARGET["url"] = running.url
        yield running


@pytest.fixture
def fleet_env(monkeypatch: pytest.MonkeyPatch, dynamodb_local: LocalService, protection_table: str) -> str:
    """What switches a server to the shared breaker: the settings and the DynamoDB endpoint, nothing else."""
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", dynamodb_local.endpoint_url)
    return protection_table


def _settings(table: str, **extra: Any) -> Settings:
    values: dict[str, Any] = {
        "business": "shop",
        "protection_store": "dynamodb",
        "protection_table": table,
        "http_max_attempts": 1,
        "circuit_failure_threshold": 3,
        # Powertools counts whole seconds from the second of the opening: a 1 s circuit may stay open far less.
        "circuit_reset_ms": 30_000,
        **extra,
    }
    return Settings(**values)


LOOPBACK = EgressPolicy(["127.0.0.1"])  # the test's fake services


def _container(settings: Settings) -> HttpClient:
    """A container's HttpClient, wired as app.py wires it."""
    logger = logging.getLogger(LOGGER)
    return HttpClient.from_settings(
        settings, logger, lambda: build_store("circuits", settings, logger), egress=LOOPBACK
    )


def _store(client: HttpClient) -> DynamoDBCircuitStore:
    store = client.circuits.store
    assert isinstance(store, DynamoDBCircuitStore)
    return store


def _open(client: HttpClient, service: FakeService) -> int:
    """Open `service`'s circuit with failures on `client`; the milliseconds it stays open."""
    service.fail_next(503, 503, 503)
    for _ in range(3):
        with pytest.raises(DownstreamUnavailable):
            client.get(service.url)
    with pytest.raises(CircuitOpen) as refused:
        client.get(service.url)
    assert refused.value.retry_after_ms is not None
    return refused.value.retry_after_ms


@tool(description="Use to read the stock of an item.", annotations=ToolAnnotations(read_only=True))
def stock(ctx: ToolContext) -> ToolResult:
    return execution_result({"status": ctx.http.get(f"{TARGET['url']}/stock").status})


def test_failures_on_one_container_open_the_circuit_for_another_which_answers_50300_without_calling(
    fleet_env: str, service: FakeService
) -> None:
    business = Business(name="shop", tools=[stock], egress=["127.0.0.1"])  # the fake service
    first = McpTestClient.over_handler(
        build_handler(business, _settings(fleet_env)), era=MODERN, capabilities={}
    )
    second = McpTestClient.over_handler(
        build_handler(business, _settings(fleet_env)), era=MODERN, capabilities={}
    )
    service.fail_next(503, 503, 503)
    codes = [
        first.rpc("tools/call", {"name": "stock", "arguments": {}}).result["structuredContent"]["code"]
        for _ in range(3)
    ]
    reached = len(service.seen)

    refused = second.rpc("tools/call", {"name": "stock", "arguments": {}}).result["structuredContent"]

    assert codes == [50300] * 3
    assert len(service.seen) == reached == 3  # the second container sent nothing
    assert refused["code"] == 50300 and 28_000 < refused["retry_after_ms"] <= 30_000, refused


def test_the_circuit_is_one_item_of_the_table_named_for_the_business_and_the_host(
    fleet_env: str, service: FakeService, dynamodb_client: Any
) -> None:
    _open(_container(_settings(fleet_env)), service)

    items = dynamodb_client.scan(TableName=fleet_env)["Items"]
    assert [item["id"]["S"] for item in items] == [f"circuit#shop#{service.url}"]
    (item,) = items
    assert item["state"]["S"] == "OPEN"
    assert int(item["expiration"]["N"]) > time.time() + 3600  # TTL: outlives the recovery, then reaped


def test_another_business_on_the_same_table_keeps_its_own_circuit(
    fleet_env: str, service: FakeService
) -> None:
    _open(_container(_settings(fleet_env)), service)
    other = _container(_settings(fleet_env, business="billing"))
    assert other.get(service.url).status == 200


def test_a_trial_after_the_reset_time_closes_the_circuit_for_every_container(
    fleet_env: str, service: FakeService, dynamodb_client: Any
) -> None:
    first = _container(_settings(fleet_env, circuit_cache_seconds=0, circuit_reset_ms=2000))
    second = _container(_settings(fleet_env, circuit_cache_seconds=0, circuit_reset_ms=2000))
    left_ms = _open(first, service)
    with pytest.raises(CircuitOpen):
        second.get(service.url)
    time.sleep(left_ms / 1000 + 0.05)

    assert second.get(service.url).status == 200  # the second container's trial
    assert first.get(service.url).status == 200  # closed for the first too
    (item,) = dynamodb_client.scan(TableName=fleet_env)["Items"]
    assert item["state"]["S"] == "CLOSED" and "half_open_owner" not in item


def test_a_closed_circuit_costs_no_store_read_within_the_cache_window(
    fleet_env: str, service: FakeService
) -> None:
    cached = _container(_settings(fleet_env, circuit_cache_seconds=5))
    uncached = _container(_settings(fleet_env, circuit_cache_seconds=0))
    sent: list[str] = []
    cached_calls, uncached_calls = (
        DynamoDBCalls().watch(_store(client).client) for client in (cached, uncached)
    )
    for client in (cached, uncached):
        _store(client).client.meta.events.register(
            "before-send.dynamodb.GetItem",
            lambda client=client, **_: sent.append(client.circuit_cache_seconds),
        )

    for _ in range(10):
        assert cached.get(service.url).status == 200
        assert uncached.get(service.url).status == 200

    assert sent.count(5) == cached_calls.reads == 1  # within 5 s: the first call's read only
    assert sent.count(0) == uncached_calls.reads == 10


def test_a_container_learns_of_an_opening_when_its_cache_window_ends(
    fleet_env: str, service: FakeService
) -> None:
    first = _container(_settings(fleet_env))
    second = _container(_settings(fleet_env, circuit_cache_seconds=2))
    assert second.get(service.url).status == 200  # reads CLOSED: trusted for 2 s (whole seconds: more than 1)
    _open(first, service)

    assert second.get(service.url).status == 200  # still within its window: the call goes out
    time.sleep(2.05)
    with pytest.raises(CircuitOpen):
        second.get(service.url)


def test_a_table_that_cannot_be_reached_fails_open_with_one_warning_per_read(
    monkeypatch: pytest.MonkeyPatch,
    dynamodb_local: LocalService,
    protection_table: str,
    service: FakeService,
    caplog: pytest.LogCaptureFixture,
) -> None:
    with socket.socket() as sock:  # a port nobody listens on: the table is down
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", f"http://127.0.0.1:{port}")
    client = _container(
        _settings(protection_table, aws_max_attempts=1, aws_connect_timeout_ms=200, circuit_cache_seconds=0)
    )

    with caplog.at_level(logging.INFO, logger=LOGGER):
        answers = [client.get(service.url).status for _ in range(2)]
        opened = _open(client, service)  # failures still open it: this container's own breaker

    assert answers == [200, 200] and opened > 0
    warnings = [r for r in caplog.records if getattr(r, "event", None) == "store_unavailable"]
    assert warnings and {(r.store, r.levelno) for r in warnings} == {("circuits", logging.WARNING)}  # type: ignore[attr-defined]
    assert {r.operation for r in warnings} >= {"get_item", "put_item"}  # type: ignore[attr-defined]
    assert all(r.reason == "EndpointConnectionError" for r in warnings)  # type: ignore[attr-defined]
    assert not [r for r in caplog.records if r.name.startswith("aws_lambda_powertools")]


def test_the_table_s_failure_is_one_json_line_of_the_business_log_naming_no_table_or_endpoint(
    monkeypatch: pytest.MonkeyPatch,
    protection_table: str,
    service: FakeService,
    capsys: pytest.CaptureFixture[str],
) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        endpoint = f"http://127.0.0.1:{sock.getsockname()[1]}"
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", endpoint)
    settings = _settings(protection_table, business="jsonlog", aws_max_attempts=1, aws_connect_timeout_ms=200)
    logger = get_logger("jsonlog")  # the business's Powertools Logger, as app.py makes it
    client = HttpClient.from_settings(
        settings, logger, lambda: build_store("circuits", settings, logger), egress=LOOPBACK
    )
    capsys.readouterr()

    assert client.get(service.url).status == 200

    out = capsys.readouterr().out
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    (warning,) = [line for line in lines if line.get("event") == "store_unavailable"]
    assert (warning["level"], warning["service"], warning["store"]) == ("WARNING", "jsonlog", "circuits")
    assert (warning["operation"], warning["reason"]) == ("get_item", "EndpointConnectionError")
    assert "exception" not in warning and "stack_trace" not in warning
    assert protection_table not in out and endpoint not in out
