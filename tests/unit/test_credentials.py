"""Credentials never leave, through the public test kit on both eras: the caller's bearer token and every value
`ctx.secret()` returned are masked in every log line (a tool's own `ctx.logger` lines included), and a result, an
error message or `details` carrying one is refused with 50040 naming the path, never the value, its log line
carrying a keyed fingerprint. The redaction itself: per-request values, forgotten after, seen by worker threads."""

from __future__ import annotations

import json
import threading

import pytest
from tests.support.log_capture import captured_lines

from mcp_lambda.observability import (
    MASK,
    credentials_in,
    redact,
    register_secret_value,
    request_credentials,
)
from mcp_lambda.testing import MODERN, Identity, McpTestClient
from mcp_lambda.tools import Business, ToolContext, ToolResult, business_error, execution_result, tool
from mcp_lambda.workers import call_within

ERAS = [MODERN, "2024-11-05"]
MAPS_KEY = "mk-live-Zq81xW2vR7"
CALLER = Identity(subject="ada")


@tool(description="Use to test a tool that logs the caller's token.")
def logs_token(ctx: ToolContext) -> ToolResult:
    ctx.logger.info(f"calling the partner with {ctx.caller_token}", extra={"token": ctx.caller_token})
    ctx.logger.warning("raw header", extra={"header": f"Authorization: Bearer {ctx.caller_token}"})
    return execution_result({"success": True, "message": "logged"})


@tool(description="Use to test a tool that returns the caller's token.")
def returns_token(ctx: ToolContext) -> ToolResult:
    return execution_result({"success": True, "message": f"your token is {ctx.caller_token}"})


@tool(description="Use to test a secret in an error's details.")
def secret_in_error(ctx: ToolContext) -> ToolResult:
    key = ctx.secret("maps_api_key")
    ctx.logger.info(f"maps refused key {key}")
    return business_error(40001, "the maps service refused the key", details={"key": key})


@tool(description="Use to test a secret in an error message.")
def secret_in_message(ctx: ToolContext) -> ToolResult:
    return business_error(40002, f"the maps service refused {ctx.secret('maps_api_key')}")


@tool(description="Use to test a secret in an exception.")
def raises_with_secret(ctx: ToolContext) -> ToolResult:
    raise RuntimeError(f"upstream refused key {ctx.secret('maps_api_key')}")


BUSINESS = Business(
    name="creds",
    tools=[logs_token, returns_token, secret_in_error, secret_in_message, raises_with_secret],
    secrets=["maps_api_key"],
)


def _client(era: str) -> McpTestClient:
    return McpTestClient(
        BUSINESS, era, settings={"auth_mode": "jwt"}, caller=CALLER, secrets={"maps_api_key": MAPS_KEY}
    )


@pytest.mark.parametrize("era", ERAS)
def test_a_tool_that_logs_the_callers_token_writes_it_masked(era: str) -> None:
    with captured_lines(BUSINESS.name) as lines, _client(era) as client:
        result = client.call_tool("logs_token", {})

    assert not result.is_error, result.raw
    written = [line for line in lines if line["message"] == "raw header" or "partner" in line["message"]]
    assert len(written) == 2
    assert written[0]["message"] == f"calling the partner with {MASK}" and written[0]["token"] == MASK
    assert written[1]["header"] == f"Authorization: Bearer {MASK}"
    assert "eyJ" not in json.dumps(lines)  # no JWT (its header's base64 starts so) on any line


@pytest.mark.parametrize("era", ERAS)
def test_a_result_carrying_the_callers_token_is_refused_naming_the_path(era: str) -> None:
    with captured_lines(BUSINESS.name) as lines, _client(era) as client:
        refused = client.call_tool("returns_token", {})

    assert refused.code == 50040, refused.raw
    assert (refused.retryable, refused.suggested_action) == (False, "escalate_to_human")
    assert "structuredContent.message" in refused.message and "withheld" in refused.message
    assert "ey" not in refused.message.split("at ", 1)[1]
    [failed] = [line for line in lines if line.get("event") == "mcp_tool_call_failed"]
    assert failed["code"] == 50040 and failed["error_type"] == "CredentialInResult"
    assert "structuredContent.message" in failed["paths"] and len(failed["credential_fingerprints"]) == 1


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(
    ("tool_name", "path"),
    [
        ("secret_in_error", "structuredContent.details.key"),
        ("secret_in_message", "structuredContent.message"),
    ],
)
def test_a_secret_in_an_error_is_refused_and_logged_as_a_fingerprint(
    era: str, tool_name: str, path: str
) -> None:
    with captured_lines(BUSINESS.name) as lines, _client(era) as client:
        refused = client.call_tool(tool_name, {})

    assert refused.code == 50040, refused.raw
    assert path in refused.message and MAPS_KEY not in json.dumps(refused.raw)
    [failed] = [line for line in lines if line.get("event") == "mcp_tool_call_failed"]
    assert path in failed["paths"]
    [fingerprint] = failed["credential_fingerprints"]
    assert len(fingerprint) == 16 and int(fingerprint, 16) >= 0 and fingerprint not in MAPS_KEY
    assert MAPS_KEY not in json.dumps(lines)


@pytest.mark.parametrize("era", ERAS)
def test_a_secret_in_an_exception_is_masked_in_the_stack_and_never_reaches_the_client(era: str) -> None:
    with captured_lines(BUSINESS.name) as lines, _client(era) as client:
        failed = client.call_tool("raises_with_secret", {})

    assert failed.code == 50000 and MAPS_KEY not in json.dumps(failed.raw)
    [line] = [line for line in lines if line.get("event") == "mcp_tool_call_failed"]
    assert f"upstream refused key {MASK}" in line["exception"]
    assert MAPS_KEY not in json.dumps(lines)


def test_a_request_value_is_masked_while_its_request_runs_and_on_its_workers_then_forgotten() -> None:
    token = "eyJhbGciOiJIUzI1NiJ9.request-only-7f3a"
    plain: list[str] = []
    with request_credentials(token):
        assert redact(f"Bearer {token}") == f"Bearer {MASK}"
        assert call_within(5, redact, token) == MASK  # a sync tool's or ctx.http's worker thread
        other = threading.Thread(target=lambda: plain.append(redact(token)))
        other.start()
        other.join()
        assert credentials_in(f'{{"t": "{token}"}}') == [token]
    assert plain == [token]  # a thread of another request (a fresh context) does not know it
    assert redact(token) == token and credentials_in(token) == []


def test_the_pattern_masks_the_longest_value_first_and_json_escaped_forms() -> None:
    register_secret_value("pw-base-91ac")
    register_secret_value("pw-base-91ac-extended")
    register_secret_value('quote"d-secret-7')
    assert redact("a pw-base-91ac-extended b") == f"a {MASK} b"
    assert redact(json.dumps({"v": 'quote"d-secret-7'})) == json.dumps({"v": MASK})
    with request_credentials("tok-short-lived-99"):
        assert redact("pw-base-91ac tok-short-lived-99") == f"{MASK} {MASK}"


def test_nothing_known_returns_the_line_itself() -> None:
    line = '{"level":"INFO","message":"ok"}'
    assert redact(line) == line
