"""SnapStart against DynamoDB Local: a container whose hooks ran around a snapshot reconnects after the restore
(a new client, new connections, credentials resolved again) and still serves the sessions it wrote before."""

from __future__ import annotations

import os

import boto3
from tests.support.business import TEST_BUSINESS

from mcp_lambda import snapshot
from mcp_lambda.composition import build_runtime
from mcp_lambda.lambda_adapter import lambda_handler
from mcp_lambda.settings import Settings
from mcp_lambda.stores.sessions.dynamodb import DynamoDBSessionStore
from mcp_lambda.testing import McpTestClient
from mcp_lambda_dev.aws_counters import DynamoDBCalls


def test_a_restored_container_reconnects_and_keeps_serving_its_sessions(
    dynamodb_session_env: dict[str, str],
) -> None:
    settings = Settings.from_env({**os.environ, "BUSINESS": TEST_BUSINESS.name})
    runtime = build_runtime(settings, TEST_BUSINESS)
    handler = lambda_handler(runtime)
    store = runtime.sessions
    assert isinstance(store, DynamoDBSessionStore)

    snapshot.before_snapshot(handler, settings)  # boto3 and the DynamoDB model loaded, no client made yet
    assert store._client is None
    legacy = McpTestClient.over_handler(handler, era="2025-11-25")
    legacy.initialize()  # the snapshot's environment served a request: its client and connections exist
    before = store.client
    before_credentials = before._request_signer._credentials
    default_session = boto3.DEFAULT_SESSION

    snapshot.after_restore()

    assert store._client is None and boto3.DEFAULT_SESSION is not default_session
    with DynamoDBCalls(store.table_name).watching_new_clients() as calls:  # the client the request makes
        listed = legacy.rpc("tools/list")  # the session written before the snapshot, read after the restore
    assert listed.status == 200 and listed.result["tools"]
    after = store.client
    assert after is not before  # its own connection pool
    assert after._request_signer._credentials is not before_credentials  # credentials resolved again
    assert calls.reads >= 1
