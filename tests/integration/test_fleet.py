"""`make fleet`: two `make run` servers (two processes, like two Lambda containers) on DynamoDB Local share what
containers share through the template's tables."""

from __future__ import annotations

import json
import urllib.request
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from scripts import fleet
from scripts.services import LocalService

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
