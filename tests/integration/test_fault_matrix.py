"""The fault matrix: a loopback fault proxy (tests/support/fault_proxy.py) between the handler and each dependency
— DynamoDB Local (sessions, tasks, the exactly-once store), the moto server (secrets) and a fake downstream HTTP
service (`ctx.http`) — and for every fault the defined outcome, an answer before the request deadline, no 5xx but
503, recovery once the fault heals, and nothing lost, mixed up or run twice. The matrix is printed in pytest's
terminal summary.

Short budgets keep the whole matrix at a few seconds: REQUEST_DEADLINE_MS=3000 (tools stop at 2.5 s), AWS calls
0.3 s connect + 0.8 s read in one attempt, downstream calls 0.4 s per attempt in two.
"""

from __future__ import annotations

import hashlib
import json
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from tests.support.exactly_once import Ledger, exactly_once_business, keyed_request
from tests.support.exactly_once import call as keyed_call
from tests.support.fake_service import FakeService, fake_service
from tests.support.fault_matrix import ROWS, Row
from tests.support.fault_proxy import FaultProxy
from tests.support.handlers import build_handler
from tests.support.task_business import TASK_BUSINESS, TASKS_CAPABILITIES, RecordingInvoker
from tests.support.wire import POST_HEADERS, modern_headers, modern_request

from mcp_lambda.aws import AwsBudget
from mcp_lambda.composition import build_runtime
from mcp_lambda.lambda_adapter import LambdaHandler, lambda_handler
from mcp_lambda.secrets import SecretsManagerSource
from mcp_lambda.settings import Settings
from mcp_lambda.stores.exactly_once import DynamoDBIdempotencyStore
from mcp_lambda.stores.sessions import MemorySessionStore
from mcp_lambda.stores.sessions.dynamodb import DynamoDBSessionStore
from mcp_lambda.stores.tasks.dynamodb import DynamoDBTaskStore
from mcp_lambda.testing import MODERN, HttpReply, McpTestClient, invoke
from mcp_lambda.tools import Business, ToolAnnotations, ToolContext, ToolResult, execution_result, tool
from mcp_lambda.wire import SERVICE_UNAVAILABLE
from mcp_lambda_dev.local.events import LocalContext, http_event, response_body
from mcp_lambda_dev.services import LocalService

DEADLINE_MS = 3000
AWS_READ_TIMEOUT_S = 0.8
HTTP_TIMEOUT_S = 0.4
# fault -> delay (s) the proxy uses; latency sits above the timeouts of both kinds of client.
FAULTS = {
    "refuse": 0.0,
    "reset": 0.0,
    "blackhole": 0.0,
    "latency": AWS_READ_TIMEOUT_S + 0.5,
    "http500": 0.0,
    "http503": 0.0,
    "trickle": 0.05,
}
PRINCIPAL = {"jwt": {"claims": {"sub": "fault-user"}}}
OTHER = {"jwt": {"claims": {"sub": "someone-else"}}}
DOWNSTREAM = {"url": ""}  # where the `fetch` tool sends its requests: the proxy in front of the fake service


@tool(
    description="Use to fetch an echo of a nonce from the downstream service.",
    annotations=ToolAnnotations(read_only=True),
)
def fetch(nonce: str, ctx: ToolContext) -> ToolResult:
    answer = ctx.http.get(f"{DOWNSTREAM['url']}/echo", params={"nonce": nonce}, interface="echo.get")
    return execution_result({"nonce": answer.json()["query"]["nonce"]})


@tool(
    description="Use to read the API key and return its fingerprint.",
    annotations=ToolAnnotations(read_only=True),
)
def key_fingerprint(ctx: ToolContext) -> ToolResult:
    return execution_result({"fingerprint": hashlib.sha256(ctx.secret("api_key").encode()).hexdigest()[:12]})


BUSINESS = Business(name="faults", tools=[fetch, key_fingerprint], egress=["127.0.0.1"])  # the fault proxy


def _settings(**extra: Any) -> Settings:
    values: dict[str, Any] = {
        "business": "faults",
        "request_deadline_ms": DEADLINE_MS,
        "deadline_margin_ms": 500,
        "aws_connect_timeout_ms": 300,
        "aws_read_timeout_ms": int(AWS_READ_TIMEOUT_S * 1000),
        "aws_max_attempts": 1,
        "http_timeout_ms": int(HTTP_TIMEOUT_S * 1000),
        "http_max_attempts": 2,
        "circuit_failure_threshold": 3,
        "circuit_reset_ms": 2000,
    }
    return Settings(**{**values, **extra})


@dataclass
class Timed:
    reply: HttpReply
    milliseconds: float


def _timed(send: Any, *args: Any, **kwargs: Any) -> Timed:
    started = time.monotonic()
    reply = send(*args, **kwargs)
    return Timed(reply, (time.monotonic() - started) * 1000)


def _record(dependency: str, fault: str, timed: Timed, code: str, retry_after: str) -> None:
    ROWS.append(Row(dependency, fault, timed.reply.status, code, retry_after, timed.milliseconds))


def _within_the_deadline(timed: Timed) -> None:
    assert timed.milliseconds < DEADLINE_MS, f"answered after {timed.milliseconds:.0f} ms"
    assert timed.reply.status < 500 or timed.reply.status == 503, timed.reply.raw


# --- sessions: DynamoDB Local behind the proxy -----------------------------------------------------------------


@pytest.fixture(scope="module")
def dynamodb_proxy(dynamodb_local: LocalService) -> Iterator[FaultProxy]:
    proxy = FaultProxy(dynamodb_local.port).start()
    yield proxy
    proxy.stop()


@pytest.mark.parametrize("fault", list(FAULTS))
def test_session_store_fault_answers_503_in_time_and_loses_no_session(
    fault: str, dynamodb_proxy: FaultProxy, dynamodb_client: Any, sessions_table: str
) -> None:
    settings = _settings(session_store="dynamodb", sessions_table=sessions_table)
    budget = AwsBudget.from_settings(settings)
    store = DynamoDBSessionStore(
        sessions_table, budget=budget, client=budget.client("dynamodb", endpoint_url=dynamodb_proxy.url)
    )
    client = McpTestClient.over_handler(build_handler(BUSINESS, settings, store), authorizer=PRINCIPAL)
    session = client.clone(era="2025-03-26")
    session.initialize()
    before = session.rpc("tools/list").result

    dynamodb_proxy.set(fault, FAULTS[fault])
    try:
        down = _timed(session.rpc, "tools/list")
        down_initialize = _timed(client.post, _initialize())
    finally:
        dynamodb_proxy.heal()

    for timed in (down, down_initialize):
        _within_the_deadline(timed)
        assert timed.reply.status == 503, timed.reply.raw
        assert int(timed.reply.headers["retry-after"]) >= 1
        assert timed.reply.error["message"].startswith("Session store temporarily unavailable")
    assert "mcp-session-id" not in down_initialize.reply.headers
    _record("sessions", fault, down, str(down.reply.error["code"]), down.reply.headers["retry-after"])

    # Healed: the same session answers as before, still bound to its caller.
    assert session.rpc("tools/list").result == before
    stranger = client.post(
        {"jsonrpc": "2.0", "id": 9, "method": "ping"}, session.request_headers(), authorizer=OTHER
    )
    assert stranger.status == 404
    # A write whose answer was lost (reset mid-response) may have landed: an orphan nobody holds the id of, which
    # the table's TTL removes. Every item is still this caller's.
    stored = dynamodb_client.scan(TableName=sessions_table)["Items"]
    assert session.session_id in {item["session_id"]["S"] for item in stored}
    assert {item["principal"]["S"] for item in stored} == {"jwt::fault-user"}


def _initialize() -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-03-26",
            "capabilities": {},
            "clientInfo": {"name": "f", "version": "1"},
        },
    }


# --- tasks: DynamoDB Local behind the proxy, at 2026-07-28 with the tasks extension declared -------------------


def _task_handler(settings: Settings, tasks_table: str, proxy: FaultProxy) -> LambdaHandler:
    budget = AwsBudget.from_settings(settings)
    store = DynamoDBTaskStore(
        tasks_table, budget=budget, client=budget.client("dynamodb", endpoint_url=proxy.url)
    )
    return build_handler(TASK_BUSINESS, settings, tasks=store, invoker=RecordingInvoker())


def _task_client(handler: LambdaHandler) -> McpTestClient:
    return McpTestClient.over_handler(
        handler, era=MODERN, capabilities=TASKS_CAPABILITIES, authorizer=PRINCIPAL
    )


def _task_store_unavailable(timed: Timed, within_ms: float) -> None:
    assert timed.milliseconds < within_ms, f"answered after {timed.milliseconds:.0f} ms"
    assert timed.reply.status == 503, timed.reply.raw
    assert int(timed.reply.headers["retry-after"]) >= 1
    assert timed.reply.error["code"] == SERVICE_UNAVAILABLE, timed.reply.raw
    assert timed.reply.error["message"].startswith("Task store temporarily unavailable")


@pytest.mark.parametrize("fault", list(FAULTS))
def test_task_store_fault_answers_503_in_time_and_loses_no_task(
    fault: str, dynamodb_proxy: FaultProxy, tasks_table: str
) -> None:
    modern = _task_client(_task_handler(_settings(business=TASK_BUSINESS.name), tasks_table, dynamodb_proxy))
    task_id = modern.rpc("tools/call", {"name": "count_to", "arguments": {"n": 1}}).result["taskId"]
    before = modern.rpc("tasks/get", {"taskId": task_id}).result

    dynamodb_proxy.set(fault, FAULTS[fault])
    try:
        read = _timed(modern.rpc, "tasks/get", {"taskId": task_id})
        create = _timed(modern.rpc, "tools/call", {"name": "count_to", "arguments": {"n": 1}})
    finally:
        dynamodb_proxy.heal()

    for timed in (read, create):
        _task_store_unavailable(timed, DEADLINE_MS)
    _record("tasks", fault, read, str(read.reply.error["code"]), read.reply.headers["retry-after"])

    # Healed: the task is still there, unchanged, and a new one can be created.
    assert modern.rpc("tasks/get", {"taskId": task_id}).result == before
    assert modern.rpc("tools/call", {"name": "count_to", "arguments": {"n": 1}}).result["status"] == "working"


DEFAULT_BUDGET_MS = 8000  # the default AWS budget: 1 s connect + 2 s read, two attempts, one backoff


def test_a_blackholed_task_table_answers_503_within_the_default_budget(
    dynamodb_proxy: FaultProxy, tasks_table: str
) -> None:
    modern = _task_client(_task_handler(Settings(business=TASK_BUSINESS.name), tasks_table, dynamodb_proxy))
    task_id = modern.rpc("tools/call", {"name": "count_to", "arguments": {"n": 1}}).result["taskId"]

    dynamodb_proxy.set("blackhole")
    try:
        read = _timed(modern.rpc, "tasks/get", {"taskId": task_id})
        create = _timed(modern.rpc, "tools/call", {"name": "count_to", "arguments": {"n": 1}})
    finally:
        dynamodb_proxy.heal()

    for name, timed in (("tasks/get", read), ("tools/call", create)):
        _task_store_unavailable(timed, DEFAULT_BUDGET_MS)
        _record("tasks@29s", name, timed, str(timed.reply.error["code"]), timed.reply.headers["retry-after"])


def test_a_task_call_started_near_the_deadline_is_cut_at_it(
    dynamodb_proxy: FaultProxy, tasks_table: str
) -> None:
    # The default budget waits up to 2 s for one read: more than the 1 s this invocation has left.
    handler = _task_handler(Settings(business=TASK_BUSINESS.name), tasks_table, dynamodb_proxy)
    task_id = (
        _task_client(handler).rpc("tools/call", {"name": "count_to", "arguments": {"n": 1}}).result["taskId"]
    )
    requests = {
        "tasks/get": (
            modern_request("tasks/get", {"taskId": task_id}, capabilities=TASKS_CAPABILITIES),
            task_id,
        ),
        "tools/call": (
            modern_request(
                "tools/call", {"name": "count_to", "arguments": {"n": 1}}, capabilities=TASKS_CAPABILITIES
            ),
            "count_to",
        ),
    }
    remaining_ms, margin_ms = 1500, 500  # DEADLINE_MARGIN_MS's default: the deadline is 1 s away

    dynamodb_proxy.set("blackhole")
    try:
        for method, (body, name) in requests.items():
            headers = {**POST_HEADERS, **modern_headers(method, name)}
            event = http_event("POST", "/mcp", headers, json.dumps(body), authorizer=PRINCIPAL)
            context = LocalContext(deadline_ms=int(time.time() * 1000) + remaining_ms)
            started = time.monotonic()
            response = invoke(handler, event, context)
            elapsed_ms = (time.monotonic() - started) * 1000
            reply = HttpReply(
                int(response["statusCode"]),
                {k.lower(): v for k, v in response["headers"].items()},
                response_body(response),
            )
            _task_store_unavailable(Timed(reply, elapsed_ms), remaining_ms)
            # Cut at the deadline, not before it: the store waited as long as the request could.
            assert elapsed_ms >= remaining_ms - margin_ms - 100, f"answered after {elapsed_ms:.0f} ms"
            _record(
                "tasks@1s-left",
                method,
                Timed(reply, elapsed_ms),
                str(reply.error["code"]),
                reply.headers["retry-after"],
            )
    finally:
        dynamodb_proxy.heal()


# --- secrets: the moto server behind the proxy -------------------------------------------------------------------

API_KEY = "fault-matrix-key-31337"


@pytest.fixture(scope="module")
def moto_proxy(moto_server: LocalService) -> Iterator[FaultProxy]:
    proxy = FaultProxy(moto_server.port).start()
    yield proxy
    proxy.stop()


@pytest.fixture(scope="module")
def secret_id(moto_server: LocalService) -> str:
    import boto3

    name = f"mcp/faults/{uuid.uuid4().hex[:8]}"
    client = boto3.client("secretsmanager", endpoint_url=moto_server.endpoint_url)
    client.create_secret(Name=name, SecretString=json.dumps({"api_key": API_KEY}))
    return name


@pytest.mark.parametrize("fault", list(FAULTS))
def test_secret_service_fault_is_a_retryable_50020_in_time(
    fault: str, moto_proxy: FaultProxy, secret_id: str
) -> None:
    from aws_lambda_powertools.utilities.parameters import SecretsProvider

    settings = _settings(secret_id=secret_id, secrets_max_age_seconds=0)
    budget = AwsBudget.from_settings(settings)
    provider = SecretsProvider(boto3_client=budget.client("secretsmanager", endpoint_url=moto_proxy.url))
    source = SecretsManagerSource(secret_id, max_age_seconds=0, provider=provider, budget=budget)
    modern = McpTestClient.over_handler(
        build_handler(BUSINESS, settings, secrets=source), era=MODERN, capabilities={}
    )
    expected = hashlib.sha256(API_KEY.encode()).hexdigest()[:12]
    assert modern.rpc("tools/call", {"name": "key_fingerprint", "arguments": {}}).result[
        "structuredContent"
    ] == {"fingerprint": expected}

    moto_proxy.set(fault, FAULTS[fault])
    try:
        down = _timed(modern.rpc, "tools/call", {"name": "key_fingerprint", "arguments": {}})
    finally:
        moto_proxy.heal()

    _within_the_deadline(down)
    structured = down.reply.result["structuredContent"]
    assert down.reply.status == 200 and down.reply.result["isError"] is True
    assert structured["code"] == 50020 and structured["retryable"] is True, structured
    assert API_KEY.encode() not in down.reply.raw
    _record("secrets", fault, down, str(structured["code"]), f"{structured['retry_after_ms']} ms")

    assert modern.rpc("tools/call", {"name": "key_fingerprint", "arguments": {}}).result[
        "structuredContent"
    ] == {"fingerprint": expected}


# --- a downstream service behind the proxy, through ctx.http ------------------------------------------------------

# What a tool that lets the failure go answers: unreachable -> 50300, no complete answer in time -> 50400.
DOWNSTREAM_CODES = {
    "refuse": 50300,
    "reset": 50300,
    "blackhole": 50400,
    "latency": 50400,
    "http500": 50300,
    "http503": 50300,
    "trickle": 50400,
}


@pytest.fixture(scope="module")
def downstream() -> Iterator[tuple[FakeService, FaultProxy]]:
    with fake_service() as service:
        proxy = FaultProxy(service.port).start()
        DOWNSTREAM["url"] = proxy.url
        yield service, proxy
        proxy.stop()


@pytest.mark.parametrize("fault", list(FAULTS))
def test_downstream_fault_is_50300_or_50400_in_time_and_answers_never_mix(
    fault: str, downstream: tuple[FakeService, FaultProxy]
) -> None:
    _, proxy = downstream
    modern = McpTestClient.over_handler(build_handler(BUSINESS, _settings()), era=MODERN, capabilities={})
    assert modern.rpc("tools/call", {"name": "fetch", "arguments": {"nonce": "before"}}).result[
        "structuredContent"
    ] == {"nonce": "before"}

    proxy.set(fault, FAULTS[fault] if fault != "latency" else HTTP_TIMEOUT_S + 0.5)
    try:
        down = _timed(modern.rpc, "tools/call", {"name": "fetch", "arguments": {"nonce": "during"}})
    finally:
        proxy.heal()

    _within_the_deadline(down)
    structured = down.reply.result["structuredContent"]
    assert down.reply.status == 200 and down.reply.result["isError"] is True
    assert structured["code"] == DOWNSTREAM_CODES[fault], structured
    assert structured["retryable"] is True and structured["suggested_action"] == "wait_and_retry"
    _record("downstream", fault, down, str(structured["code"]), f"{structured['retry_after_ms']} ms")

    # Healed: each answer is the one asked for, never a leftover of the failed call.
    for nonce in ("after-1", "after-2"):
        assert modern.rpc("tools/call", {"name": "fetch", "arguments": {"nonce": nonce}}).result[
            "structuredContent"
        ] == {"nonce": nonce}


def test_an_open_circuit_answers_50300_without_touching_the_downstream_then_recovers(
    downstream: tuple[FakeService, FaultProxy], caplog: pytest.LogCaptureFixture
) -> None:
    service, _ = downstream
    # The breaker counts whole seconds from the second it opened: a 2 s circuit is open 1 to 2 s.
    modern = McpTestClient.over_handler(build_handler(BUSINESS, _settings()), era=MODERN, capabilities={})
    service.statuses = [503] * 6  # three calls of two attempts each: the threshold of consecutive failures

    with caplog.at_level("INFO"):
        failures = [
            modern.rpc("tools/call", {"name": "fetch", "arguments": {"nonce": str(n)}}).result[
                "structuredContent"
            ]
            for n in range(3)
        ]
        reached = len(service.seen)
        opened = _timed(modern.rpc, "tools/call", {"name": "fetch", "arguments": {"nonce": "while-open"}})
        assert len(service.seen) == reached  # nothing was sent while open
        left_ms = opened.reply.result["structuredContent"]["retry_after_ms"]
        time.sleep(left_ms / 1000 + 0.05)  # then the trial
        trial = modern.rpc("tools/call", {"name": "fetch", "arguments": {"nonce": "trial"}}).result[
            "structuredContent"
        ]

    assert [f["code"] for f in failures] == [50300] * 3
    structured = opened.reply.result["structuredContent"]
    assert structured["code"] == 50300 and 500 < structured["retry_after_ms"] <= 2000, structured
    _record("downstream", "circuit-open", opened, "50300", f"{structured['retry_after_ms']} ms")
    assert trial == {"nonce": "trial"}
    transitions = [
        (r.from_state, r.to_state)  # type: ignore[attr-defined]
        for r in caplog.records
        if getattr(r, "event", None) == "downstream_circuit_changed"
    ]
    assert transitions == [("closed", "open"), ("open", "half-open"), ("half-open", "closed")]


# --- the exactly-once store: DynamoDB Local behind the proxy, both eras --------------------------------------------

# Faults under which the claim's conditional write reached DynamoDB and only its answer was lost: the claim stands,
# held by an invocation that has ended, so a retry answers 40910 until that invocation's time is up.
CLAIM_LANDS = frozenset({"reset", "latency", "trickle"})
# What the log line's `store_error` names (the failure class only): a trickle is cut by the budget's own timer.
STORE_ERRORS = {
    "refuse": "EndpointConnectionError",
    "reset": "ConnectionClosedError",
    "blackhole": "ReadTimeoutError",
    "latency": "ReadTimeoutError",
    "http500": "InternalServerError",
    "http503": "ServiceUnavailable",
    "trickle": "AwsCallTimedOut",
}
INVOCATION_MS = DEADLINE_MS  # the Lambda context each call gets: an in-progress claim expires with it


def _short_invocations(handler: LambdaHandler) -> LambdaHandler:
    """`handler` invoked with INVOCATION_MS left, as a function whose timeout is the request deadline."""

    def invoke_briefly(event: dict[str, Any], context: Any = None) -> dict[str, Any]:
        return handler(event, LocalContext(deadline_ms=int(time.time() * 1000) + INVOCATION_MS))

    return invoke_briefly  # type: ignore[return-value]


def _exactly_once_handler(
    business: Business, settings: Settings, idempotency_table: str, proxy: FaultProxy
) -> LambdaHandler:
    """`business` served with its exactly-once store on `idempotency_table`, reached through `proxy`."""
    budget = AwsBudget.from_settings(settings)
    store = DynamoDBIdempotencyStore(
        idempotency_table, budget=budget, client=budget.client("dynamodb", endpoint_url=proxy.url)
    )
    return lambda_handler(build_runtime(settings, business, MemorySessionStore(), idempotency=store))


def _keyed_caller(era: str, handler: LambdaHandler) -> Any:
    """A keyed `charge` call in `era`: the key in `_meta` (2026-07-28) or the Idempotency-Key header (legacy)."""
    client = McpTestClient.over_handler(_short_invocations(handler), authorizer=PRINCIPAL)
    if era == "2026-07-28":
        return lambda key: keyed_call(client, "charge", {"amount": 5}, key)
    session = client.clone(era="2025-11-25")
    session.initialize()
    return lambda key: session.rpc(
        "tools/call", {"name": "charge", "arguments": {"amount": 5}}, idempotency_key=key
    )


def _structured(reply: HttpReply) -> dict[str, Any]:
    assert reply.status == 200, reply.raw
    return reply.result["structuredContent"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("era", ["2026-07-28", "legacy"])
@pytest.mark.parametrize("fault", list(FAULTS))
def test_exactly_once_store_fault_is_a_retryable_50030_in_time_and_runs_nothing_then_once(
    fault: str,
    era: str,
    dynamodb_proxy: FaultProxy,
    dynamodb_client: Any,
    idempotency_table: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    ledger = Ledger()
    business = exactly_once_business(ledger)
    handler = _exactly_once_handler(
        business, _settings(business=business.name), idempotency_table, dynamodb_proxy
    )
    call = _keyed_caller(era, handler)
    assert _structured(call("warm-up"))["charge_id"] == "charge-1"  # the store answers before the fault

    dynamodb_proxy.set(fault, FAULTS[fault])
    try:
        with caplog.at_level("INFO"):
            down = _timed(call, "call-1")
    finally:
        dynamodb_proxy.heal()
    (line,) = [r for r in caplog.records if getattr(r, "event", None) == "mcp_tool_call_failed"]
    assert (line.outcome, line.error_type) == ("system_error", "IdempotencyStoreUnavailable")  # type: ignore[attr-defined]
    assert line.store_error == STORE_ERRORS[fault]  # type: ignore[attr-defined]

    _within_the_deadline(down)
    error = _structured(down.reply)
    assert down.reply.result["isError"] is True
    assert error["code"] == 50030 and error["retryable"] is True, error
    assert error["suggested_action"] == "wait_and_retry" and error["retry_after_ms"] > 0, error
    assert "did not run" in error["message"] and b"127.0.0.1" not in down.reply.raw
    assert ledger.executions["charge"] == 1  # the claim could not be recorded: the tool did not run
    dependency = "idempotency" if era == "2026-07-28" else "idempotency@legacy"
    _record(dependency, fault, down, str(error["code"]), f"{error['retry_after_ms']} ms")

    # Healed. A claim whose answer was lost is held until its invocation's end (never by this retry's own).
    retry = _structured(call("call-1"))
    if fault in CLAIM_LANDS:
        assert retry["code"] == 40910 and retry["retryable"] is True, retry
        assert ledger.executions["charge"] == 1
        statuses = sorted(
            i["status"]["S"] for i in dynamodb_client.scan(TableName=idempotency_table)["Items"]
        )
        assert statuses == ["COMPLETED", "INPROGRESS"], statuses
        time.sleep(INVOCATION_MS / 1000 - down.milliseconds / 1000 + 0.1)
        retry = _structured(call("call-1"))
    assert retry["charge_id"] == "charge-2" and ledger.executions["charge"] == 2
    # ...and from then on the key replays that one result without running the tool again.
    assert _structured(call("call-1")) == retry and ledger.executions["charge"] == 2


def test_a_blackholed_exactly_once_table_near_the_deadline_answers_50030_at_it(
    dynamodb_proxy: FaultProxy, idempotency_table: str
) -> None:
    # The default budget (1 s connect + 2 s read, two attempts) is more than the 1.5 s this invocation has left.
    ledger = Ledger()
    business = exactly_once_business(ledger)
    handler = _exactly_once_handler(
        business, Settings(business=business.name), idempotency_table, dynamodb_proxy
    )
    remaining_ms, margin_ms = 1500, 500  # DEADLINE_MARGIN_MS's default: the deadline is 1 s away
    body = keyed_request("charge", {"amount": 5}, "call-1")
    headers = {**POST_HEADERS, **modern_headers("tools/call", "charge")}
    event = http_event("POST", "/mcp", headers, json.dumps(body), authorizer=PRINCIPAL)

    dynamodb_proxy.set("blackhole")
    try:
        context = LocalContext(deadline_ms=int(time.time() * 1000) + remaining_ms)
        started = time.monotonic()
        response = invoke(handler, event, context)
        elapsed_ms = (time.monotonic() - started) * 1000
    finally:
        dynamodb_proxy.heal()

    reply = HttpReply(
        int(response["statusCode"]),
        {k.lower(): v for k, v in response["headers"].items()},
        response_body(response),
    )
    error = _structured(reply)
    assert error["code"] == 50030 and error["retryable"] is True, error
    assert remaining_ms - margin_ms - 100 <= elapsed_ms < remaining_ms, f"answered after {elapsed_ms:.0f} ms"
    assert ledger.executions["charge"] == 0
    _record(
        "idempotency@1s-left", "blackhole", Timed(reply, elapsed_ms), "50030", f"{error['retry_after_ms']} ms"
    )


BREAKS_THE_STORE: dict[str, FaultProxy] = {}  # the proxy `charge_and_break_the_store` breaks while it runs


@tool(description="Use to test a store that fails after the tool ran: charges, then breaks the store.")
def charge_and_break_the_store(amount: int, ctx: ToolContext) -> ToolResult:
    if "proxy" in BREAKS_THE_STORE:
        BREAKS_THE_STORE["proxy"].set("http503")
    return execution_result({"charge_id": uuid.uuid4().hex[:8], "amount": amount})


def test_a_store_that_fails_after_the_tool_ran_keeps_the_answer_and_holds_the_key_until_the_invocation_ends(
    dynamodb_proxy: FaultProxy, idempotency_table: str, caplog: pytest.LogCaptureFixture
) -> None:
    business = Business(name="breaks", tools=[charge_and_break_the_store])
    settings = _settings(business=business.name)
    handler = _short_invocations(_exactly_once_handler(business, settings, idempotency_table, dynamodb_proxy))
    client = McpTestClient.over_handler(handler, authorizer=PRINCIPAL)
    BREAKS_THE_STORE["proxy"] = dynamodb_proxy
    try:
        with caplog.at_level("INFO"):
            ran = _timed(keyed_call, client, "charge_and_break_the_store", {"amount": 5}, "call-1")
    finally:
        dynamodb_proxy.heal()
    (warning,) = [r for r in caplog.records if getattr(r, "event", None) == "idempotency_store_failed"]
    assert warning.store_error == "ServiceUnavailable"  # type: ignore[attr-defined]

    _within_the_deadline(ran)
    answer = _structured(ran.reply)  # the tool ran once and answered: that answer stands
    assert ran.reply.result.get("isError") is not True and answer["amount"] == 5, answer
    _record("idempotency", "after-run", ran, "-", "-")
    # Its claim could not be completed: a retry is told to wait while the invocation that ran it may still live.
    retry = _structured(keyed_call(client, "charge_and_break_the_store", {"amount": 5}, "call-1"))
    assert retry["code"] == 40910 and retry["retryable"] is True, retry
    # Past that invocation's end the key is free again: a retry then runs anew (the caller already had its answer).
    time.sleep(INVOCATION_MS / 1000 - ran.milliseconds / 1000 + 0.1)
    BREAKS_THE_STORE.clear()
    again = _structured(keyed_call(client, "charge_and_break_the_store", {"amount": 5}, "call-1"))
    assert again["amount"] == 5 and again["charge_id"] != answer["charge_id"], again


def test_the_matrix_covers_every_fault_of_every_dependency() -> None:
    covered = {(row.dependency, row.fault) for row in ROWS}
    dependencies = ("sessions", "tasks", "secrets", "downstream", "idempotency", "idempotency@legacy")
    expected = {(d, f) for d in dependencies for f in FAULTS}
    assert expected <= covered, sorted(expected - covered)
