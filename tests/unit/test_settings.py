"""Settings come from the variables named like their fields; bad values are reported by variable name."""

from __future__ import annotations

import pytest

from mcp_lambda.settings import DEFAULT_ALLOWED_ORIGINS, Settings, SettingsError, get_settings


def test_each_field_reads_its_upper_case_variable() -> None:
    settings = Settings.from_env({"BUSINESS": "shop", "TOOLS_PAGE_SIZE": "5", "ALLOWED_HOSTS": "a:*, b"})
    assert (settings.business, settings.tools_page_size, settings.allowed_hosts) == ("shop", 5, ("a:*", "b"))
    assert settings.allowed_origins == DEFAULT_ALLOWED_ORIGINS


def test_an_empty_allow_list_variable_means_none_allowed() -> None:
    assert Settings.from_env({"ALLOWED_ORIGINS": ""}).allowed_origins == ()


def test_bad_values_name_the_variable_never_the_value() -> None:
    with pytest.raises(SettingsError) as caught:
        Settings.from_env({"MAX_BODY_BYTES": "1", "REQUEST_STATE_KEY": "short-secret"})
    message = str(caught.value)
    assert "MAX_BODY_BYTES:" in message and "REQUEST_STATE_KEY:" in message
    assert "short-secret" not in message


def test_dynamodb_sessions_need_a_table() -> None:
    with pytest.raises(SettingsError, match="SESSIONS_TABLE is required"):
        Settings.from_env({"SESSION_STORE": "dynamodb"})


def test_allow_lists_are_comma_separated_not_json() -> None:
    settings = Settings.from_env({"ALLOWED_ORIGINS": "https://a.example, https://b.example,"})
    assert settings.allowed_origins == ("https://a.example", "https://b.example")


def test_an_empty_variable_is_unset() -> None:
    settings = Settings.from_env({"BUSINESS": "", "SECRET_ID": "", "SESSION_TTL_SECONDS": ""})
    assert (settings.business, settings.secret_id, settings.session_ttl_seconds) == ("demo", None, 3600)


def test_plain_construction_never_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BUSINESS", "from_the_shell")
    monkeypatch.setenv("ALLOWED_HOSTS", "shell.example")
    settings = Settings(max_body_bytes=2048)
    assert (settings.business, settings.allowed_hosts, settings.max_body_bytes) == ("demo", (), 2048)
    assert Settings.from_env().business == "from_the_shell"


def test_the_container_settings_are_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    get_settings.cache_clear()
    try:
        monkeypatch.setenv("BUSINESS", "first")
        first = get_settings()
        monkeypatch.setenv("BUSINESS", "second")
        assert get_settings() is first and first.business == "first"
    finally:
        get_settings.cache_clear()
