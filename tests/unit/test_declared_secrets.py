"""A business declares the secret keys it reads (`Business(secrets=[...])`): the test kit refuses any other key,
`make run` names the declared keys it cannot find, and a malformed declaration stops the import."""

from __future__ import annotations

from pathlib import Path

import pytest

from mcp_lambda.settings import Settings
from mcp_lambda.testing import DeclaredSecrets, McpTestClient, StaticSecrets
from mcp_lambda.tools import Business, ToolContext, ToolResult, execution_result, tool
from mcp_lambda.tools.business import BusinessDefinitionError
from mcp_lambda_dev.local.server import secrets_note


@tool(description="Use to read one secret's length. Not for anything else.")
def key_length(name: str, ctx: ToolContext) -> ToolResult:
    return execution_result({"length": len(ctx.secret(name))})


DECLARING = Business(name="declaring", tools=[key_length], secrets=["clinic_api_key"])
UNDECLARED = Business(name="undeclared", tools=[key_length])
VALUES = {"clinic_api_key": "k-123", "stray_key": "s-456"}


def test_a_declared_key_is_read_and_an_undeclared_one_is_refused_in_tests() -> None:
    with McpTestClient(DECLARING, "2026-07-28", secrets=VALUES) as client:
        declared = client.call_tool("key_length", {"name": "clinic_api_key"})
        stray = client.call_tool("key_length", {"name": "stray_key"})

    assert declared.structured_content == {"length": 5}
    assert stray.is_error and stray.code == 50020
    assert "s-456" not in str(stray.raw)


def test_a_business_that_declares_nothing_is_not_checked() -> None:
    with McpTestClient(UNDECLARED, "2026-07-28", secrets=VALUES) as client:
        assert client.call_tool("key_length", {"name": "stray_key"}).structured_content == {"length": 5}


def test_the_refusal_names_the_key_and_the_fix_and_the_frameworks_own_keys_pass() -> None:
    source = DeclaredSecrets(
        StaticSecrets({**VALUES, "log_fingerprint_key": "f" * 16}), "clinic", ["clinic_api_key"]
    )
    with pytest.raises(LookupError) as refused:
        source.get("stray_key")
    assert str(refused.value) == (
        "secret 'stray_key' is not declared by business 'clinic' (add it to Business(secrets=[...]))"
    )
    assert source.get("log_fingerprint_key") == "f" * 16 and source.get("clinic_api_key") == "k-123"


@pytest.mark.parametrize("secrets", ["clinic_api_key", ["ok", ""], [3]])
def test_secrets_must_be_a_list_of_key_names(secrets: object) -> None:
    with pytest.raises(BusinessDefinitionError, match=r"secrets must be a list of key names"):
        Business(name="bad", tools=[key_length], secrets=secrets)  # type: ignore[arg-type]


def test_make_run_names_the_declared_keys_it_cannot_find(
    tmp_path: Path, more_businesses: tuple[str, ...]
) -> None:
    env_file = tmp_path / ".env.local"
    env_file.write_text("clinic_api_key=k-123\n")
    settings = Settings(business="demo")
    assert secrets_note(settings, env_file) is None  # the demo declares none

    clinic = tmp_path / "more" / "businesses" / more_businesses[0] / "__init__.py"
    clinic.write_text(
        clinic.read_text().replace(
            "tools=[hello])", "tools=[hello], secrets=['clinic_api_key', 'clinic_partner_key'])"
        )
    )
    note = secrets_note(Settings(business=more_businesses[0]), env_file)
    assert note == (
        f"make run: business '{more_businesses[0]}' declares secrets it cannot find: clinic_partner_key (missing); "
        f"put them in {env_file} (name=value lines): until then the tools that read them answer 50020"
    )
    assert "k-123" not in note
    env_file.write_text("clinic_api_key=k-123\nclinic_partner_key=p-1\n")
    assert secrets_note(Settings(business=more_businesses[0]), env_file) is None
