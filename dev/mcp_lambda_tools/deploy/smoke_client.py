"""The client side of `dev/mcp_lambda_tools/deploy/smoke.py`: the endpoint through the one MCP client (`McpTestClient.over_http`, urllib
underneath, so it runs after `make venv-run`), the tool a smoke call picks, and a stack's `McpUrl` output."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from mcp_lambda.testing import HttpReply, HttpTransport, KitError, McpTestClient
from mcp_lambda.wire import MODERN_REVISION

MODERN = MODERN_REVISION
SESSION = "2025-11-25"
LEGACY = "2024-11-05"
TASKS = "io.modelcontextprotocol/tasks"
TERMINAL = frozenset({"completed", "failed", "cancelled", "input_required"})


class CheckFailed(Exception):
    """A check's expectation not met; the message is the reason printed."""


class Skipped(Exception):
    """A check that does not apply to this endpoint; the message says why."""


def answer_of(reply: HttpReply) -> Any:
    """The JSON-RPC answer of a reply: its last message (a streamed answer ends with it), None when not JSON."""
    try:
        messages = reply.messages
    except ValueError:
        return None
    return messages[-1] if messages else None


def http(method: str, url: str, headers: dict[str, str] | None = None, timeout: float = 10) -> HttpReply:
    """Send one bodiless request (GET, OPTIONS) and return its answer, whatever the status.

    Raises:
        CheckFailed: The endpoint could not be reached or did not answer within `timeout` seconds.
    """
    try:
        return HttpTransport(url, timeout).http(method, headers or {})
    except KitError as error:
        raise CheckFailed(str(error)) from None


@dataclass
class Endpoint:
    """The endpoint under check and what the checks learn about it on the way."""

    url: str
    token: str | None = None
    timeout: float = 10
    tools: list[dict[str, Any]] = field(default_factory=list)
    discovered: dict[str, Any] = field(default_factory=dict)

    def client(self, era: str = MODERN, tasks: bool = False) -> McpTestClient:
        """The MCP client of the endpoint in `era` (the token, if any, on every request; no wire oracle: the
        runtime environment `make smoke` runs in has no `mcp_types`)."""
        return McpTestClient.over_http(
            self.url,
            era,
            headers={"authorization": f"Bearer {self.token}"} if self.token else None,
            timeout=self.timeout,
            capabilities={"extensions": {TASKS: {}}} if tasks else {},
            oracle=False,
        )

    def modern(self, method: str, params: dict[str, Any] | None = None, tasks: bool = False) -> Any:
        """A 2026-07-28 request (`_meta` and the routing headers); returns its `result`."""
        return result_of(self.modern_reply(method, params, tasks), method)

    def modern_reply(
        self, method: str, params: dict[str, Any] | None = None, tasks: bool = False
    ) -> HttpReply:
        """A 2026-07-28 request (`_meta` and the routing headers); returns the HTTP answer.

        Raises:
            CheckFailed: The endpoint could not be reached.
        """
        return reached(lambda: self.client(MODERN, tasks).rpc(method, params))


def reached(send: Callable[[], HttpReply]) -> HttpReply:
    """`send()`, an unreachable endpoint (the kit's KitError) turned into CheckFailed."""
    try:
        return send()
    except KitError as error:
        raise CheckFailed(str(error)) from None


def result_of(reply: HttpReply, method: str) -> Any:
    """The `result` of a JSON-RPC answer, or CheckFailed naming the status and the error."""
    body = answer_of(reply)
    if reply.status != 200 or not isinstance(body, dict) or "result" not in body:
        error = body.get("error") if isinstance(body, dict) else None
        detail = (
            f"error {error.get('code')}: {error.get('message')}"
            if isinstance(error, dict)
            else "no JSON-RPC result"
        )
        raise CheckFailed(f"{method} answered HTTP {reply.status}, {detail}")
    return body["result"]


def expect(condition: bool, reason: str) -> None:
    if not condition:
        raise CheckFailed(reason)


def pick_tool(tools: list[dict[str, Any]], name: str | None) -> dict[str, Any]:
    """The tool named `name`, else the first with readOnlyHint true and no required argument.

    Raises:
        CheckFailed: `name` is not listed.
        Skipped: No tool fits.
    """
    if name:
        for tool in tools:
            if tool.get("name") == name:
                return tool
        raise CheckFailed(f"TOOL={name} is not in tools/list")
    for tool in tools:
        read_only = (tool.get("annotations") or {}).get("readOnlyHint") is True
        if read_only and not (tool.get("inputSchema") or {}).get("required"):
            return tool
    raise Skipped("no tool is readOnlyHint with no required argument (name one with TOOL= and ARGS=)")


def describe_stack(stack: str, client: Any = None) -> dict[str, Any]:
    """A CloudFormation stack's description (its Parameters and Outputs).

    Args:
        stack: The stack name (`mcp-demo`).
        client: A CloudFormation client; a boto3 one (default region and credentials) when None.

    Returns:
        The stack, as DescribeStacks gives it.

    Raises:
        CheckFailed: AWS refused or could not be asked (no region, no credentials, no such stack).
    """
    import botocore.exceptions  # only the STACK path needs AWS

    try:
        if client is None:
            import boto3

            client = boto3.client("cloudformation")
        stacks = client.describe_stacks(StackName=stack)["Stacks"]
    except (botocore.exceptions.BotoCoreError, botocore.exceptions.ClientError) as error:
        raise CheckFailed(f"describe_stacks {stack}: {error}") from None
    return dict(stacks[0]) if stacks else {"StackName": stack}


def stack_value(description: dict[str, Any], kind: str, key: str) -> str:
    """An output (`kind="Output"`) or a parameter (`kind="Parameter"`) of a described stack.

    Raises:
        CheckFailed: The stack has no such output or parameter.
    """
    for entry in description.get(f"{kind}s", []):
        if entry.get(f"{kind}Key") == key:
            return str(entry[f"{kind}Value"])
    raise CheckFailed(f"stack {description.get('StackName')} has no {key} {kind.lower()}")


def stack_url(stack: str, client: Any = None) -> str:
    """The `McpUrl` output of a CloudFormation stack.

    Args:
        stack: The stack name (`mcp-demo`).
        client: A CloudFormation client; a boto3 one (default region and credentials) when None.

    Returns:
        The endpoint URL.

    Raises:
        CheckFailed: AWS refused or could not be asked (no region, no credentials, no such stack), or the stack
            has no `McpUrl` output.
    """
    return stack_value(describe_stack(stack, client), "Output", "McpUrl")


def secret_keys(secret_id: str, client: Any = None) -> set[str]:
    """The keys of a Secrets Manager secret (a JSON object) that have a value; never the values.

    Args:
        secret_id: The secret's ARN or name.
        client: A Secrets Manager client; a boto3 one when None.

    Returns:
        The keys whose value is a non-empty string.

    Raises:
        CheckFailed: AWS refused or could not be asked, or the secret is not a JSON object.
    """
    import botocore.exceptions

    try:
        if client is None:
            import boto3

            client = boto3.client("secretsmanager")
        text = client.get_secret_value(SecretId=secret_id).get("SecretString") or ""
    except (botocore.exceptions.BotoCoreError, botocore.exceptions.ClientError) as error:
        code = getattr(error, "response", {}).get("Error", {}).get("Code", type(error).__name__)
        if code == "ResourceNotFoundException":
            return set()  # created empty by the stack: no value was ever put
        raise CheckFailed(f"get_secret_value {secret_id}: {code}") from None
    try:
        values = json.loads(text)
    except ValueError:
        values = None
    if not isinstance(values, dict):
        raise CheckFailed(
            f"the secret {secret_id} is not a JSON object (docs/deploy.md#set-the-secrets-value)"
        )
    return {key for key, value in values.items() if isinstance(value, str) and value}


def parse_arguments(text: str | None, flag: str) -> dict[str, Any]:
    try:
        value = json.loads(text) if text else {}
    except ValueError as error:
        raise SystemExit(f"smoke: {flag} is not JSON: {error}") from None
    if not isinstance(value, dict):
        raise SystemExit(f"smoke: {flag} must be a JSON object")
    return value
