"""The public test kit (mcp_lambda.testing) itself: its client in each era, identities in each AUTH_MODE (jwt
against the kit's own JWKS), the fake downstream service, secrets, settings overrides, input rounds and tasks."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import Field
from tests.support.processes import HANDLER_ENV

from mcp_lambda.errors import McpLambdaError, RequestRefused
from mcp_lambda.testing import (
    ERAS,
    MODERN,
    FakeService,
    Identity,
    KitError,
    LocalIssuer,
    McpTestClient,
    ProtocolError,
    StaticSecrets,
    fake_service,
    make_settings,
    shared_issuer,
)
from mcp_lambda.tools import (
    Business,
    TaskConfig,
    ToolAnnotations,
    ToolContext,
    ToolResult,
    business_error,
    content_result,
    elicit,
    execution_result,
    input_required,
    prompt,
    resource,
    text,
    tool,
    user,
)
from mcp_lambda.tools.errors import DownstreamError

ROOT = Path(__file__).resolve().parents[2]
RAN: list[str] = []
ASK = {"ok": {"type": "boolean"}}


@tool(description="Use to echo a text back.", annotations=ToolAnnotations(read_only=True))
def echo(words: str, ctx: ToolContext) -> ToolResult:
    return execution_result({"words": words}, text=words)


@tool(
    description="Use to see who calls.", annotations=ToolAnnotations(read_only=True), scopes=["profile:read"]
)
def whoami(ctx: ToolContext) -> ToolResult:
    caller = ctx.caller
    if caller is None:
        return execution_result({"subject": None})
    return execution_result(
        {
            "subject": caller.subject,
            "issuer": caller.issuer,
            "scopes": sorted(caller.scopes),
            "claims": dict(caller.claims),
        }
    )


@tool(description="Use to place an order after the user confirms it.")
def place_order(amount: int, ctx: ToolContext) -> Any:
    if "confirm" not in ctx.input_responses:
        return input_required(confirm=elicit(f"Order {amount}?", ASK), state={"amount": amount})
    ok = ctx.input_responses["confirm"].get("content", {}).get("ok")
    return execution_result({"placed": bool(ok), "state": dict(ctx.request_state or {})})


@tool(description="Use to read an item from the item service.", annotations=ToolAnnotations(read_only=True))
def read_item(item: str, ctx: ToolContext) -> ToolResult:
    try:
        answer = ctx.http.get(f"{ctx.secret('item_service_url')}/items/{item}", interface="items.get")
    except DownstreamError:
        return business_error(50301, "the item service is unavailable")
    if answer.status == 404:
        return business_error(40401, f"no item {item}")
    return execution_result({"status": answer.status, "body": answer.json()})


@tool(
    description="Use to count slowly; runs as a task for clients that take tasks.",
    task=TaskConfig(mode="optional"),
)
def count_to(n: Annotated[int, Field(ge=1, le=200)], ctx: ToolContext) -> ToolResult:
    RAN.append("count_to")
    for step in range(1, n + 1):
        if ctx.cancelled():
            return content_result(text(f"stopped at {step}"))
        ctx.report_progress(step, total=n, message=f"counted {step}")
        time.sleep(0.01)
    return content_result(text(f"counted to {n}"))


@tool(description="Use to approve something inside a task.", task=TaskConfig(mode="required"))
def approve_later(ctx: ToolContext) -> Any:
    if "yes" not in ctx.input_responses:
        return input_required(yes=elicit("Approve?", ASK))
    return content_result(text(f"approved={ctx.input_responses['yes']['content']['ok']}"))


@prompt(description="A greeting for someone.")
def greeting(name: str) -> list[dict[str, Any]]:
    return [user(f"Say hello to {name}.")]


@resource("kit://about", name="about", description="What this business is.")
def about() -> str:
    return "a business for the kit's tests"


def _complete(ref: dict[str, Any], argument: str, value: str, context: dict[str, Any]) -> list[str]:
    return [name for name in ("ada", "alan", "grace") if name.startswith(value)]


BUSINESS = Business(
    name="kitbiz",
    tools=[echo, whoami, place_order, read_item, count_to, approve_later],
    prompts=[greeting],
    resources=[about],
    completer=_complete,
)


@pytest.fixture(params=ERAS)
def any_era(request: pytest.FixtureRequest) -> Iterator[McpTestClient]:
    with McpTestClient(BUSINESS, request.param) as client:
        yield client


# --- eras ---------------------------------------------------------------------------------------------------


def test_every_era_lists_and_calls_tools_and_serves_prompts_resources_and_completion(
    any_era: McpTestClient,
) -> None:
    # A session also lists the framework's job tools: the business has a long-running (task) tool.
    jobs = {"get_job_status", "cancel_job"} if any_era.era != MODERN else set()
    assert {spec["name"] for spec in any_era.list_tools()} == {spec.name for spec in BUSINESS.tools} | jobs
    result = any_era.call_tool("echo", {"words": "hi"})
    assert (result.text, result.structured_content, result.is_error, result.code) == (
        "hi",
        {"words": "hi"},
        False,
        None,
    )
    assert result.raw["jsonrpc"] == "2.0" and result.http_status == 200
    assert (
        any_era.get_prompt("greeting", {"name": "Ada"}).messages[0]["content"]["text"] == "Say hello to Ada."
    )
    assert any_era.read_resource("kit://about").text == "a business for the kit's tests"
    assert any_era.complete({"type": "ref/prompt", "name": "greeting"}, "name", "a").values == ["ada", "alan"]
    assert [p["name"] for p in any_era.list_prompts()] == ["greeting"]
    assert [r["uri"] for r in any_era.list_resources()] == ["kit://about"]


def test_a_session_era_initializes_on_enter_and_deletes_on_exit() -> None:
    client = McpTestClient(BUSINESS, "2024-11-05")
    with client:
        session = client.session_id
        assert session and client.server_info["protocolVersion"] == "2024-11-05"
    assert client.session_id is None
    reply = client.send("POST", {"jsonrpc": "2.0", "id": 9, "method": "tools/list"}, {
        "host": "localhost", "accept": "application/json, text/event-stream",
        "content-type": "application/json", "mcp-session-id": session,
    })  # fmt: skip
    assert reply.status == 404, "the DELETE ended the session"


def test_the_modern_era_holds_no_session() -> None:
    with McpTestClient(BUSINESS) as client:
        client.call_tool("echo", {"words": "x"})
        assert client.session_id is None


def test_a_session_client_used_outside_its_block_says_so() -> None:
    with pytest.raises(KitError, match="inside `with McpTestClient"):
        McpTestClient(BUSINESS, "2025-11-25").call_tool("echo", {"words": "x"})


def test_an_unknown_era_is_a_kit_error() -> None:
    with pytest.raises(KitError, match="unknown era '2099-01-01'"):
        McpTestClient(BUSINESS, "2099-01-01")


def test_protocol_errors_are_typed_and_under_the_framework_root(any_era: McpTestClient) -> None:
    with pytest.raises(ProtocolError) as refused:
        any_era.call_tool("no_such_tool")

    assert isinstance(refused.value, RequestRefused) and isinstance(refused.value, McpLambdaError)
    assert refused.value.code == -32602 and refused.value.data == {"name": "no_such_tool"}


def test_a_bad_argument_is_an_error_result_with_its_advice(any_era: McpTestClient) -> None:
    result = any_era.call_tool("count_to", {"n": 0})

    assert result.is_error and (result.code, result.suggested_action, result.retryable) == (
        40000,
        "fix_arguments",
        False,
    )


# --- input rounds --------------------------------------------------------------------------------------------


def test_an_input_round_is_answered_with_the_signed_state() -> None:
    client = McpTestClient(BUSINESS)
    asked = client.call_tool("place_order", {"amount": 3})
    done = client.answer(asked, {"confirm": {"action": "accept", "content": {"ok": True}}})

    assert asked.needs_input and asked.result_type == "input_required" and asked.request_state
    assert asked.input_requests["confirm"]["method"] == "elicitation/create"
    assert not done.needs_input and done.structured_content == {"placed": True, "state": {"amount": 3}}


def test_a_forged_request_state_is_refused() -> None:
    client = McpTestClient(BUSINESS)
    with pytest.raises(ProtocolError) as refused:
        client.call_tool("place_order", {"amount": 3}, input_responses={}, request_state="forged")

    assert refused.value.code == -32602


def test_a_client_that_cannot_elicit_is_refused_the_round() -> None:
    with pytest.raises(ProtocolError) as refused:
        McpTestClient(BUSINESS, capabilities={}).call_tool("place_order", {"amount": 3})

    assert refused.value.code == -32021 and refused.value.data == {
        "requiredCapabilities": {"elicitation": {}}
    }


def test_a_session_era_answers_a_round_with_an_error_result() -> None:
    with McpTestClient(BUSINESS, "2025-11-25") as client:
        result = client.call_tool("place_order", {"amount": 3})
    assert result.code == 40010 and not result.needs_input
    with pytest.raises(KitError):
        client.answer(result, {})


# --- identity in each AUTH_MODE ------------------------------------------------------------------------------

ADA = Identity("ada", scopes=("profile:read",), claims={"email": "ada@example.com"})


@pytest.mark.parametrize("era", ["2026-07-28", "2024-11-05"])
def test_jwt_mode_accepts_a_token_the_kits_issuer_signed(era: str) -> None:
    with McpTestClient(BUSINESS, era, settings={"auth_mode": "jwt"}, caller=ADA) as client:
        seen = client.call_tool("whoami").structured_content

    assert seen == {"subject": "ada", "issuer": shared_issuer().url, "scopes": ["profile:read"],
                    "claims": {"email": "ada@example.com"}}  # fmt: skip


def test_the_kits_issuer_serves_its_jwks_and_discovery_on_127_0_0_1() -> None:
    with LocalIssuer() as issuer:
        with urllib.request.urlopen(issuer.jwks_url, timeout=5) as response:
            keys = __import__("json").loads(response.read())["keys"]
        with urllib.request.urlopen(f"{issuer.url}/.well-known/openid-configuration", timeout=5) as response:
            discovery = __import__("json").loads(response.read())

    assert issuer.url.startswith("http://127.0.0.1:")
    assert [(key["kid"], key["kty"], key["alg"]) for key in keys] == [(issuer.kid, "RSA", "RS256")]
    assert discovery == {"issuer": issuer.url, "jwks_uri": issuer.jwks_url}


def test_jwt_mode_refuses_a_token_another_key_signed_and_an_expired_one() -> None:
    client = McpTestClient(BUSINESS, settings={"auth_mode": "jwt"}, caller=ADA)
    headers = {"host": "localhost", "accept": "application/json", "content-type": "application/json",
               "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list"}  # fmt: skip
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": {}}}
    with LocalIssuer() as stranger:
        foreign = client.send("POST", body, {**headers, "authorization": f"Bearer {stranger.token(ADA)}"})
    expired = client.send(
        "POST", body, {**headers, "authorization": f"Bearer {shared_issuer().token(ADA, expires_in=-120)}"}
    )

    assert foreign.status == expired.status == 401
    assert "a key the issuer does not publish" in foreign.headers["www-authenticate"]
    assert "expired" in expired.headers["www-authenticate"]


def test_jwt_mode_names_scopes_with_the_issuers_prefix() -> None:
    settings = {"auth_mode": "jwt", "auth_scope_prefix": "https://api.example/"}
    with McpTestClient(BUSINESS, settings=settings, caller=ADA) as client:
        assert client.call_tool("whoami").structured_content["scopes"] == ["profile:read"]


def test_apigateway_mode_reads_the_authorizers_claims() -> None:
    with McpTestClient(BUSINESS, settings={"auth_mode": "apigateway"}, caller=ADA) as client:
        seen = client.call_tool("whoami").structured_content
    with pytest.raises(ProtocolError) as refused:
        McpTestClient(BUSINESS, settings={"auth_mode": "apigateway"}).call_tool("whoami")

    assert (seen["subject"], seen["issuer"], seen["scopes"]) == (
        "ada",
        "https://issuer.example",
        ["profile:read"],
    )
    assert refused.value.http_status == 401 and refused.value.code is not None


def test_a_missing_scope_is_a_403_with_a_step_up_challenge() -> None:
    client = McpTestClient(BUSINESS, settings={"auth_mode": "apigateway"}, caller=Identity("bob"))
    with pytest.raises(ProtocolError) as refused:
        client.call_tool("whoami")

    assert refused.value.http_status == 403 and refused.value.data == {"requiredScopes": ["profile:read"]}


def test_none_mode_is_anonymous_unless_a_caller_is_named() -> None:
    assert McpTestClient(BUSINESS).call_tool("whoami").structured_content == {"subject": None}
    named = McpTestClient(BUSINESS, caller=ADA).call_tool("whoami").structured_content
    assert named["subject"] == "ada"


def test_as_caller_shares_the_function_but_not_the_identity() -> None:
    with McpTestClient(BUSINESS, "2025-11-25", caller=ADA) as ada, ada.as_caller(Identity("bob")) as bob:
        assert bob.function is ada.function and bob.session_id != ada.session_id
        assert bob.call_tool("whoami").structured_content["subject"] == "bob"


# --- fakes: secrets, the downstream service, settings --------------------------------------------------------


@pytest.fixture
def service() -> Iterator[FakeService]:
    with fake_service() as running:
        yield running


def _item_client(service: FakeService, **settings: Any) -> McpTestClient:
    overrides = {"http_max_attempts": 2, "http_timeout_ms": 300, **settings}
    return McpTestClient(BUSINESS, secrets={"item_service_url": service.url}, settings=overrides)


def test_the_fake_service_answers_routes_and_records_requests(service: FakeService) -> None:
    service.route("/items/i-1", 200, {"code": 0, "name": "thermos"})
    service.routes["/items/i-2"] = lambda request: (404, {"code": 404, "path": request.path})
    client = _item_client(service)

    found = client.call_tool("read_item", {"item": "i-1"})
    missing = client.call_tool("read_item", {"item": "i-2"})
    echoed = client.call_tool("read_item", {"item": "i-3"})

    assert found.structured_content == {"status": 200, "body": {"code": 0, "name": "thermos"}}
    assert missing.code == 40401
    assert echoed.structured_content["body"] == {"code": 0, "query": {}}
    assert [(seen.method, seen.path) for seen in service.seen] == [
        ("GET", "/items/i-1"), ("GET", "/items/i-2"), ("GET", "/items/i-3")
    ]  # fmt: skip


def test_scripted_failures_are_retried_then_reach_the_tool(service: FakeService) -> None:
    client = _item_client(service)
    service.fail_next(503)
    recovered = client.call_tool("read_item", {"item": "i-1"})
    service.fail_next(503, 503)
    failed = client.call_tool("read_item", {"item": "i-1"})

    assert recovered.structured_content["status"] == 200
    assert failed.code == 50301 and failed.retryable is True and failed.suggested_action == "wait_and_retry"
    assert len(service.seen) == 4


def test_latency_past_the_timeout_is_a_downstream_failure_and_reset_forgets_it(service: FakeService) -> None:
    client = _item_client(service, http_max_attempts=1)
    service.latency_ms = 600
    slow = client.call_tool("read_item", {"item": "i-1"})
    service.reset()
    fast = client.call_tool("read_item", {"item": "i-1"})

    assert slow.code == 50301
    assert fast.structured_content["status"] == 200 and len(service.seen) == 1


def test_a_missing_secret_is_the_secret_unavailable_error_result() -> None:
    result = McpTestClient(BUSINESS).call_tool("read_item", {"item": "i-1"})

    assert result.code == 50020 and result.suggested_action == "escalate_to_human"
    with pytest.raises(LookupError):
        StaticSecrets({"a": ""}).get("a")


def test_settings_overrides_reach_the_handler() -> None:
    client = McpTestClient(BUSINESS, settings={"tools_page_size": 1})
    first_page = client.request("tools/list")[0]["result"]

    assert len(first_page["tools"]) == 1 and first_page["nextCursor"]
    assert len(client.list_tools()) == len(BUSINESS.tools), "list_tools follows every page"
    assert client.function.settings.tools_page_size == 1


@pytest.mark.parametrize(
    ("overrides", "message"),
    [({"no_such_setting": 1}, "NO_SUCH_SETTING: not a setting"), ({"tools_page_size": 0}, "TOOLS_PAGE_SIZE: "),
     ({"business": "other"}, "business 'other'")],
)  # fmt: skip
def test_a_bad_settings_override_is_a_kit_error_naming_it(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(KitError, match=re.escape(message)):
        make_settings(BUSINESS, overrides)


# --- tasks ---------------------------------------------------------------------------------------------------


def test_a_task_runs_through_the_worker_invocation_to_completion() -> None:
    RAN.clear()
    client = McpTestClient(BUSINESS)
    task = client.call_tool_as_task("count_to", {"n": 3})
    queued = list(client.function.invoker.queued)
    done = task.wait()

    assert queued == [(task.task_id, 1)] and RAN == ["count_to"]
    assert done.status == "completed" and done.result is not None and done.result.text == "counted to 3"


def test_a_task_cancelled_mid_run_stops_and_stays_cancelled() -> None:
    task = McpTestClient(BUSINESS).call_tool_as_task("count_to", {"n": 200}).run_in_background()
    task.wait_for(lambda state: (state.status_message or "").startswith("counted "))
    task.cancel()
    final = task.wait()

    assert final.status == "cancelled" and final.result is None
    assert task.outcomes == [{"taskId": task.task_id, "run": 1, "ran": True, "status": "cancelled"}]


def test_a_task_asking_for_input_is_answered_and_resumed() -> None:
    task = McpTestClient(BUSINESS).call_tool_as_task("approve_later")
    waiting = task.wait()
    (key,) = waiting.input_requests
    task.answer({key: {"action": "accept", "content": {"ok": True}}})
    done = task.wait()

    assert waiting.status == "input_required"
    assert done.status == "completed" and done.result is not None and done.result.text == "approved=True"


def test_a_worker_that_cannot_be_started_is_a_protocol_error() -> None:
    client = McpTestClient(BUSINESS)
    client.function.invoker.fail = True
    with pytest.raises(ProtocolError) as refused:
        client.call_tool_as_task("count_to", {"n": 1})

    assert refused.value.code == -32003 and refused.value.http_status == 503  # throttled: retryable


def test_tasks_need_the_modern_era() -> None:
    with McpTestClient(BUSINESS, "2025-11-25") as client, pytest.raises(KitError, match="2026-07-28 only"):
        client.call_tool_as_task("count_to", {"n": 1})


def test_a_task_that_never_finishes_times_out_as_a_kit_error() -> None:
    task = McpTestClient(BUSINESS).call_tool_as_task("count_to", {"n": 200}).run_in_background()
    with pytest.raises(KitError, match="still working"):
        task.wait(timeout=0.05)
    task.cancel()
    assert task.wait().status == "cancelled"


def test_requests_from_two_threads_take_turns_on_the_container_loop() -> None:
    client = McpTestClient(BUSINESS)
    results: list[str] = []
    threads = [
        threading.Thread(target=lambda: results.append(client.call_tool("echo", {"words": "t"}).text))
        for _ in range(4)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert results == ["t"] * 4


def test_every_exported_name_resolves_and_only_on_first_use() -> None:
    import mcp_lambda.testing as kit

    assert sorted(kit.__all__) == sorted(kit._EXPORTS)
    for name in kit.__all__:
        assert getattr(kit, name) is not None, name
    with pytest.raises(AttributeError):
        kit.no_such_name  # noqa: B018


def test_the_handler_never_imports_the_kit() -> None:
    probe = "import sys, mcp_lambda.handler; print(sorted(m for m in sys.modules if m.startswith('mcp_lambda.testing')))"
    done = subprocess.run(
        [sys.executable, "-c", probe], env=HANDLER_ENV, capture_output=True, text=True, timeout=60
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1] == "[]"
