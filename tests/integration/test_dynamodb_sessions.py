"""The DynamoDB session store against DynamoDB Local: item shape, read-your-writes, sliding expiry, deletion,
caller binding, faults (503 + Retry-After), and two real server processes sharing one table."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest
from botocore.stub import Stubber
from tests.support.business import TEST_BUSINESS

from mcp_lambda.aws import client_config
from mcp_lambda.composition import build_runtime
from mcp_lambda.lambda_adapter import lambda_handler
from mcp_lambda.settings import Settings
from mcp_lambda.stores.sessions import open_session
from mcp_lambda.stores.sessions.dynamodb import DynamoDBSessionStore, SessionIdTaken
from mcp_lambda.testing import McpTestClient
from mcp_lambda_dev import services
from mcp_lambda_dev.aws_counters import DynamoDBCalls
from mcp_lambda_dev.local.process import running_server
from mcp_lambda_dev.services import LocalService

TTL = 600
JWT = {"jwt": {"claims": {"sub": "user-1", "iss": "https://issuer.example"}, "scopes": None}}
OTHER_JWT = {"jwt": {"claims": {"sub": "user-2", "iss": "https://issuer.example"}, "scopes": None}}

Container = Callable[[], tuple[McpTestClient, DynamoDBSessionStore]]


@pytest.fixture
def store(dynamodb_session_env: dict[str, str]) -> DynamoDBSessionStore:
    return DynamoDBSessionStore(dynamodb_session_env["SESSIONS_TABLE"], ttl_seconds=TTL)


@pytest.fixture
def container(dynamodb_session_env: dict[str, str]) -> Container:
    """Each call is a fresh Lambda container: settings read from the environment, a new app and a new store."""

    def fresh() -> tuple[McpTestClient, DynamoDBSessionStore]:
        settings = Settings.from_env({**os.environ, "BUSINESS": TEST_BUSINESS.name})
        runtime = build_runtime(settings, TEST_BUSINESS)
        sessions = runtime.sessions
        assert isinstance(sessions, DynamoDBSessionStore)
        return McpTestClient.over_handler(lambda_handler(runtime)), sessions

    return fresh


def _session(principal: str | None = None, ttl: int = TTL, now: float | None = None) -> Any:
    return open_session(
        protocol_version="2024-11-05",
        business="testbiz",
        ttl_seconds=ttl,
        client_info={"name": "doubao", "version": "1.0", "ratio": 0.5},
        client_capabilities={"sampling": {}, "roots": {"listChanged": True}},
        principal=principal,
        now=now,
    )


# --- the store itself -------------------------------------------------------------------------------------


def test_session_created_by_one_store_is_read_back_by_another(
    dynamodb_session_env: dict[str, str], store: DynamoDBSessionStore
) -> None:
    session = _session(principal="https://issuer.example|user-1")
    store.create(session)

    other_container = DynamoDBSessionStore(dynamodb_session_env["SESSIONS_TABLE"], ttl_seconds=TTL)
    got = other_container.get(session.session_id)

    assert got is not None
    assert got.model_dump(exclude={"expires_at"}) == session.model_dump(exclude={"expires_at"})
    assert session.expires_at <= got.expires_at < session.expires_at + 1


def test_item_carries_ttl_attribute_in_whole_epoch_seconds(
    store: DynamoDBSessionStore, dynamodb_client: Any, sessions_table: str
) -> None:
    session = _session()
    store.create(session)

    item = dynamodb_client.get_item(
        TableName=sessions_table, Key={"session_id": {"S": session.session_id}}, ConsistentRead=True
    )["Item"]

    assert item["expires_at"]["N"].isdigit()
    assert set(item) >= {
        "session_id",
        "expires_at",
        "created_at",
        "last_seen",
        "protocol_version",
        "client_info",
        "client_capabilities",
        "business",
    }
    assert "principal" not in item


def test_create_never_overwrites_an_existing_id(store: DynamoDBSessionStore) -> None:
    session = _session()
    store.create(session)

    with pytest.raises(SessionIdTaken):
        store.create(session.model_copy(update={"business": "intruder"}))
    assert store.get(session.session_id).business == "testbiz"  # type: ignore[union-attr]


def test_expired_item_is_not_served_before_dynamodb_ttl_deletes_it(store: DynamoDBSessionStore) -> None:
    session = _session(ttl=60, now=time.time() - 120)
    store.create(session)

    assert store.get(session.session_id) is None


def test_touch_writes_only_when_less_than_half_the_ttl_remains(store: DynamoDBSessionStore) -> None:
    fresh = _session()
    store.create(fresh)
    calls = DynamoDBCalls().watch(store.client)

    assert store.touch(fresh) is fresh
    assert calls.writes == 0

    ageing = fresh.model_copy(update={"expires_at": time.time() + TTL / 2 - 5})
    refreshed = store.touch(ageing)
    assert calls.writes == 1
    assert refreshed.expires_at >= time.time() + TTL - 2
    assert store.get(fresh.session_id).expires_at == refreshed.expires_at  # type: ignore[union-attr]


def test_touch_does_not_resurrect_a_deleted_session(store: DynamoDBSessionStore) -> None:
    session = _session()
    store.create(session)
    assert store.delete(session.session_id) is True

    store.touch(session.model_copy(update={"expires_at": time.time() + 1}))

    assert store.get(session.session_id) is None
    assert store.delete(session.session_id) is False


def test_log_level_is_remembered_for_the_session(store: DynamoDBSessionStore) -> None:
    session = _session()
    store.create(session)

    store.set_log_level(session.session_id, "warning")
    store.set_log_level("no-such-session", "debug")

    assert store.get(session.session_id).log_level == "warning"  # type: ignore[union-attr]
    assert store.get("no-such-session") is None


# --- through the Lambda handler, one fresh container per request ---------------------------------------------


def test_session_minted_on_one_container_is_served_by_another(container: Container) -> None:
    first, first_store = container()
    first_calls = DynamoDBCalls().watch(first_store.client)
    legacy = first.clone(era="2025-03-26")
    legacy.initialize()
    assert first_calls.writes == 1

    second, second_store = container()
    second_calls = DynamoDBCalls().watch(second_store.client)
    legacy.transport = second.transport  # the same session, now through another container
    reply = legacy.rpc("tools/call", {"name": "add", "arguments": {"a": 2, "b": 3}})

    assert reply.status == 200
    assert reply.result["structuredContent"] == {"sum": 5}
    # One consistent read and no write for a request on a session that is not half-way to expiry.
    assert (second_calls.reads, second_calls.writes) == (1, 0)


def test_deleted_session_answers_404_on_every_container(container: Container) -> None:
    first, _ = container()
    legacy = first.clone(era="2025-03-26")
    legacy.initialize()

    second, _ = container()
    legacy.transport = second.transport  # the same session, now through another container
    assert second.send("DELETE", headers=legacy.request_headers()).status == 200

    for _ in range(2):
        again, _ = container()
        legacy.transport = again.transport
        reply = legacy.rpc("ping")
        assert reply.status == 404
        assert reply.error["code"] == -32001


def test_session_is_bound_to_the_caller_principal(container: Container) -> None:
    client, _ = container()
    init = client.post(_initialize_body(), authorizer=JWT)
    session_id = init.headers["mcp-session-id"]
    ping = {"jsonrpc": "2.0", "id": 2, "method": "ping"}
    headers = {"mcp-session-id": session_id}

    same, _ = container()
    assert same.post(ping, headers, authorizer=JWT).status == 200

    other, _ = container()
    stranger = other.post(ping, headers, authorizer=OTHER_JWT)
    anonymous = other.post(ping, headers)
    unknown = other.post(ping, {"mcp-session-id": "no-such-session"}, authorizer=OTHER_JWT)

    assert stranger.status == anonymous.status == unknown.status == 404
    assert stranger.raw == unknown.raw  # indistinguishable from "no such session"


def test_throttled_table_answers_503_with_retry_after_and_no_session(
    dynamodb_session_env: dict[str, str], dynamodb_client: Any, sessions_table: str
) -> None:
    client = boto3.client("dynamodb", config=client_config(Settings()))
    throttled = DynamoDBSessionStore(sessions_table, ttl_seconds=TTL, client=client)
    runtime = build_runtime(Settings(business=TEST_BUSINESS.name), TEST_BUSINESS, throttled)
    lambda_client = McpTestClient.over_handler(lambda_handler(runtime))

    with Stubber(client) as stub:
        stub.add_client_error("put_item", "ProvisionedThroughputExceededException", http_status_code=400)
        stub.add_client_error("get_item", "ThrottlingException", http_status_code=400)
        init = lambda_client.post(_initialize_body())
        ping = lambda_client.post({"jsonrpc": "2.0", "id": 7, "method": "ping"}, {"mcp-session-id": "abc"})

    assert init.status == ping.status == 503
    assert init.headers["retry-after"] == ping.headers["retry-after"] == "1"
    assert "mcp-session-id" not in init.headers
    assert init.error["code"] == ping.error["code"]
    assert ping.body["id"] == 7
    assert b"Throttl" not in init.raw + ping.raw and b"Provisioned" not in init.raw  # nothing leaked
    assert dynamodb_client.scan(TableName=sessions_table)["Count"] == 0


def test_unreachable_dynamodb_answers_503_then_recovers_when_it_is_back(
    container: Container, dynamodb_local: LocalService, dynamodb_client: Any, sessions_table: str
) -> None:
    client, _ = container()
    legacy = client.clone(era="2025-03-26")
    legacy.initialize()

    dynamodb_local.stop()
    try:
        started = time.monotonic()
        down_call = legacy.rpc("tools/list")
        down_init = client.post(_initialize_body())
        down_delete = client.send("DELETE", headers=legacy.request_headers())
        elapsed = time.monotonic() - started
    finally:
        dynamodb_local.start()
        # DynamoDB Local runs in memory: the restarted server has no tables, as after a disaster recovery.
        services.create_sessions_table(dynamodb_client, sessions_table)

    for reply in (down_call, down_init, down_delete):
        assert reply.status == 503
        assert int(reply.headers["retry-after"]) >= 1
        assert reply.error["message"].startswith("Session store temporarily unavailable")
        assert b"Endpoint" not in reply.raw and b"127.0.0.1" not in reply.raw
    assert "mcp-session-id" not in down_init.headers
    assert elapsed < 15

    # The same container (same boto3 client) works again without a restart.
    recovered = client.clone(era="2025-03-26")
    recovered.initialize()
    assert recovered.rpc("tools/list").status == 200


# --- two real server processes sharing one table --------------------------------------------------------------


@pytest.fixture
def two_servers(dynamodb_session_env: dict[str, str]) -> Iterator[list[str]]:
    with running_server("demo") as first, running_server("demo") as second:
        yield [first, second]


def test_two_server_processes_share_sessions(two_servers: list[str]) -> None:
    first, second = two_servers
    status, headers, _ = _http(first, "POST", _initialize_body())
    assert status == 200
    session = {"mcp-session-id": headers["mcp-session-id"]}

    assert _http(second, "POST", {"jsonrpc": "2.0", "method": "notifications/initialized"}, session)[0] == 202
    status, _, body = _http(second, "POST", {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, session)
    assert status == 200 and body["result"]["tools"]
    assert _http(second, "DELETE", None, session)[0] == 200
    assert _http(first, "POST", {"jsonrpc": "2.0", "id": 3, "method": "ping"}, session)[0] == 404


def _initialize_body() -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2024-11-05",
            "capabilities": {},
            "clientInfo": {"name": "doubao", "version": "1.0"},
        },
    }


def _http(
    url: str, method: str, body: Any, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], Any]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        url,
        data=data,
        method=method,
        headers={
            "content-type": "application/json",
            "accept": "application/json, text/event-stream",
            **(headers or {}),
        },
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            raw, status, got = response.read(), response.status, response.headers
    except urllib.error.HTTPError as exc:
        raw, status, got = exc.read(), exc.code, exc.headers
    lowered = {k.lower(): v for k, v in got.items()}
    return status, lowered, json.loads(raw) if raw else None
