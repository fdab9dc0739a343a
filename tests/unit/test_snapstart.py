"""SnapStart: the runtime hooks, called as the Lambda runtime calls them (before the snapshot, after a restore),
in-process; environments resumed from one snapshot are forked processes (a fork copies memory as a snapshot
does)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import boto3
import pytest
from tests.support.processes import HANDLER_ENV

from mcp_lambda import restore, snapshot
from mcp_lambda.calls.task_invoke import LambdaInvoker
from mcp_lambda.downstream import HttpClient
from mcp_lambda.settings import Settings
from mcp_lambda.testing.invoke_api import LocalLambda

ROOT = Path(__file__).resolve().parents[2]
ENV = HANDLER_ENV

# One container initialized once (the snapshot), then three environments resumed from it (forks): two restored
# through the hook, one without it. Each mints a legacy session id through the deployed handler and draws from
# `random`; the parent reports what each saw.
RESUMED = r"""
import asyncio, json, os, random, sys
from mcp_lambda import handler, snapshot
from mcp_lambda_dev.local.events import LocalContext, http_event

def session_id():
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-11-25",
            "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}
    headers = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    response = handler.handler(http_event("POST", "/mcp", headers, json.dumps(body)), LocalContext())
    return response["headers"]["mcp-session-id"]

snapshot.before_snapshot(handler._asgi_handler)
seen = {"snapshot": session_id()}
state = random.getstate()
for name, restored in (("a", True), ("b", True), ("unrestored-1", False), ("unrestored-2", False)):
    read, write = os.pipe()
    if os.fork() == 0:
        os.close(read)
        random.setstate(state)  # a fork reseeds `random` itself (os.register_at_fork); a snapshot does not
        asyncio.set_event_loop(asyncio.new_event_loop())  # the parent's selector is not this process's
        if restored:
            snapshot.after_restore()
        os.write(write, json.dumps([session_id(), random.random()]).encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read) as pipe:
        seen[name] = json.loads(pipe.read())
    os.wait()
print("RESULT " + json.dumps(seen))
"""


@pytest.mark.skipif(
    not hasattr(os, "fork"), reason="needs os.fork (Linux or macOS) to copy a process as a snapshot does"
)
def test_restored_environments_mint_their_own_session_ids_and_random_numbers() -> None:
    done = subprocess.run(
        [sys.executable, "-c", RESUMED], env=ENV, capture_output=True, text=True, timeout=120, check=True
    )
    [line] = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    seen = json.loads(line.removeprefix("RESULT "))
    ids = [seen["snapshot"], *(seen[name][0] for name in ("a", "b", "unrestored-1", "unrestored-2"))]
    assert len(set(ids)) == len(ids)  # session ids come from os.urandom: never shared, restored or not
    # Without the hook both environments would draw the snapshot's random sequence...
    assert seen["unrestored-1"][1] == seen["unrestored-2"][1]
    # ...with it, each draws its own.
    assert seen["a"][1] != seen["b"][1]
    assert seen["unrestored-1"][1] not in (seen["a"][1], seen["b"][1])


def test_the_hooks_are_registered_only_where_the_runtime_provides_them(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "snapshot_restore_py", None)  # outside Lambda: not importable
    assert snapshot.register(lambda event, context: {}) is False

    registered: dict[str, Any] = {}
    runtime = types.ModuleType("snapshot_restore_py")
    runtime.register_before_snapshot = lambda fn, *args: registered.setdefault("before", (fn, args))  # type: ignore[attr-defined]
    runtime.register_after_restore = lambda fn, *args: registered.setdefault("after", (fn, args))  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "snapshot_restore_py", runtime)
    handler_seen: list[dict[str, Any]] = []

    def handler(event: dict[str, Any], context: Any) -> dict[str, Any]:
        handler_seen.append(event)
        return {"statusCode": 200 if event["body"] else 404}

    assert snapshot.register(handler, Settings()) is True
    before, args = registered["before"]
    before(*args)  # what the runtime does before taking the snapshot
    requests = [json.loads(e["body"])["method"] if e["body"] else e["rawPath"] for e in handler_seen]
    assert requests == ["server/discover", "tools/list", "/"]
    assert registered["after"] == (snapshot.after_restore, ())


def test_the_warm_up_requests_are_answered_by_the_real_app() -> None:
    from tests.support.business import TEST_BUSINESS

    from mcp_lambda.composition import build_runtime
    from mcp_lambda.lambda_adapter import lambda_handler
    from mcp_lambda.testing import McpTestClient

    runtime = build_runtime(Settings(business=TEST_BUSINESS.name), TEST_BUSINESS)
    client = McpTestClient.over_handler(lambda_handler(runtime))
    assert "app" not in vars(runtime)  # the /mcp requests alone never build the FastAPI app
    snapshot.before_snapshot(client.handler, Settings())  # raises unless both answer 200 and / a 404
    assert "app" in vars(runtime)  # built before the snapshot, not in each restored environment
    listed = client.handler(snapshot.warm_up_event("tools/list"), None)
    assert listed["statusCode"] == 200 and json.loads(listed["body"])["result"]["tools"]


def test_a_failed_warm_up_stops_the_snapshot() -> None:
    with pytest.raises(RuntimeError, match="tools/list answered 500"):
        snapshot.before_snapshot(
            lambda event, context: {"statusCode": 200 if "discover" in event["body"] else 500}, Settings()
        )


def test_the_services_loaded_before_the_snapshot_are_the_ones_the_settings_use() -> None:
    assert snapshot.aws_services(Settings()) == []
    deployed = Settings(
        session_store="dynamodb",
        sessions_table="s",
        idempotency_store="dynamodb",
        idempotency_table="i",
        tasks_store="dynamodb",
        tasks_table="t",
        secret_id="x",
        aws_lambda_function_name="mcp-demo-mcp",
    )
    assert snapshot.aws_services(deployed) == ["dynamodb", "lambda", "secretsmanager"]
    # The protection table alone (quota counters, circuit breakers) is a DynamoDB client to prepare too.
    protected = Settings(protection_store="dynamodb", protection_table="p")
    assert snapshot.aws_services(protected) == ["dynamodb"]


def test_after_restore_boto3_resolves_credentials_again_and_keeps_the_parsed_models(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "snapshot-key")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "snapshot-secret")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.setattr(boto3, "DEFAULT_SESSION", None)
    snapshot._load_models(["dynamodb"])
    before = boto3.DEFAULT_SESSION
    assert before is not None
    assert before.get_credentials().access_key == "snapshot-key"
    loader = before._session.get_component("data_loader")

    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "restored-key")  # what the restored environment is given
    snapshot.after_restore()

    after = boto3.DEFAULT_SESSION
    assert after is not None and after is not before
    assert after.get_credentials().access_key == "restored-key"
    assert after._session.get_component("data_loader") is loader  # the models are not parsed again
    assert boto3.client("dynamodb").meta.service_model.service_name == "dynamodb"


def test_restore_forgets_the_clients_the_framework_made_and_keeps_the_ones_it_was_given() -> None:
    from mcp_lambda.stores.sessions.dynamodb import DynamoDBSessionStore

    made = DynamoDBSessionStore("t")
    made._client = object()  # type: ignore[assignment]
    given_client: Any = object()
    given = DynamoDBSessionStore("t", client=given_client)
    http = HttpClient()
    pool = http.pool

    assert restore.renew() >= 2
    assert made._client is None and given._client is given_client
    assert http._pool is None and http.pool is not pool  # a new pool: no connection from before the snapshot


def test_a_discarded_component_is_not_kept_alive_by_its_hook() -> None:
    import gc

    from mcp_lambda.stores.sessions.dynamodb import DynamoDBSessionStore

    store = DynamoDBSessionStore("t")
    hooks = len(restore._HOOKS)
    del store
    gc.collect()
    restore.renew()
    assert len(restore._HOOKS) < hooks


@pytest.mark.parametrize(("version", "qualifier"), [("7", "7"), ("$LATEST", None), (None, None)])
def test_a_task_worker_runs_the_version_that_created_the_task(
    version: str | None, qualifier: str | None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "local")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "local")
    service = LocalLambda("mcp-demo-mcp", execute=False).start()
    try:
        client = boto3.client("lambda", endpoint_url=service.endpoint_url, region_name="us-east-1")
        LambdaInvoker("mcp-demo-mcp", client=client, version=version).start("task-1", 1)
    finally:
        service.stop()
    assert service.qualifiers == [qualifier]
    assert service.invocations == [{"mcp_lambda.task": {"taskId": "task-1", "run": 1}}]


def test_jwt_mode_in_a_package_without_pyjwt_stops_at_start_up_saying_how_to_build_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib.util

    from mcp_lambda.auth import Authenticator
    from mcp_lambda.settings import SettingsError

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "jwt" else real(name, *a)
    )
    with pytest.raises(SettingsError, match=r"make build DEPLOY_PARAMS=\"AuthMode=jwt"):
        Authenticator(Settings(auth_mode="jwt", auth_issuer="https://issuer.example"))
