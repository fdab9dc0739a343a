"""`Business(card_views=...)` and `@tool(access=Access(visibility=...))` are checked where they are written: at import for a
tool, at start for the views against the manifest (docs/cards.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from mcp_lambda.apps import CardViewError, CardViewSet
from mcp_lambda.manifest import Manifest
from mcp_lambda.tools import Access, Business, ToolResult, entities, tool
from mcp_lambda.tools.cards import CardAction, CardViews
from mcp_lambda.tools.errors import ToolSignatureError

MANIFEST = {
    "tools": {
        "show": {"output": {"kind": "entities", "entity_types": ["thing"]}},
        "poke": {"output": {"kind": "entities", "entity_types": ["thing"]}},
    },
    "entities": {
        "thing": {
            "schema": {
                "thing_id": {"type": "string", "is_entity_id": True},
                "entity_type": {"type": "string", "llm_visible": False},
                "title": {"type": "string"},
            },
            "tool_card_binding": {"show": "thing_card"},
        }
    },
}


@tool(description="Shows a thing.")
async def show(thing_id: str) -> ToolResult:
    return entities([{"entity_type": "thing", "thing_id": thing_id, "title": "A thing"}])


@tool(description="Pokes a thing from its card.", access=Access(visibility=["app"]))
async def poke(thing_id: str) -> ToolResult:
    return entities([{"entity_type": "thing", "thing_id": thing_id, "title": "A poked thing"}])


@tool(description="Shows a thing without a card action.")
async def model_only(thing_id: str) -> ToolResult:
    return entities([])


def _build(card_views: CardViews | None, tools: list[Any] | None = None) -> CardViewSet | None:
    business = Business(name="things", tools=tools or [show, poke], card_views=card_views)
    return CardViewSet.build(business, Manifest.model_validate(MANIFEST))


def test_a_bound_widget_without_a_file_gets_the_generic_view() -> None:
    views = _build(None)
    assert views is not None
    view = views.view("ui://things/thing_card")
    assert view is not None and "window.McpApp" in view.html and '"thing_id"' in view.html
    assert view.meta == {"csp": {}, "prefersBorder": True}  # nothing declared: the host's restrictive default


def test_a_business_view_file_is_served_with_the_helper_where_it_asks(tmp_path: Path) -> None:
    (tmp_path / "thing_card.html").write_text(
        "<!DOCTYPE html><html><body><p>mine</p><!-- mcp-app-helper --></body></html>", encoding="utf-8"
    )
    views = _build(CardViews(directory=tmp_path, image_domains=("https://*.example.com",)))
    assert views is not None
    view = views.view("ui://things/thing_card")
    assert view is not None and "<p>mine</p>" in view.html and "window.McpApp" in view.html
    assert "mcp-app-helper -->" not in view.html
    assert view.contents()["_meta"]["ui"]["csp"] == {"resourceDomains": ["https://*.example.com"]}


def test_the_schema_in_the_generic_view_cannot_end_its_script(tmp_path: Path) -> None:
    manifest = {
        **MANIFEST,
        "entities": {"thing": {**MANIFEST["entities"]["thing"], "description": "</script><b>"}},
    }
    business = Business(name="things", tools=[show, poke])
    views = CardViewSet.build(business, Manifest.model_validate(manifest))
    assert views is not None
    html = views.views[0].html
    assert "</script><b>" not in html and "\\u003c/script>\\u003cb>" in html


@pytest.mark.parametrize(
    ("card_views", "message"),
    [
        (CardViews(image_domains=("img.example.com",)), "'img.example.com' is not an origin"),
        (CardViews(image_domains=("https://img.example.com/path",)), "is not an origin"),
        (
            CardViews(actions={"nope_card": [CardAction("poke", "Poke")]}),
            "'nope_card', a widget the manifest",
        ),
        (
            CardViews(actions={"thing_card": [CardAction("gone", "Poke")]}),
            "'gone', a tool the business lacks",
        ),
        (
            CardViews(actions={"thing_card": [CardAction("show", "Show")]}),
            "must be declared @tool(access=Access(visibility",
        ),
        (
            CardViews(actions={"thing_card": [CardAction("poke", "Poke", {"thing_id": "secret_id"})]}),
            "takes secret_id, not fields of its entities",
        ),
    ],
)
def test_views_that_do_not_fit_stop_the_start(card_views: CardViews, message: str) -> None:
    with pytest.raises(CardViewError, match=message.replace("(", r"\(")):
        _build(card_views)


def test_a_view_file_of_no_bound_widget_stops_the_start(tmp_path: Path) -> None:
    (tmp_path / "thing_crad.html").write_text("<!DOCTYPE html>", encoding="utf-8")
    with pytest.raises(CardViewError, match=r"thing_crad.html is the view of no widget .*thing_card"):
        _build(CardViews(directory=tmp_path))


def test_a_business_without_cards_or_visibility_adds_nothing() -> None:
    assert CardViewSet.build(Business(name="plain", tools=[model_only]), None) is None


def test_without_a_manifest_there_are_no_views_and_the_actions_wait_for_one() -> None:
    card_views = CardViews(actions={"thing_card": [CardAction("poke", "Poke")]})
    views = CardViewSet.build(Business(name="things", tools=[show, poke], card_views=card_views), None)
    assert views is not None and views.views == []  # the app-only tool still carries its visibility


@pytest.mark.parametrize(
    ("visibility", "message"),
    [
        ("app", "must be a list"),
        ([], "one or both of model, app"),
        (["agent"], "one or both of model, app"),
    ],
)
def test_a_wrong_visibility_is_refused_at_import(visibility: Any, message: str) -> None:
    with pytest.raises(ToolSignatureError, match=message):
        tool(description="x", name="x", access=Access(visibility=visibility))(lambda: None)


def test_visibility_is_kept_as_declared() -> None:
    both = tool(description="x", name="x", access=Access(visibility=["model", "app", "model"]))(lambda: None)
    assert both.visibility == ("model", "app") and both.model_visible
    assert poke.visibility == ("app",) and not poke.model_visible
    assert show.visibility is None and show.model_visible
    assert (
        "_meta" not in poke.to_wire()
    )  # `_meta.ui` is for clients that declared MCP Apps (protocol/apps.py)


def test_the_generic_view_ships_in_the_staged_package(tmp_path: Path) -> None:
    from mcp_lambda_tools.build.package_stage import stage

    stage("demo", tmp_path)
    generic = tmp_path / "demo" / "mcp_lambda" / "apps" / "generic"
    assert {"card.html", "card.css", "card.js", "mcp-app.js"} <= {path.name for path in generic.iterdir()}
