"""dev/mcp_lambda_tools/deploy/smoke.py against a server that fails: a tiny HTTP server in the test answers like an MCP endpoint except
where a test breaks it (HTTP 500, a body that is not JSON, a task that never ends, a 401 without a challenge); and
the STACK path with a stubbed CloudFormation client."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from botocore.exceptions import ClientError

from mcp_lambda_tools.deploy import smoke
from mcp_lambda_tools.deploy.smoke_client import CheckFailed, Skipped, pick_tool, stack_url

TOOL = {
    "name": "list_things",
    "annotations": {"readOnlyHint": True},
    "inputSchema": {"type": "object", "properties": {}},
}
WRITER = {"name": "make_thing", "annotations": {"readOnlyHint": False}, "inputSchema": {"type": "object"}}
NEEDY = {"name": "find", "annotations": {"readOnlyHint": True}, "inputSchema": {"required": ["q"]}}
CONTENT = {"content": [{"type": "text", "text": "ok"}], "isError": False}


class FakeEndpoint:
    """What the fake server answers; a test sets `broken[method]` to "500" or "text" (`broken["task status"]`: what tasks/get says)."""

    def __init__(self) -> None:
        self.broken: dict[str, str] = {}
        self.auth = False
        self.challenge = ""
        self.seen: list[str] = []

    def answer(self, method: str, message: dict[str, Any]) -> tuple[int, dict[str, str], bytes]:
        self.seen.append(method)
        if self.broken.get(method) == "500":
            return 500, {}, b"Internal Server Error"
        if self.broken.get(method) == "text":
            return 200, {"content-type": "application/json"}, b"<html>hello</html>"
        if method.startswith("notifications/"):
            return 202, {}, b""
        params = message.get("params") or {}
        result: dict[str, Any]
        headers: dict[str, str] = {}
        if method == "server/discover":
            result = {"supportedVersions": ["2026-07-28"], "capabilities": {"extensions": {smoke.TASKS: {}}}}
        elif method == "tools/list":
            result = {
                "tools": [WRITER, TOOL, {**TOOL, "name": "slow", "execution": {"taskSupport": "optional"}}]
            }
        elif method == "initialize":
            result = {"protocolVersion": params["protocolVersion"], "capabilities": {}}
            headers["mcp-session-id"] = "s-1"
        elif method == "tools/call" and params.get("name") == "slow":
            result = {"resultType": "task", "taskId": "t-1", "status": "working", "pollIntervalMs": 50}
        elif method == "tasks/get":
            result = {
                "taskId": "t-1",
                "status": self.broken.get("task status", "completed"),
                "pollIntervalMs": 50,
            }
        else:
            result = CONTENT
        body = json.dumps({"jsonrpc": "2.0", "id": message.get("id"), "result": result}).encode()
        return 200, {"content-type": "application/json", **headers}, body


@pytest.fixture
def endpoint() -> Iterator[tuple[FakeEndpoint, str]]:
    fake = FakeEndpoint()

    class Handler(BaseHTTPRequestHandler):
        def _send(self, status: int, headers: dict[str, str], body: bytes) -> None:
            self.send_response(status)
            for name, value in {**headers, "content-length": str(len(body))}.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:
            message = json.loads(self.rfile.read(int(self.headers["content-length"])))
            if fake.auth and not self.headers.get("authorization"):
                self._send(401, {"www-authenticate": fake.challenge} if fake.challenge else {}, b"")
                return
            self._send(*fake.answer(message["method"], message))

        def do_DELETE(self) -> None:
            self._send(*fake.answer("DELETE", {}))

        def do_OPTIONS(self) -> None:
            self._send(
                204,
                {
                    "access-control-allow-origin": self.headers["origin"],
                    "access-control-allow-methods": "POST",
                },
                b"",
            )

        def do_GET(self) -> None:
            self._send(404, {}, b"")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield fake, f"http://127.0.0.1:{server.server_address[1]}/mcp"
    server.shutdown()
    server.server_close()


def _smoke(url: str, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[int, dict[str, str]]:
    status = smoke.main(["--url", url, "--origin", "http://localhost:5173", "--timeout", "5", *extra])
    lines = [
        line for line in capsys.readouterr().out.splitlines() if line[:6] in ("PASS  ", "FAIL  ", "SKIP  ")
    ]
    return status, {line[6:].split(":")[0]: line for line in lines}


def test_a_healthy_endpoint_passes_every_check_but_auth(
    endpoint: tuple[FakeEndpoint, str], capsys: Any
) -> None:
    fake, url = endpoint
    status, lines = _smoke(url, capsys)
    assert status == 0, "\n".join(lines.values())
    assert [name for name, line in lines.items() if not line.startswith("PASS")] == [
        "auth challenge",
        "protected resource metadata",
        "secret keys",
    ]
    assert (
        lines["secret keys"]
        == "SKIP  secret keys: needs STACK= (its BusinessName parameter and SecretArn output)"
    )
    assert lines["tools/call 2026-07-28"] == "PASS  tools/call 2026-07-28: list_things"
    assert fake.seen.count("DELETE") == 2  # the session's, and the 2024-11-05 one the smoke leaves behind


@pytest.mark.parametrize(
    ("method", "breakage", "check", "reason"),
    [
        ("server/discover", "text", "server/discover 2026-07-28", "no JSON-RPC result"),
        ("tools/list", "500", "tools/list 2026-07-28", "HTTP 500"),
        ("tools/call", "500", "tools/call 2026-07-28", "HTTP 500"),
        ("initialize", "text", "session 2025-11-25", "no JSON-RPC result"),
        (
            "notifications/initialized",
            "500",
            "session 2025-11-25",
            "notifications/initialized answered HTTP 500",
        ),
        ("DELETE", "500", "session 2025-11-25", "DELETE answered HTTP 500"),
    ],
)
def test_a_broken_method_fails_its_check_by_name_and_exits_1(
    endpoint: tuple[FakeEndpoint, str], capsys: Any, method: str, breakage: str, check: str, reason: str
) -> None:
    fake, url = endpoint
    fake.broken[method] = breakage
    status, lines = _smoke(url, capsys)
    assert status == 1
    assert lines[check].startswith("FAIL") and reason in lines[check], lines[check]


def test_a_task_that_never_ends_fails_within_the_task_timeout(
    endpoint: tuple[FakeEndpoint, str], capsys: Any
) -> None:
    fake, url = endpoint
    fake.broken["task status"] = "working"
    status, lines = _smoke(url, capsys, "--task-timeout", "0.5")
    assert status == 1
    assert lines["task round 2026-07-28"].startswith(
        "FAIL  task round 2026-07-28: task still working after 0.5 s"
    )
    assert fake.seen.count("tasks/get") >= 2


def test_a_failed_task_fails_and_a_completed_one_passes(
    endpoint: tuple[FakeEndpoint, str], capsys: Any
) -> None:
    fake, url = endpoint
    fake.broken["task status"] = "failed"
    assert _smoke(url, capsys)[1]["task round 2026-07-28"].startswith(
        "FAIL  task round 2026-07-28: task ended failed"
    )
    del fake.broken["task status"]
    assert _smoke(url, capsys)[1]["task round 2026-07-28"] == "PASS  task round 2026-07-28: slow: completed"


def test_a_401_with_a_foreign_challenge_or_no_metadata_fails_and_a_token_with_no_401_fails(
    endpoint: tuple[FakeEndpoint, str], capsys: Any
) -> None:
    fake, url = endpoint
    fake.auth = True
    fake.challenge = 'Basic realm="x"'
    status, lines = _smoke(url, capsys, "--token", "t")
    assert (
        status == 1
        and lines["auth challenge"] == 'FAIL  auth challenge: 401 challenge is not Bearer: Basic realm="x"'
    )
    fake.challenge = ""  # API Gateway's own 401: no header, so the metadata must be at the well-known URL
    status, lines = _smoke(url, capsys, "--token", "t")
    assert lines["auth challenge"].startswith("PASS  auth challenge: 401 without a challenge header")
    assert status == 1 and lines["protected resource metadata"].startswith(
        "FAIL"
    )  # the fake serves none: 404
    fake.auth = False
    status, lines = _smoke(url, capsys, "--token", "t")
    assert status == 1
    assert (
        lines["auth challenge"] == "FAIL  auth challenge: TOKEN given, but a request without one got HTTP 200"
    )


def test_an_unreachable_endpoint_fails_every_check_it_needs(capsys: Any) -> None:
    from mcp_lambda_dev.local.process import free_port

    status, lines = _smoke(f"http://127.0.0.1:{free_port()}/mcp", capsys, "--timeout", "1")
    assert status == 1
    assert lines["server/discover 2026-07-28"].startswith(
        "FAIL  server/discover 2026-07-28: POST http://127.0.0.1:"
    )


def test_the_tool_picked_is_the_first_read_only_one_without_required_arguments() -> None:
    assert pick_tool([WRITER, NEEDY, TOOL], None) is TOOL
    assert pick_tool([WRITER, NEEDY, TOOL], "find") is NEEDY
    with pytest.raises(Skipped, match="TOOL="):
        pick_tool([WRITER, NEEDY], None)
    with pytest.raises(CheckFailed, match="TOOL=nope is not in tools/list"):
        pick_tool([TOOL], "nope")


class StubCloudFormation:
    def __init__(self, outputs: list[dict[str, str]] | None = None, error: Exception | None = None) -> None:
        self.outputs = outputs or []
        self.error = error
        self.asked: list[str] = []

    def describe_stacks(self, StackName: str) -> dict[str, Any]:
        self.asked.append(StackName)
        if self.error is not None:
            raise self.error
        return {"Stacks": [{"StackName": StackName, "Outputs": self.outputs}]}


def test_a_stack_url_is_its_mcp_url_output() -> None:
    client = StubCloudFormation(
        [
            {"OutputKey": "ClientConfig", "OutputValue": "{}"},
            {"OutputKey": "McpUrl", "OutputValue": "https://abc.execute-api.eu-west-1.amazonaws.com/mcp"},
        ]
    )
    assert stack_url("mcp-demo", client) == "https://abc.execute-api.eu-west-1.amazonaws.com/mcp"
    assert client.asked == ["mcp-demo"]


def test_a_stack_without_the_output_or_unknown_to_aws_is_a_failure_not_a_traceback() -> None:
    with pytest.raises(CheckFailed, match="stack mcp-demo has no McpUrl output"):
        stack_url("mcp-demo", StubCloudFormation([{"OutputKey": "Other", "OutputValue": "x"}]))
    missing = ClientError(
        {"Error": {"Code": "ValidationError", "Message": "Stack with id nope does not exist"}},
        "DescribeStacks",
    )
    with pytest.raises(CheckFailed, match=r"describe_stacks nope: .*does not exist"):
        stack_url("nope", StubCloudFormation(error=missing))
