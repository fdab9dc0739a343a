"""Business secrets: Secrets Manager (moto server) through Powertools Parameters, `.env.local` locally, and what
a tool sees when a secret is missing or the service is unreachable."""

from __future__ import annotations

import hashlib
import json
import logging
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from tests.support.handlers import build_handler

from mcp_lambda.secrets import (
    EnvFileSecretSource,
    NoSecrets,
    SecretsManagerSource,
    build_secret_source,
    parse_env_file,
)
from mcp_lambda.settings import Settings
from mcp_lambda.testing import McpTestClient
from mcp_lambda.tools import Business, ResultCode, ToolContext, ToolResult, tool
from mcp_lambda.tools.errors import SecretUnavailable
from mcp_lambda.tools.results import execution_result
from mcp_lambda_dev import services
from mcp_lambda_dev.services import LocalService


@tool(description="Use to check the maps key is configured. Returns its fingerprint only.")
def maps_key_fingerprint(ctx: ToolContext) -> ToolResult:
    key = ctx.secret("maps_api_key")
    return execution_result({"fingerprint": hashlib.sha256(key.encode()).hexdigest()[:12]})


@tool(description="Use to test a tool whose secret was never configured.")
def needs_absent_secret(ctx: ToolContext) -> ToolResult:
    ctx.secret("absent_key")
    return execution_result({"ok": True})


@tool(description="Use to test that tools without secrets keep working.")
def no_secret(ctx: ToolContext) -> ToolResult:
    return execution_result({"ok": True})


SECRETS_BUSINESS = Business(
    name="secretbiz", tools=[maps_key_fingerprint, needs_absent_secret, no_secret], version="1.0.0"
)
MAPS_KEY = "mk-live-5f2c9a1e7b"


@pytest.fixture
def secrets_env(monkeypatch: pytest.MonkeyPatch, moto_server: LocalService) -> str:
    monkeypatch.setenv("AWS_ENDPOINT_URL_SECRETS_MANAGER", moto_server.endpoint_url)
    return moto_server.endpoint_url


@pytest.fixture
def secret_id(secrets_env: str, secrets_client: Any) -> str:
    name = f"mcp/secretbiz/{uuid.uuid4().hex[:8]}"
    secrets_client.create_secret(Name=name, SecretString=json.dumps({"maps_api_key": MAPS_KEY, "n": 3}))
    return name


def _fingerprint(value: str) -> str:
    return hashlib.sha256(value.encode()).hexdigest()[:12]


def _legacy(settings: Settings) -> McpTestClient:
    legacy = McpTestClient.over_handler(build_handler(SECRETS_BUSINESS, settings), era="2025-03-26")
    legacy.initialize()
    return legacy


# --- Secrets Manager ------------------------------------------------------------------------------------------


def test_secret_value_is_read_from_a_json_secret(secret_id: str) -> None:
    assert SecretsManagerSource(secret_id).get("maps_api_key") == MAPS_KEY


def test_secret_is_cached_until_max_age(secret_id: str, secrets_client: Any) -> None:
    cached = SecretsManagerSource(secret_id, max_age_seconds=300)
    uncached = SecretsManagerSource(secret_id, max_age_seconds=0)
    assert cached.get("maps_api_key") == uncached.get("maps_api_key") == MAPS_KEY

    secrets_client.put_secret_value(SecretId=secret_id, SecretString=json.dumps({"maps_api_key": "rotated"}))
    time.sleep(0.01)

    assert cached.get("maps_api_key") == MAPS_KEY
    assert uncached.get("maps_api_key") == "rotated"


@pytest.mark.parametrize(
    ("name", "reason"),
    [("absent_key", "missing"), ("n", "unreadable (not a string)")],
)
def test_missing_or_odd_key_is_secret_unavailable(secret_id: str, name: str, reason: str) -> None:
    with pytest.raises(SecretUnavailable) as caught:
        SecretsManagerSource(secret_id).get(name)
    assert caught.value.reason == reason


def test_missing_secret_is_reported_as_missing(secrets_env: str) -> None:
    with pytest.raises(SecretUnavailable) as caught:
        SecretsManagerSource("mcp/no-such-secret").get("maps_api_key")
    assert caught.value.reason == "missing"


def test_secret_that_is_not_json_is_unreadable(secrets_env: str, secrets_client: Any) -> None:
    name = f"mcp/plain/{uuid.uuid4().hex[:8]}"
    secrets_client.create_secret(Name=name, SecretString="not json")
    with pytest.raises(SecretUnavailable) as caught:
        SecretsManagerSource(name).get("maps_api_key")
    assert caught.value.reason.startswith("unreadable")
    assert "not json" not in str(caught.value)


def test_unreachable_secrets_manager_fails_fast_as_unavailable(
    monkeypatch: pytest.MonkeyPatch, fake_aws_credentials: None
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL_SECRETS_MANAGER", f"http://127.0.0.1:{services.free_port()}")
    started = time.monotonic()
    with pytest.raises(SecretUnavailable) as caught:
        SecretsManagerSource("mcp/any").get("maps_api_key")
    assert caught.value.reason == "unavailable"
    assert time.monotonic() - started < 10


# --- what tools see ----------------------------------------------------------------------------------------


def test_tool_gets_its_secret_and_a_missing_one_fails_only_that_tool(secret_id: str) -> None:
    legacy = _legacy(Settings(business="secretbiz", secret_id=secret_id))

    ok = legacy.rpc("tools/call", {"name": "maps_key_fingerprint", "arguments": {}})
    missing = legacy.rpc("tools/call", {"name": "needs_absent_secret", "arguments": {}})
    other = legacy.rpc("tools/call", {"name": "no_secret", "arguments": {}})

    assert ok.result["structuredContent"] == {"fingerprint": _fingerprint(MAPS_KEY)}
    assert missing.result["isError"] is True
    assert missing.result["structuredContent"]["code"] == ResultCode.SECRET_UNAVAILABLE
    assert "missing" in missing.result["content"][0]["text"]
    assert other.result["structuredContent"] == {"ok": True}
    assert MAPS_KEY.encode() not in ok.raw + missing.raw


def test_a_missing_secret_is_logged_at_error_with_its_name_and_where_it_was_looked_for(
    secret_id: str,
) -> None:
    legacy = _legacy(Settings(business="secretbiz", secret_id=secret_id))
    lines: list[logging.LogRecord] = []
    collect = logging.Handler(logging.DEBUG)
    collect.emit = lines.append  # type: ignore[method-assign]
    logging.getLogger("secretbiz").addHandler(collect)
    try:
        legacy.rpc("tools/call", {"name": "maps_key_fingerprint", "arguments": {}})
        legacy.rpc("tools/call", {"name": "needs_absent_secret", "arguments": {}})
    finally:
        logging.getLogger("secretbiz").removeHandler(collect)

    [failed] = [r for r in lines if getattr(r, "event", None) == "mcp_tool_call_failed"]
    assert failed.levelname == "ERROR" and failed.error_type == "SecretUnavailable"  # type: ignore[attr-defined]
    assert failed.secret_name == "absent_key" and failed.secret_reason == "missing"  # type: ignore[attr-defined]
    assert failed.looked_in == f"key 'absent_key' of the Secrets Manager secret SECRET_ID={secret_id}"  # type: ignore[attr-defined]
    assert not any(MAPS_KEY in json.dumps(vars(r), default=str) for r in lines)


def test_unreachable_secret_service_is_an_error_result_and_the_server_keeps_working(
    monkeypatch: pytest.MonkeyPatch, fake_aws_credentials: None
) -> None:
    monkeypatch.setenv("AWS_ENDPOINT_URL_SECRETS_MANAGER", f"http://127.0.0.1:{services.free_port()}")
    legacy = _legacy(Settings(business="secretbiz", secret_id="mcp/unreachable"))

    failed = legacy.rpc("tools/call", {"name": "maps_key_fingerprint", "arguments": {}})

    assert failed.status == 200
    assert failed.result["structuredContent"]["code"] == ResultCode.SECRET_UNAVAILABLE
    assert "unavailable" in failed.result["content"][0]["text"]
    assert legacy.rpc("tools/call", {"name": "no_secret", "arguments": {}}).result["structuredContent"] == {
        "ok": True
    }
    assert legacy.rpc("tools/list").status == 200


# --- .env.local -----------------------------------------------------------------------------------------------


def test_env_file_source_reads_names_in_either_case_and_rereads_on_change(tmp_path: Path) -> None:
    env_file = tmp_path / ".env.local"
    env_file.write_text("# local secrets\nexport MAPS_API_KEY='k-1'\nother_key=plain # note\nEMPTY=\n")
    source = EnvFileSecretSource(env_file)

    assert source.get("maps_api_key") == "k-1"
    assert source.get("other_key") == "plain"
    with pytest.raises(SecretUnavailable, match="missing"):
        source.get("empty")

    env_file.write_text("MAPS_API_KEY=k-2-longer\n")
    assert source.get("maps_api_key") == "k-2-longer"


def test_every_source_says_where_it_looked(tmp_path: Path) -> None:
    env_file = tmp_path / ".env.local"
    env_file.write_text("OTHER=1\n")
    with pytest.raises(SecretUnavailable) as in_file:
        EnvFileSecretSource(env_file).get("maps_api_key")
    with pytest.raises(SecretUnavailable) as nowhere:
        NoSecrets().get("maps_api_key")
    assert in_file.value.looked_in == f"{env_file} as maps_api_key= or MAPS_API_KEY="
    assert "SECRET_ID is not set" in nowhere.value.looked_in and ".env.local" in nowhere.value.looked_in


def test_env_file_source_without_the_file_says_so(tmp_path: Path) -> None:
    with pytest.raises(SecretUnavailable) as caught:
        EnvFileSecretSource(tmp_path / ".env.local").get("maps_api_key")
    assert ".env.local not found" in caught.value.reason


def test_parse_env_file_keeps_quoted_hashes() -> None:
    assert parse_env_file('A="x # y"\nB=z\n=nameless\nnot a pair\n') == {"A": "x # y", "B": "z"}


def test_secret_source_is_chosen_from_settings(tmp_path: Path) -> None:
    env_file = tmp_path / ".env.local"
    assert isinstance(build_secret_source(Settings(secret_id="s"), env_file), SecretsManagerSource)
    assert isinstance(build_secret_source(Settings(), env_file), NoSecrets)
    env_file.write_text("A=b\n")
    assert isinstance(build_secret_source(Settings(), env_file), EnvFileSecretSource)


def test_env_example_lists_names_only() -> None:
    example = Path(__file__).resolve().parents[2] / ".env.example"
    for line in example.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            assert value == "", f"{name} must have no value in .env.example"
