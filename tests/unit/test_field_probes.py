"""Who sees which field, probed through the public test kit on both eras: a field without its scope is removed
from what the client and the model receive, a hidden value the text carries is refused (50010), and hidden values
reach only clients that render cards. tests/integration/test_field_probes_http.py runs the same over HTTP."""

from __future__ import annotations

import dataclasses
import importlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import businesses
from mcp_lambda.apps import UI_EXTENSION, VIEW_MIME_TYPE
from mcp_lambda.testing import Identity, McpTestClient

PROBE = Path(__file__).resolve().parents[1] / "support" / "field_probe"
businesses.__path__.append(str(PROBE / "businesses"))
try:
    BUSINESS = importlib.import_module("businesses.fieldprobe").BUSINESS
finally:  # loaded once, then off the path again: no other test's list of the checkout's businesses names it
    businesses.__path__.remove(str(PROBE / "businesses"))
CARDS = {"extensions": {UI_EXTENSION: {"mimeTypes": [VIEW_MIME_TYPE]}}}
ERAS = ("2026-07-28", "2024-11-05")  # the stateless revision, and the platform's session revision
SCOPED = "accounts:balance"


def client(
    era: str, scopes: tuple[str, ...] = (), auth_mode: str = "apigateway", **options: Any
) -> McpTestClient:
    """A card client (an MCP Apps host at 2026-07-28; the platform at 2024-11-05) calling as one user."""
    options.setdefault("capabilities", CARDS)
    settings = {"auth_mode": auth_mode, "manifest_dir": str(PROBE / "manifest")}
    return McpTestClient(
        options.pop("business", BUSINESS), era, settings=settings, caller=Identity("ana", scopes), **options
    )


@pytest.fixture(params=ERAS)
def era(request: pytest.FixtureRequest) -> Iterator[str]:
    yield request.param


def _read(result: Any) -> str:
    """Everything of a result a model may read: its text and its structuredContent."""
    return result.text + json.dumps(result.structured_content)


def test_a_field_without_its_scope_is_removed_from_the_data_and_the_text(era: str) -> None:
    with client(era) as without:
        result = without.call_tool("show_account")

    [account] = result.entities
    assert "balance_yuan" not in account  # removed, not nulled
    assert "12345" not in _read(result)
    assert account["risk_score"] == 0.8731  # a card client still gets the card's hidden values


def test_a_field_with_its_scope_reaches_the_card_and_the_model(era: str) -> None:
    with client(era, (SCOPED,)) as granted:
        result = granted.call_tool("show_account")

    [account] = result.entities
    assert account["balance_yuan"] == 12345
    assert '"balance_yuan":12345' in result.text  # the projection the model reads


def test_without_authentication_no_caller_holds_a_scope(era: str) -> None:
    # AUTH_MODE=none: an authorizer's claims still name the caller, but its scopes grant nothing.
    with client(era, (SCOPED,), auth_mode="none") as claimed:
        result = claimed.call_tool("show_account")

    assert "balance_yuan" not in result.entities[0] and "12345" not in _read(result)


def test_the_published_output_schema_does_not_require_a_scoped_field(era: str) -> None:
    with client(era) as without:
        [tool] = [tool for tool in without.list_tools() if tool["name"] == "show_account"]

    schema = tool["outputSchema"]["anyOf"][0] if "anyOf" in tool["outputSchema"] else tool["outputSchema"]
    account = schema["properties"]["entities"]["items"]
    assert "balance_yuan" in account["properties"] and "balance_yuan" not in account["required"]


@pytest.mark.parametrize(
    ("tool", "field"),
    [("show_risk", "risk_score"), ("show_code", "internal_code"), ("show_balance", "balance_yuan")],
)
def test_a_hidden_value_in_the_text_is_refused_naming_the_field(era: str, tool: str, field: str) -> None:
    with client(era) as without:
        result = without.call_tool(tool)

    assert result.is_error and result.code == 50010
    assert f"entities[0].{field}: the field is " in str(result.message)  # the path, never the value
    assert (
        "0.8731" not in _read(result) and "87.31" not in _read(result) and "QX7K" not in _read(result).upper()
    )
    assert "12,345" not in _read(result)


def test_the_scope_makes_the_balance_in_the_text_the_models_own(era: str) -> None:
    with client(era, (SCOPED,)) as granted:
        result = granted.call_tool("show_balance")

    assert not result.is_error and result.text.startswith("Balance: 12,345 yuan.")


def test_a_client_that_renders_no_card_gets_only_what_the_model_may_see() -> None:
    with client("2026-07-28", (SCOPED,), capabilities={}) as model_only:
        result = model_only.call_tool("show_account")

    assert result.entities == [
        {"account_id": "acct-1", "entity_type": "account", "name": "Blue Shop", "balance_yuan": 12345}
    ]


def test_the_platform_and_an_apps_host_get_the_card_data() -> None:
    with client("2024-11-05") as platform, client("2026-07-28") as apps_host:
        seen = [platform.call_tool("show_account").entities, apps_host.call_tool("show_account").entities]

    for [account] in seen:
        assert (account["risk_score"], account["internal_code"]) == (0.8731, "QX7K")


def test_a_business_may_give_hidden_values_to_every_client() -> None:
    everyone = dataclasses.replace(BUSINESS, hidden_values="all_clients")
    with client("2026-07-28", capabilities={}, business=everyone) as model_only:
        [account] = model_only.call_tool("show_account").entities

    assert account["risk_score"] == 0.8731 and "balance_yuan" not in account


@pytest.mark.parametrize(
    ("capabilities", "card_data"), [(CARDS, True), ({}, False)], ids=["apps host", "no cards"]
)
def test_a_tasks_result_is_delivered_as_its_reader_may_see_it(capabilities: Any, card_data: bool) -> None:
    with client("2026-07-28", capabilities=capabilities) as caller:
        state = caller.call_tool_as_task("show_account_later").wait()

    assert state.result is not None
    [account] = state.result.entities
    assert "balance_yuan" not in account and ("risk_score" in account) is card_data


def test_the_protected_resource_metadata_offers_the_field_scopes() -> None:
    with client("2026-07-28") as caller:
        reply = caller.send("GET", None, path="/.well-known/oauth-protected-resource", oracle=False)

    assert SCOPED in reply.body["scopes_supported"]
