"""The demo's tools through the real Lambda handler, in each era: what the model and the card receive."""

from __future__ import annotations

import json

import pytest

from businesses.demo import codes
from mcp_lambda.testing import McpTestClient, ProtocolError

ROUTE = {"origin": "guomao", "destination": "capital_airport_t3", "travel_mode": "transit"}


def test_every_tool_is_listed_with_its_schema(client: McpTestClient) -> None:
    tools = {tool["name"]: tool for tool in client.list_tools()}
    # A session client follows export_trip_plan's job with the framework's two job tools.
    job_tools = {"get_job_status", "cancel_job"} if client.era != "2026-07-28" else set()

    assert set(tools) == {
        "search_routes",
        "search_routes_for_reference",
        "search_products",
        "subscribe_product",
        "list_subscriptions",
        "check_stock",
        "export_trip_plan",
        *job_tools,
    }
    assert tools["search_routes"]["inputSchema"]["required"] == ["origin"]
    assert tools["search_products"]["annotations"]["readOnlyHint"] is True


def test_search_routes_answers_one_route_entity(client: McpTestClient) -> None:
    result = client.call_tool("search_routes", {**ROUTE, "departure_date": "2026-08-01"})

    [route] = result.entities
    assert not result.is_error and result.text.startswith("Found 1 route")
    assert route["route_id"] == "route_guomao_capital_airport_t3_transit_2026-08-01"
    assert route["steps"][1]["instruction"] == "Subway from Guomao to Terminal 3"


def test_a_missing_destination_asks_the_user(client: McpTestClient) -> None:
    result = client.call_tool("search_routes", {"origin": "guomao"})

    assert result.is_error and result.code == codes.MISSING_DESTINATION
    assert (result.retryable, result.suggested_action) == (False, "ask_user")


def test_the_same_origin_and_destination_is_an_argument_to_fix(client: McpTestClient) -> None:
    result = client.call_tool("search_routes", {"origin": "sanlitun", "destination": "sanlitun"})

    assert (result.code, result.suggested_action) == (codes.SAME_ORIGIN_AND_DESTINATION, "fix_arguments")


def test_routes_for_reference_compare_the_modes_asked_for(client: McpTestClient) -> None:
    result = client.call_tool(
        "search_routes_for_reference",
        {
            "origin": "zhongguancun",
            "destination": "beijing_south_station",
            "travel_modes": ["taxi", "transit"],
        },
    )

    assert [route["travel_mode"] for route in result.entities] == ["taxi", "transit"]
    assert result.text.startswith("Compared 2 ways")


def test_an_agent_reading_only_text_chains_search_products_to_subscribe_product(
    as_someone: McpTestClient,
) -> None:
    found = as_someone.call_tool("search_products", {"keyword": "glass tea"})

    sentence, projection = found.text.split("\n")
    assert sentence == "Found 1 products for 'glass tea', showing 1."
    [product] = json.loads(projection)["entities"][0]["products"]
    # The model's view: declared, visible fields; never the hidden detail_url or the undeclared image_url.
    assert set(product) == {"product_id", "name", "selling_point", "price_yuan", "rating", "in_stock"}
    assert "page/product" not in found.text and "img.example.com" not in found.text
    subscribed = as_someone.call_tool(
        "subscribe_product", {"product_id": product["product_id"], "alert": "restock"}
    )
    assert not subscribed.is_error and subscribed.structured_content["product_id"] == "p-1004"


def test_search_products_sorts_and_filters(client: McpTestClient) -> None:
    result = client.call_tool(
        "search_products", {"keyword": "cup", "max_price_yuan": 100, "sort": "price_asc"}
    )

    [product_list] = result.entities
    prices = [product["price_yuan"] for product in product_list["products"]]
    assert prices == sorted(prices) and max(prices) <= 100
    assert product_list["entity_type"] == "product_list"


def test_an_unknown_place_is_refused_before_the_tool_runs(client: McpTestClient) -> None:
    result = client.call_tool("search_routes", {"origin": "the_moon"})

    assert result.is_error and result.code == 40000 and result.suggested_action == "fix_arguments"


def test_an_unknown_tool_is_a_protocol_error(client: McpTestClient) -> None:
    with pytest.raises(ProtocolError) as refused:
        client.call_tool("book_a_flight", {})

    assert refused.value.code == -32602 and "Unknown tool" in refused.value.message


def test_subscribing_to_an_in_stock_product_is_a_conflict(client: McpTestClient) -> None:
    result = client.call_tool("subscribe_product", {"product_id": "p-1001", "alert": "restock"})

    assert result.code == codes.ALREADY_IN_STOCK and result.suggested_action == "fix_arguments"


def test_a_price_drop_needs_a_target_below_the_price(client: McpTestClient) -> None:
    missing = client.call_tool("subscribe_product", {"product_id": "p-1002", "alert": "price_drop"})
    too_high = client.call_tool(
        "subscribe_product", {"product_id": "p-1002", "alert": "price_drop", "target_price_yuan": 500}
    )

    assert (missing.code, too_high.code) == (
        codes.TARGET_PRICE_REQUIRED,
        codes.TARGET_PRICE_NOT_BELOW_CURRENT,
    )
    # The nearest valid target as data: the agent offers it without parsing the message.
    assert too_high.details == {"current_price_yuan": 129, "highest_valid_target_yuan": 128}
    assert missing.details is None
