"""The wire half of `McpTestClient`: its transport, its era's framing, and the raw requests a test sends when it
checks the HTTP layer itself (a status, a header, a malformed body, a batch). Not used on its own."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self

from ..protocol.framing import POST_HEADERS, modern_request, session_headers
from .errors import KitError
from .framing import CLIENT_INFO, ERAS, MODERN, param_headers
from .identity import DEFAULT_AUDIENCE, Identity, authorizer_context
from .results import HttpReply, response_of
from .transports import HttpTransport, Transport

if TYPE_CHECKING:
    from ..lambda_adapter import LambdaHandler
    from ..tools import Business
    from .runtime import InProcessLambda

# What a 2026-07-28 client declares by default: it can answer every kind of input request.
DEFAULT_CAPABILITIES: dict[str, Any] = {"elicitation": {}, "sampling": {}, "roots": {}}


class ClientWire:
    """Transport, era and caller of an `McpTestClient` (see there for the arguments)."""

    def __init__(
        self,
        business: Business | None = None,
        era: str = MODERN,
        *,
        settings: Mapping[str, Any] | Any = None,
        secrets: Mapping[str, str] | Any = None,
        caller: Identity | None = None,
        capabilities: Mapping[str, Any] | None = None,
        function: InProcessLambda | None = None,
        transport: Transport | None = None,
        headers: Mapping[str, str] | None = None,
        authorizer: dict[str, Any] | None = None,
        path: str = "/mcp",
        oracle: bool = True,
    ) -> None:
        if era not in ERAS:
            raise KitError(f"unknown era {era!r}; the kit speaks {', '.join(ERAS)}")
        if transport is None:
            if function is None:
                if business is None:
                    raise KitError("name the business to serve in-process, or give a transport")
                from .runtime import InProcessLambda

                function = InProcessLambda(business, settings, secrets)
            transport = function
        self.business = business
        self.era = era
        self.function = function
        self.transport = transport
        self.caller = caller
        self.capabilities = dict(DEFAULT_CAPABILITIES if capabilities is None else capabilities)
        self.headers = dict(headers or {})
        self.authorizer = authorizer
        self.path = path
        self.oracle = oracle
        self.session_id: str | None = None
        self.server_info: dict[str, Any] = {}
        self.initialize_reply: HttpReply | None = None
        self.last_id = 0  # the JSON-RPC id of the last request this client numbered
        self._input_schemas: dict[
            str, dict[str, Any]
        ] = {}  # tool name -> inputSchema, learned from tools/list

    @classmethod
    def over_http(
        cls,
        url: str,
        era: str = MODERN,
        *,
        headers: Mapping[str, str] | None = None,
        timeout: float = 10,
        **options: Any,
    ) -> Self:
        """A client of the MCP server at `url` (`make run`'s, a deployed stack's).

        Args:
            url: The MCP endpoint, e.g. `http://127.0.0.1:3000/mcp`.
            era: The protocol revision to speak.
            headers: Headers every request carries (`{"authorization": "Bearer ..."}`).
            timeout: Seconds each request may take.
            **options: `capabilities`, `oracle`, ... as for the constructor.

        Returns:
            The client.
        """
        return cls(None, era, transport=HttpTransport(url, timeout), headers=headers, **options)

    @classmethod
    def over_handler(
        cls,
        handler: LambdaHandler,
        era: str = MODERN,
        *,
        business: Business | None = None,
        **options: Any,
    ) -> Self:
        """A client of a Lambda handler the test composed itself (its own stores, settings, secrets).

        Args:
            handler: The handler (`lambda_handler(build_runtime(...))`).
            era: The protocol revision to speak.
            business: The business it serves, when known (its tools' Mcp-Param-* headers).
            **options: `capabilities`, `authorizer`, `path`, `oracle`, ... as for the constructor.

        Returns:
            The client.
        """
        from .runtime import HandlerTransport

        return cls(business, era, transport=HandlerTransport(handler), **options)

    @property
    def handler(self) -> LambdaHandler:
        """The Lambda handler of an in-process client.

        Raises:
            KitError: The client talks HTTP.
        """
        handler = getattr(self.transport, "handler", None)
        if handler is None:
            raise KitError("this client talks to a URL, not to an in-process handler")
        return handler

    def clone(self, **changes: Any) -> Self:
        """Another client of the same transport, with some options changed (`era`, `caller`, `capabilities`,
        `headers`, `authorizer`, `path`, `oracle`), its own request ids and no session yet.

        Args:
            **changes: The options to change.

        Returns:
            The new client (open it before use in a legacy era).
        """
        options: dict[str, Any] = {
            "era": self.era,
            "caller": self.caller,
            "capabilities": self.capabilities,
            "headers": self.headers,
            "authorizer": self.authorizer,
            "path": self.path,
            "oracle": self.oracle,
            **changes,
        }
        return type(self)(self.business, function=self.function, transport=self.transport, **options)

    # --- raw HTTP ----------------------------------------------------------------------------------------------

    def send(
        self,
        method: str,
        body: Any = None,
        headers: Mapping[str, str | None] | None = None,
        *,
        raw: str | bytes | None = None,
        authorizer: dict[str, Any] | None = None,
        defaults: bool = True,
        oracle: bool | None = None,
        path: str | None = None,
    ) -> HttpReply:
        """One HTTP request as this client's caller, whatever it holds: the door for tests of the HTTP layer.

        Args:
            method: The HTTP method.
            body: A JSON value to send JSON-encoded; None for no body.
            headers: Headers over the defaults (a None value removes one).
            raw: The body verbatim instead (malformed JSON, a wrong encoding, ...).
            authorizer: The API Gateway authorizer context instead of the client's.
            defaults: False sends `headers` without the usual Host/Accept/Content-Type (the client's own
                headers still go).
            oracle: Check the reply against the official wire types (default: the client's choice). Only a test
                of deliberately hostile input that asserts what it needs turns it off.
            path: The request path instead of the client's.

        Returns:
            The reply, whatever its status.

        Raises:
            AssertionError: The oracle found a reply that is no valid message of its era.
        """
        base: dict[str, str | None] = {}
        if defaults:
            base = dict(POST_HEADERS if method == "POST" else {"host": "localhost"})
        base.update(self.headers)
        merged = {name: value for name, value in {**base, **(headers or {})}.items() if value is not None}
        authorizer = self.authorizer if authorizer is None else authorizer
        if self.caller is not None and self.function is not None and authorizer is None:
            authorizer = self._caller_credentials(merged)
        payload = raw if raw is not None else (json.dumps(body) if body is not None else None)
        reply = self.transport.http(method, merged, payload, path=path or self.path, authorizer=authorizer)
        if self.oracle if oracle is None else oracle:
            from .wire import check_reply  # needs the development dependency mcp_types

            check_reply(merged, body if raw is None else None, reply)
        return reply

    def post(
        self, body: Any = None, headers: Mapping[str, str | None] | None = None, **options: Any
    ) -> HttpReply:
        """`send("POST", body, headers, **options)`."""
        return self.send("POST", body, headers, **options)

    def _caller_credentials(self, headers: dict[str, str]) -> dict[str, Any] | None:
        """Add the caller's bearer token (AUTH_MODE=jwt) to `headers`, or return its authorizer context."""
        assert self.function is not None and self.caller is not None
        settings = self.function.settings
        if settings.auth_mode == "jwt":
            assert self.function.issuer is not None
            audience = (settings.auth_audience or (settings.public_url or DEFAULT_AUDIENCE,))[0]
            token = self.function.issuer.token(self.caller, audience, scope_prefix=settings.auth_scope_prefix)
            headers.setdefault("authorization", f"Bearer {token}")
            return None
        issuer = settings.auth_issuer or "https://issuer.example"
        return authorizer_context(self.caller, issuer, settings.auth_scope_prefix)

    # --- JSON-RPC in this client's era -------------------------------------------------------------------------

    def request_headers(self, **fields: str | None) -> dict[str, str]:
        """The headers of this client's era beyond the POST defaults (a session's Mcp-Session-Id and
        MCP-Protocol-Version), plus `fields` (`mcp_session_id=None` removes one; `_` stands for `-`)."""
        headers: dict[str, str | None] = {}
        if self.era != MODERN:
            headers.update(session_headers(self.era, self.session_id, {}))
        headers.update({name.replace("_", "-"): value for name, value in fields.items()})
        return {name: value for name, value in headers.items() if value is not None}

    def rpc(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        meta: Mapping[str, Any] | None = None,
        capabilities: Mapping[str, Any] | None = None,
        request_id: int | str | None = None,
        headers: Mapping[str, str | None] | None = None,
        **fields: str | None,
    ) -> HttpReply:
        """One JSON-RPC request framed in this client's era, its raw reply returned (never raised).

        At 2026-07-28 the body carries the `_meta` envelope and the routing headers are set; in a legacy era the
        request rides the client's Mcp-Session-Id.

        Args:
            method: The JSON-RPC method.
            params: Its params, without `_meta`.
            meta: `_meta` entries to add (`tool_call_id`, `traceparent`, ...).
            capabilities: The capabilities to declare instead of the client's (2026-07-28).
            request_id: The JSON-RPC id (default: the client's next).
            headers: Headers over the framing's (a None value removes one).
            **fields: More headers by keyword, `_` for `-` (`mcp_name="x"`).

        Returns:
            The reply, whatever its status.
        """
        request_id = self._next_id() if request_id is None else request_id
        if self.era == MODERN:
            declared = self.capabilities if capabilities is None else capabilities
            body, framed = modern_request(
                method, params, request_id, capabilities=declared, client_info=CLIENT_INFO, meta=meta
            )
            if method == "tools/call" and isinstance(body["params"].get("name"), str):
                schema = self._input_schema(body["params"]["name"])
                framed.update(param_headers(schema, body["params"].get("arguments")))
        else:
            body = {"jsonrpc": "2.0", "id": request_id, "method": method}
            if params is not None or meta:
                body["params"] = {**(params or {}), **({"_meta": dict(meta)} if meta else {})}
            framed = {**POST_HEADERS, **self.request_headers()}
        extra = {name.replace("_", "-"): value for name, value in fields.items()}
        return self.post(body, {**framed, **(headers or {}), **extra})

    def notify(self, method: str, params: Mapping[str, Any] | None = None, **fields: str | None) -> HttpReply:
        """A JSON-RPC notification on this client's session.

        Args:
            method: The notification, e.g. `notifications/initialized`.
            params: Its params.
            **fields: More headers by keyword.

        Returns:
            The reply (202 when accepted).
        """
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = dict(params)
        return self.post(message, self.request_headers(**fields))

    def initialize(self, capabilities: Mapping[str, Any] | None = None) -> HttpReply:
        """A legacy era's handshake: `initialize`, then `notifications/initialized` on the new session.

        Args:
            capabilities: The client capabilities declared (default: none).

        Returns:
            The initialize reply (also kept as `initialize_reply`).

        Raises:
            KitError: The client speaks 2026-07-28, which has no handshake.
            ProtocolError: The server refused, or gave no Mcp-Session-Id.
        """
        if self.era == MODERN:
            raise KitError("2026-07-28 has no initialize: every request is stateless")
        request_id = self._next_id()
        params = {
            "protocolVersion": self.era,
            "capabilities": dict(capabilities or {}),
            "clientInfo": CLIENT_INFO,
        }
        message = {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params}
        reply = self.post(message, session_headers(self.era, None, POST_HEADERS))
        answer, _ = response_of(reply, request_id)
        if "mcp-session-id" not in reply.headers:
            raise KitError(f"initialize answered without an Mcp-Session-Id: {reply.raw!r}")
        self.server_info = answer["result"]
        self.session_id = reply.headers["mcp-session-id"]
        self.initialize_reply = reply
        self.notify("notifications/initialized")
        return reply

    def delete(self, **fields: str | None) -> HttpReply:
        """DELETE the session (as a client closing it), whatever the answer.

        Args:
            **fields: More headers by keyword.

        Returns:
            The reply.
        """
        return self.send("DELETE", None, self.request_headers(**fields))

    def _next_id(self) -> int:
        self.last_id += 1
        return self.last_id

    def _input_schema(self, tool: str) -> dict[str, Any] | None:
        if self.business is not None:
            spec = self.business.tool(tool)
            return spec.input_schema if spec is not None else None
        return self._input_schemas.get(tool)
