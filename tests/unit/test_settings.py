"""Settings come from the variables named like their fields; bad values are reported by variable name."""

from __future__ import annotations

import pytest

from mcp_lambda.settings import DEFAULT_ALLOWED_ORIGINS, Settings, SettingsError


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
