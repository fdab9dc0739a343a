"""McpTestClient: the one MCP client of this repository. A business's tests drive the real Lambda handler
in-process, in any protocol era, as any caller; `make smoke` and the interop tests drive a server at a URL."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .channel import DEFAULT_CAPABILITIES, ClientWire
from .errors import KitError
from .framing import MODERN
from .identity import Identity
from .listings import ListedPrompt, ListedResource, ListedTool
from .results import (
    Completion,
    PromptResult,
    ResourceResult,
    RoundResult,
    ToolCallResult,
    response_of,
)
from .tasks import TASKS_EXTENSION, TaskHandle

__all__ = ["DEFAULT_CAPABILITIES", "McpTestClient"]


class McpTestClient(ClientWire):
    """An MCP client of `business` that sends API Gateway events to the real Lambda handler, in-process — or,
    made with `over_http` / `over_handler`, requests to a URL or to a handler the test composed itself.

    Use it as a context manager. At 2026-07-28 every request is stateless; in a legacy era (2025-11-25 …
    2024-11-05, as the Doubao platform speaks) entering initializes a session and leaving deletes it.

    The MCP methods (`list_tools`, `call_tool`, ...) raise `ProtocolError` on a JSON-RPC error; the wire methods
    (`send`, `post`, `rpc`, `notify`, `initialize`, `delete`) return the raw `HttpReply` whatever its status.
    Every reply is checked against the official wire types unless `oracle=False`.

    Args:
        business: The business under test (its `BUSINESS`); may be None with a `transport`.
        era: The protocol revision to speak (one of `ERAS`).
        settings: Setting overrides by field name (`{"auth_mode": "jwt"}`), or a `Settings`.
        secrets: The business secret as a dict (or a secret source); by default none.
        caller: Who calls (None: anonymous). AUTH_MODE=apigateway sends it as the authorizer's claims,
            jwt as a bearer token the kit's issuer signs, none as authorizer claims if given.
        capabilities: The client capabilities a 2026-07-28 request declares (default: elicitation, sampling,
            roots).
        function: The `InProcessLambda` to talk to, shared with another client; by default a new one.
        transport: Where requests go instead (`HttpTransport`, `HandlerTransport`).
        headers: Headers every request carries (an `authorization`, an `origin`).
        authorizer: The API Gateway authorizer context every request carries (in-process).
        path: The request path.
        oracle: Check every reply against the official wire types (needs the dev dependency `mcp_types`).

    Raises:
        KitError: The era or a setting is unknown.
    """

    # --- lifecycle ---------------------------------------------------------------------------------------------

    def __enter__(self) -> McpTestClient:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def open(self) -> None:
        """Start a session in a legacy era (initialize, then notifications/initialized); nothing at 2026-07-28.

        Raises:
            ProtocolError: The server refused to initialize.
        """
        if self.era != MODERN and self.session_id is None:
            self.initialize()

    def close(self) -> None:
        """End the session (DELETE) in a legacy era."""
        if self.session_id is not None:
            self.delete()
            self.session_id = None

    def as_caller(self, caller: Identity | None) -> McpTestClient:
        """Another client of the same function and era, calling as `caller` (open it before use).

        Args:
            caller: Who calls (None: anonymous).

        Returns:
            The new client.
        """
        return self.clone(caller=caller)

    def request(
        self,
        method: str,
        params: Mapping[str, Any] | None = None,
        *,
        meta: Mapping[str, Any] | None = None,
        capabilities: Mapping[str, Any] | None = None,
    ) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
        """One JSON-RPC request in this client's era, its answer checked.

        Args:
            method: The JSON-RPC method.
            params: Its params (without `_meta`).
            meta: `_meta` entries to add.
            capabilities: The capabilities to declare instead of the client's (2026-07-28).

        Returns:
            (the JSON-RPC response message, the notifications sent before it, the HTTP status).

        Raises:
            KitError: A legacy-era client used before `open()`.
            ProtocolError: A JSON-RPC error, or an HTTP status other than 2xx.
        """
        if self.era != MODERN and self.session_id is None and method != "initialize":
            raise KitError("a legacy-era client is used inside `with McpTestClient(...)` (or after open())")
        request_id = self._next_id()
        reply = self.rpc(method, params, meta=meta, capabilities=capabilities, request_id=request_id)
        answer, notifications = response_of(reply, request_id)
        return answer, notifications, reply.status

    def _listing(self, method: str, key: str) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        cursor: str | None = None
        while True:
            answer, _, _ = self.request(method, {"cursor": cursor} if cursor else None)
            found.extend(answer["result"].get(key) or [])
            cursor = answer["result"].get("nextCursor")
            if not cursor:
                return found

    # --- MCP methods -------------------------------------------------------------------------------------------

    def list_tools(self) -> list[ListedTool]:
        """Every tool (all pages of `tools/list`), as the wire describes them.

        Returns:
            The tool descriptions: dicts of the wire's fields with typed views (`name`, `input_schema`, ...).

        Raises:
            ProtocolError: The server refused the request.
        """
        tools = [ListedTool(tool) for tool in self._listing("tools/list", "tools")]
        self._input_schemas.update((tool.name, tool.input_schema) for tool in tools)
        return tools

    def list_prompts(self) -> list[ListedPrompt]:
        """Every prompt (all pages of `prompts/list`).

        Returns:
            The prompt descriptions.

        Raises:
            ProtocolError: The server refused the request (-32601 when the business has no prompts).
        """
        return [ListedPrompt(prompt) for prompt in self._listing("prompts/list", "prompts")]

    def list_resources(self) -> list[ListedResource]:
        """Every resource (all pages of `resources/list`).

        Returns:
            The resource descriptions.

        Raises:
            ProtocolError: The server refused the request (-32601 when the business has no resources).
        """
        return [ListedResource(resource) for resource in self._listing("resources/list", "resources")]

    def call_tool(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        tool_call_id: str | None = None,
        *,
        input_responses: Mapping[str, Any] | None = None,
        request_state: str | None = None,
        meta: Mapping[str, Any] | None = None,
    ) -> ToolCallResult:
        """Call a tool (`tools/call`) and wait for its result.

        Args:
            name: The tool.
            arguments: Its arguments.
            tool_call_id: The call's key (`_meta.tool_call_id`): a retry with the same key gets the first
                call's result without running the tool again.
            input_responses: Answers to the previous round's input requests, by key (2026-07-28).
            request_state: The previous round's `request_state` (2026-07-28).
            meta: More `_meta` for the request (a `traceparent`, a platform context), as the SDK's
                `call_tool(meta=...)`.

        Returns:
            The result; `needs_input` when the tool asks for input first.

        Raises:
            ProtocolError: A JSON-RPC error (unknown tool, a missing scope: -32001 with HTTP 403, ...).
        """
        arguments = dict(arguments or {})
        params: dict[str, Any] = {"name": name, "arguments": arguments}
        if input_responses is not None:
            params["inputResponses"] = dict(input_responses)
        if request_state is not None:
            params["requestState"] = request_state
        request_meta = {**(meta or {}), **({"tool_call_id": tool_call_id} if tool_call_id else {})}
        answer, notifications, status = self.request("tools/call", params, meta=request_meta or None)
        return ToolCallResult(answer, notifications, status, name=name, arguments=arguments)

    def answer(self, asked: RoundResult, input_responses: Mapping[str, Any]) -> Any:
        """Send the next round of a request that asked for input: the same request, the answers, its state.

        Args:
            asked: The `ToolCallResult` (or prompt/resource result) that asked.
            input_responses: Answers by the keys of `asked.input_requests`, e.g.
                `{"confirm": {"action": "accept", "content": {"ok": True}}}`.

        Returns:
            The next round's result, of the same kind.

        Raises:
            KitError: `asked` did not ask for input.
            ProtocolError: The server refused the request.
        """
        if not asked.needs_input:
            raise KitError("the result did not ask for input")
        state = asked.request_state
        if isinstance(asked, ToolCallResult):
            return self.call_tool(
                asked.name, asked.arguments, input_responses=input_responses, request_state=state
            )
        if isinstance(asked, PromptResult):
            return self.get_prompt(
                asked.name, asked.arguments, input_responses=input_responses, request_state=state
            )
        assert isinstance(asked, ResourceResult)
        return self.read_resource(asked.uri, input_responses=input_responses, request_state=state)

    def call_tool_as_task(
        self,
        name: str,
        arguments: Mapping[str, Any] | None = None,
        tool_call_id: str | None = None,
        *,
        meta: Mapping[str, Any] | None = None,
    ) -> TaskHandle:
        """Call a task-capable tool as a task (2026-07-28, declaring the tasks extension for this request).

        Args:
            name: The tool (declared with `task=TaskConfig(...)`).
            arguments: Its arguments.
            tool_call_id: The call's key.
            meta: More `_meta` for the request (a `traceparent`, for one).

        Returns:
            The task's handle (`wait()` runs its worker through the handler).

        Raises:
            KitError: Not at 2026-07-28, or the server answered at once instead of creating a task.
            ProtocolError: The server refused the request.
        """
        if self.era != MODERN:
            raise KitError("tasks exist at 2026-07-28 only; legacy eras call the tool synchronously")
        arguments = dict(arguments or {})
        request_meta = {**(meta or {}), **({"tool_call_id": tool_call_id} if tool_call_id else {})}
        params = {"name": name, "arguments": arguments}
        answer, _, _ = self.request(
            "tools/call", params, meta=request_meta or None, capabilities=self._with_tasks()
        )
        created = answer["result"]
        if created.get("resultType") != "task":
            raise KitError(
                f"tools/call of {name} answered {created.get('resultType')!r}, not a task: {created}"
            )
        return TaskHandle(self, created, name, arguments)

    def task_request(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        """A tasks/* request declaring the tasks extension.

        Args:
            method: `tasks/get`, `tasks/update` or `tasks/cancel`.
            params: Its params (`taskId`, ...).

        Returns:
            The JSON-RPC result.

        Raises:
            ProtocolError: The server refused the request.
        """
        answer, _, _ = self.request(method, params, capabilities=self._with_tasks())
        return answer["result"]

    def _with_tasks(self) -> dict[str, Any]:
        extensions = {**(self.capabilities.get("extensions") or {}), TASKS_EXTENSION: {}}
        return {**self.capabilities, "extensions": extensions}

    def read_resource(
        self,
        uri: str,
        *,
        input_responses: Mapping[str, Any] | None = None,
        request_state: str | None = None,
    ) -> ResourceResult:
        """Read a resource (`resources/read`).

        Args:
            uri: The resource's URI.
            input_responses: Answers to the previous round (2026-07-28).
            request_state: The previous round's state (2026-07-28).

        Returns:
            Its contents, or the input it asks for.

        Raises:
            ProtocolError: Unknown resource (-32602 at 2026-07-28, -32002 in sessions), or another refusal.
        """
        params = _round({"uri": uri}, input_responses, request_state)
        answer, notifications, status = self.request("resources/read", params)
        return ResourceResult(answer, notifications, status, uri=uri)

    def get_prompt(
        self,
        name: str,
        arguments: Mapping[str, str] | None = None,
        *,
        input_responses: Mapping[str, Any] | None = None,
        request_state: str | None = None,
    ) -> PromptResult:
        """Get a prompt (`prompts/get`).

        Args:
            name: The prompt.
            arguments: Its arguments (strings).
            input_responses: Answers to the previous round (2026-07-28).
            request_state: The previous round's state (2026-07-28).

        Returns:
            Its messages, or the input it asks for.

        Raises:
            ProtocolError: Unknown prompt, missing arguments (-32602), or another refusal.
        """
        arguments = dict(arguments or {})
        params = _round({"name": name, "arguments": arguments}, input_responses, request_state)
        answer, notifications, status = self.request("prompts/get", params)
        return PromptResult(answer, notifications, status, name=name, arguments=arguments)

    def complete(
        self,
        ref: Mapping[str, Any],
        argument: str,
        value: str = "",
        arguments: Mapping[str, str] | None = None,
    ) -> Completion:
        """Ask for completions of an argument (`completion/complete`).

        Args:
            ref: `{"type": "ref/prompt", "name": ...}` or `{"type": "ref/resource", "uri": ...}`.
            argument: The argument's name.
            value: What the user typed so far.
            arguments: The other arguments already filled in.

        Returns:
            The suggestions.

        Raises:
            ProtocolError: The server refused the request (-32601 when the business has no completer).
        """
        params: dict[str, Any] = {"ref": dict(ref), "argument": {"name": argument, "value": value}}
        if arguments:
            params["context"] = {"arguments": dict(arguments)}
        answer, _, _ = self.request("completion/complete", params)
        found = answer["result"].get("completion") or {}
        return Completion(list(found.get("values") or []), found.get("total"), bool(found.get("hasMore")))


def _round(
    params: dict[str, Any], input_responses: Mapping[str, Any] | None, request_state: str | None
) -> dict[str, Any]:
    if input_responses is not None:
        params["inputResponses"] = dict(input_responses)
    if request_state is not None:
        params["requestState"] = request_state
    return params
