"""Who sees which field, probed over HTTP: `make run`'s server (AUTH_MODE=jwt, tokens from the kit's issuer)
serving the probe business, on both eras. tests/unit/test_field_probes.py runs the same in-process."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from mcp_lambda.apps import UI_EXTENSION, VIEW_MIME_TYPE
from mcp_lambda.testing import Identity, McpTestClient, shared_issuer
from mcp_lambda_dev.local.process import running_server

PROBE = Path(__file__).resolve().parents[1] / "support" / "field_probe"
CARDS = {"extensions": {UI_EXTENSION: {"mimeTypes": [VIEW_MIME_TYPE]}}}
ERAS = ("2026-07-28", "2024-11-05")


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    issuer = shared_issuer()
    with running_server(
        "fieldprobe",
        extra_path=[str(PROBE)],
        MANIFEST_DIR=str(PROBE / "manifest"),
        AUTH_MODE="jwt",
        AUTH_ISSUER=issuer.url,
        AUTH_JWKS_URL=issuer.jwks_url,
        AUTH_AUDIENCE="fieldprobe",
    ) as url:
        yield url


def client(url: str, era: str, *scopes: str, capabilities: Any = CARDS) -> McpTestClient:
    token = shared_issuer().token(Identity("ana", scopes), audience="fieldprobe")
    return McpTestClient.over_http(
        url, era, headers={"authorization": f"Bearer {token}"}, capabilities=capabilities
    )


@pytest.mark.parametrize("era", ERAS)
def test_a_field_without_its_scope_is_not_on_the_wire(server: str, era: str) -> None:
    with client(server, era) as without, client(server, era, "accounts:balance") as granted:
        hidden, shown = without.call_tool("show_account"), granted.call_tool("show_account")

    assert "balance_yuan" not in hidden.entities[0] and "12345" not in hidden.text
    assert "12345" not in json.dumps(hidden.structured_content)
    assert shown.entities[0]["balance_yuan"] == 12345 and '"balance_yuan":12345' in shown.text


@pytest.mark.parametrize("era", ERAS)
def test_a_hidden_number_in_the_text_is_refused(server: str, era: str) -> None:
    with client(server, era) as caller:
        result = caller.call_tool("show_risk")

    assert result.is_error and result.code == 50010
    assert "entities[0].risk_score" in str(result.message) and "87.31" not in str(result.message)


def test_a_client_that_renders_no_card_receives_no_hidden_value(server: str) -> None:
    with client(server, "2026-07-28", capabilities={}) as model_only:
        result = model_only.call_tool("show_account")

    assert result.entities == [{"entity_type": "account", "account_id": "acct-1", "name": "Blue Shop"}]
