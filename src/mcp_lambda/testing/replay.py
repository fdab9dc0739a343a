"""Matching a handler's answers against recorded ones: load events/<business>/<conversation>/NN_name.json +
NN_name.expected.json, substitute and capture `{{placeholders}}`, and compare a handler response with what was
recorded (`check_step` raises `Mismatch`, naming the step and the JSON path).

Placeholders: `{{name}}` inside any expected string matches any non-empty text the first time it is seen and
binds it; later occurrences (in expected values or in event headers) must equal the bound value.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import McpLambdaError
from ..transport.sse import decode_sse
from ..wire import LEGACY_REVISIONS
from .apigateway import response_body

PLACEHOLDER = re.compile(r"\{\{([a-z_][a-z0-9_]*)\}\}")
# Response headers worth pinning; a null expected value means "must be absent".
HEADERS_THAT_MATTER = ("content-type", "mcp-session-id", "allow", "retry-after")
# The framework's own minted value in answers: a failed call's error id (it differs on every run).
ERROR_ID = re.compile(r"error id [0-9a-f]{16}")
# Statuses the transport answers before any JSON-RPC era is chosen (a bare JSON-RPC error body).
TRANSPORT_REFUSALS = (403, 406, 413, 415)


@dataclass
class RecordedStep:
    """One saved step: the event sent to the handler and the answer expected back.

    An API Gateway step's `expected` is `{"statusCode", "headers", "body"}`; a task worker step's (the internal
    event the handler queued through `lambda:InvokeFunction`) is `{"result"}`.
    """

    name: str
    event: dict[str, Any]
    expected: dict[str, Any]

    @property
    def worker(self) -> bool:
        """A task worker invocation (the internal event), not an API Gateway request."""
        return "requestContext" not in self.event

    @property
    def request(self) -> Any:
        body = self.event.get("body")
        try:
            return json.loads(body) if body else None
        except ValueError:
            return None

    @property
    def era(self) -> str:
        version = (self.event.get("headers") or {}).get("mcp-protocol-version")
        return "legacy" if version is None or version.strip() in LEGACY_REVISIONS else "modern"

    @property
    def method(self) -> str | None:
        request = self.request
        return request.get("method") if isinstance(request, dict) else None


def load_conversation(folder: Path) -> list[RecordedStep]:
    """The steps of one recorded conversation, in file-name order (`NN_` numbers them).

    Args:
        folder: `events/<business>/<conversation>/`.

    Returns:
        One `RecordedStep` per `NN_name.json` (its answer read from `NN_name.expected.json`).
    """
    steps = []
    for event_path in sorted(folder.glob("*.json")):
        if event_path.name.endswith(".expected.json"):
            continue
        expected_path = event_path.with_name(event_path.stem + ".expected.json")
        steps.append(
            RecordedStep(
                event_path.stem,
                json.loads(event_path.read_text("utf-8")),
                json.loads(expected_path.read_text("utf-8")),
            )
        )
    return steps


def substitute(value: Any, bindings: dict[str, str]) -> Any:
    """Replace bound `{{name}}` placeholders in every string of an event.

    Args:
        value: An event (or any JSON value) as saved.
        bindings: Placeholder name -> the value an earlier answer minted.

    Returns:
        A copy with every placeholder replaced.

    Raises:
        AssertionError: A placeholder no earlier answer bound.
    """
    if isinstance(value, dict):
        return {k: substitute(v, bindings) for k, v in value.items()}
    if isinstance(value, list):
        return [substitute(v, bindings) for v in value]
    if isinstance(value, str):

        def replace(match: re.Match[str]) -> str:
            name = match.group(1)
            if name not in bindings:
                raise AssertionError(f"placeholder {{{{{name}}}}} is used before a response bound it")
            return bindings[name]

        return PLACEHOLDER.sub(replace, value)
    return value


class Mismatch(McpLambdaError, AssertionError):
    """A response differs from its recording; the message names the step and the JSON path."""


def match(expected: Any, actual: Any, bindings: dict[str, str], path: str = "$") -> None:
    """Compare recursively; strings in `expected` may hold placeholders, which bind on first sight.

    Args:
        expected: The recorded value.
        actual: The value the handler answered.
        bindings: Placeholders bound so far; new ones are added.
        path: Where in the answer this value is, for the message (`$.result.tools[0]`).

    Raises:
        Mismatch: The values differ (in type, keys, length or value); the message names the path.
    """
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            raise Mismatch(f"{path}: expected an object, got {actual!r}")
        if set(expected) != set(actual):
            raise Mismatch(f"{path}: keys differ: expected {sorted(expected)}, got {sorted(actual)}")
        for key in expected:
            match(expected[key], actual[key], bindings, f"{path}.{key}")
    elif isinstance(expected, list):
        if not isinstance(actual, list) or len(expected) != len(actual):
            raise Mismatch(f"{path}: expected {expected!r}, got {actual!r}")
        for index, (e, a) in enumerate(zip(expected, actual, strict=True)):
            match(e, a, bindings, f"{path}[{index}]")
    elif isinstance(expected, str) and PLACEHOLDER.search(expected):
        if not isinstance(actual, str):
            raise Mismatch(f"{path}: expected a string like {expected!r}, got {actual!r}")
        _match_template(expected, actual, bindings, path)
    elif type(expected) is not type(actual) or expected != actual:
        raise Mismatch(f"{path}: expected {expected!r}, got {actual!r}")


def _match_template(template: str, actual: str, bindings: dict[str, str], path: str) -> None:
    pattern, new = "", []
    position = 0
    for found in PLACEHOLDER.finditer(template):
        pattern += re.escape(template[position : found.start()])
        name = found.group(1)
        if name in bindings:
            pattern += re.escape(bindings[name])
        elif name in new:
            pattern += f"(?P={name})"
        else:
            pattern += f"(?P<{name}>.+?)"
            new.append(name)
        position = found.end()
    pattern += re.escape(template[position:])
    result = re.fullmatch(pattern, actual, re.DOTALL)
    if result is None:
        raise Mismatch(f"{path}: {actual!r} does not match {template!r} (bound: {bindings})")
    for name in new:
        bindings[name] = result.group(name)


def parse_body(response: dict[str, Any]) -> Any:
    """The response body as JSON (a list of messages for an SSE stream), or None when empty."""
    raw = response_body(response)
    if not raw:
        return None
    content_type = _headers(response).get("content-type", "")
    if content_type.startswith("text/event-stream"):
        return decode_sse(raw)
    return json.loads(raw)


def _headers(response: dict[str, Any]) -> dict[str, str]:
    return {k.lower(): v for k, v in (response.get("headers") or {}).items()}


def observed(response: dict[str, Any]) -> dict[str, Any]:
    """The parts of a handler response the replay compares: status, the headers that matter, the body."""
    headers = _headers(response)
    return {
        "statusCode": int(response["statusCode"]),
        "headers": {name: headers.get(name) for name in HEADERS_THAT_MATTER},
        "body": parse_body(response),
    }


def generalize(value: Any, bindings: dict[str, str]) -> Any:
    """Put the placeholders back into a recorded answer: bound values and minted error ids become `{{name}}`."""
    if isinstance(value, dict):
        return {k: generalize(v, bindings) for k, v in value.items()}
    if isinstance(value, list):
        return [generalize(v, bindings) for v in value]
    if isinstance(value, str):
        for name, bound in bindings.items():
            value = value.replace(bound, "{{" + name + "}}")
        return ERROR_ID.sub("error id {{error_id}}", value)
    return value


def generalize_task_times(body: Any, index: int) -> Any:
    """Recorded task timestamps as placeholders (`{{task_created_at}}`, `{{task_updated_at_NN}}`)."""
    if isinstance(body, list):
        return [generalize_task_times(item, index) for item in body]
    if not isinstance(body, dict):
        return body
    out = {key: generalize_task_times(value, index) for key, value in body.items()}
    if isinstance(out.get("taskId"), str):
        if "createdAt" in out:
            out["createdAt"] = "{{task_created_at}}"
        if "lastUpdatedAt" in out:
            out["lastUpdatedAt"] = f"{{{{task_updated_at_{index:02d}}}}}"
    return out


def check_step(step: RecordedStep, response: dict[str, Any], bindings: dict[str, str]) -> dict[str, Any]:
    """Compare one handler response with its recording.

    Args:
        step: The recorded step.
        response: What the handler returned for the step's event.
        bindings: Placeholders bound so far; new ones are added.

    Returns:
        What was observed (`observed(response)`), for the wire check.

    Raises:
        Mismatch: The status, a header or the body differs; the message starts with the step's name.
    """
    if step.worker:
        match(step.expected["result"], response, bindings, f"{step.name}: result")
        return {"statusCode": None, "headers": {}, "body": None}
    seen = observed(response)
    expected = step.expected
    if seen["statusCode"] != expected["statusCode"]:
        raise Mismatch(
            f"{step.name}: status {seen['statusCode']} != {expected['statusCode']}: {seen['body']}"
        )
    for name, value in expected["headers"].items():
        actual = seen["headers"].get(name)
        if value is None:
            if actual is not None:
                raise Mismatch(f"{step.name}: header {name} must be absent, got {actual!r}")
        elif actual is None:
            raise Mismatch(f"{step.name}: header {name} is missing (expected {value!r})")
        else:
            match(value, actual, bindings, f"{step.name}: header {name}")
    match(expected["body"], seen["body"], bindings, f"{step.name}: body")
    return seen


def check_saved_shape(step: RecordedStep) -> None:
    """A saved event is an API Gateway HTTP API payload-2.0 event, or the task worker's internal event."""
    event = step.event
    if step.worker:
        assert set(event) == {"mcp_lambda.task"}, f"{step.name}: not a task worker event: {sorted(event)}"
        assert set(step.expected) == {"result"}, f"{step.name}: a worker step expects only its result"
        return
    assert event.get("version") == "2.0", f"{step.name}: not a payload 2.0 event"
    assert event.get("rawPath") == "/mcp", f"{step.name}: not a request to /mcp"
    assert event["requestContext"]["http"]["method"] in ("POST", "GET", "DELETE"), step.name
    assert all(name == name.lower() for name in event["headers"]), f"{step.name}: header names are lower-case"
    assert set(step.expected) == {"statusCode", "headers", "body"}, f"{step.name}: expected answer keys"


def check_wire(step: RecordedStep, seen: dict[str, Any]) -> bool:
    """Validate every server message of one answer against the official `mcp_types` wire models.

    Args:
        step: The step the answer belongs to (its era and method choose the models).
        seen: What `check_step` returned for it.

    Returns:
        False when `mcp_types` (a development dependency) is not installed and nothing was checked.
    """
    try:
        from . import wire
    except ImportError:
        return False
    body = seen["body"]
    if body is None:
        return True
    if seen["statusCode"] in TRANSPORT_REFUSALS:
        wire.check_error_shape(body)
    elif step.era == "modern":
        for message in body if isinstance(body, list) else [body]:
            wire.check_modern(message, step.method)
    else:
        wire.check_legacy(body, step.method)
    return True
