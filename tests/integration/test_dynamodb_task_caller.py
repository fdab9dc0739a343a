"""A task on DynamoDB Local runs as the caller who created it: the caller round-trips through the task's item
(never a token), and an item written before tasks kept their caller still runs, bound to its principal."""

from __future__ import annotations

import json
from typing import Any

import pytest
from tests.support.task_caller import ISSUER, WHOAMI_BUSINESS

from mcp_lambda.caller import principal_of
from mcp_lambda.stores.tasks.dynamodb import DynamoDBTaskStore
from mcp_lambda.testing import Identity, McpTestClient

ALICE = Identity(
    "alice",
    scopes=("reports:read", "reports:write"),
    claims={"client_id": "batch-cli", "email": "alice@example.com"},
)


@pytest.fixture
def settings(dynamodb_tasks_env: dict[str, str]) -> dict[str, Any]:
    return {
        "auth_mode": "apigateway",
        "auth_issuer": ISSUER,
        "principal_binding": "user_and_client",
        "tasks_store": "dynamodb",
        "tasks_table": dynamodb_tasks_env["TASKS_TABLE"],
    }


def _item(dynamodb_client: Any, table: str, task_id: str) -> dict[str, Any]:
    item: dict[str, Any] = dynamodb_client.get_item(TableName=table, Key={"task_id": {"S": task_id}})["Item"]
    return item


def test_the_stored_caller_round_trips_through_the_item_to_the_worker(
    settings: dict[str, Any], dynamodb_client: Any, tasks_table: str
) -> None:
    principal = principal_of("jwt", ISSUER, "alice", "batch-cli")
    with McpTestClient(WHOAMI_BUSINESS, settings=settings, caller=ALICE) as client:
        handle = client.call_tool_as_task("whoami")
        stored = json.loads(_item(dynamodb_client, tasks_table, handle.task_id)["caller"]["S"])
        done = handle.wait()

    assert stored == {
        "kind": "jwt",
        "subject": "alice",
        "issuer": ISSUER,
        "scopes": ["reports:read", "reports:write"],
        "claims": {"client_id": "batch-cli", "email": "alice@example.com"},
        "client": "batch-cli",
        "binds_client": True,
    }
    assert done.status == "completed" and done.result is not None
    seen = done.result.structured_content
    assert seen["principal"] == principal and seen["has_token"] is False
    assert seen["caller"] == {
        "kind": "jwt",
        "subject": "alice",
        "issuer": ISSUER,
        "client": "batch-cli",
        "scopes": ["reports:read", "reports:write"],
        "claims": {"client_id": "batch-cli", "email": "alice@example.com"},
        "principal": principal,
    }


def test_a_subject_with_a_lone_surrogate_is_kept_and_handed_back(settings: dict[str, Any]) -> None:
    odd = Identity("al\ud800ice", scopes=("reports:read",), claims={"azp": "web"})
    with McpTestClient(WHOAMI_BUSINESS, settings=settings, caller=odd) as client:
        done = client.call_tool_as_task("whoami").wait()

    assert done.status == "completed" and done.result is not None
    assert done.result.structured_content["caller"]["subject"] == "al\ud800ice"
    assert done.result.structured_content["principal"] == principal_of("jwt", ISSUER, "al\ud800ice", "web")


def test_an_item_stored_without_a_caller_still_runs_bound_to_its_principal(
    settings: dict[str, Any], dynamodb_client: Any, tasks_table: str
) -> None:
    with McpTestClient(WHOAMI_BUSINESS, settings=settings, caller=ALICE) as client:
        handle = client.call_tool_as_task("whoami")
        # The item as an earlier release wrote it: no `caller` attribute.
        dynamodb_client.update_item(
            TableName=tasks_table, Key={"task_id": {"S": handle.task_id}}, UpdateExpression="REMOVE caller"
        )
        old = DynamoDBTaskStore(tasks_table).get(handle.task_id)
        done = handle.wait()

    assert old is not None and old.caller is None and old.principal is not None
    assert done.status == "completed" and done.result is not None
    assert done.result.structured_content["principal"] == principal_of("jwt", ISSUER, "alice", "batch-cli")
    assert done.result.structured_content["caller"] is None
