"""`make fleet`: two `make run` servers (two processes, like two Lambda containers) on DynamoDB Local share what
containers share through the template's tables."""

from __future__ import annotations

import json
import time
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from scripts import fleet
from tests.support.wire import modern_headers, modern_request

from mcp_lambda.testing import FakeService, fake_service
from mcp_lambda_dev.services import LocalService

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2024-11-05",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}


def call_tool(url: str, name: str, arguments: dict[str, Any], **meta: str) -> dict[str, Any]:
    """A 2026-07-28 tools/call; its structuredContent."""
    body = modern_request("tools/call", {"name": name, "arguments": arguments})
    body["params"]["_meta"].update(meta)
    status, _, answer = post(url, body, modern_headers("tools/call", name))
    assert status == 200, answer
    structured: dict[str, Any] = answer["result"]["structuredContent"]
    return structured


def post(url: str, body: Any, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], Any]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            **(headers or {}),
        },
    )
    with urllib.request.urlopen(request, timeout=20) as response:
        raw = response.read()
        return (
            response.status,
            {k.lower(): v for k, v in response.headers.items()},
            json.loads(raw) if raw else None,
        )


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
        status, headers, _ = post(first, INITIALIZE)
        assert status == 200
        session = {"mcp-session-id": headers["mcp-session-id"], "mcp-protocol-version": "2024-11-05"}
        post(second, {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)
        status, _, answer = post(second, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, session)
    assert status == 200
    assert "search_products" in {tool["name"] for tool in answer["result"]["tools"]}


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
    with fleet.running_fleet("demo", 2, env) as (first, second):
        # The second server reads the circuit (closed) and keeps that for its cache window.
        assert call_tool(second, "check_stock", {"product_id": "p-1001"})["entities"][0]["quantity"] == 7
        inventory.fail_next(503, 503, 503)
        codes = [call_tool(first, "check_stock", {"product_id": "p-1001"})["code"] for _ in range(3)]
        assert codes == [50300] * 3
        sent = len(inventory.seen)
        time.sleep(1.1)  # past the second server's cache window

        refused = call_tool(second, "check_stock", {"product_id": "p-1001"})

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
            call_tool(url, "subscribe_product", arguments, tool_call_id=f"sub-{n}")
            for n, url in enumerate((first, second, first, second))
        ]
    assert [answer.get("code", 0) for answer in answers] == [0, 0, 0, 42900], answers
    over = answers[-1]
    assert over["quota"] == "3/day" and over["retryable"] is True and over["retry_after_ms"] > 0, over
