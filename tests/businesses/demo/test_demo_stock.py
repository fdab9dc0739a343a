"""check_stock, the demo's downstream call, against a local fake inventory: its answers, and what an agent gets
when the inventory is missing, unreachable, failing, slow or behind an open circuit."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import pytest

from businesses.demo import BUSINESS, codes
from mcp_lambda.testing import MODERN, FakeService, McpTestClient, fake_service

INVENTORY = "DEMO_INVENTORY_URL"


@pytest.fixture
def inventory(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeService]:
    with fake_service() as service:
        service.route("/stock/p-1001", 200, {"product_id": "p-1001", "quantity": 7})
        service.route("/stock/p-1004", 200, {"product_id": "p-1004", "quantity": 0})
        service.route("/stock/p-0000", 404, {"message": "no such product"})
        monkeypatch.setenv(INVENTORY, service.url + "/")  # a trailing slash makes no double slash
        yield service


def _client(**settings: int) -> McpTestClient:
    return McpTestClient(BUSINESS, MODERN, settings=settings)


def test_check_stock_reads_the_inventory(client: McpTestClient, inventory: FakeService) -> None:
    result = client.call_tool("check_stock", {"product_id": "p-1001"})

    assert not result.is_error
    assert result.entities == [
        {
            "product_id": "p-1001",
            "entity_type": "stock_level",
            "product_name": "Light thermos cup 350 ml",
            "quantity": 7,
            "in_stock": True,
        }
    ]
    assert result.text.splitlines()[0] == "Light thermos cup 350 ml: 7 in stock."
    [asked] = inventory.seen
    assert (asked.method, asked.path) == ("GET", "/stock/p-1001")


def test_a_product_out_of_stock_is_an_answer_not_an_error(inventory: FakeService) -> None:
    with _client() as client:
        result = client.call_tool("check_stock", {"product_id": "p-1004"})

    assert not result.is_error and result.entities[0]["in_stock"] is False
    assert result.text.splitlines()[0] == "Glass tea cup set of 4 is out of stock."


def test_a_product_the_inventory_does_not_know_is_40401(inventory: FakeService) -> None:
    with _client() as client:
        result = client.call_tool("check_stock", {"product_id": "p-0000"})

    assert result.is_error and result.code == codes.UNKNOWN_PRODUCT
    assert (result.retryable, result.suggested_action) == (False, "ask_user")


@pytest.mark.parametrize("product_id", ["p-1/../x", "p-10011", "p 1001", "p-1001?x=1", "P-1001"])
def test_an_id_off_the_schema_is_refused_before_the_inventory_is_asked(
    inventory: FakeService, product_id: str
) -> None:
    with _client() as client:
        result = client.call_tool("check_stock", {"product_id": product_id})

    assert result.is_error and result.code == 40000
    assert inventory.seen == []


@pytest.mark.parametrize(
    "configured", [None, "", "inventory.local", "ftp://inventory.local", "http:///stock"]
)
def test_without_a_usable_inventory_url_the_agent_is_told_to_go_on_without(
    monkeypatch: pytest.MonkeyPatch, configured: str | None
) -> None:
    if configured is None:
        monkeypatch.delenv(INVENTORY, raising=False)
    else:
        monkeypatch.setenv(INVENTORY, configured)
    with _client() as client:
        result = client.call_tool("check_stock", {"product_id": "p-1001"})

    assert result.is_error and result.code == codes.INVENTORY_NOT_CONFIGURED
    assert (result.retryable, result.suggested_action) == (False, "skip_and_continue")
    assert "no inventory service configured" in result.text and "search_products" in result.text
    if configured:  # the setting's value is for the operator's log, not for the agent
        assert configured not in result.text


def test_an_unreachable_inventory_is_a_retryable_50300(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as probe:  # a port that was free a moment ago: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv(INVENTORY, f"http://127.0.0.1:{port}")
    with _client() as client:
        result = client.call_tool("check_stock", {"product_id": "p-1001"})

    assert result.is_error and result.code == 50300
    assert (result.retryable, result.suggested_action) == (True, "wait_and_retry")
    # When to come back, and how to back off after that (so an agent does not hammer a recovering service).
    assert result.retry_after_ms is not None and result.retry_strategy is not None
    assert result.retry_strategy["kind"] == "exponential_backoff"
    assert result.retry_strategy["base_ms"] == result.retry_after_ms <= result.retry_strategy["max_ms"]


def test_a_failing_inventory_is_retried_then_50300(inventory: FakeService) -> None:
    inventory.route("/stock/p-1001", 503, {"message": "down"})
    with _client(http_max_attempts=3) as client:
        result = client.call_tool("check_stock", {"product_id": "p-1001"})

    assert result.is_error and result.code == 50300 and result.retryable is True
    assert len(inventory.seen) == 3


def test_one_failed_attempt_is_retried_into_an_answer(inventory: FakeService) -> None:
    inventory.fail_next(503)
    with _client(http_max_attempts=3) as client:
        result = client.call_tool("check_stock", {"product_id": "p-1001"})

    assert not result.is_error and result.entities[0]["quantity"] == 7
    assert len(inventory.seen) == 2


def test_the_circuit_opens_and_then_the_inventory_is_not_asked(inventory: FakeService) -> None:
    inventory.route("/stock/p-1001", 503, {"message": "down"})
    with _client(http_max_attempts=1, circuit_failure_threshold=2, circuit_reset_ms=60_000) as client:
        failures = [client.call_tool("check_stock", {"product_id": "p-1001"}) for _ in range(2)]
        asked = len(inventory.seen)
        result = client.call_tool("check_stock", {"product_id": "p-1004"})  # a product that would answer

    assert [failure.code for failure in failures] == [50300, 50300] and asked == 2
    assert result.is_error and result.code == 50300 and result.retryable is True
    assert result.retry_after_ms is not None and 1_000 < result.retry_after_ms <= 60_000
    assert len(inventory.seen) == asked  # the open circuit answered without calling


def test_a_slow_inventory_is_50400(inventory: FakeService) -> None:
    inventory.latency_ms = 1_000
    with _client(http_timeout_ms=100, http_max_attempts=1) as client:
        result = client.call_tool("check_stock", {"product_id": "p-1001"})

    assert result.is_error and result.code == 50400 and result.retryable is True


def test_an_answer_without_a_quantity_is_50201(inventory: FakeService) -> None:
    inventory.route("/stock/p-1001", 200, {"quantity": "many"})
    inventory.route("/stock/p-1004", 403, {"message": "not for you"})
    with _client() as client:
        unreadable = client.call_tool("check_stock", {"product_id": "p-1001"})
        refused = client.call_tool("check_stock", {"product_id": "p-1004"})

    for result in (unreadable, refused):
        assert result.is_error and result.code == codes.INVENTORY_BAD_ANSWER
        assert (result.retryable, result.suggested_action) == (False, "skip_and_continue")
    assert "HTTP 403" in refused.text
