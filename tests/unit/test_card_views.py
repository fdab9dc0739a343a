"""MCP Apps card views on the wire (docs/cards.md): in both eras, a client that declared
`io.modelcontextprotocol/ui` gets `_meta.ui` on card-bound tools, the `ui://` views, and the app-only tools; a
client that declared nothing sees exactly what it saw before."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import pytest
from tests.support.handlers import build_handler

from mcp_lambda.apps import UI_EXTENSION, VIEW_MIME_TYPE, declares_ui
from mcp_lambda.settings import Settings
from mcp_lambda.testing import MODERN, McpTestClient
from mcp_lambda.tools import Business, ToolResult, entities, tool

UI = {"extensions": {UI_EXTENSION: {"mimeTypes": [VIEW_MIME_TYPE]}}}
ROUTE_VIEW = "ui://demo/route_result_card"
PRODUCT_VIEW = "ui://demo/product_list_widget"


@pytest.fixture(scope="module")
def client() -> McpTestClient:
    return McpTestClient.over_handler(build_handler(None, settings=_settings()))


def _settings() -> Settings:
    return Settings(business="demo")


def _modern(client: McpTestClient, capabilities: dict[str, Any] | None) -> McpTestClient:
    return client.clone(era=MODERN, capabilities=capabilities or {})


def _legacy(client: McpTestClient, capabilities: dict[str, Any] | None) -> McpTestClient:
    session = client.clone(era="2025-11-25")
    session.initialize(capabilities)
    return session


ERAS = {"modern": _modern, "legacy": _legacy}


def _tools(session: Any) -> dict[str, dict[str, Any]]:
    return {entry["name"]: entry for entry in session.rpc("tools/list", {}).result["tools"]}


@pytest.mark.parametrize("era", ERAS)
def test_a_ui_client_sees_each_card_tool_point_at_its_view(client: McpTestClient, era: str) -> None:
    tools = _tools(ERAS[era](client, UI))
    assert tools["search_routes"]["_meta"]["ui"] == {"resourceUri": ROUTE_VIEW}
    assert tools["search_products"]["_meta"]["ui"] == {"resourceUri": PRODUCT_VIEW}
    assert tools["refresh_route"]["_meta"]["ui"] == {"resourceUri": ROUTE_VIEW, "visibility": ["app"]}
    assert "_meta" not in tools["search_routes_for_reference"]  # no card binding, no view


@pytest.mark.parametrize("era", ERAS)
@pytest.mark.parametrize(
    "capabilities", [None, {"extensions": {UI_EXTENSION: {}}}], ids=["nothing", "no-mime"]
)
def test_a_client_without_the_extension_sees_todays_tools(
    client: McpTestClient, era: str, capabilities: dict[str, Any] | None
) -> None:
    tools = _tools(ERAS[era](client, capabilities))
    assert "refresh_route" not in tools  # app-only: never in a list a model reads
    assert all("_meta" not in entry for entry in tools.values())
    session = ERAS[era](client, capabilities)
    listed = session.rpc("resources/list", {}).result["resources"]  # the demo's skills, no view
    assert listed and not any(entry["uri"].startswith("ui://") for entry in listed)
    refused = session.rpc("resources/read", {"uri": ROUTE_VIEW})
    assert refused.error["code"] in (-32602, -32002) and ROUTE_VIEW in refused.error["message"]


@pytest.mark.parametrize("era", ERAS)
def test_only_a_ui_client_receives_the_cards_hidden_values(client: McpTestClient, era: str) -> None:
    arguments = {"origin": "guomao", "destination": "sanlitun"}
    with_ui = (
        ERAS[era](client, UI).rpc("tools/call", {"name": "search_routes", "arguments": arguments}).result
    )
    without = (
        ERAS[era](client, None).rpc("tools/call", {"name": "search_routes", "arguments": arguments}).result
    )
    for result in (with_ui, without):
        result.pop("_meta", None)
    # The same text for the model; the card's hidden and undeclared fields only for the client that renders it.
    assert with_ui["content"] == without["content"]
    [card], [seen] = with_ui["structuredContent"]["entities"], without["structuredContent"]["entities"]
    assert card["deeplink"].startswith("page/route?id=") and card["map_image_url"].endswith(".png")
    assert {name: value for name, value in card.items() if name not in ("deeplink", "map_image_url")} == seen


@pytest.mark.parametrize("era", ERAS)
def test_an_app_only_tool_is_called_by_a_ui_client_and_unknown_to_others(
    client: McpTestClient, era: str
) -> None:
    route_id = "route_guomao_sanlitun_taxi_any-day"
    result = (
        ERAS[era](client, UI)
        .rpc("tools/call", {"name": "refresh_route", "arguments": {"route_id": route_id}})
        .result
    )
    planned = ERAS[era](client, UI).rpc(
        "tools/call", {"name": "search_routes", "arguments": {"origin": "guomao", "destination": "sanlitun"}}
    )
    before = planned.result["structuredContent"]["entities"][0]["duration_minutes"]
    after = result["structuredContent"]["entities"][0]
    assert after["route_id"] == route_id and after["duration_minutes"] > before
    refused = ERAS[era](client, None).rpc(
        "tools/call", {"name": "refresh_route", "arguments": {"route_id": route_id}}
    )
    assert refused.error["code"] == -32602 and "Unknown tool" in refused.error["message"]


@pytest.mark.parametrize("era", ERAS)
def test_a_ui_client_lists_and_reads_the_views(client: McpTestClient, era: str) -> None:
    session = ERAS[era](client, UI)
    resources = session.rpc("resources/list", {}).result["resources"]
    listed = {entry["uri"]: entry for entry in resources if entry["uri"].startswith("ui://")}
    assert set(listed) == {ROUTE_VIEW, PRODUCT_VIEW}
    assert all(entry["mimeType"] == VIEW_MIME_TYPE for entry in listed.values())
    contents = session.rpc("resources/read", {"uri": PRODUCT_VIEW}).result["contents"]
    assert [(c["uri"], c["mimeType"]) for c in contents] == [(PRODUCT_VIEW, VIEW_MIME_TYPE)]
    csp = contents[0]["_meta"]["ui"]["csp"]
    assert csp == {"resourceDomains": ["https://img.example.com", "https://maps.example.com"]}
    html = contents[0]["text"]
    assert html.startswith("<!DOCTYPE html>") and "window.McpApp" in html and '"products"' in html


THINGS_MANIFEST = """
tools:
  show: {output: {kind: entities, entity_types: [thing]}}
entities:
  thing:
    schema:
      thing_id: {type: string, is_entity_id: true}
      entity_type: {type: string, llm_visible: false}
      title: {type: string}
    tool_card_binding: {show: thing_card}
"""


@tool(description="Shows a thing.")
async def show(thing_id: str) -> ToolResult:
    return entities([{"entity_type": "thing", "thing_id": thing_id, "title": "A thing"}])


@pytest.fixture(scope="module")
def views_only(tmp_path_factory: pytest.TempPathFactory) -> McpTestClient:
    """A business whose only resources are its card views."""
    folder = tmp_path_factory.mktemp("things")
    (folder / "things.yaml").write_text(THINGS_MANIFEST, encoding="utf-8")
    settings = Settings(business="things", manifest_dir=str(folder))
    return McpTestClient.over_handler(build_handler(Business(name="things", tools=[show]), settings))


def test_a_ui_session_is_told_the_server_has_resources(views_only: McpTestClient) -> None:
    declared = _legacy(views_only, UI).initialize_reply
    plain = _legacy(views_only, None).initialize_reply
    assert declared is not None and plain is not None
    assert "resources" in declared.result["capabilities"]
    assert "resources" not in plain.result["capabilities"]
    assert _legacy(views_only, None).rpc("resources/list", {}).error["code"] == -32601


def test_a_ui_request_is_told_by_server_discover_the_server_has_resources(views_only: McpTestClient) -> None:
    declared = _modern(views_only, UI).rpc("server/discover", {}).result["capabilities"]
    plain = _modern(views_only, None).rpc("server/discover", {}).result["capabilities"]
    assert "resources" in declared and "resources" not in plain
    listed = _modern(views_only, UI).rpc("resources/list", {}).result["resources"]
    assert [entry["uri"] for entry in listed] == ["ui://things/thing_card"]


def test_reading_an_unknown_view_is_a_precise_error(client: McpTestClient) -> None:
    reply = _modern(client, UI).rpc("resources/read", {"uri": "ui://demo/nope"})
    assert reply.error["code"] == -32602 and "ui://demo/nope" in reply.error["message"]


@pytest.mark.parametrize(
    ("capabilities", "expected"),
    [
        (UI, True),
        ({}, False),
        ({"extensions": {UI_EXTENSION: {"mimeTypes": ["text/html"]}}}, False),
        ({"extensions": {UI_EXTENSION: {"mimeTypes": "text/html;profile=mcp-app"}}}, False),
        ({"extensions": []}, False),
        ({"extensions": None}, False),
        # A Mapping that is not a dict (a read-only view) counts as the object it reads as.
        (
            {
                "extensions": MappingProxyType(
                    {UI_EXTENSION: MappingProxyType({"mimeTypes": [VIEW_MIME_TYPE]})}
                )
            },
            True,
        ),
    ],
)
def test_the_extension_counts_only_with_the_view_mime_type(
    capabilities: dict[str, Any], expected: bool
) -> None:
    assert declares_ui(capabilities) is expected


@pytest.mark.parametrize("method", ["tools/list", "resources/list"])
def test_a_list_shaped_by_the_extension_is_never_for_a_shared_cache(
    client: McpTestClient, method: str
) -> None:
    """At 2026-07-28 a UI client's list holds views and app-only tools: `cacheScope: private`, so no shared cache
    hands it to a client that renders none. The list a client without the extension gets stays public."""
    ui = _modern(client, UI).rpc(method, {}).result
    assert ui["cacheScope"] == "private"
    if method == "tools/list":
        plain = _modern(client, None).rpc(method, {}).result
        assert plain["cacheScope"] == "public"
        assert {tool["name"] for tool in ui["tools"]} - {tool["name"] for tool in plain["tools"]} == {
            "refresh_route"
        }
