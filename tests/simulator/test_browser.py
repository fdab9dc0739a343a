"""The simulator page in a real browser (Debian's chromium through Playwright), from the user's side: pick a tool,
fill its form, call, and read what the platform will make of the result. One screenshot per step (artifacts/)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from tests.support.browser_page import Page

from mcp_lambda_dev.local.process import running_server

pytestmark = pytest.mark.browser


@pytest.fixture
def demo_page(browser: Any, demo_url: str, screenshots: Path) -> Iterator[Page]:
    page = Page(browser, demo_url, screenshots)
    yield page
    page.close()


def keys_in(value: Any) -> set[str]:
    if isinstance(value, dict):
        return set(value) | {key for item in value.values() for key in keys_in(item)}
    if isinstance(value, list):
        return {key for item in value for key in keys_in(item)}
    return set()


def test_search_products_shows_its_card_and_what_the_model_sees(demo_page: Page) -> None:
    page = demo_page.page
    demo_page.shot("tools")
    # From the keyboard: Enter on the tool, type the keyword (focus moves there), Enter calls.
    page.locator("button[data-tool='search_products']").focus()
    page.keyboard.press("Enter")
    demo_page.expect(page.get_by_label("keyword")).to_be_focused()
    page.keyboard.type("cup")
    page.keyboard.press("Enter")
    demo_page.wait_until_answered("search_products")
    demo_page.shot("search-products")
    details = page.locator("#tool-details")
    demo_page.expect(details).to_contain_text("Search products")  # the title
    demo_page.expect(details).to_contain_text("Use when the user wants to find or browse products")
    demo_page.expect(details.locator(".annotations")).to_contain_text("readOnlyHint")
    demo_page.expect(details.locator(".field-name .required")).to_have_count(1)  # keyword is the one required

    demo_page.expect(page.locator("#cards .widget-id")).to_have_text(["product_list_widget"])
    demo_page.expect(page.locator("#verdict")).to_contain_text("VALID")
    view = demo_page.json_of("#model-view-json")
    assert "entity_type" not in keys_in(view) and "detail_url" not in keys_in(view)
    assert view["entities"][0]["title"].endswith("products for 'cup'")
    tree = page.locator("#model-view .entity-view").first
    demo_page.expect(tree.locator("li.hidden-field[data-field='entity_type']")).to_have_count(1)
    demo_page.expect(tree.locator("li.visible-field[data-field='title']")).to_have_count(1)
    assert tree.locator("li.hidden-field[data-field='detail_url']").count() == len(
        view["entities"][0]["products"]
    )
    # The raw exchange and the call's own log lines.
    demo_page.expect(page.locator("#raw .request")).to_contain_text('"method": "tools/call"')
    demo_page.expect(page.locator("#logs")).to_contain_text('"event":"mcp_tool_call_finished"')
    demo_page.expect(page.locator("#logs")).to_contain_text('"tool_name":"search_products"')


def test_ticking_two_products_narrows_the_entity_the_card_receives(demo_page: Page) -> None:
    page = demo_page.page
    demo_page.pick("search_products")
    page.get_by_label("keyword").fill("cup")
    demo_page.call("search_products")
    boxes = page.locator("fieldset.modifiable input[type=checkbox]")
    assert boxes.count() >= 3
    listed = [
        json.loads(page.locator("fieldset.modifiable li code").nth(i).text_content() or "") for i in range(3)
    ]

    page.get_by_role("button", name="Keep none").click()
    demo_page.expect(page.locator("fieldset.modifiable h4")).to_contain_text("(0 of")
    boxes.nth(0).check()
    boxes.nth(2).focus()
    page.keyboard.press("Space")  # the keyboard ticks a box too
    demo_page.expect(page.locator("fieldset.modifiable h4")).to_contain_text("(2 of")
    demo_page.shot("narrowed")

    narrowed = demo_page.json_of(".narrowed-entity")
    assert [item["product_id"] for item in narrowed["products"]] == [
        listed[0]["product_id"],
        listed[2]["product_id"],
    ]
    assert all("detail_url" in item for item in narrowed["products"]), (
        "the card receives the kept items whole"
    )
    demo_page.expect(page.locator("#cards .card-items > li")).to_have_count(2)


def test_search_routes_for_reference_makes_no_card(demo_page: Page) -> None:
    page = demo_page.page
    demo_page.pick("search_routes_for_reference")
    page.get_by_label("origin").select_option(label="zhongguancun — Zhongguancun")  # a choice, described
    page.get_by_label("destination").select_option(value='"beijing_south_station"')
    modes = page.get_by_role("group", name="travel_modes")
    modes.get_by_role("checkbox", name=re.compile(r"^taxi")).check()  # an array of choices: one box each
    modes.get_by_role("checkbox", name=re.compile(r"^transit")).check()
    demo_page.call("search_routes_for_reference")
    demo_page.shot("no-card")

    demo_page.expect(page.locator("#cards")).to_contain_text("No card")
    demo_page.expect(page.locator("#cards .card")).to_have_count(0)
    demo_page.expect(page.locator("#verdict")).to_contain_text("VALID")
    assert len(demo_page.json_of("#model-view-json")["entities"]) == 2, "the model still reads the routes"
    request = json.loads(page.locator("#raw .request").last.text_content() or "")
    assert request["params"]["arguments"]["travel_modes"] == ["taxi", "transit"]


def test_an_invalid_argument_shows_the_servers_message_at_the_field(demo_page: Page) -> None:
    page = demo_page.page
    demo_page.pick("search_products")
    page.get_by_label("keyword").fill("cup")
    demo_page.expect(page.get_by_label("limit")).to_have_attribute("type", "number")
    page.get_by_label("limit").fill("50")
    demo_page.call("search_products")
    demo_page.shot("invalid-argument")

    message = page.locator(".field.invalid .field-message")
    demo_page.expect(message).to_have_count(1)
    demo_page.expect(message).to_have_text("Server: limit: Input should be less than or equal to 10")
    answer = json.loads(page.locator("#raw .response").last.text_content() or "")
    assert (
        "limit: Input should be less than or equal to 10" in answer["result"]["structuredContent"]["message"]
    )
    demo_page.expect(page.get_by_label("limit")).to_have_attribute("aria-invalid", "true")


def test_a_legacy_session_calls_the_same_tool(demo_page: Page) -> None:
    page = demo_page.page
    page.locator("#mode").select_option("2024-11-05")
    demo_page.expect(page.locator("#status")).to_contain_text("Connected at 2024-11-05")
    demo_page.pick("search_products")
    page.get_by_label("keyword").fill("cup")
    demo_page.call("search_products")
    demo_page.shot("legacy-session")

    headers = json.loads(page.locator("#raw .exchange .headers").first.text_content() or "")
    assert headers["mcp-protocol-version"] == "2024-11-05" and headers["mcp-session-id"]
    demo_page.expect(page.locator("#cards .widget-id")).to_have_text(["product_list_widget"])


def test_conformance_input_required_tool_runs_to_completion(browser: Any, screenshots: Path) -> None:
    tool = "test_input_required_result_multi_round"
    with running_server("conformance", POWERTOOLS_LOG_LEVEL="INFO") as url:
        conformance = Page(browser, url.removesuffix("mcp"), screenshots)
        page = conformance.page
        conformance.pick(tool)
        page.get_by_role("button", name=f"Call {tool}", exact=True).click()
        requests = page.locator("#input-requests")
        conformance.expect(requests).to_contain_text("Step 1: What is your name?")
        page.get_by_label("name").fill("Lin")
        conformance.shot("round-1")
        page.get_by_role("button", name="Send the answers (round 2)").click()
        conformance.expect(requests).to_contain_text("Step 2: What is your favorite color?")
        page.get_by_label("color").fill("blue")
        conformance.shot("round-2")
        page.get_by_role("button", name="Send the answers (round 3)").click()
        conformance.wait_until_answered(tool)
        conformance.shot("complete")

        conformance.expect(requests).to_be_hidden()
        conformance.expect(page.locator("#model-view")).to_contain_text("Done: Lin likes blue")
        conformance.expect(page.locator("#raw .exchange")).to_have_count(3)
        second = json.loads(page.locator("#raw .request").nth(1).text_content() or "")
        assert second["params"]["inputResponses"]["step1"] == {"action": "accept", "content": {"name": "Lin"}}
        assert second["params"]["requestState"]
        conformance.expect(page.locator("#logs")).to_contain_text('"outcome":"success"')
        conformance.close()


def test_a_business_error_reads_as_an_error_result_never_valid(demo_page: Page) -> None:
    page = demo_page.page
    demo_page.expect(page.locator("#results")).to_be_hidden()  # no empty panels before the first call
    demo_page.pick("subscribe_product")
    page.get_by_label("product_id").fill("p-9999")
    page.locator("select[name=alert]").select_option(value=json.dumps("restock"))  # option values are JSON
    demo_page.call("subscribe_product")
    demo_page.shot("business-error")

    verdict = page.locator("#verdict")
    demo_page.expect(verdict.locator("[data-outcome]").first).to_have_attribute(
        "data-outcome", "error_result"
    )
    demo_page.expect(verdict).to_contain_text("ERROR RESULT")
    demo_page.expect(verdict.locator(".error-fields")).to_contain_text("40401")
    demo_page.expect(verdict.locator(".verdict.valid")).to_have_count(0)


def test_an_error_with_details_shows_them_as_data(demo_page: Page) -> None:
    page = demo_page.page
    demo_page.pick("subscribe_product")
    page.get_by_label("product_id").fill("p-1002")
    page.locator("select[name=alert]").select_option(value=json.dumps("price_drop"))
    page.get_by_label("target_price_yuan").fill("500")
    demo_page.call("subscribe_product")

    fields = page.locator("#verdict .error-fields")
    demo_page.expect(fields).to_contain_text("40004")
    assert json.loads(fields.locator(".error-details").inner_text()) == {
        "current_price_yuan": 129,
        "highest_valid_target_yuan": 128,
    }


def test_a_task_client_follows_the_task_to_its_result(browser: Any, screenshots: Path) -> None:
    tool = "slow_compute"
    with running_server("conformance", POWERTOOLS_LOG_LEVEL="INFO") as url:
        conformance = Page(browser, url.removesuffix("mcp"), screenshots)
        page = conformance.page
        page.get_by_label("tasks (extension)").check()
        page.get_by_role("button", name="Reconnect").click()
        conformance.expect(page.locator("#status")).to_contain_text("Connected at 2026-07-28")
        conformance.pick(tool)
        page.get_by_label("seconds").fill("0")
        conformance.call(tool)
        conformance.shot("task-complete")

        methods = [
            json.loads(node.text_content() or "")["method"] for node in page.locator("#raw .request").all()
        ]
        assert methods[0] == "tools/call" and "tasks/get" in methods[1:]
        first = json.loads(page.locator("#raw .request").first.text_content() or "")
        assert first["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]["extensions"] == {
            "io.modelcontextprotocol/tasks": {},
            "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]},  # cards, by default
        }
        conformance.expect(page.locator("#model-view")).to_contain_text("Computed")
        conformance.close()


def test_unticking_cards_shows_what_a_client_without_cards_receives(demo_page: Page) -> None:
    page = demo_page.page
    page.get_by_label("cards (MCP Apps extension)").uncheck()
    page.get_by_role("button", name="Reconnect").click()
    # The page's client lists the 7 tools a model sees; the app-only card action comes from the page's view client.
    demo_page.expect(page.locator("#status")).to_contain_text("8 tools")
    demo_page.pick("search_products")
    page.get_by_label("keyword").fill("cup")
    demo_page.call("search_products")
    received = json.loads(page.locator("#raw .response").first.text_content() or "")
    [entity] = received["result"]["structuredContent"]["entities"]
    assert entity["products"] and not any("detail_url" in item for item in entity["products"])
    page.get_by_label("cards (MCP Apps extension)").check()
    page.get_by_role("button", name="Reconnect").click()
    demo_page.expect(page.locator("#status")).to_contain_text("8 tools")


def test_an_app_only_tool_is_listed_and_called_as_a_view_calls_it(demo_page: Page) -> None:
    page = demo_page.page
    demo_page.pick("refresh_route")
    page.get_by_label("route_id").fill("route_guomao_capital_airport_t3_taxi_any-day")
    demo_page.call("refresh_route")

    request = json.loads(page.locator("#raw .exchange .request").first.text_content() or "")
    declared = request["params"]["_meta"]["io.modelcontextprotocol/clientCapabilities"]
    assert "text/html;profile=mcp-app" in declared["extensions"]["io.modelcontextprotocol/ui"]["mimeTypes"]
    demo_page.expect(page.locator("#verdict")).to_contain_text("VALID")
    demo_page.expect(page.locator("#cards .widget-id")).to_have_text(["route_result_card"])
