"""Drive an MCP Lambda handler in-process with API Gateway HTTP API (payload 2.0) events."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from mcp_types._v2026_07_28 import InputRequiredResult

from mcp_lambda.calls.task_invoke import TaskInvoker
from mcp_lambda.composition import build_runtime
from mcp_lambda.lambda_adapter import LambdaHandler, lambda_handler
from mcp_lambda.secrets import SecretSource
from mcp_lambda.settings import Settings
from mcp_lambda.stores.sessions import MemorySessionStore, SessionStore
from mcp_lambda.stores.tasks import TaskStore
from mcp_lambda.testing import HttpReply, http_event, invoke, response_body
from mcp_lambda.testing.framing import NAME_FIELDS
from mcp_lambda.tools import Business

from .wire import check_error_shape, check_legacy, check_modern

POST_HEADERS = {
    "host": "localhost",
    "accept": "application/json, text/event-stream",
    "content-type": "application/json",
}
MODERN_VERSION = "2026-07-28"
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPABILITIES = "io.modelcontextprotocol/clientCapabilities"
META_CLIENT_INFO = "io.modelcontextprotocol/clientInfo"


def build_handler(
    business: Business | None,
    settings: Settings | None = None,
    sessions: SessionStore | None = None,
    tasks: TaskStore | None = None,
    invoker: TaskInvoker | None = None,
    secrets: SecretSource | None = None,
) -> LambdaHandler:
    """The runtime wrapped in Mangum exactly as mcp_lambda/handler.py does it, for a test business (or, with
    `business=None`, the one `settings.business` names, loaded as the deployed handler loads it)."""
    if settings is None:
        assert business is not None, "name the business, or pass the settings that name it"
        settings = Settings(business=business.name)
    runtime = build_runtime(
        settings, business, sessions or MemorySessionStore(), secrets=secrets, tasks=tasks, invoker=invoker
    )
    return lambda_handler(runtime)


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    raw: bytes

    @property
    def body(self) -> Any:
        """The parsed JSON body, or None when the body is empty."""
        return json.loads(self.raw) if self.raw else None

    @property
    def sse_messages(self) -> list[dict[str, Any]]:
        """The JSON-RPC messages of a text/event-stream body, in order."""
        return HttpReply(self.status, self.headers, self.raw).messages

    @property
    def error(self) -> dict[str, Any]:
        body = self.body
        assert isinstance(body, dict) and "error" in body, f"expected a JSON-RPC error, got {self.raw!r}"
        return body["error"]  # type: ignore[no-any-return]

    @property
    def result(self) -> dict[str, Any]:
        body = self.body
        assert isinstance(body, dict) and "result" in body, f"expected a JSON-RPC result, got {self.raw!r}"
        return body["result"]  # type: ignore[no-any-return]


class LambdaClient:
    """Sends HTTP requests to the handler as API Gateway would, one event per request.

    Every reply is checked against the official wire types (`check_reply`) unless the client was made with
    `oracle=False` or the request is sent with `oracle=False`: only for deliberately hostile input whose test
    asserts what it needs itself.
    """

    def __init__(
        self,
        handler: LambdaHandler,
        path: str = "/mcp",
        oracle: bool = True,
        authorizer: dict[str, Any] | None = None,
    ) -> None:
        self.handler = handler
        self.path = path
        # The API Gateway authorizer context every request carries unless it names its own.
        self.authorizer = authorizer
        # Validate every server message against the official wire types (tests/support/wire.py).
        self.oracle = oracle

    def send(
        self,
        method: str,
        body: Any = None,
        headers: dict[str, str] | None = None,
        *,
        raw: str | bytes | None = None,
        authorizer: dict[str, Any] | None = None,
        defaults: bool = True,
        oracle: bool | None = None,
    ) -> Reply:
        """`raw` is the body verbatim (else `body` JSON-encoded); `defaults=False` sends exactly `headers`,
        without the usual Host/Accept/Content-Type; `oracle` overrides the client's choice for this request."""
        base = (POST_HEADERS if method == "POST" else {"host": "localhost"}) if defaults else {}
        merged = {**base, **(headers or {})}
        merged = {k: v for k, v in merged.items() if v is not None}
        payload = raw if raw is not None else (json.dumps(body) if body is not None else None)
        authorizer = self.authorizer if authorizer is None else authorizer
        response = invoke(self.handler, http_event(method, self.path, merged, payload, authorizer=authorizer))
        lowered = {k.lower(): v for k, v in (response.get("headers") or {}).items()}
        reply = Reply(int(response["statusCode"]), lowered, response_body(response))
        if self.oracle if oracle is None else oracle:
            check_reply(merged, body if raw is None else None, reply)
        return reply

    def post(self, body: Any = None, headers: dict[str, str] | None = None, **kwargs: Any) -> Reply:
        return self.send("POST", body, headers, **kwargs)


LEGACY_HEADER_VALUES = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")


def check_reply(headers: dict[str, str], request: Any, reply: Reply) -> None:
    """Every JSON body the server sends must be a valid message of the era the request was routed to."""
    if not reply.raw or reply.headers.get("content-type", "").startswith("text/html"):
        return
    if reply.status in (401, 403, 404, 406, 413, 415) and reply.headers.get("content-type", "").startswith(
        "application/json"
    ):
        body = reply.body
        if isinstance(body, dict) and "detail" in body:
            return  # Starlette's own 404 for another path: not an MCP message
        check_error_shape(body)
        if reply.status != 404:
            return
    version = {k.lower(): v for k, v in headers.items()}.get("mcp-protocol-version")
    modern = version is not None and version.strip() not in LEGACY_HEADER_VALUES
    method = request.get("method") if isinstance(request, dict) else None
    if reply.headers.get("content-type", "").startswith("text/event-stream"):
        messages: Any = reply.sse_messages
    else:
        messages = reply.body
    if modern:
        for message in messages if isinstance(messages, list) else [messages]:
            if _asks_for_input(message):
                # An MRTR round (tools/call, prompts/get, resources/read): an InputRequiredResult, not the
                # method's final result type.
                check_modern(message)
                check_input_required(message["result"])
            else:
                check_modern(message, method if isinstance(method, str) else None)
    else:
        check_legacy(messages, method if isinstance(method, str) else None)


def _asks_for_input(message: Any) -> bool:
    result = message.get("result") if isinstance(message, dict) else None
    return isinstance(result, dict) and result.get("resultType") == "input_required"


def check_input_required(result: dict[str, Any]) -> None:
    """A 2026-07-28 InputRequiredResult: the official model, and at least one of inputRequests/requestState."""
    InputRequiredResult.model_validate(result)
    assert "inputRequests" in result or "requestState" in result, result


def meta(version: str = MODERN_VERSION, capabilities: dict[str, Any] | None = None) -> dict[str, Any]:
    return {
        META_VERSION: version,
        META_CAPABILITIES: capabilities if capabilities is not None else {},
        META_CLIENT_INFO: {"name": "pytest", "version": "1.0"},
    }


def modern_request(
    method: str,
    params: dict[str, Any] | None = None,
    request_id: int | str = 1,
    version: str = MODERN_VERSION,
    capabilities: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": method,
        "params": {**(params or {}), "_meta": meta(version, capabilities)},
    }


def modern_headers(method: str, name: str | None = None, version: str = MODERN_VERSION) -> dict[str, str]:
    headers = {"mcp-protocol-version": version, "mcp-method": method}
    if name is not None:
        headers["mcp-name"] = name
    return headers


class ModernClient:
    """A 2026-07-28 client: every request carries `_meta` (declaring `capabilities`) and the routing headers."""

    def __init__(
        self, client: LambdaClient, capabilities: dict[str, Any] | None = None, authorizer: Any = None
    ) -> None:
        self.client = client
        self.capabilities = capabilities
        self.authorizer = authorizer
        self.next_id = 1

    def request(self, method: str, params: dict[str, Any] | None = None, **headers: str) -> Reply:
        self.next_id += 1
        field = NAME_FIELDS.get(method)
        base = modern_headers(method, (params or {}).get(field) if field else None)
        extra = {k.replace("_", "-"): v for k, v in headers.items()}
        body = modern_request(method, params, self.next_id, capabilities=self.capabilities)
        return self.client.post(body, {**base, **extra}, authorizer=self.authorizer)

    def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> Reply:
        return self.request("tools/call", {"name": name, "arguments": arguments or {}})


class LegacyClient:
    """A handshake-era client: initialize, then requests on the Mcp-Session-Id it was given."""

    def __init__(
        self, client: LambdaClient, version: str = "2025-11-25", capabilities: dict[str, Any] | None = None
    ) -> None:
        self.client = client
        self.version = version
        self.capabilities = capabilities or {}  # what `initialize` declares
        self.session_id: str | None = None
        self.next_id = 1
        self.initialize_reply: Reply | None = None

    def initialize(self) -> Reply:
        reply = self.client.post(
            {
                "jsonrpc": "2.0",
                "id": 1,
                "method": "initialize",
                "params": {
                    "protocolVersion": self.version,
                    "capabilities": self.capabilities,
                    "clientInfo": {"name": "pytest", "version": "1.0"},
                },
            }
        )
        assert reply.status == 200, reply.raw
        self.session_id = reply.headers["mcp-session-id"]
        self.initialize_reply = reply
        self.notify("notifications/initialized")
        return reply

    def headers(self, **extra: str | None) -> dict[str, str]:
        headers: dict[str, str | None] = {"mcp-session-id": self.session_id}
        if self.version >= "2025-06-18":
            headers["mcp-protocol-version"] = self.version
        headers.update({k.replace("_", "-"): v for k, v in extra.items()})
        return {k: v for k, v in headers.items() if v is not None}

    def request(self, method: str, params: dict[str, Any] | None = None, **headers: str | None) -> Reply:
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        return self.client.post(message, self.headers(**headers))

    def notify(self, method: str, params: dict[str, Any] | None = None) -> Reply:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        return self.client.post(message, self.headers())

    def call_tool(self, name: str, arguments: dict[str, Any] | None = None) -> Reply:
        return self.request("tools/call", {"name": name, "arguments": arguments or {}})

    def delete(self) -> Reply:
        return self.client.send("DELETE", headers=self.headers())
