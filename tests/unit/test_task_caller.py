"""A tool run as a task sees the caller of the request that created it (`ctx.caller`, `ctx.principal`), through
the handler with API Gateway authorizer claims; never its bearer token; a task stored before tasks kept their
caller still runs, bound to its principal. The same against DynamoDB Local is in
tests/integration/test_dynamodb_task_caller.py."""

from __future__ import annotations

from typing import Any

import pytest
from tests.support.handlers import build_handler
from tests.support.task_business import TASKS_CAPABILITIES, RecordingInvoker
from tests.support.task_caller import ISSUER, WHOAMI_BUSINESS

from mcp_lambda.caller import Caller, principal_of
from mcp_lambda.settings import Settings
from mcp_lambda.stores.tasks import MemoryTaskStore, StoredCaller, Task, open_task
from mcp_lambda.stores.tasks.dynamodb import from_item, to_item
from mcp_lambda.testing import MODERN, Identity, McpTestClient, authorizer_context

ALICE = Identity(
    "alice",
    scopes=("reports:read", "reports:write"),
    claims={"azp": "web-app", "email": "alice@example.com", "name": "Alice", "department": "finance"},
)
SETTINGS = {"auth_mode": "apigateway", "auth_issuer": ISSUER}


class Harness:
    """The handler over a memory task store the test can rewrite, its worker invocations delivered by the test."""

    def __init__(self, authorizer: dict[str, Any] | None = None, **settings_overrides: Any) -> None:
        self.store = MemoryTaskStore()
        self.invoker = RecordingInvoker()
        settings = Settings(business=WHOAMI_BUSINESS.name, **{**SETTINGS, **settings_overrides})
        handler = build_handler(WHOAMI_BUSINESS, settings, tasks=self.store, invoker=self.invoker)
        self.http = McpTestClient.over_handler(
            handler, authorizer=authorizer or authorizer_context(ALICE, ISSUER)
        )
        self.client = self.http.clone(era=MODERN, capabilities=TASKS_CAPABILITIES)

    def create(self) -> Task:
        """Alice's whoami task, as stored before its worker runs."""
        task = self.store.get(
            self.client.rpc("tools/call", {"name": "whoami", "arguments": {}}).result["taskId"]
        )
        assert task is not None
        return task

    def rewrite(self, task: Task, record: Task) -> None:
        assert self.store.replace(record, task.version)

    def finish(self, task: Task) -> dict[str, Any]:
        """Run the task's worker; what the tool saw."""
        self.invoker.deliver(self.http.handler)
        done = self.client.rpc("tasks/get", {"taskId": task.task_id}).result
        assert done["status"] == "completed", done
        return dict(done["result"]["structuredContent"])


@pytest.fixture
def harness() -> Harness:
    return Harness()


def _seen(result: Any) -> dict[str, Any]:
    assert not result.is_error, result.raw
    return dict(result.structured_content)


@pytest.mark.parametrize(
    "overrides",
    [{}, {"principal_binding": "user_and_client"}, {"auth_scope_prefix": "api/"}],
    ids=["user", "user_and_client", "scope_prefix"],
)
def test_a_task_runs_as_the_caller_of_the_request_that_created_it(overrides: dict[str, Any]) -> None:
    with McpTestClient(WHOAMI_BUSINESS, settings={**SETTINGS, **overrides}, caller=ALICE) as client:
        synchronous = _seen(client.call_tool("whoami"))  # no tasks extension: the request's own context
        done = client.call_tool_as_task("whoami").wait()

    assert done.status == "completed" and done.result is not None
    in_task = _seen(done.result)
    client_part = "web-app" if overrides.get("principal_binding") else None
    principal = principal_of("jwt", ISSUER, "alice", client_part)

    assert in_task["in_task"] and not synchronous["in_task"]
    assert in_task["principal"] == principal and in_task["caller"]["principal"] == principal
    assert in_task["caller"] == synchronous["caller"]
    assert in_task["caller"] == {
        "kind": "jwt",
        "subject": "alice",
        "issuer": ISSUER,
        "client": "web-app",
        "scopes": ["reports:read", "reports:write"],
        # Only the claims AUTH_CALLER_CLAIMS names (client_id, azp, email, name): not `department`.
        "claims": {"azp": "web-app", "email": "alice@example.com", "name": "Alice"},
        "principal": principal,
    }


def test_another_callers_task_runs_as_that_caller() -> None:
    bob = Identity("bob", scopes=("reports:read",), claims={"client_id": "cli"})
    alice = McpTestClient(WHOAMI_BUSINESS, settings=SETTINGS, caller=ALICE)
    with alice, alice.as_caller(bob) as as_bob:
        bobs = as_bob.call_tool_as_task("whoami")
        alices = alice.call_tool_as_task("whoami")
        seen = {"bob": _seen(bobs.wait().result), "alice": _seen(alices.wait().result)}

    assert seen["bob"]["caller"]["subject"] == "bob" and seen["bob"]["caller"]["client"] == "cli"
    assert seen["bob"]["principal"] == principal_of("jwt", ISSUER, "bob")
    assert seen["alice"]["caller"]["subject"] == "alice"


def test_an_anonymous_task_runs_anonymous() -> None:
    with McpTestClient(WHOAMI_BUSINESS) as client:
        done = client.call_tool_as_task("whoami").wait()

    assert _seen(done.result) == {"principal": None, "caller": None, "has_token": False, "in_task": True}


def test_a_task_created_through_a_lambda_authorizer_runs_as_its_principal() -> None:
    context = {"principalId": "svc-batch", "scope": "reports:read jobs", "client_id": "batch"}
    harness = Harness({"lambda": context}, principal_binding="user_and_client")

    seen = harness.finish(harness.create())

    assert seen["principal"] == principal_of("lambda", None, "svc-batch", "batch")
    assert seen["caller"] == {
        "kind": "lambda",
        "subject": "svc-batch",
        "issuer": None,
        "client": "batch",
        "scopes": ["jobs", "reports:read"],
        "claims": {"client_id": "batch"},
        "principal": seen["principal"],
    }


def test_the_worker_never_gets_the_callers_token_and_the_task_never_stores_it() -> None:
    harness = Harness(auth_mode="none")  # the authorizer's claims name the caller; the token rides along
    token = "eyJhbGciOiJub25lIn0.eyJzdWIiOiJhbGljZSJ9.c2VjcmV0LXRva2Vu"
    call = {"name": "whoami", "arguments": {}}

    synchronous = harness.http.clone(era=MODERN, capabilities={}).rpc(
        "tools/call", call, authorization=f"Bearer {token}"
    )
    created = harness.client.rpc("tools/call", call, authorization=f"Bearer {token}").result
    task = harness.store.get(created["taskId"])
    assert task is not None
    seen = harness.finish(task)

    assert synchronous.result["structuredContent"]["has_token"] is True  # the request itself had it
    assert token not in task.model_dump_json() and token not in str(to_item(task))
    assert seen["has_token"] is False and seen["caller"]["subject"] == "alice"


def test_a_task_stored_before_tasks_kept_their_caller_runs_bound_to_its_principal(harness: Harness) -> None:
    task = harness.create()
    assert task.caller is not None
    # The record as an earlier release wrote it: no `caller` attribute at all.
    harness.rewrite(task, Task.model_validate(task.model_dump(exclude={"caller"})))

    seen = harness.finish(task)

    assert seen["principal"] == principal_of("jwt", ISSUER, "alice") and seen["caller"] is None


def test_a_stored_caller_that_names_another_principal_is_not_handed_to_the_tool(harness: Harness) -> None:
    task = harness.create()
    mallory = StoredCaller.of(Caller(kind="jwt", subject="mallory", issuer=ISSUER))
    harness.rewrite(task, task.model_copy(update={"caller": mallory}))

    seen = harness.finish(task)

    assert seen["principal"] == principal_of("jwt", ISSUER, "alice") and seen["caller"] is None


def test_a_caller_too_large_to_keep_with_a_task_is_refused_before_anything_is_stored(
    harness: Harness,
) -> None:
    huge = Identity("alice", scopes=("reports:read", *(f"s{i:05d}" for i in range(3000))))
    client = McpTestClient.over_handler(
        harness.http.handler,
        authorizer=authorizer_context(huge, ISSUER),
        era=MODERN,
        capabilities=TASKS_CAPABILITIES,
    )

    refused = client.rpc("tools/call", {"name": "whoami", "arguments": {}})

    assert (refused.status, refused.error["code"]) == (400, -32602)
    assert refused.error["message"] == "The caller's identity is too large to keep with a task"
    assert harness.invoker.started == [] and harness.store._tasks == {}


@pytest.mark.parametrize(
    "caller",
    [
        Caller(
            kind="jwt",
            subject="alice\ud800",  # a lone surrogate is valid JSON: the record must still hold it
            issuer=ISSUER,
            scopes=frozenset({"b", "a"}),
            claims={"email": "a@example.com", "groups": ["x", "y"], "age": 7, "ratio": 0.5, "ok": True},
            client="web",
            binds_client=True,
        ),
        Caller(kind="lambda", subject="svc-batch", scopes=frozenset({"jobs"})),
    ],
    ids=["jwt", "lambda"],
)
def test_a_stored_caller_rebuilds_the_same_caller_through_a_dynamodb_item(caller: Caller) -> None:
    task = open_task(
        business="whoami",
        tool="whoami",
        arguments={},
        ttl_ms=60_000,
        worker_timeout_seconds=60,
        principal=caller.principal,
        caller=caller,
    )
    item = to_item(task)
    back = from_item(item)

    assert item["caller"]["S"].isascii()
    assert back == task
    rebuilt = back.caller_identity()
    assert rebuilt == caller and rebuilt is not None and rebuilt.principal == task.principal
