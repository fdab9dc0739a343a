"""No secret value ever reaches a log line.

A fresh process runs the real handler at DEBUG level with known secret values in Secrets Manager (moto server)
and sessions in DynamoDB Local, and sends it the traffic of every saved conversation under events/demo plus
calls to careless tools: one that raises with the secret in the message, one that logs it, one that calls the
platform OpenAPI with it as a bearer token, and clients that put it in arguments and headers. Everything the
process writes — log lines, EMF metrics, warnings, tracebacks — is captured and searched.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

from mcp_lambda_dev.services import LocalService

REPO_ROOT = Path(__file__).resolve().parents[2]
MAPS_KEY = "mk-live-7Qp2xZr9TgW4"
APP_SECRET = "as-9f8e7d6c5b4a3210-ZZ"
SECRETS = (MAPS_KEY, APP_SECRET)

TRAFFIC = r"""
import hashlib, json, sys, threading, types
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import businesses.demo as demo
from mcp_lambda.platform_api import PlatformApiClient
from mcp_lambda.tools import Business, ToolContext, ToolResult, tool
from mcp_lambda.tools.results import execution_result


class Platform(BaseHTTPRequestHandler):
    def do_POST(self):
        payload = json.dumps({"code": 0, "data": {"echo": self.headers.get("authorization")}}).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *args):
        pass


platform = ThreadingHTTPServer(("127.0.0.1", 0), Platform)
threading.Thread(target=platform.serve_forever, daemon=True).start()
PLATFORM_URL = f"http://127.0.0.1:{platform.server_address[1]}"


@tool(description="Use to get the fingerprint of the maps key.")
def key_fingerprint(ctx: ToolContext) -> ToolResult:
    return execution_result({"fp": hashlib.sha256(ctx.secret("maps_api_key").encode()).hexdigest()})


@tool(description="Use to test a tool that raises with its secret in the message.")
def raises_with_secret(ctx: ToolContext) -> ToolResult:
    raise RuntimeError(f"upstream refused key {ctx.secret('maps_api_key')}")


@tool(description="Use to test a tool that logs its secret.")
def logs_secret(ctx: ToolContext) -> ToolResult:
    ctx.logger.info(f"using app secret {ctx.secret('app_secret')}", extra={"secret": ctx.secret("app_secret")})
    ctx.logger.debug("debug detail", extra={"key": ctx.secret("maps_api_key")})
    return execution_result({"ok": True})


@tool(description="Use to call the platform with the app secret as a bearer token.")
def calls_platform(ctx: ToolContext) -> ToolResult:
    client = PlatformApiClient(PLATFORM_URL, ctx.logger)
    response = client.call(
        "token.check",
        "/open/v1/token",
        json_body={"app_secret": ctx.secret("app_secret")},
        headers={"authorization": f"Bearer {ctx.secret('app_secret')}"},
    )
    return execution_result({"ok": response.business_code == 0})


@tool(description="Use to echo an argument.", safe_fields=("note",))
def takes_arguments(password: str, note: str, ctx: ToolContext) -> ToolResult:
    return execution_result({"length": len(password) + len(note)})


module = types.ModuleType("businesses.leaky")
module.BUSINESS = Business(
    name="leaky",
    version="1.0.0",
    tools=[*demo.BUSINESS.tools, key_fingerprint, raises_with_secret, logs_secret, calls_platform, takes_arguments],
)
sys.modules["businesses.leaky"] = module

from mcp_lambda import handler  # noqa: E402  (the business module must exist first)
from mcp_lambda_dev.local.events import LocalContext, http_event  # noqa: E402
from mcp_lambda.testing.replay import load_conversation, substitute  # noqa: E402

HEADERS = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
results = []


def send(method, body=None, headers=None, authorizer=None):
    event = http_event(method, "/mcp", {**HEADERS, **(headers or {})}, json.dumps(body) if body else None,
                       authorizer=authorizer)
    response = handler.handler(event, LocalContext())
    results.append(response)
    return response


def initialize(authorizer=None):
    body = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": {"name": "doubao", "version": "1"}}}
    return send("POST", body, authorizer=authorizer)["headers"]["mcp-session-id"]


replayed = 0
for folder in sorted(Path("events/demo").iterdir()):
    bindings = {}
    for step in load_conversation(folder):
        try:
            event = substitute(step.event, bindings)
        except AssertionError:
            continue
        response = handler.handler(event, LocalContext())
        replayed += 1
        session_id = (response.get("headers") or {}).get("mcp-session-id")
        if session_id:
            bindings["session_id"] = session_id

secret_jwt = {"jwt": {"claims": {"sub": "user-1", "iss": "https://issuer.example", "token": sys.argv[2]}}}
session = {"mcp-session-id": initialize(secret_jwt)}
send("POST", {"jsonrpc": "2.0", "id": 2, "method": "logging/setLevel", "params": {"level": "debug"}}, session,
     secret_jwt)
calls = [
    ("key_fingerprint", {}),
    ("raises_with_secret", {}),
    ("logs_secret", {}),
    ("calls_platform", {}),
    ("takes_arguments", {"password": sys.argv[2], "note": "hello"}),
    ("takes_arguments", {"password": 1, "note": sys.argv[2] * 3}),
    ("search_products", {"keyword": sys.argv[2]}),
]
for index, (name, arguments) in enumerate(calls, start=10):
    body = {"jsonrpc": "2.0", "id": index, "method": "tools/call", "params": {"name": name, "arguments": arguments,
            "_meta": {"tool_call_id": f"call-{index}"}}}
    send("POST", body, {**session, "authorization": f"Bearer {sys.argv[2]}"}, secret_jwt)
send("POST", {"jsonrpc": "2.0", "id": 99, "method": "tools/call", "params": {"name": "nope"}}, session, secret_jwt)
send("DELETE", None, session, secret_jwt)

bodies = [r.get("body") or "" for r in results]
Path(sys.argv[1]).write_text(json.dumps({"replayed": replayed, "bodies": bodies}))
"""


def test_no_known_secret_value_appears_in_any_log_line(
    tmp_path: Path,
    moto_server: LocalService,
    secrets_client: Any,
    dynamodb_session_env: dict[str, str],
) -> None:
    secret_id = f"mcp/leaky/{uuid.uuid4().hex[:8]}"
    secrets_client.create_secret(
        Name=secret_id, SecretString=json.dumps({"maps_api_key": MAPS_KEY, "app_secret": APP_SECRET})
    )
    summary_path = tmp_path / "summary.json"
    env = {
        **os.environ,
        "PYTHONPATH": f"{REPO_ROOT / 'src'}:{REPO_ROOT / 'dev'}:{REPO_ROOT}",
        "BUSINESS": "leaky",
        "SECRET_ID": secret_id,
        "AWS_ENDPOINT_URL_SECRETS_MANAGER": moto_server.endpoint_url,
        "POWERTOOLS_LOG_LEVEL": "DEBUG",
        "AWS_LAMBDA_FUNCTION_NAME": "mcp-leaky",  # as in Lambda: tracing on (no daemon), metrics on
        "POWERTOOLS_TRACE_DISABLED": "false",
        "PYTHONWARNINGS": "always",
    }
    process = subprocess.run(
        [sys.executable, "-c", TRAFFIC, str(summary_path), APP_SECRET],
        env=env,
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    output = process.stdout + process.stderr
    assert process.returncode == 0, output[-3000:]
    summary = json.loads(summary_path.read_text())
    lines = [line for line in output.splitlines() if line.strip()]

    # The traffic really happened, and the secrets really were read.
    assert summary["replayed"] >= 20
    assert hashlib.sha256(MAPS_KEY.encode()).hexdigest() in "".join(summary["bodies"])
    assert sum('"mcp_tool_call_started"' in line for line in lines) >= 10
    assert any('"platform_api_call"' in line for line in lines)
    assert any("ToolCalls" in line for line in lines)

    for secret in SECRETS:
        leaked = [line[:200] for line in lines if secret in line]
        assert not leaked, f"secret value found in {len(leaked)} log line(s): {leaked[:3]}"
