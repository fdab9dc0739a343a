"""The bench's and the tests' DynamoDB counter (mcp_lambda_dev.aws_counters), on real boto3 clients answered by
botocore's Stubber: every call counted once by operation, reads and writes apart, one table apart from another,
and clients made during a `watching_new_clients` block counted while those made outside it are not."""

from __future__ import annotations

from typing import Any

import boto3
import pytest
from botocore.exceptions import ClientError
from botocore.stub import Stubber

from mcp_lambda_dev.aws_counters import DynamoDBCalls

LOCAL = {"region_name": "us-east-1", "aws_access_key_id": "local", "aws_secret_access_key": "local"}
KEY = {"id": {"S": "a"}}


def stubbed(*operations: str) -> tuple[Any, Stubber]:
    """A default-session DynamoDB client whose next calls answer `operations` (an empty answer each), in order."""
    client = boto3.client("dynamodb", **LOCAL)
    stub = Stubber(client)
    for operation in operations:
        stub.add_response(operation, {})
    stub.activate()
    return client, stub


def test_each_call_is_counted_once_by_operation_reads_and_writes_apart() -> None:
    client, _ = stubbed("get_item", "query", "put_item", "update_item", "delete_item", "describe_table")
    calls = DynamoDBCalls().watch(client).watch(client)  # watched twice: still one count per call

    client.get_item(TableName="t", Key=KEY)
    client.query(
        TableName="t", KeyConditionExpression="id = :a", ExpressionAttributeValues={":a": {"S": "a"}}
    )
    client.put_item(TableName="t", Item=KEY)
    client.update_item(TableName="t", Key=KEY)
    client.delete_item(TableName="t", Key=KEY)
    client.describe_table(TableName="t")

    assert calls.operations == {
        "GetItem": 1,
        "Query": 1,
        "PutItem": 1,
        "UpdateItem": 1,
        "DeleteItem": 1,
        "DescribeTable": 1,
    }
    assert (calls.reads, calls.writes) == (2, 3)
    calls.reset()
    assert (calls.reads, calls.writes, dict(calls.operations)) == (0, 0, {})


def test_a_refused_conditional_write_is_still_a_write() -> None:
    client = boto3.client("dynamodb", **LOCAL)
    calls = DynamoDBCalls().watch(client)
    with Stubber(client) as stub:
        stub.add_client_error("put_item", "ConditionalCheckFailedException")
        with pytest.raises(ClientError):
            client.put_item(TableName="t", Item=KEY, ConditionExpression="attribute_not_exists(id)")

    assert calls.operations == {"PutItem": 1}


def test_a_table_name_counts_that_table_alone_on_a_shared_client() -> None:
    client, _ = stubbed("get_item", "get_item", "put_item")
    sessions = DynamoDBCalls("sessions").watch(client)
    tasks = DynamoDBCalls("tasks").watch(client)

    client.get_item(TableName="sessions", Key=KEY)
    client.get_item(TableName="tasks", Key=KEY)
    client.put_item(TableName="tasks", Item=KEY)

    assert (sessions.reads, sessions.writes) == (1, 0)
    assert (tasks.reads, tasks.writes) == (1, 1)


def test_clients_made_during_the_block_are_counted_and_no_others() -> None:
    before, _ = stubbed("get_item")
    calls = DynamoDBCalls("t")
    with calls.watching_new_clients():
        inside, _ = stubbed("get_item", "get_item")
    after, _ = stubbed("get_item")

    for client in (before, inside, after):
        client.get_item(TableName="t", Key=KEY)
    inside.get_item(TableName="t", Key=KEY)

    assert calls.operations == {"GetItem": 2}
