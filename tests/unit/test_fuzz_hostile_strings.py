"""Property: a lone surrogate, a control character or a NUL in any string a client sends — a params field, a
`_meta` key or value, an id, a cursor, a URI, a header (Mcp-Name, Mcp-Session-Id, Idempotency-Key, Authorization)
— is answered as the method answers it or refused as a client mistake, in both eras: never a 5xx, never -32603,
and always with the request's id.

Two passes over one request of every method in both eras (each well-formed, so a planted string gets as deep as
it can): a sweep that plants into every string once, and a derandomized fuzz that plants into one to three at a
time. Both are deterministic and take a few seconds.
"""

from __future__ import annotations

import base64
import json
from datetime import timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.support.handlers import build_handler
from tests.support.task_business import RecordingInvoker
from tests.support.wire import POST_HEADERS

from businesses.conformance import BUSINESS
from mcp_lambda.settings import Settings
from mcp_lambda.stores.tasks import MemoryTaskStore
from mcp_lambda.testing import MODERN, HttpReply, LocalContext, McpTestClient, http_event, invoke

INVOKER = RecordingInvoker()
HANDLER = build_handler(
    BUSINESS,
    # The cases' requestStates are signed at import: a day of validity keeps them genuine however long the suite
    # runs before they are sent (15 minutes, the default, once passed on a loaded machine).
    Settings(business="conformance", request_state_key="k" * 32, request_state_ttl=timedelta(days=1)),
    tasks=MemoryTaskStore(),
    invoker=INVOKER,
)
CLIENT = McpTestClient.over_handler(HANDLER)

# What is planted: lone surrogates (legal in JSON text as \ud800 escapes), C0/C1 controls, NUL, DEL, separators.
HOSTILE = ["\ud800", "\udfff", "\udc80", "\x00", "\x01", "\x1b", "\x7f", "\x85", "\n", "\r", "\t", "\u2028"]
# A header value is text decoded from HTTP bytes: anything but a lone surrogate (see the last test).
HEADER_HOSTILE = [c for c in HOSTILE if not 0xD800 <= ord(c) <= 0xDFFF]
CAPABILITIES = {
    "elicitation": {},
    "sampling": {},
    "roots": {},
    "extensions": {"io.modelcontextprotocol/tasks": {}},
}
STATELESS = CLIENT.clone(era=MODERN, capabilities=CAPABILITIES)
SESSION = CLIENT.clone(era="2025-11-25")
SESSION.initialize()


def _cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"o": offset}).encode()).decode().rstrip("=")


def _first_round(method: str, params: dict[str, Any]) -> str:
    """A genuine requestState, so that the next round's planted fields reach the tool."""
    state = STATELESS.rpc(method, params).result["requestState"]
    assert isinstance(state, str)
    return state


def _waiting_task() -> str:
    """A task waiting for input (tasks/get, tasks/update and tasks/cancel then reach their real work)."""
    task_id = STATELESS.rpc(
        "tools/call", {"name": "confirm_delete", "arguments": {"filename": "a.txt"}}
    ).result["taskId"]
    INVOKER.deliver(HANDLER)
    assert isinstance(task_id, str)
    return task_id


ELICITED = {"user_name": {"action": "accept", "content": {"name": "Lin"}}}
TASK = _waiting_task()
# One request of each method, with every string field it reads; `#` tells two requests of one method apart.
PARAMS: dict[str, dict[str, Any]] = {
    "tools/call": {"name": "test_x_mcp_header", "arguments": {"region": "eu-west-1"}},
    "tools/call#state": {
        "name": "test_input_required_result_elicitation",
        "arguments": {},
        "inputResponses": ELICITED,
        "requestState": _first_round("tools/call", {"name": "test_input_required_result_elicitation"}),
    },
    "tools/call#answers": {"name": "test_tool_with_task", "arguments": {}, "inputResponses": ELICITED},
    "tools/call#logging": {
        "name": "test_tool_with_logging",
        "arguments": {},
        "_meta": {"progressToken": "p1"},
    },
    "tools/call#greet": {"name": "greet", "arguments": {"name": "Ana"}},
    "prompts/get": {"name": "test_prompt_with_arguments", "arguments": {"arg1": "a", "arg2": "b"}},
    "prompts/get#state": {
        "name": "test_input_required_result_prompt",
        "inputResponses": {"user_context": {"action": "accept", "content": {"context": "c"}}},
        "requestState": _first_round("prompts/get", {"name": "test_input_required_result_prompt"}),
    },
    "resources/read": {"uri": "test://template/1/data"},
    "resources/read#static": {"uri": "test://static-text"},
    "resources/subscribe": {"uri": "test://watched-resource"},
    "tools/list": {"cursor": _cursor(1)},
    "prompts/list": {"cursor": _cursor(0)},
    "resources/list": {"cursor": _cursor(0)},
    "resources/templates/list": {"cursor": _cursor(0)},
    "completion/complete": {
        "ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
        "argument": {"name": "arg1", "value": "a"},
        "context": {"arguments": {"arg2": "b"}},
    },
    "completion/complete#resource": {
        "ref": {"type": "ref/resource", "uri": "test://template/{id}/data"},
        "argument": {"name": "id", "value": "1"},
    },
    "logging/setLevel": {"level": "debug"},
    "tasks/get": {"taskId": TASK},
    "tasks/update": {"taskId": TASK, "inputResponses": {"confirm": {"action": "accept", "content": {}}}},
    "tasks/cancel": {"taskId": TASK},
    "server/discover": {},
    "ping": {},
}
MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": "2026-07-28",
    "io.modelcontextprotocol/clientCapabilities": CAPABILITIES,
    "io.modelcontextprotocol/clientInfo": {"name": "fuzz", "version": "1.0"},
    "io.modelcontextprotocol/logLevel": "debug",
}
# Headers any request may carry; Authorization is ignored without AUTH_MODE (tests/unit/test_auth_fuzz.py has it).
EXTRA_HEADERS = {
    "idempotency-key": "0f6c7a3e-call-1",
    "authorization": "Bearer abc.def.ghi",
    "last-event-id": "1",
}
# A body field and the header that mirrors it (SEP-2243): planting one, the other follows half of the time.
NAME_FIELDS = {"tools/call": "name", "prompts/get": "name", "resources/read": "uri"}
NAME_FIELDS |= {"tasks/get": "taskId", "tasks/update": "taskId", "tasks/cancel": "taskId"}
MIRRORS = {("body", "params", "arguments", "region"): "mcp-param-region"}


def modern_case(key: str) -> dict[str, Any]:
    method = key.split("#")[0]
    params = {**PARAMS[key], "_meta": {**PARAMS[key].get("_meta", {}), **MODERN_META}}
    headers = {"mcp-protocol-version": "2026-07-28", "mcp-method": method, **EXTRA_HEADERS}
    if method in NAME_FIELDS:
        headers["mcp-name"] = params[NAME_FIELDS[method]]
    if key == "tools/call":
        headers["mcp-param-region"] = params["arguments"]["region"]
    return {"body": {"jsonrpc": "2.0", "id": "req-1", "method": method, "params": params}, "headers": headers}


def session_case(key: str) -> dict[str, Any]:
    assert SESSION.session_id is not None
    headers = {"mcp-session-id": SESSION.session_id, "mcp-protocol-version": "2025-11-25", **EXTRA_HEADERS}
    body = {"jsonrpc": "2.0", "id": 7, "method": key.split("#")[0], "params": PARAMS[key]}
    return {"body": body, "headers": headers}


INITIALIZE = {
    "protocolVersion": "2025-11-25",
    "capabilities": {"roots": {"listChanged": True}, "elicitation": {}},
    "clientInfo": {"name": "fuzz", "title": "Fuzz", "version": "1.0"},
}
CASES = [modern_case(key) for key in sorted(PARAMS)] + [session_case(key) for key in sorted(PARAMS)]
CASES.append(
    {
        "body": {"jsonrpc": "2.0", "id": "init", "method": "initialize", "params": INITIALIZE},
        "headers": {"mcp-protocol-version": "2025-11-25"},
    }
)

Path = tuple[Any, ...]  # keys and indexes down to a string; a final ("key",) means the object key itself


def string_paths(value: Any, path: Path = ()) -> list[Path]:
    """Every place in `value` that holds a string: values, and the keys of objects."""
    if isinstance(value, str):
        return [path]
    if isinstance(value, dict):
        found = [(*path, key, ("key",)) for key in value]
        return found + [p for key, item in value.items() for p in string_paths(item, (*path, key))]
    if isinstance(value, list):
        return [p for index, item in enumerate(value) for p in string_paths(item, (*path, index))]
    return []


def places(case: dict[str, Any]) -> list[Path]:
    """Where a client's string can be planted: everything but the case's own "body"/"headers" keys."""
    return [path for path in string_paths(case) if len(path) > 2 or path[-1] != ("key",)]


def plant(value: Any, path: Path, bad: str, at: int) -> Any:
    """A copy of `value` whose string at `path` has `bad` put in at position `at` (clipped to its length)."""
    if not path:
        return value[: min(at, len(value))] + bad + value[min(at, len(value)) :]
    head, rest = path[0], path[1:]
    if isinstance(value, list):
        return [plant(item, rest, bad, at) if index == head else item for index, item in enumerate(value)]
    if rest == (("key",),):
        return {(plant(key, (), bad, at) if key == head else key): item for key, item in value.items()}
    return {key: plant(item, rest, bad, at) if key == head else item for key, item in value.items()}


def mirrored_header(case: dict[str, Any], path: Path) -> str | None:
    """The header that mirrors the body string at `path`, if any."""
    method = case["body"].get("method")
    if path == ("body", "params", NAME_FIELDS.get(method)):
        return "mcp-name"
    return MIRRORS.get(path)


def follow(case: dict[str, Any], path: Path, header: str) -> dict[str, Any]:
    """`header` carrying the (planted) body string at `path`: as it is, or base64 (the only form for a surrogate)."""
    value: Any = case
    for key in path:
        if not isinstance(value, dict | list) or key not in (
            value if isinstance(value, dict) else range(len(value))
        ):
            return case  # an earlier plant renamed a key on the way
        value = value[key]
    if any(0xD800 <= ord(c) <= 0xDFFF for c in value):
        value = "=?base64?" + base64.b64encode(value.encode("utf-8", "surrogatepass")).decode() + "?="
    return {**case, "headers": {**case["headers"], header: value}}


def send(case: dict[str, Any]) -> None:
    """Send `case` and check its answer: no 5xx, no traceback, no -32603, the request's id."""
    body = case["body"]
    reply = CLIENT.post(body, case["headers"])
    assert reply.status < 500, reply
    assert b"Traceback" not in reply.raw
    if reply.status == 202 or not reply.raw:
        return
    answer = reply.messages[-1] if _is_sse(reply) else reply.body
    assert isinstance(answer, dict), reply
    # As the server reads it: two planted surrogates side by side are one character once parsed; a planted
    # "id" key leaves none (then a notification, or an Invalid Request with a null id).
    assert answer.get("id") == json.loads(json.dumps(body.get("id"))), (answer, body)
    if "error" in answer:
        assert answer["error"]["code"] != -32603, answer


def _is_sse(reply: HttpReply) -> bool:
    return reply.headers.get("content-type", "").startswith("text/event-stream")


def test_every_case_is_answered_normally_before_anything_is_planted() -> None:
    # The baseline: each request is well-formed, so a planted string is what any refusal is about.
    for case in CASES:
        reply = CLIENT.post(case["body"], case["headers"])
        answer = reply.messages[-1] if _is_sse(reply) else reply.body
        assert (reply.status == 200 and "result" in answer) or _refused_by_era(case, answer), (case, answer)


def _refused_by_era(case: dict[str, Any], answer: dict[str, Any]) -> bool:
    # Methods one era does not have, and a 2026-07-28-only input round asked of a session.
    method = case["body"]["method"]
    modern = "mcp-session-id" not in case["headers"]
    only_legacy = method in ("ping", "logging/setLevel", "resources/subscribe")
    only_modern = method in ("server/discover", "tasks/get", "tasks/update", "tasks/cancel")
    if (modern and only_legacy) or (not modern and only_modern):
        return bool(answer["error"]["code"] == -32601)
    return not modern and "use MCP 2026-07-28" in answer.get("error", {}).get("message", "")


def test_the_planting_reaches_every_field_it_is_about() -> None:
    reached = {path for case in CASES for path in places(case)}

    for expected in [
        ("body", "params", "requestState"),
        ("body", "params", "inputResponses", "user_name", ("key",)),
        ("body", "params", "cursor"),
        ("body", "params", "uri"),
        ("body", "params", "taskId"),
        ("body", "params", "_meta", "io.modelcontextprotocol/protocolVersion", ("key",)),
        ("body", "params", "_meta", "io.modelcontextprotocol/clientInfo", "name"),
        ("body", "id"),
        ("body", "method"),
        ("headers", "mcp-name"),
        ("headers", "mcp-session-id"),
        ("headers", "idempotency-key"),
        ("headers", "authorization"),
    ]:
        assert expected in reached, expected
    assert plant({"a": ["xy"]}, ("a", 0), "\x00", 1) == {"a": ["x\x00y"]}
    assert plant({"a": 1}, ("a", ("key",)), "\ud800", 0) == {"\ud800a": 1}


@pytest.mark.parametrize("index", range(len(CASES)))
def test_a_hostile_string_in_any_one_place_is_answered_with_the_id(index: int) -> None:
    case = CASES[index]
    for path in places(case):
        header = path[0] == "headers"
        planted = plant(case, path, "\x00\x1b\x7f" if header else "\ud800\x00\x1b", 3)
        send(planted)
        mirror = None if header else mirrored_header(case, path)
        if mirror is not None:
            send(follow(planted, path, mirror))


@st.composite
def hostile_requests(draw: st.DrawFn) -> dict[str, Any]:
    """One case with one to three of its strings planted (so most of the request still gets deep)."""
    case = original = draw(st.sampled_from(CASES))
    for path in draw(st.lists(st.sampled_from(places(original)), min_size=1, max_size=3, unique=True)):
        alphabet = HEADER_HOSTILE if path[0] == "headers" else HOSTILE
        bad = draw(st.text(st.sampled_from(alphabet), min_size=1, max_size=3))
        case = plant(case, path, bad, draw(st.integers(0, 40)))
        mirror = mirrored_header(original, path)
        if mirror is not None and draw(st.booleans()):
            case = follow(case, path, mirror)
    return case


@settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(case=hostile_requests())
def test_hostile_strings_in_several_places_are_answered_with_the_id(case: dict[str, Any]) -> None:
    send(case)


# Mangum encodes header values and a text body as UTF-8 before the app sees them: a lone surrogate there (only a
# hand-made event can hold one) would fail the invocation, so lambda_adapter.py refuses it first.
@pytest.mark.parametrize("where", ["mcp-name", "mcp-session-id", "idempotency-key", "authorization", "body"])
def test_a_lone_surrogate_that_mangum_cannot_encode_is_a_400_with_the_id(where: str) -> None:
    case = modern_case("tools/call#greet")
    if where == "body":
        raw = json.dumps(case["body"]).replace('"Ana"', '"A\ud800"')  # the character itself, not an escape
        reply = CLIENT.post(None, case["headers"], raw=raw, oracle=False)
    else:
        reply = CLIENT.post(case["body"], {**case["headers"], where: "x\ud800"}, oracle=False)

    assert reply.status == 400 and reply.body["id"] == "req-1", reply
    assert reply.body["error"]["code"] == -32600
    assert ("the body" if where == "body" else f"header '{where}'") in reply.body["error"]["message"]


@pytest.mark.parametrize("part", ["rawPath", "rawQueryString"])
def test_a_lone_surrogate_in_the_path_or_query_is_a_400_naming_it(part: str) -> None:
    case = modern_case("tools/call#greet")
    event = http_event("POST", "/mcp", {**POST_HEADERS, **case["headers"]}, json.dumps(case["body"]))
    event[part] = event[part] + "x\ud800"
    reply = invoke(HANDLER, event, LocalContext())

    body = json.loads(reply["body"])
    assert reply["statusCode"] == 400 and body["id"] == "req-1"
    assert ("path" if part == "rawPath" else "query") in body["error"]["message"]
