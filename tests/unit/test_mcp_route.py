"""The Lambda handler answers /mcp on the endpoint directly (`lambda_adapter.McpRoute`) exactly as Mangum and the
app answer it: the same status, every header and the same body, for the recorded conversations and for the
events only a hand-made or unusual request carries (encoded paths, cookies, base64 bodies, other methods)."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import pytest

from mcp_lambda.composition import build_runtime, load_business
from mcp_lambda.lambda_adapter import LambdaHandler, lambda_handler
from mcp_lambda.protocol.framing import POST_HEADERS
from mcp_lambda.testing.apigateway import http_event
from mcp_lambda.testing.runtime import invoke, make_settings

EVENTS = Path(__file__).resolve().parents[2] / "events" / "demo"
PLACEHOLDER = re.compile(r"\{\{(\w+)\}\}")
# What each server mints differently: the session ids (bound per handler below), execution and error ids, times.
MINTED = re.compile(
    r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32}|\d{4}-\d\d-\d\dT[\d:.]+Z?"
    r"|error id [\w-]+|\b(?:exe|sub|job|task)_[0-9a-z]+"
)


@pytest.fixture(autouse=True)
def _no_inventory(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEMO_INVENTORY_URL", "")  # as the recordings were made: no live port in any answer


def handlers(overrides: dict[str, Any] | None = None) -> tuple[LambdaHandler, LambdaHandler]:
    """Two containers of the demo, one answering /mcp directly and one through Mangum and the app."""
    business = load_business("demo")
    settings = make_settings(business, overrides)
    return (
        lambda_handler(build_runtime(settings, business), direct=True),
        lambda_handler(build_runtime(settings, business), direct=False),
    )


class Conversation:
    """One handler's side of a conversation: binds what it mints (`mcp-session-id`) to the events' placeholders."""

    def __init__(self, handler: LambdaHandler) -> None:
        self.handler = handler
        self.session = "none"

    def send(self, event: dict[str, Any]) -> dict[str, Any]:
        text = PLACEHOLDER.sub(lambda _: self.session, json.dumps(event))
        response = invoke(self.handler, json.loads(text))
        minted = (response.get("headers") or {}).get("mcp-session-id")
        if minted:
            self.session = minted
        return normalized(response, self.session)


def normalized(response: dict[str, Any], session: str) -> str:
    return MINTED.sub("<minted>", json.dumps(response, sort_keys=True).replace(session, "<session>"))


def recorded_events() -> list[tuple[str, list[Path]]]:
    folders = []
    for folder in sorted(EVENTS.iterdir()):
        steps = sorted(p for p in folder.glob("*.json") if not p.name.endswith(".expected.json"))
        # Task worker steps are not HTTP: both handlers run them the same way (tested by the replays).
        steps = [p for p in steps if "requestContext" in json.loads(p.read_text(encoding="utf-8"))]
        folders.append((folder.name, steps))
    return folders


@pytest.mark.parametrize(("name", "steps"), recorded_events(), ids=[name for name, _ in recorded_events()])
def test_every_recorded_conversation_is_answered_the_same(name: str, steps: list[Path]) -> None:
    direct, through_app = (Conversation(h) for h in handlers())
    for step in steps:
        event = json.loads(step.read_text(encoding="utf-8"))
        assert direct.send(event) == through_app.send(event), step.name


def _post(body: Any, path: str = "/mcp", **changes: Any) -> dict[str, Any]:
    event = http_event("POST", path, dict(POST_HEADERS), json.dumps(body), request_id="route-test")
    event.update(changes)
    return event


LIST = {"jsonrpc": "2.0", "id": 7, "method": "tools/list", "params": {}}


def unusual_events() -> dict[str, dict[str, Any]]:
    base64_body = _post(LIST)
    base64_body.update(body=base64.b64encode(base64_body["body"].encode()).decode(), isBase64Encoded=True)
    encoded_path = _post(LIST)
    encoded_path["requestContext"]["http"]["path"] = "/%6dcp"
    put = _post(LIST)
    put["requestContext"]["http"]["method"] = "PUT"
    head = http_event("HEAD", "/mcp", {}, None, request_id="route-test")
    return {
        "trailing slash": _post(LIST, "/mcp/"),
        "percent-encoded path": encoded_path,
        "cookies": _post(LIST, cookies=["a=1", "b=2"]),
        "base64 body": base64_body,
        "big integer id": _post({**LIST, "id": 2**70}),
        "batch": _post([LIST, {**LIST, "id": 8}]),
        "server discovery": _post({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {}}),
        "not json": {**_post(LIST), "body": "{"},
        "empty body": {**_post(LIST), "body": None},
        "GET without a session": http_event("GET", "/mcp", {"accept": "text/event-stream"}, None),
        "DELETE without a session": http_event("DELETE", "/mcp", {}, None),
        "PUT": put,
        "HEAD": head,
        "another path": _post(LIST, "/other"),
        "host with a port": _post(LIST, headers={**_post(LIST)["headers"], "host": "example.com:8443"}),
        # The refusals that read the body's id (or must not): the app's route leaves a body declared longer than
        # any limit unread, the Lambda route has it in the event; both answer alike.
        "refused Origin, the id echoed": _post(
            LIST, headers={**POST_HEADERS, "origin": "https://evil.example"}
        ),
        "refused Origin, a declared length past the id peek": _post(
            LIST, headers={**POST_HEADERS, "origin": "https://evil.example", "content-length": str(100_000)}
        ),
        "a declared length past the body limit": _post(
            LIST, headers={**POST_HEADERS, "content-length": str(2 * 1024 * 1024)}
        ),
        "a declared length that is not a number": _post(
            LIST, headers={**POST_HEADERS, "content-length": "x1"}
        ),
        "a bearer token (AUTH_MODE none)": _post(
            LIST, headers={**POST_HEADERS, "authorization": "Bearer abc.def"}
        ),
        "payload 1.0": {
            "version": "1.0",
            "resource": "/mcp",
            "path": "/mcp",
            "httpMethod": "POST",
            "headers": dict(POST_HEADERS),
            "multiValueHeaders": {},
            "queryStringParameters": None,
            "requestContext": {"requestId": "route-test", "identity": {"sourceIp": "127.0.0.1"}},
            "body": json.dumps(LIST),
            "isBase64Encoded": False,
        },
    }


@pytest.mark.parametrize("case", list(unusual_events()))
def test_an_unusual_request_is_answered_the_same(case: str) -> None:
    direct, through_app = (Conversation(h) for h in handlers())
    event = unusual_events()[case]
    assert direct.send(event) == through_app.send(event)


def test_an_exception_the_endpoint_lets_escape_is_the_apps_500_with_an_error_id(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    from mcp_lambda.transport import McpEndpoint

    async def fails(self: McpEndpoint, request: Any) -> Any:
        raise RuntimeError("secret detail")

    monkeypatch.setattr(McpEndpoint, "answer", fails)  # what both paths call
    answers = [Conversation(h).send(_post(LIST)) for h in handlers()]
    assert answers[0] == answers[1]
    response = json.loads(answers[0])
    assert response["statusCode"] == 500
    assert "secret detail" not in answers[0]
    assert json.loads(response["body"])["error"]["message"] == "Internal error (<minted>)"
    logged = [record for record in caplog.records if record.getMessage() == "unhandled_error"]
    assert len(logged) == 2 and all(record.exc_info for record in logged)  # each logged its stack with the id


def test_a_container_that_serves_only_mcp_never_imports_fastapi() -> None:
    """Requests to /mcp are the route's: FastAPI and Starlette (with anyio) are imported, and the app built, by the
    first request elsewhere."""
    import subprocess
    import sys

    script = """
import json, sys
import mcp_lambda.handler as entry
from mcp_lambda.protocol.framing import modern_request
from mcp_lambda.testing.apigateway import LocalContext, http_event
body, headers = modern_request("tools/list", request_id=1)
listed = entry.handler(http_event("POST", "/mcp", headers, json.dumps(body)), LocalContext())
assert listed["statusCode"] == 200, listed
call = {"name": "search_products", "arguments": {"keyword": "cup"}}
body, headers = modern_request("tools/call", call, request_id=2)
called = entry.handler(http_event("POST", "/mcp", headers, json.dumps(body)), LocalContext())
assert called["statusCode"] == 200 and '"structuredContent"' in called["body"], called
body, headers = modern_request("tools/call", {"name": "no_such_tool", "arguments": {}}, request_id=3)
refused = entry.handler(http_event("POST", "/mcp", headers, json.dumps(body)), LocalContext())
assert '"error"' in refused["body"], refused
bad = entry.handler(http_event("POST", "/mcp", {**headers, "content-type": "text/plain"}, "{}"), LocalContext())
assert bad["statusCode"] == 415, bad
loaded = sorted(name for name in ("fastapi", "starlette", "anyio") if name in sys.modules)
assert loaded == [] and "app" not in vars(entry.runtime), loaded
other = entry.handler(http_event("GET", "/other", {}, None), LocalContext())
assert other["statusCode"] == 404 and "fastapi" in sys.modules, other
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env={**_env(), "BUSINESS": "demo"}
    )
    assert done.returncode == 0, done.stderr[-2000:]


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if not k.startswith(("BUSINESS", "MANIFEST"))}


@pytest.mark.parametrize(
    ("change", "named"),
    [
        ({"requestContext": "not an object"}, "requestContext.http"),
        ({"requestContext": {"http": "not an object"}}, "requestContext.http"),
        (
            {"requestContext": {"http": {"method": ["POST"], "path": "/mcp", "sourceIp": "1.2.3.4"}}},
            ".method",
        ),
        ({"requestContext": {"http": {"method": "POST", "path": 7, "sourceIp": "1.2.3.4"}}}, ".path"),
        ({"requestContext": {"http": {"method": "POST", "path": "/mcp"}}}, ".sourceIp"),
        ({"headers": ["accept"]}, "headers"),
        ({"rawQueryString": 1}, "rawQueryString"),
        ({"body": {"jsonrpc": "2.0"}}, "body"),
        ({"cookies": "a=1"}, "cookies"),
        ({"cookies": [1]}, "cookies"),
        ({"headers": {"x-odd": 7}}, "header 'x-odd' is not text"),
    ],
)
def test_a_hand_made_event_of_the_wrong_shape_is_a_400_naming_the_part(
    change: dict[str, Any], named: str
) -> None:
    """What only an edited saved event can hold: refused before Mangum, which would fail the invocation on it."""
    event = {**_post(LIST), **change}
    direct, through_app = (Conversation(h) for h in handlers())
    answer = direct.send(event)
    assert answer == through_app.send(event)
    response = json.loads(answer)
    assert response["statusCode"] == 400
    error = json.loads(response["body"])["error"]
    assert error["code"] == -32600 and named in error["message"] and "Bad Request" in error["message"]


def test_an_api_gateway_authorizer_mode_is_answered_the_same() -> None:
    """AUTH_MODE=apigateway: the caller the authorizer vouched for, the 401 without one (its challenge naming the
    metadata URL built from the event), and the metadata document itself (served by the app on both paths)."""
    from mcp_lambda.testing.identity import Identity, authorizer_context

    vouched = authorizer_context(Identity("user-1", scopes=("orders:read",)))
    with_caller = _post(LIST)
    with_caller["requestContext"]["authorizer"] = vouched
    call = _post(
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "tools/call",
            "params": {"name": "search_products", "arguments": {}},
        }
    )
    call["requestContext"]["authorizer"] = vouched
    metadata = http_event(
        "GET", "/.well-known/oauth-protected-resource/mcp", {"host": "api.example.com"}, None
    )
    direct, through_app = (Conversation(h) for h in handlers({"auth_mode": "apigateway"}))
    for event in (_post(LIST), with_caller, call, metadata):
        answer = direct.send(event)
        assert answer == through_app.send(event)
    statuses = [json.loads(direct.send(e))["statusCode"] for e in (_post(LIST), with_caller, metadata)]
    assert statuses[0] == 401 and statuses[1] != 401 and statuses[2] == 200  # (a list without a session: 400)
