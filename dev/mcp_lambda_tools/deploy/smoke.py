"""Smoke-check a deployed MCP endpoint as a client would, one line per check (PASS / FAIL / SKIP and why).

Usage: `make smoke URL=https://.../mcp [TOKEN=...] [ORIGIN=...] [TOOL=... ARGS='{...}'] [TASK_TOOL=... TASK_ARGS=...]`
or `make smoke STACK=mcp-demo` (the stack's `McpUrl` output). Exits 1 when any check fails.
"""

from __future__ import annotations

import argparse
import sys
import time
import urllib.parse
from collections.abc import Callable
from typing import Any

from mcp_lambda_tools.deploy.smoke_client import (
    LEGACY,
    MODERN,
    SESSION,
    TASKS,
    TERMINAL,
    CheckFailed,
    Endpoint,
    Skipped,
    answer_of,
    describe_stack,
    expect,
    http,
    parse_arguments,
    pick_tool,
    reached,
    result_of,
    secret_keys,
    stack_url,
    stack_value,
)

Check = Callable[[], str]


class Smoke:
    """The checks, in order; each returns its PASS detail or raises CheckFailed / Skipped."""

    def __init__(
        self, endpoint: Endpoint, options: argparse.Namespace, clients: dict[str, Any] | None = None
    ) -> None:
        self.endpoint = endpoint
        self.options = options
        self.auth_on = bool(endpoint.token)
        self.clients = clients or {}  # AWS clients by service (default: boto3's, for STACK=)

    def checks(self) -> list[tuple[str, Check]]:
        return [
            ("auth challenge", self.auth_challenge),
            ("protected resource metadata", self.resource_metadata),
            (f"server/discover {MODERN}", self.discover),
            (f"tools/list {MODERN}", self.tools_list),
            (f"tools/call {MODERN}", self.tools_call),
            (f"session {SESSION}", self.session),
            (f"initialize {LEGACY}", self.legacy_initialize),
            ("CORS preflight", self.preflight),
            (f"task round {MODERN}", self.task_round),
            ("secret keys", self.secret_keys),
        ]

    def auth_challenge(self) -> str:
        anonymous = Endpoint(self.endpoint.url, timeout=self.endpoint.timeout)
        reply = anonymous.modern_reply("tools/list")
        if reply.status != 401:
            expect(not self.endpoint.token, f"TOKEN given, but a request without one got HTTP {reply.status}")
            raise Skipped(f"auth is off (a request without a token got HTTP {reply.status})")
        self.auth_on = True
        # API Gateway renames the function's WWW-Authenticate header, and its JWT authorizer sends none
        # (docs/auth.md): then clients find the metadata at the well-known URLs, which the next check reads.
        challenge = reply.headers.get("www-authenticate") or reply.headers.get(
            "x-amzn-remapped-www-authenticate"
        )
        expect(
            not challenge or challenge.lower().startswith("bearer"),
            f"401 challenge is not Bearer: {challenge}",
        )
        if not self.endpoint.token:
            raise CheckFailed("auth is on (HTTP 401) and no TOKEN was given: the other checks cannot run")
        return (
            f"401 {challenge}"
            if challenge
            else "401 without a challenge header (clients use the well-known URLs)"
        )

    def resource_metadata(self) -> str:
        if not self.auth_on:
            raise Skipped("auth is off")
        parts = urllib.parse.urlsplit(self.endpoint.url)
        url = f"{parts.scheme}://{parts.netloc}/.well-known/oauth-protected-resource{parts.path}"
        reply = http("GET", url, timeout=self.endpoint.timeout)
        metadata = answer_of(reply)
        expect(reply.status == 200 and isinstance(metadata, dict), f"GET {url} answered HTTP {reply.status}")
        servers = metadata.get("authorization_servers")
        expect(bool(metadata.get("resource")) and bool(servers), "no resource or authorization_servers in it")
        return f"authorization_servers {servers}"

    def discover(self) -> str:
        result = self.endpoint.modern("server/discover")
        versions = result.get("supportedVersions") or []
        expect(MODERN in versions, f"supportedVersions {versions} lacks {MODERN}")
        self.endpoint.discovered = result
        return f"supportedVersions {versions}"

    def tools_list(self) -> str:
        tools = self.endpoint.modern("tools/list").get("tools")
        expect(isinstance(tools, list) and bool(tools), "no tools listed")
        self.endpoint.tools = tools
        return f"{len(tools)} tools"

    def _call(self, call: Callable[[str, dict[str, Any]], Any]) -> str:
        tool = pick_tool(self.endpoint.tools, self.options.tool)
        result = call(tool["name"], parse_arguments(self.options.args, "ARGS"))
        expect(isinstance(result, dict) and "content" in result, f"{tool['name']}: no content in the result")
        expect(result.get("isError") is not True, f"{tool['name']}: error result {result.get('content')}")
        return str(tool["name"])

    def tools_call(self) -> str:
        def call(name: str, arguments: dict[str, Any]) -> Any:
            return self.endpoint.modern("tools/call", {"name": name, "arguments": arguments})

        return self._call(call)

    def session(self) -> str:
        session = self.endpoint.client(SESSION)
        hello = {
            "protocolVersion": SESSION,
            "capabilities": {},
            "clientInfo": {"name": "smoke", "version": "1"},
        }
        reply = reached(lambda: session.rpc("initialize", hello))
        result = result_of(reply, "initialize")
        expect(
            result.get("protocolVersion") == SESSION, f"initialize agreed on {result.get('protocolVersion')}"
        )
        session.session_id = reply.headers.get("mcp-session-id")
        expect(bool(session.session_id), "initialize gave no Mcp-Session-Id")
        ack = reached(lambda: session.notify("notifications/initialized"))
        expect(ack.status == 202, f"notifications/initialized answered HTTP {ack.status}")

        def call(name: str, arguments: dict[str, Any]) -> Any:
            params = {"name": name, "arguments": arguments}
            return result_of(reached(lambda: session.rpc("tools/call", params)), "tools/call")

        try:
            called = self._call(call)
        except Skipped as reason:
            called = f"no call ({reason})"
        closed = reached(session.delete)
        expect(closed.status in (200, 202, 204), f"DELETE answered HTTP {closed.status}")
        return f"initialize, initialized, {called}, DELETE {closed.status}"

    def legacy_initialize(self) -> str:
        legacy = self.endpoint.client(LEGACY)
        hello = {
            "protocolVersion": LEGACY,
            "capabilities": {},
            "clientInfo": {"name": "smoke", "version": "1"},
        }
        reply = reached(lambda: legacy.rpc("initialize", hello))
        result = result_of(reply, "initialize")
        expect(
            result.get("protocolVersion") == LEGACY, f"initialize agreed on {result.get('protocolVersion')}"
        )
        legacy.session_id = reply.headers.get("mcp-session-id")
        if legacy.session_id:  # not checked: only so the smoke leaves no session behind
            reached(legacy.delete)
        return f"protocolVersion {LEGACY}"

    def preflight(self) -> str:
        origin = self.options.origin
        if not origin:
            raise Skipped("no ORIGIN given")
        asked = "authorization,content-type,mcp-protocol-version,mcp-method,mcp-name,mcp-session-id"
        headers = {
            "origin": origin,
            "access-control-request-method": "POST",
            "access-control-request-headers": asked,
        }
        reply = http("OPTIONS", self.endpoint.url, headers=headers, timeout=self.endpoint.timeout)
        expect(200 <= reply.status < 300, f"OPTIONS answered HTTP {reply.status}")
        allowed = reply.headers.get("access-control-allow-origin")
        expect(allowed in (origin, "*"), f"access-control-allow-origin is {allowed!r}, not {origin}")
        methods = reply.headers.get("access-control-allow-methods", "").upper()
        expect("POST" in methods or methods == "*", f"access-control-allow-methods {methods!r} lacks POST")
        return f"{reply.status} for {origin}"

    def _task_tool(self) -> str:
        if self.options.task_tool:
            return str(self.options.task_tool)
        for tool in self.endpoint.tools:
            if (tool.get("execution") or {}).get("taskSupport") in ("optional", "required"):
                return str(tool["name"])
        raise Skipped("the server takes tasks but no tool says so in tools/list (name one with TASK_TOOL=)")

    def task_round(self) -> str:
        extensions = (self.endpoint.discovered.get("capabilities") or {}).get("extensions") or {}
        if TASKS not in extensions:
            raise Skipped("server/discover does not offer the tasks extension")
        name = self._task_tool()
        arguments = parse_arguments(self.options.task_args, "TASK_ARGS")
        created = self.endpoint.modern("tools/call", {"name": name, "arguments": arguments}, tasks=True)
        expect(
            created.get("resultType") == "task", f"{name} answered resultType {created.get('resultType')!r}"
        )
        task_id = str(created.get("taskId"))
        deadline = time.monotonic() + self.options.task_timeout
        task = created
        while task.get("status") not in TERMINAL:
            expect(
                time.monotonic() < deadline,
                f"task still {task.get('status')} after {self.options.task_timeout} s",
            )
            time.sleep(min(max((task.get("pollIntervalMs") or 500) / 1000, 0.1), 5))
            task = self.endpoint.modern("tasks/get", {"taskId": task_id}, tasks=True)
        expect(task["status"] == "completed", f"task ended {task['status']}: {task.get('error') or ''}")
        outcome = task.get("result") or {}
        expect(outcome.get("isError") is not True, f"task result is an error: {outcome.get('content')}")
        return f"{name}: completed"

    def secret_keys(self) -> str:
        if not self.options.stack:
            raise Skipped("needs STACK= (its BusinessName parameter and SecretArn output)")
        from mcp_lambda.composition import load_business  # the business's declared keys, from this checkout

        stack = describe_stack(self.options.stack, self.clients.get("cloudformation"))
        business = load_business(stack_value(stack, "Parameter", "BusinessName"))
        if business.secrets is None:
            raise Skipped(f"business {business.name} declares no secret keys (Business(secrets=[...]))")
        if not business.secrets:
            return f"business {business.name} reads no secret of its own"
        secret = stack_value(stack, "Output", "SecretArn")
        present = secret_keys(secret, self.clients.get("secretsmanager"))
        missing = [key for key in business.secrets if key not in present]
        expect(
            not missing,
            f"missing from the deployed secret {secret}: {', '.join(missing)} (docs/deploy.md#set-the-secrets-value)",
        )
        return f"{', '.join(business.secrets)}: present in {secret}"


def run(smoke: Smoke, out: Any = None) -> int:
    """Run every check, printing one line each to `out` (stdout when None); returns 1 when any failed, else 0."""
    out = out or sys.stdout
    failed = 0
    for name, check in smoke.checks():
        try:
            line = f"PASS  {name}: {check()}"
        except Skipped as reason:
            line = f"SKIP  {name}: {reason}"
        except CheckFailed as reason:
            failed += 1
            line = f"FAIL  {name}: {reason}"
        except (KeyError, TypeError, AttributeError, ValueError) as error:
            failed += 1
            line = f"FAIL  {name}: unexpected answer ({type(error).__name__}: {error})"
        print(line, file=out, flush=True)
    print(f"{'FAILED' if failed else 'OK'}: {failed} check(s) failed", file=out)
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--url", help="the MCP endpoint, https://.../mcp")
    where.add_argument("--stack", help="a CloudFormation stack whose McpUrl output is the endpoint")
    parser.add_argument("--token", help="a bearer token (shows in the process list: prefer --token-stdin)")
    parser.add_argument("--token-stdin", action="store_true", help="read the bearer token from stdin")
    parser.add_argument("--origin", help="an allowed browser origin, for the CORS preflight")
    parser.add_argument(
        "--tool", help="the read-only tool to call (default: the first one with no required argument)"
    )
    parser.add_argument("--args", help="its arguments, a JSON object")
    parser.add_argument("--task-tool", help="the tool to run as a task")
    parser.add_argument("--task-args", help="its arguments, a JSON object")
    parser.add_argument("--task-timeout", type=float, default=60, help="seconds a task may take (default 60)")
    parser.add_argument("--timeout", type=float, default=10, help="seconds per request (default 10)")
    options = parser.parse_args(argv)
    token = sys.stdin.read().strip() if options.token_stdin else options.token
    try:
        url = options.url or stack_url(options.stack)
    except CheckFailed as reason:
        print(f"FAIL  stack: {reason}")
        return 1
    return run(Smoke(Endpoint(url, token=token or None, timeout=options.timeout), options))


if __name__ == "__main__":
    sys.exit(main())
