"""The local stand-ins are real servers: tables, items and secrets round-trip through boto3 over HTTP."""

from __future__ import annotations

import json
import time
from typing import Any

import boto3
import pytest
from botocore.exceptions import EndpointConnectionError

from mcp_lambda_dev.services import LocalService


def test_sessions_table_has_template_key_schema_and_ttl(dynamodb_client: Any, sessions_table: str) -> None:
    table = dynamodb_client.describe_table(TableName=sessions_table)["Table"]
    ttl = dynamodb_client.describe_time_to_live(TableName=sessions_table)["TimeToLiveDescription"]

    assert table["KeySchema"] == [{"AttributeName": "session_id", "KeyType": "HASH"}]
    assert ttl == {"TimeToLiveStatus": "ENABLED", "AttributeName": "expires_at"}


def test_item_put_then_get_round_trips(dynamodb_client: Any, sessions_table: str) -> None:
    expires_at = str(int(time.time()) + 3600)
    item = {"session_id": {"S": "abc"}, "expires_at": {"N": expires_at}, "state": {"S": "initialized"}}

    dynamodb_client.put_item(TableName=sessions_table, Item=item)
    got = dynamodb_client.get_item(
        TableName=sessions_table, Key={"session_id": {"S": "abc"}}, ConsistentRead=True
    )

    assert got["Item"] == item


def test_dynamodb_local_stops_and_restarts_on_the_same_port(dynamodb_local: LocalService) -> None:
    port = dynamodb_local.port
    client = boto3.client(
        "dynamodb",
        endpoint_url=dynamodb_local.endpoint_url,
        config=boto3.session.Config(retries={"max_attempts": 1}, connect_timeout=1, read_timeout=2),
    )

    dynamodb_local.stop()
    with pytest.raises(EndpointConnectionError):
        client.list_tables()
    dynamodb_local.start()

    assert dynamodb_local.port == port
    assert "TableNames" in client.list_tables()


def test_secret_created_in_moto_is_read_back(secrets_client: Any) -> None:
    value = json.dumps({"maps_api_key": "k-123"})
    arn = secrets_client.create_secret(Name="mcp/demo/smoke", SecretString=value)["ARN"]

    assert secrets_client.get_secret_value(SecretId=arn)["SecretString"] == value
