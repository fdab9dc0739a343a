"""A business whose tools count their executions and mint a fresh id in each, for the exactly-once tests,
and the requests that carry a call's key."""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

from mcp_lambda.lambda_adapter import LambdaHandler
from mcp_lambda.testing import HttpReply, McpTestClient
from mcp_lambda.tools import (
    Business,
    ExactlyOnce,
    InputRequired,
    ToolAnnotations,
    ToolContext,
    ToolResult,
    business_error,
    elicit,
    execution_result,
    input_required,
    tool,
)
from mcp_lambda.tools.results import META_EXECUTION_ID, META_REPLAY
from mcp_lambda_dev.local.events import LocalContext, http_event, response_body

from .wire import POST_HEADERS, modern_headers, modern_request

# Two authenticated callers (API Gateway JWT authorizer claims), for keys scoped per principal.
USER_1 = {"jwt": {"claims": {"sub": "user-1", "iss": "https://issuer.example"}, "scopes": None}}
USER_2 = {"jwt": {"claims": {"sub": "user-2", "iss": "https://issuer.example"}, "scopes": None}}

DECLINED = 40201


class Ledger:
    """What the tools did: executions per tool, and a gate that holds `hold` until released."""

    def __init__(self) -> None:
        self.executions: Counter[str] = Counter()
        self._ids = itertools.count(1)
        self.started = threading.Event()
        self.release = threading.Event()

    def ran(self, tool_name: str) -> str:
        self.executions[tool_name] += 1
        return f"{tool_name}-{next(self._ids)}"


def exactly_once_business(ledger: Ledger, name: str = "oncebiz") -> Business:
    @tool(description="Use to charge an amount. Not for refunds.", safe_fields=("amount",))
    def charge(amount: int, ctx: ToolContext) -> ToolResult:
        charge_id = ledger.ran("charge")
        return execution_result(
            {"charge_id": charge_id, "amount": amount}, text=f"Charged {amount} ({charge_id})."
        )

    @tool(description="Use to test a business error: always declines.")
    def decline(amount: int, ctx: ToolContext) -> ToolResult:
        attempt = ledger.ran("decline")
        return business_error(DECLINED, f"Card declined (attempt {attempt}).")

    @tool(description="Use to test a tool that fails on its first execution only.")
    def flaky(ctx: ToolContext) -> ToolResult:
        run_id = ledger.ran("flaky")
        if ledger.executions["flaky"] == 1:
            raise RuntimeError("the first attempt fails")
        return execution_result({"run_id": run_id})

    @tool(description="Use to look something up. Read-only.", annotations=ToolAnnotations(read_only=True))
    def lookup(query: str, ctx: ToolContext) -> ToolResult:
        return execution_result({"run_id": ledger.ran("lookup"), "query": query})

    @tool(
        description="Use to test a read-only tool that opts in.",
        annotations=ToolAnnotations(read_only=True),
        exactly_once=True,
    )
    def pinned_lookup(query: str, ctx: ToolContext) -> ToolResult:
        return execution_result({"run_id": ledger.ran("pinned_lookup")})

    @tool(description="Use to test a tool that opts out.", exactly_once=False)
    def unguarded(ctx: ToolContext) -> ToolResult:
        return execution_result({"run_id": ledger.ran("unguarded")})

    @tool(
        description="Use to test key-less dedupe of the same arguments.",
        exactly_once=ExactlyOnce(dedupe_window_seconds=600),
    )
    def deduped(amount: int, ctx: ToolContext) -> ToolResult:
        return execution_result({"run_id": ledger.ran("deduped"), "amount": amount})

    @tool(description="Use to test a tool that asks for confirmation first (2026-07-28 rounds).")
    def confirmed(amount: int, ctx: ToolContext) -> ToolResult | InputRequired:
        run_id = ledger.ran("confirmed")
        if "ok" not in ctx.input_responses:
            return input_required(ok=elicit("Charge it?", {"ok": {"type": "boolean"}}, ["ok"]))
        return execution_result({"run_id": run_id, "amount": amount})

    @tool(
        description="Use to test a call still running: its first execution waits until the test releases it."
    )
    def hold(ctx: ToolContext) -> ToolResult:
        run_id = ledger.ran("hold")
        if ledger.executions["hold"] == 1:
            ledger.started.set()
            assert ledger.release.wait(30), "the test never released the held call"
        return execution_result({"run_id": run_id})

    tools = [charge, decline, flaky, lookup, pinned_lookup, unguarded, deduped, confirmed, hold]
    return Business(name=name, title="Exactly-once tests", version="1.0.0", tools=tools)


def keyed_request(
    name: str, arguments: dict[str, Any], key: str | None, request_id: int = 1
) -> dict[str, Any]:
    """A 2026-07-28 tools/call whose `_meta` carries `tool_call_id` (when `key` is given)."""
    body = modern_request("tools/call", {"name": name, "arguments": arguments}, request_id)
    if key is not None:
        body["params"]["_meta"]["tool_call_id"] = key
    return body


def call(
    client: McpTestClient,
    name: str,
    arguments: dict[str, Any],
    key: str | None = None,
    *,
    header_key: str | None = None,
    authorizer: dict[str, Any] | None = None,
) -> HttpReply:
    """One keyed 2026-07-28 tools/call: the key in `_meta` (`key`) or in the Idempotency-Key header."""
    headers = modern_headers("tools/call", name)
    if header_key is not None:
        headers["idempotency-key"] = header_key
    return client.post(keyed_request(name, arguments, key), headers, authorizer=authorizer)


def tool_result(reply: HttpReply) -> dict[str, Any]:
    """The ToolResult part of a tools/call reply (what the exactly-once store keeps and replays)."""
    assert reply.status == 200, reply.raw
    result = reply.result
    return {key: result[key] for key in ("content", "structuredContent", "isError") if key in result}


def replay_marker(first: HttpReply, retry: HttpReply) -> dict[str, Any]:
    """Assert `retry` answers `first`'s bytes but for `_meta`, which keeps the execution id and adds the replay
    marker (the first carries none); return the marker."""
    first_body, retry_body = json.loads(first.raw), json.loads(retry.raw)
    first_meta, retry_meta = first_body["result"].pop("_meta"), retry_body["result"].pop("_meta")
    assert json.dumps(retry_body) == json.dumps(first_body)
    assert META_REPLAY not in first_meta and first_meta[META_EXECUTION_ID].startswith("exe_")
    marker: dict[str, Any] = retry_meta.pop(META_REPLAY)
    assert retry_meta == first_meta  # the same execution id (and, at 2026-07-28, serverInfo)
    return marker


def start_in_another_container(
    handler: LambdaHandler, body: dict[str, Any], context: LocalContext
) -> Callable[[], dict[str, Any]]:
    """Invoke `handler` on a thread of its own with its own event loop (another container); join() it."""
    replies: list[dict[str, Any]] = []
    headers = {**POST_HEADERS, **modern_headers("tools/call", body["params"]["name"])}
    event = http_event("POST", "/mcp", headers, json.dumps(body))

    def invoke() -> None:
        loop = asyncio.new_event_loop()
        asyncio.set_event_loop(loop)
        try:
            replies.append(handler(event, context))
        finally:
            loop.close()

    thread = threading.Thread(target=invoke, daemon=True)
    thread.start()

    def join() -> dict[str, Any]:
        thread.join(30)
        assert replies, "the held call never answered"
        return json.loads(response_body(replies[0]))["result"]  # type: ignore[no-any-return]

    return join
