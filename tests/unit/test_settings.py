"""Settings come from their variables (the field's name, or for a duration the variable naming its unit), through
the framework's own reader of the environment; bad values are reported by variable name."""

from __future__ import annotations

from datetime import timedelta

import pytest

from mcp_lambda.settings import (
    DEFAULT_ALLOWED_ORIGINS,
    SECTIONS,
    Settings,
    SettingsError,
    get_settings,
    milliseconds,
    seconds,
)


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
    assert (settings.business, settings.secret_id, settings.session_ttl) == ("demo", None, timedelta(hours=1))


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


def test_a_duration_is_read_in_the_unit_its_variable_names() -> None:
    settings = Settings.from_env(
        {"SESSION_TTL_SECONDS": "120", "TASK_TTL_MS": "3600000", "HTTP_TIMEOUT_MS": "250"}
    )
    assert settings.session_ttl == timedelta(minutes=2) and settings.task_ttl == timedelta(hours=1)
    assert settings.http_timeout == timedelta(milliseconds=250)
    assert (seconds(settings.session_ttl), milliseconds(settings.task_ttl)) == (120, 3_600_000)


def test_code_gives_a_duration_by_its_variable_or_as_a_timedelta() -> None:
    by_variable = Settings(task_ttl_ms=3_600_000, session_ttl_seconds=120)
    by_field = Settings(task_ttl=timedelta(hours=1), session_ttl=timedelta(minutes=2))
    assert by_variable == by_field


def test_a_duration_that_is_not_a_whole_number_names_its_variable_and_unit() -> None:
    with pytest.raises(SettingsError, match=r"TASK_TTL_MS: expected a whole number of milliseconds$"):
        Settings.from_env({"TASK_TTL_MS": "1.5"})
    with pytest.raises(SettingsError, match=r"SESSION_TTL_SECONDS: .*greater than or equal to 1 minute"):
        Settings.from_env({"SESSION_TTL_SECONDS": "59"})


def test_variable_names_are_read_in_any_case() -> None:
    settings = Settings.from_env({"business": "shop", "Task_Ttl_Ms": "3600000"})
    assert (settings.business, settings.task_ttl) == ("shop", timedelta(hours=1))


def test_the_process_environment_reads_as_a_given_mapping(monkeypatch: pytest.MonkeyPatch) -> None:
    env = {"BUSINESS": "shop", "ALLOWED_ORIGINS": "", "SESSION_TTL_SECONDS": "", "CIRCUIT_RESET_MS": "4000"}
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    from_process = Settings.from_env()
    assert from_process == Settings.from_env(env)
    assert from_process.allowed_origins == () and from_process.circuit_reset == timedelta(seconds=4)


def test_each_field_has_one_variable_and_sits_in_one_section() -> None:
    assert Settings.variable_of("task_ttl") == Settings.variable_of("TASK_TTL_MS") == "TASK_TTL_MS"
    assert Settings.variable_of("business") == "BUSINESS"
    variables = Settings.variables()
    assert len(set(variables)) == len(variables) == len(Settings.model_fields)
    in_sections = [name for section in SECTIONS for name in section.model_fields]
    assert in_sections == list(Settings.model_fields)
    durations = [name for name in variables if name.endswith(("_MS", "_SECONDS"))]
    assert all(
        isinstance(Settings.model_fields[name].default, timedelta)
        for name, variable in zip(Settings.model_fields, variables, strict=True)
        if variable in durations
    )


def test_a_given_mapping_is_the_whole_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BUSINESS", "from_the_shell")
    monkeypatch.setenv("TASK_TTL_MS", "not a number")
    settings = Settings.from_env({"SESSION_TTL_SECONDS": "120"})
    assert (settings.business, settings.task_ttl, settings.session_ttl) == (
        "demo",
        timedelta(days=1),
        timedelta(minutes=2),
    )


@pytest.mark.parametrize(
    ("variable", "refused", "accepted"),
    [
        ("BUSINESS", "Shop", "shop_2"),
        ("PUBLIC_URL", "https://host.example", "https://host.example/mcp"),
        ("PUBLIC_URL", "https://host example/mcp", "http://127.0.0.1:3000/mcp"),
        ("AUTH_ISSUER", "issuer.example", "https://issuer.example/"),
        ("AUTH_JWKS_URL", "https://issuer.example/ jwks", "https://issuer.example/jwks"),
    ],
)
def test_a_patterned_variable_refuses_a_value_outside_its_pattern_by_name(
    variable: str, refused: str, accepted: str
) -> None:
    with pytest.raises(
        SettingsError, match=rf"^invalid configuration: {variable}: String should match pattern "
    ):
        Settings.from_env({variable: refused})
    settings = Settings.from_env({variable: accepted})
    assert getattr(settings, variable.lower()) == accepted
