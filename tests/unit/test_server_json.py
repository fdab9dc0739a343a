"""`make server-json`: the demo's listing, generated from what it declares, is valid against the MCP Registry's
published schema (the copy in schemas/), and what breaks the schema is named."""

from __future__ import annotations

import json
from pathlib import Path

from mcp_lambda.composition import load_business
from mcp_lambda_tools.deploy.server_json import SCHEMA, SCHEMA_URL, listing_of, main, problems_of, server_json

PUBLISHER = "io.modelcontextprotocol.registry/publisher-provided"


def _demo(**listing: object) -> dict:
    return server_json("demo", load_business("demo"), {**listing_of("demo"), **listing})


def test_the_kept_schema_is_the_registrys_published_one() -> None:
    schema = json.loads(SCHEMA.read_text())
    assert schema["$id"] == SCHEMA_URL
    assert schema["definitions"]["ServerDetail"]["required"] == ["name", "description", "version"]


def test_the_demo_listing_is_valid_and_says_what_the_business_declares() -> None:
    document = _demo()
    assert problems_of(document) == []
    assert document["name"] == "io.github.example-org/demo"
    assert (document["title"], document["version"]) == ("Demo travel & shop", "0.2.0")
    assert document["remotes"][0]["type"] == "streamable-http"
    published = document["_meta"][PUBLISHER]
    assert published["category"] == "travel"
    settings = {entry["name"]: entry for entry in published["configuration"]["settings"]}
    assert settings["DEMO_INVENTORY_URL"]["isRequired"] is False
    assert published["network"] == {"interfaces": ["inventory.get_stock"], "hosts": ["inventory.example.com"]}
    assert published["skills"] == ["skill://plan-a-day-out/SKILL.md", "skill://shop-with-alerts/SKILL.md"]
    assert {"name": "subscribe_product", "readOnly": False} in published["tools"]


def test_an_oauth_business_asks_for_a_bearer_token_as_a_secret_header() -> None:
    (header,) = _demo(auth="oauth")["remotes"][0]["headers"]
    assert header["name"] == "Authorization" and header["isSecret"] is True


def test_what_breaks_the_registry_schema_is_named() -> None:
    document = _demo(
        description="x" * 101,
        namespace="no slash allowed/",
        icons=[{"src": "https://e.com/i.png", "sizes": ["big"]}],
    )
    problems = problems_of(document)
    assert any(p.startswith("description: ") and "is too long" in p for p in problems), problems
    assert any(p.startswith("name: ") for p in problems), problems
    assert any(p.startswith("icons/0/sizes/0: ") for p in problems), problems


def test_make_server_json_writes_the_file_or_refuses(tmp_path: Path) -> None:
    out = tmp_path / "demo.server.json"
    assert (
        main(["demo", "--url", "https://abc123.execute-api.eu-west-1.amazonaws.com/mcp", "--out", str(out)])
        == 0
    )
    document = json.loads(out.read_text())
    assert document["remotes"][0]["url"] == "https://abc123.execute-api.eu-west-1.amazonaws.com/mcp"
    assert "variables" not in document["remotes"][0]
    assert main(["demo", "--url", "not a url", "--out", str(tmp_path / "bad.json")]) == 1
    assert not (tmp_path / "bad.json").exists()
