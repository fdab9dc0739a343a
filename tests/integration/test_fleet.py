"""`make fleet`: two `make run` servers (two processes, like two Lambda containers) on DynamoDB Local share what
containers share through the template's tables."""

from __future__ import annotations

import json
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from mcp_lambda.testing import FakeService, McpTestClient, fake_service
from mcp_lambda_dev.services import LocalService
from mcp_lambda_tools.suites import fleet


@pytest.fixture
def fleet_tables(dynamodb_client: Any) -> Iterator[dict[str, str]]:
    names = fleet.table_names(f"fleet-{uuid.uuid4().hex[:8]}")
    fleet.create_tables(dynamodb_client, names)
    yield names
    for name in names.values():
        dynamodb_client.delete_table(TableName=name)


def test_a_session_opened_on_one_server_is_served_by_the_other(
    dynamodb_local: LocalService, fleet_tables: dict[str, str]
) -> None:
    env = fleet.fleet_env(dynamodb_local.endpoint_url, fleet_tables)
    with fleet.running_fleet("demo", 2, env) as (first, second):
        opener = McpTestClient.over_http(first, "2024-11-05", timeout=20)
        opener.open()  # initialize on the first server
        other = McpTestClient.over_http(second, "2024-11-05", timeout=20)
        other.session_id = opener.session_id  # the same session, on the second server
        tools = other.list_tools()
    assert opener.session_id and "search_products" in {tool.name for tool in tools}


def test_create_tables_makes_the_template_schema_once(dynamodb_client: Any) -> None:
    names = fleet.table_names(f"fleet-{uuid.uuid4().hex[:8]}")
    fleet.create_tables(dynamodb_client, names)
    fleet.create_tables(dynamodb_client, names)  # again: the existing tables are kept
    try:
        protection = dynamodb_client.describe_table(TableName=names["protection"])["Table"]
        assert protection["KeySchema"] == [{"AttributeName": "id", "KeyType": "HASH"}]
        ttl = dynamodb_client.describe_time_to_live(TableName=names["protection"])["TimeToLiveDescription"]
        assert ttl["AttributeName"] == "expiration"
    finally:
        for name in names.values():
            dynamodb_client.delete_table(TableName=name)


def test_fleet_env_puts_every_store_in_dynamodb() -> None:
    env = fleet.fleet_env("http://127.0.0.1:1", fleet.table_names("x"))
    stores = {name: value for name, value in env.items() if name.endswith("_STORE")}
    assert stores == {
        "SESSION_STORE": "dynamodb",
        "IDEMPOTENCY_STORE": "dynamodb",
        "TASKS_STORE": "dynamodb",
        "PROTECTION_STORE": "dynamodb",
    }
    assert env["PROTECTION_TABLE"] == "x-protection"


@pytest.fixture
def inventory() -> Iterator[FakeService]:
    with fake_service() as running:
        yield running


def test_failures_on_one_server_open_the_circuit_for_the_other_which_answers_50300_without_calling(
    dynamodb_local: LocalService, fleet_tables: dict[str, str], inventory: FakeService
) -> None:
    env = {
        **fleet.fleet_env(dynamodb_local.endpoint_url, fleet_tables),
        "DEMO_INVENTORY_URL": inventory.url,
        "HTTP_MAX_ATTEMPTS": "1",
        "CIRCUIT_FAILURE_THRESHOLD": "3",
        "CIRCUIT_RESET_MS": "30000",
        "CIRCUIT_CACHE_SECONDS": "1",
    }
    inventory.route("/stock/p-1001", 200, {"quantity": 7})
    with fleet.running_fleet("demo", 2, env) as urls:
        first, second = (McpTestClient.over_http(url, timeout=20) for url in urls)
        # The second server reads the circuit (closed) and keeps that for its cache window.
        assert (
            second.call_tool("check_stock", {"product_id": "p-1001"}).structured_content["entities"][0][
                "quantity"
            ]
            == 7
        )
        inventory.fail_next(503, 503, 503)
        codes = [
            first.call_tool("check_stock", {"product_id": "p-1001"}).structured_content["code"]
            for _ in range(3)
        ]
        assert codes == [50300] * 3
        sent = len(inventory.seen)
        time.sleep(1.1)  # past the second server's cache window

        refused = second.call_tool("check_stock", {"product_id": "p-1001"}).structured_content

        assert refused["code"] == 50300 and refused["retryable"] is True, refused
        assert 25_000 < refused["retry_after_ms"] <= 30_000, refused
        assert len(inventory.seen) == sent == 4  # the second server sent nothing while the circuit was open


def test_a_quota_counts_the_calls_made_on_every_server(
    dynamodb_local: LocalService, fleet_tables: dict[str, str]
) -> None:
    env = {
        **fleet.fleet_env(dynamodb_local.endpoint_url, fleet_tables),
        "TOOL_QUOTAS": json.dumps({"subscribe_product": "3/day"}),
    }
    arguments = {"product_id": "p-1004", "alert": "restock"}
    with fleet.running_fleet("demo", 2, env) as (first, second):
        answers = [
            McpTestClient.over_http(url, timeout=20)
            .call_tool("subscribe_product", arguments, tool_call_id=f"sub-{n}")
            .structured_content
            for n, url in enumerate((first, second, first, second))
        ]
    assert [answer.get("code", 0) for answer in answers] == [0, 0, 0, 42900], answers
    over = answers[-1]
    assert over["quota"] == "3/day" and over["retryable"] is True and over["retry_after_ms"] > 0, over
