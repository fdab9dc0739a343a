"""Quotas on DynamoDB Local: containers that share nothing but the protection table count into one quota, the
condition holds under concurrent calls, the item keeps no principal and expires after its window, and a table that
cannot be reached lets the call through with one warning."""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from typing import Any

import pytest
from tests.support.fault_proxy import FaultProxy

from mcp_lambda.calls.quotas import EXPIRY_SLACK_SECONDS, QuotaExceeded, Quotas
from mcp_lambda.settings import Settings
from mcp_lambda.stores import build_store
from mcp_lambda.stores.quotas.dynamodb import DynamoDBQuotaStore
from mcp_lambda.testing import Identity, McpTestClient
from mcp_lambda.tools import Business, CallLimits, ToolContext, ToolResult, execution_result, tool
from mcp_lambda.tools.options import Quota
from mcp_lambda_dev.services import LocalService

ALICE = Identity("alice")


@tool(description="Use to quote a price. Three an hour per caller.", limits=CallLimits(quota="3/hour"))
def quote(ctx: ToolContext) -> ToolResult:
    return execution_result({"price": 3})


BUSINESS = Business(name="quoted", tools=[quote])


@pytest.fixture
def protection_env(
    monkeypatch: pytest.MonkeyPatch, dynamodb_local: LocalService, protection_table: str
) -> dict[str, str]:
    env = {
        "BUSINESS": "quoted",
        "PROTECTION_STORE": "dynamodb",
        "PROTECTION_TABLE": protection_table,
        "AWS_ENDPOINT_URL_DYNAMODB": dynamodb_local.endpoint_url,
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return env


def _container() -> McpTestClient:
    """A fresh Lambda container: its settings from the environment alone, its own app, store and boto3 client."""
    return McpTestClient(BUSINESS, caller=ALICE, settings=Settings.from_env(os.environ))


def _quotas(limit: int, store: Any) -> Quotas:
    return Quotas({"quote": Quota(f"{limit}/hour", limit, 3600)}, "quoted", lambda: store)


def test_two_containers_count_into_one_quota(protection_env: dict[str, str]) -> None:
    with _container() as first, _container() as second:
        assert not first.call_tool("quote").is_error
        assert not second.call_tool("quote").is_error
        assert not first.call_tool("quote").is_error
        over = second.call_tool("quote")  # the fourth call of the hour, whichever container serves it
        assert (over.code, over.structured_content["quota"]) == (42900, "3/hour")
        assert first.call_tool("quote").code == 42900
        with second.as_caller(Identity("bob")) as bob:
            assert not bob.call_tool("quote").is_error


def test_the_condition_holds_under_concurrent_calls(protection_env: dict[str, str]) -> None:
    settings = Settings.from_env(os.environ)
    # Eight containers' stores (a boto3 client each), 40 calls at once: exactly the limit get through.
    containers = [_quotas(5, build_store("quotas", settings)) for _ in range(8)]
    for quotas in containers:
        assert isinstance(quotas.store, DynamoDBQuotaStore)
    outcomes: list[bool] = []
    lock = threading.Lock()
    start = threading.Barrier(40)

    def call(quotas: Quotas) -> None:
        start.wait()
        try:
            quotas.check("quote", "alice")
            passed = True
        except QuotaExceeded:
            passed = False
        with lock:
            outcomes.append(passed)

    threads = [threading.Thread(target=call, args=(containers[i % 8],)) for i in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert len(outcomes) == 40 and outcomes.count(True) == 5


def test_the_counter_keeps_no_principal_and_expires_after_its_window(
    protection_env: dict[str, str], dynamodb_client: Any, protection_table: str
) -> None:
    principal = "https://issuer.example|alice@example.com"
    _quotas(3, build_store("quotas", Settings.from_env(os.environ))).check("quote", principal)
    [item] = dynamodb_client.scan(TableName=protection_table, ConsistentRead=True)["Items"]
    key = item["id"]["S"]
    assert key.startswith("quota#quoted#quote#") and "alice" not in str(item)
    window_start = int(key.rsplit("#", 1)[1])
    assert window_start % 3600 == 0 and window_start <= time.time() < window_start + 3600
    assert int(item["expiration"]["N"]) == window_start + 3600 + EXPIRY_SLACK_SECONDS
    assert item["count"] == {"N": "1"}


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_an_unreachable_table_lets_the_call_through_with_one_warning(
    monkeypatch: pytest.MonkeyPatch, protection_env: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", f"http://127.0.0.1:{_closed_port()}")
    with _container() as alice:
        caplog.clear()  # from here: the calls' lines only
        started = time.monotonic()
        answers = [alice.call_tool("quote") for _ in range(4)]  # one more than the quota: none counted
        elapsed = time.monotonic() - started
    assert [answer.structured_content for answer in answers] == [{"price": 3}] * 4
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert [r.getMessage() for r in warnings] == [
        "quota_store_unavailable"
    ] * 4  # one line per call, no other
    assert all("alice" not in str(vars(r)) for r in warnings)
    assert elapsed < 4 * 3.5  # one attempt each, within the AWS budget: never retried


def test_a_missing_table_lets_the_call_through_too(
    monkeypatch: pytest.MonkeyPatch, protection_env: dict[str, str], caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv("PROTECTION_TABLE", "no-such-table")
    with _container() as alice, caplog.at_level(logging.WARNING, logger="mcp_lambda"):
        assert alice.call_tool("quote").structured_content == {"price": 3}
    [line] = [r for r in caplog.records if r.getMessage() == "quota_store_unavailable"]
    assert "ResourceNotFoundException" in line.reason  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("fault", "delay"), [("blackhole", 0.0), ("latency", 3.0), ("reset", 0.0), ("http503", 0.0)]
)
def test_a_slow_or_failing_table_lets_the_call_through_within_one_attempt(
    fault: str,
    delay: float,
    monkeypatch: pytest.MonkeyPatch,
    protection_env: dict[str, str],
    dynamodb_local: LocalService,
    caplog: pytest.LogCaptureFixture,
) -> None:
    proxy = FaultProxy(dynamodb_local.port).start()
    try:
        monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", proxy.url)
        settings = Settings.from_env(
            {**os.environ, "AWS_CONNECT_TIMEOUT_MS": "200", "AWS_READ_TIMEOUT_MS": "300"}
        )
        quotas = _quotas(1, build_store("quotas", settings))
        quotas.check("quote", "alice")  # healthy: counted (1 of 1)
        proxy.set(fault, delay)
        caplog.clear()
        started = time.monotonic()
        quotas.check("quote", "alice")  # over the quota, but the store cannot say so: let through
        elapsed = time.monotonic() - started
        lines = [
            r.getMessage() for r in caplog.records if r.name == "mcp_lambda" and r.levelno >= logging.WARNING
        ]
    finally:
        proxy.stop()
    assert elapsed < 1.5, elapsed  # one attempt of 0.2 + 0.3 s, never retried
    assert lines == ["quota_store_unavailable"]
